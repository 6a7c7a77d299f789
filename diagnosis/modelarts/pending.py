"""A Pending job (rulings M10): observe, unless it has waited more than 30 minutes.

Past 30 minutes since `metadata.create_time`, the events (no level filter) are read: one stating
insufficient resources is RESOURCE_INSUFFICIENT, HIGH; scheduling wording alone is MEDIUM;
nothing is `observe` again, with the resource pool to check.
"""

from __future__ import annotations

from datetime import timedelta

from diagnosis.modelarts.causes import recommendations
from diagnosis.modelarts.citations import cite_winner
from diagnosis.modelarts.events import fetch_events, read_events
from diagnosis.modelarts.fault_level import fault_level
from diagnosis.modelarts.messages import format_duration
from diagnosis.modelarts.ops import DETAILS
from diagnosis.modelarts.parse import Job
from diagnosis.modelarts.permission import permission_denied
from diagnosis.modelarts.run import Run, aware
from diagnosis.modelarts.signals import choose
from diagnosis.modelarts.wording import fill, inline, secondary_part
from diagnosis.models import Confidence, Diagnosis
from diagnosis.timeutil import iso

PENDING_AGE = timedelta(minutes=30)  # rulings M10


async def pending_path(run: Run, job: Job) -> Diagnosis:
    t = run.t
    created = job.create_time
    if created is None:
        run.limitations.append(t("limit.no_create_time"))
        run.next_steps.append(t("next.look_again"))
        return run.result(
            "observe",
            root_cause=t("root.pending", phase=job.phase, secondary=secondary_part(t, job), age="?"),
        )
    age = run.now - aware(created)
    run.cite(DETAILS, "metadata.create_time", iso(created), int(age.total_seconds()))
    if age <= PENDING_AGE:
        run.next_steps.append(t("next.look_again"))
        return run.result(
            "observe",
            root_cause=t(
                "root.pending",
                phase=job.phase,
                secondary=secondary_part(t, job),
                age=format_duration(age, run.lang),
            ),
        )
    answer = await fetch_events(run, level=None)
    signals = [s for s in read_events(run, answer, level=None) if s.category == "RESOURCE_INSUFFICIENT"]
    winner = choose(signals)
    if winner is None and run.denied:
        return permission_denied(run, run.denied[0])
    if winner is None:
        run.next_steps.append(t("next.look_again"))
        run.next_steps.append(t("next.check_pool"))
        return run.result(
            "observe",
            root_cause=t(
                "root.pending_long",
                phase=job.phase,
                secondary=secondary_part(t, job),
                age=format_duration(age, run.lang),
            ),
        )
    cite_winner(run, winner)
    confidence: Confidence = "HIGH" if winner.direct else "MEDIUM"
    root = t(
        "root.pending_resources",
        age=format_duration(age, run.lang),
        line=inline(winner.line),
        meaning=t(winner.rule.meaning_key, **fill(winner.values)),
    )
    if confidence == "MEDIUM":
        root = t("root.most_likely", cause=root)
    return run.result(
        "diagnosed",
        category="RESOURCE_INSUFFICIENT",
        confidence=confidence,
        fault_level=fault_level(job, "RESOURCE_INSUFFICIENT", confidence),
        signature=winner.line,
        root_cause=root,
        recommendations=recommendations(run, winner.rule.fixes, winner.values, medium=confidence == "MEDIUM"),
    )
