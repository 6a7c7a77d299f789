"""Evidence that names a category: read from task messages, the platform's own analysis, error
events and log previews with the rule table (rules.py), and ordered: consequences last, the
earliest failure first, then the category order (CATEGORY_PRECEDENCE).

Pure functions of parsed answers: no I/O, no clock, no language (the workflow words the result).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import UTC, datetime
from typing import Literal

from diagnosis.logs.rules import FindingKind, exception_kind, own_fault
from diagnosis.logs.scan import parse_timestamp, parse_traceback, scan_text
from diagnosis.modelarts import rules
from diagnosis.modelarts.parse.events import Event
from diagnosis.modelarts.parse.job import Job
from diagnosis.modelarts.parse.preview import Preview
from diagnosis.modelarts.parse.times import read_time
from diagnosis.modelarts.parse.user_diagnosis import UserDiagnosis
from diagnosis.models import Category
from diagnosis.timeutil import naive_log_instant

DETAILS = "ShowTrainingJobDetails"
EVENTS = "ListTrainingJobEvents"
PREVIEW = "ShowTrainingJobLogsPreview"
USER_DIAGNOSIS = "ShowTrainingJobUserDiagnosis"
EXCERPT_CHARS = 600

SignalKind = Literal["message", "analysis", "run_end", "record", "phase", "event", "log"]
# At equal strength the runbook's A-E order: messages and the platform's analysis, then events, logs.
KIND_ORDER: dict[str, int] = {
    "message": 0,
    "analysis": 1,
    "run_end": 2,
    "record": 3,
    "phase": 4,
    "event": 5,
    "log": 6,
}

ANALYSIS_RULE = rules.ANALYSIS_RULE
# What the training process itself wrote (its task message, its log): untrusted text, which can
# claim a failure outside the process but not attest it.
CONTAINER_OUTPUT: frozenset[str] = frozenset({"message", "log"})
COLLECTIVE: Category = "COMMUNICATION_FAILURE"


@dataclass
class Signal:
    """One piece of evidence that names a category."""

    rule: rules.Rule
    kind: SignalKind
    source: str
    field: str
    line: str
    excerpt: str
    values: dict[str, str] = dataclass_field(default_factory=dict)
    task: str | None = None
    traceback: bool = False
    timestamp: datetime | None = None
    order: int = 0
    exit_code: int | None = None
    consequence_seen: bool = False  # the log scanner saw it follow another failure
    # What the log table names the line (a traceback's last line: `traceback` when it is the
    # code's own exception rather than a device or communication error).
    finding_kind: FindingKind | None = None
    # A claim of a failure outside the process that the same output's own exception contradicts.
    contradicted: bool = False
    # When it happened, for ordering: `timestamp` as an instant (a log time without an offset read
    # as UTC, or as China time when UTC would put it after the log was read). None: `timestamp`.
    instant: datetime | None = None

    @property
    def when(self) -> datetime | None:
        return self.instant if self.instant is not None else self.timestamp

    @property
    def category(self) -> Category:
        return self.rule.category or "UNKNOWN"

    @property
    def direct(self) -> bool:
        return self.rule.direct

    @property
    def consequence(self) -> bool:
        return self.rule.consequence or self.consequence_seen

    @property
    def own_fault(self) -> bool:
        """The code's own exception: a traceback whose last line no device or node row names."""
        return self.finding_kind is not None and own_fault(self.finding_kind, self.line)

    @property
    def set_aside(self) -> bool:
        return self.consequence or self.contradicted

    @property
    def early_exit(self) -> bool:
        """A task message that settles the diagnosis at once (no further call): a traceback naming a
        cause, or an explicit device-memory line."""
        if self.kind != "message" or self.consequence:
            return False
        return self.traceback or self.rule.name == "device_oom"


def shorten(text: str, limit: int = EXCERPT_CHARS) -> str:
    text = text.strip("\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def without_timestamp(line: str) -> str:
    """A log line without its leading timestamp: the signature is the failing text itself."""
    text = line.strip()
    reading = parse_timestamp(text)
    if reading is not None and text.startswith(reading.text):
        return text[len(reading.text) :].strip() or text
    return text


def code_location(frames: Sequence[object]) -> str | None:
    """The file of the innermost frame, relative to the job's code directory when recognisable."""
    for frame in reversed(list(frames)):
        text = str(getattr(frame, "file", None) or frame)
        found = re.search(r'File "([^"]+)"', text) or re.search(r"(/[^\s\"]+\.py)", text)
        path = found.group(1) if found else text if text.endswith(".py") else None
        if not path:
            continue
        inside = re.search(r"/user-job-dir/[^/]+/(.+)$", path)
        return inside.group(1) if inside else path.rsplit("/", 1)[-1]
    return None


def traceback_excerpt(text: str, final_line: str) -> str:
    """The line before the exception line (usually the failing statement) and the exception line."""
    lines = [line for line in text.splitlines() if line.strip()]
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].strip() == final_line.strip():
            return "\n".join(lines[max(0, index - 1) : index + 1])
    return final_line


