"""The stages of the job's latest run (`running_records[].stages[]`), or a runbook stage list."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from diagnosis.evidence.lenient import as_dict, as_int, as_list, as_text
from diagnosis.modelarts.parse.times import TimeReading, read_time


@dataclass(frozen=True)
class Stage:
    path: str
    name: str
    start: TimeReading | None
    end: TimeReading | None
    status: str | None  # runbook vocabulary only
    duration: timedelta | None  # runbook vocabulary only
    start_text: str | None
    end_text: str | None
    end_field: str


@dataclass(frozen=True)
class Stages:
    record_order: int | None
    record_index: int | None
    stages: list[Stage]
    record_count: int

    def open_stage(self) -> Stage | None:
        """The stage in progress: runbook `status: RUNNING`, or a start and no end (latest record)."""
        for stage in reversed(self.stages):
            if stage.status is not None:
                if stage.status.upper() == "RUNNING":
                    return stage
                continue
            if stage.start is not None and stage.end is None and not stage.end_text:
                return stage
        return None


def _duration(value: Any) -> timedelta | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        # The runbook does not give the unit: values this large can only be milliseconds.
        seconds = value / 1000 if value > 10**7 else value
        return timedelta(seconds=seconds)
    text = str(value).strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return _duration(float(text))
    clock = re.fullmatch(r"(\d+):(\d{2}):(\d{2})", text)
    if clock:
        return timedelta(hours=int(clock[1]), minutes=int(clock[2]), seconds=int(clock[3]))
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*(ms|d|h|m|s)(?![a-z])", text)
    if not parts:
        return None
    units = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    return timedelta(seconds=sum(float(number) * units[unit] for number, unit in parts))


def parse_stages(body: Any) -> Stages | None:
    if isinstance(body, list):
        return _runbook_stages(body, "")
    if not isinstance(body, dict):
        return None
    records = body.get("running_records")
    if isinstance(records, list):
        latest_index: int | None = None
        latest_order = -1
        for index, record in enumerate(records):
            order = as_int(as_dict(record).get("record_order"))
            order = index if order is None else order
            if order >= latest_order:
                latest_index, latest_order = index, order
        if latest_index is None:
            return Stages(record_order=None, record_index=None, stages=[], record_count=0)
        stages: list[Stage] = []
        for index, item in enumerate(as_list(as_dict(records[latest_index]).get("stages"))):
            item = as_dict(item)
            name = as_text(item.get("name")) or as_text(item.get("stage_name")) or f"stage {index + 1}"
            path = f"running_records[{latest_index}].stages[{index}]"
            stages.append(_stage(item, path=path, name=name, end_field="end_time"))
        return Stages(
            record_order=latest_order, record_index=latest_index, stages=stages, record_count=len(records)
        )
    if isinstance(body.get("stages"), list):
        return _runbook_stages(body["stages"], "stages")
    return None


def _stage(item: dict[str, Any], *, path: str, name: str, end_field: str) -> Stage:
    """One stage, whichever vocabulary named it (`end_field` is what evidence cites for its end)."""
    return Stage(
        path=path,
        name=name,
        start=read_time(item.get("start_time")),
        end=read_time(item.get("end_time")),
        status=as_text(item.get("status")),
        duration=_duration(item.get("duration")),
        start_text=as_text(item.get("start_time")),
        end_text=as_text(item.get("end_time")),
        end_field=end_field,
    )


def _runbook_stages(items: list[Any], prefix: str) -> Stages:
    stages: list[Stage] = []
    for index, item in enumerate(items):
        item = as_dict(item)
        name = as_text(item.get("stage_name")) or as_text(item.get("name")) or f"stage {index + 1}"
        path = f"{prefix}[{index}]" if prefix else f"[{index}]"
        stages.append(_stage(item, path=path, name=name, end_field="status"))
    return Stages(record_order=None, record_index=None, stages=stages, record_count=1)
