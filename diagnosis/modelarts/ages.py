"""How old a stage or a log line is, read in the zones it could be in (rulings M8, G15).

A time written without a zone is read both as UTC and as China time (UTC+8); readings in the
future are dropped and the smallest age counts (TimeReading.age). When the readings fall on
both sides of the 1-hour stall threshold, a limitation says the zone is in doubt.
"""

from __future__ import annotations

from datetime import timedelta

from diagnosis.modelarts.parse import Stage, TimeReading
from diagnosis.modelarts.run import Run

STALL_AGE = timedelta(hours=1)  # rulings M8


def stage_age(run: Run, stage: Stage) -> timedelta | None:
    if stage.duration is not None and stage.start is None:
        return stage.duration
    if stage.start is None:
        return None
    age = stage.start.age(run.now, threshold=STALL_AGE)
    if age is None:
        return None
    value, doubtful = age
    if doubtful:
        run.limitations.append(
            run.t(
                "limit.zone_doubt",
                what=run.t("what.stage_start", name=stage.name),
                text=stage.start.text,
            )
        )
    return value


def newest_log_age(run: Run, readings: list[TimeReading]) -> timedelta | None:
    """The age of the newest log line across tasks, counted only if every possible reading agrees."""
    ages: list[timedelta] = []
    doubtful = False
    for reading in readings:
        result = reading.age(run.now, threshold=STALL_AGE)
        if result is None:
            continue
        age, doubt = result
        doubtful = doubtful or doubt
        ages.append(age)
    if not ages:
        return None
    newest = min(ages)
    if doubtful:
        run.limitations.append(run.t("limit.zone_doubt", what=run.t("what.log_line"), text=readings[0].text))
    return newest