def strength(signal: Signal) -> tuple[int, int, int]:
    """Sort key: non-consequences first, direct first, then the category order (strongest first)."""
    return (int(signal.set_aside), int(not signal.direct), rules.category_rank(signal.category))


def _sort_time(instant: datetime | None) -> datetime:
    """Log times of one job are written in one zone: naive stays naive, aware goes to UTC. Compared
    to the second: lines written with and without fractions (`01:31:07` and `01:31:07.412` of one
    failure) are simultaneous, and their order in the log decides."""
    if instant is None:
        # A failure with no time at all counts as earlier (tracebacks carry no timestamps).
        return datetime.min
    if instant.tzinfo is not None:
        instant = instant.astimezone(UTC).replace(tzinfo=None)
    return instant.replace(microsecond=0)


def _set_aside_contradicted_claims(signals: Sequence[Signal]) -> None:
    """A failure outside the process (a hardware fault, a memory kill, a shortage, a time limit)
    that only the task's own output names is a claim: an exception of the code itself in the same
    output (same task, same kind of text) contradicts it, and it is set aside. Platform text (the
    analysis, fault records, run end reasons, events) is never set aside so."""
    for signal in signals:
        if signal.kind not in CONTAINER_OUTPUT or not signal.rule.outside_process:
            continue
        signal.contradicted = any(
            other.own_fault
            and not other.consequence
            and other.kind == signal.kind
            and other.task == signal.task
            for other in signals
        )


def _set_aside_collectives_after_a_peer(signals: Sequence[Signal]) -> None:
    """Across workers the earliest failure is the root cause: a collective-communication failure
    in one task's output follows another task's own failure (the peer died, the collective broke
    or timed out), whatever its wording, unless the times show it came first."""
    own = [
        signal
        for signal in signals
        if signal.kind in CONTAINER_OUTPUT
        and signal.task is not None
        and signal.direct
        and not signal.set_aside
        and signal.category != COLLECTIVE
    ]
    for signal in signals:
        if signal.kind not in CONTAINER_OUTPUT or signal.category != COLLECTIVE or signal.consequence:
            continue
        signal.consequence_seen = any(
            other.task != signal.task and not _earlier(signal.when, other.when) for other in own
        )


def _earlier(first: datetime | None, second: datetime | None) -> bool:
    """Whether the times show `first` strictly before `second` (no time shows nothing)."""
    if first is None or second is None:
        return False
    return _sort_time(first) < _sort_time(second)


def choose(signals: Sequence[Signal]) -> Signal | None:
    """Consequences last; within one source kind the earliest failure wins (across workers, the
    first to fail is the root cause);
    across kinds the category order decides, then the runbook's A-E order.

    Before that, the container's claims that its own exception contradicts are set aside, and so
    are collective-communication failures that follow another worker's own failure."""
    _set_aside_contradicted_claims(signals)
    _set_aside_collectives_after_a_peer(signals)
    best_per_kind: list[Signal] = []
    for kind in KIND_ORDER:
        members = [signal for signal in signals if signal.kind == kind]
        if members:
            members.sort(
                key=lambda s: (
                    int(s.set_aside),
                    int(not s.direct),
                    _sort_time(s.when),
                    rules.category_rank(s.category),
                    s.order,
                )
            )
            best_per_kind.append(members[0])
    best_per_kind.sort(key=lambda s: (*strength(s), KIND_ORDER[s.kind]))
    return best_per_kind[0] if best_per_kind else None


def text_signal(text: str, *, kind: SignalKind, source: str, field: str, task: str | None) -> Signal | None:
    """A traceback's last line (with the failing file), else the most telling line a rule names."""
    traceback = parse_traceback(text)
    if traceback is not None and traceback.final_line:
        matched = rules.match_exception(traceback.final_line)
        if matched is not None:
            rule, values = matched
            values = dict(values)
            location = code_location(traceback.frames)
            if location:
                values.setdefault("file", location)
            return Signal(
                rule=rule,
                kind=kind,
                source=source,
                field=field,
                line=traceback.final_line.strip(),
                excerpt=traceback_excerpt(text, traceback.final_line),
                values=values,
                task=task,
                traceback=True,
                finding_kind=exception_kind(traceback.final_line.strip()),
            )
    best: Signal | None = None
    for line in text.splitlines():
        matched = rules.match_line(line)
        if matched is None:
            continue
        candidate = Signal(
            rule=matched[0],
            kind=kind,
            source=source,
            field=field,
            line=line.strip(),
            excerpt=shorten(line.strip()),
            values=matched[1],
            task=task,
        )
        # At equal strength the more specific row names the line (a device-memory code before a
        # generic torch_npu code on the line above it).
        if best is None or (strength(candidate), rules.rank(candidate.rule)) < (
            strength(best),
            rules.rank(best.rule),
        ):
            best = candidate
    return best


def message_signals(job: Job) -> list[Signal]:
    """Rule A: the task messages (`status.task_statuses[].message`)."""
    signals: list[Signal] = []
    for status in job.task_statuses:
        if not status.message:
            continue
        found = text_signal(
            status.message, kind="message", source=DETAILS, field=f"{status.path}.message", task=status.task
        )
        if found is not None:
            found.exit_code = status.exit_code
            found.order = status.index
            signals.append(found)
    return signals


def platform_signals(job: Job) -> list[Signal]:
    """Rule A: the platform's own verdicts: its analysis, its fault records, a `Timeout` phase."""
    signals: list[Signal] = []
    for analysis in job.analyses:
        matched = rules.match_line(analysis.description)
        rule, values = matched if matched is not None else (ANALYSIS_RULE, {})
        signals.append(
            Signal(
                rule=rule,
                kind="analysis",
                source=DETAILS,
                field=analysis.path,
                line=analysis.description.strip(),
                excerpt=shorten(analysis.description),
                values={**values, "solution": analysis.solution or ""},
                order=analysis.index,
            )
        )
    for index, record in enumerate(job.fault_records):
        scenario_rule = rules.FAULT_SCENARIO_RULES.get(record.fault_scenario or "")
        matched = rules.match_line(record.reason) if record.reason else None
        if scenario_rule is not None:
            rule, values, where = rules.RULES_BY_NAME[scenario_rule], {}, "fault_scenario"
        elif matched is not None:
            rule, values, where = matched[0], matched[1], "reason"
        else:
            continue
        text = " ".join(part for part in (record.fault_scenario, record.reason) if part)
        signals.append(
            Signal(
                rule=rule,
                kind="record",
                source=DETAILS,
                field=f"{record.path}.{where}",
                line=text,
                excerpt=shorten(text),
                values=values,
                task=record.related_task,
                order=index,
            )
        )
    for index, end in enumerate(job.run_ends):
        # The platform's reason a run ended (and the worker that ended it): a time limit, a node
        # fault, ... stated by the platform itself.
        matched = rules.match_line(end.end_reason)
        if matched is None:
            continue
        signals.append(
            Signal(
                rule=matched[0],
                kind="run_end",
                source=DETAILS,
                field=f"{end.path}.end_reason",
                line=end.end_reason.strip(),
                excerpt=shorten(end.end_reason),
                values=matched[1],
                task=end.end_related_task,
                order=index,
            )
        )
    if job.phase == "Timeout":
        signals.append(
            Signal(
                rule=rules.TIMEOUT_PHASE_RULE,
                kind="phase",
                source=DETAILS,
                field="status.phase",
                line="Timeout",
                excerpt="Timeout",
            )
        )
    return signals


def diagnosis_signals(diagnosis: UserDiagnosis) -> list[Signal]:
    """The platform's log-based diagnosis: each conclusion that words what it found. A Fatal or
    Error level with a description no row recognises is still the platform's clear statement
    (HIGH, UNKNOWN); a Warning-level conclusion only points at a cause."""
    signals: list[Signal] = []
    for conclusion in diagnosis.conclusions:
        text = conclusion.text or " ".join(part for part in (conclusion.kind, conclusion.code) if part)
        if not text:
            continue
        matched = rules.match_line(text)
        if matched is None and conclusion.text is None:
            continue
        rule, values = matched if matched is not None else (ANALYSIS_RULE, {})
        if not diagnosis.serious and rule.direct:
            rule = rules.indirect(rule)
        field = f"{conclusion.path}.{conclusion.text_field}" if conclusion.text_field else conclusion.path
        signals.append(
            Signal(
                rule=rule,
                kind="analysis",
                source=USER_DIAGNOSIS,
                field=field,
                line=text.strip(),
                excerpt=shorten(text),
                values={**values, "solution": conclusion.solution or ""},
                task=conclusion.tasks[0] if conclusion.tasks else None,
                order=conclusion.index,
            )
        )
    return signals


def _event_time(event: Event) -> datetime | None:
    reading = read_time(event.time)
    if reading is None:
        return None
    return reading.readings[0].replace(tzinfo=None) if reading.ambiguous else reading.readings[0]


def event_signals(events: Sequence[Event], *, level: str | None) -> list[Signal]:
    """Rule B: events whose message states the problem (of the asked level, when one was asked)."""
    signals: list[Signal] = []
    for event in events:
        if level and event.level and event.level.lower() != level.lower():
            continue
        matched = rules.match_line(event.message)
        if matched is None:
            continue
        signals.append(
            Signal(
                rule=matched[0],
                kind="event",
                source=EVENTS,
                field=event.path,
                line=event.message.strip(),
                excerpt=shorten(f"[{event.time}] {event.message}" if event.time else event.message),
                values=matched[1],
                timestamp=_event_time(event),
                order=event.index,
            )
        )
    return signals


def _kind_rule(kind: str) -> tuple[rules.Rule, dict[str, str]] | None:
    rule = rules.KIND_RULES.get(kind)
    return (rule, {}) if rule is not None else None


def _log_instant(written: datetime | None, now: datetime | None) -> datetime | None:
    """A log line's time as an instant: one without an offset is read as UTC unless that puts it
    after the moment the log was read (then it is China time)."""
    if written is None or written.tzinfo is not None:
        return written
    return naive_log_instant(written, not_after=now)


def preview_signals(task: str, preview: Preview, *, now: datetime | None = None) -> list[Signal]:
    """The extended path: traceback and error lines of a task's log preview (logscan, then the
    platform lines a generic scanner may not flag: OBS, downloader, Ascend pre-checks, quotas)."""
    findings = scan_text(preview.content)
    signals: list[Signal] = []
    line_numbers: list[int] = []
    covered: set[int] = set()
    for order, finding in enumerate(findings.findings):
        if finding.exit_code is not None:
            # `[ModelArts Service Log]Training end with return code: N` restates the exit code:
            # it names no cause, so the exit-code verdict reads it through the task's exit_code instead.
            covered.add(finding.line_number)
            continue
        is_traceback = finding.traceback is not None or finding.kind == "traceback"
        if is_traceback:
            matched = rules.match_exception(finding.line)
        else:
            matched = rules.match_line(finding.line) or _kind_rule(finding.kind)
        if matched is None:
            continue
        covered.add(finding.line_number)
        excerpt = finding.line
        if is_traceback:
            before = [
                line for line in finding.context if line.strip() and line.strip() != finding.line.strip()
            ]
            excerpt = "\n".join([*before[-1:], finding.line])
        line_numbers.append(finding.line_number)
        signals.append(
            Signal(
                rule=matched[0],
                kind="log",
                source=PREVIEW,
                field=preview.content_field,
                line=without_timestamp(finding.line),
                excerpt=shorten(excerpt),
                values=matched[1],
                task=task,
                traceback=is_traceback,
                timestamp=finding.timestamp.value if finding.timestamp is not None else None,
                instant=_log_instant(finding.timestamp.value if finding.timestamp is not None else None, now),
                order=order,
                consequence_seen=finding.is_consequence,
                finding_kind=finding.kind,
            )
        )
    for hit in rules.rule_hits(preview.content):
        if hit.line_number in covered:
            continue
        reading = parse_timestamp(hit.line)
        line_numbers.append(hit.line_number)
        signals.append(
            Signal(
                rule=hit.rule,
                kind="log",
                source=PREVIEW,
                field=preview.content_field,
                line=without_timestamp(hit.line),
                excerpt=shorten(hit.line.strip()),
                values=hit.values,
                task=task,
                timestamp=reading.value if reading is not None else None,
                instant=_log_instant(reading.value if reading is not None else None, now),
                order=10_000 + hit.line_number,
            )
        )
    _carry_times_forward(sorted(zip(line_numbers, signals, strict=True), key=lambda pair: pair[0]))
    return signals


def _carry_times_forward(in_log_order: Sequence[tuple[int, Signal]]) -> None:
    """A line without a time of its own was written after the timed line before it in the same
    log (an indented continuation, a traceback's last line): it is ordered at that time."""
    last: datetime | None = None
    for _line_number, signal in in_log_order:
        if signal.when is None:
            signal.instant = last
        else:
            last = signal.when


def oom_hint(previews: Sequence[Preview]) -> bool:
    """Evidence of host memory exhaustion at the end of a log (`Killed`, …): it turns an
    unexplained exit 137/247 into a memory kill."""
    for preview in previews:
        # The last 50 lines whatever their length: one very long line (a tensor dump) must not
        # push the `Killed` before it out of view.
        tail = preview.content.rstrip("\n").rsplit("\n", 50)[-50:]
        if any(rules.OOM_HINT.search(line) for line in tail):
            return True
    return False
