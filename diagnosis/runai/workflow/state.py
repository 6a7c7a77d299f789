"""What a Run:ai diagnosis carries from one step to the next.

`Run` holds what never changes during one diagnosis (the request, the source, "now", the
translator). `State` is the evidence gathered so far; a step never changes the state it was given:
it returns the next step with a new state (`Next`), or the finished `Diagnosis`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from diagnosis.evidence.answer import Answer
from diagnosis.models import DiagnoseRequest, Diagnosis, Evidence, Target
from diagnosis.render.i18n import Translator
from diagnosis.runai import parse
from diagnosis.runai.paging import Fetcher, Paged
from diagnosis.runai.rules import Signal, Verdict, classify
from diagnosis.runai.signals import Observation
from diagnosis.runai.tier2.evidence import Tier2Evidence
from diagnosis.runai.tier2_reasons import Tier2Unavailable

# Takes a limitation text as it is found.
Note = Callable[[str], None]


class Classifier:
    """The rule tables applied once per observation: the steps classify the same observations
    again as evidence accumulates (status and events, then with history, pods and Tier 2)."""

    def __init__(self) -> None:
        self._signals: dict[int, tuple[Observation, Signal | None]] = {}

    def __call__(self, observations: Sequence[Observation]) -> list[Signal]:
        found: list[Signal] = []
        for observation in observations:
            known = self._signals.get(id(observation))
            if known is None or known[0] is not observation:
                known = (observation, classify(observation))
                self._signals[id(observation)] = known
            if known[1] is not None:
                found.append(known[1])
        return found


@dataclass(frozen=True)
class Run:
    """The fixed facts of one diagnosis."""

    request: DiagnoseRequest
    source: Fetcher
    now: datetime
    t: Translator
    tier2_available: bool
    tier2_unavailable_reason: Tier2Unavailable | None
    lookback_text: str
    lookback: timedelta
    classify: Classifier = field(default_factory=Classifier, compare=False)

    @property
    def cut(self) -> datetime:
        """The start of the lookback window."""
        return self.now - self.lookback


@dataclass(frozen=True)
class Conditional:
    """What step 4 concluded: the signals, the verdict and the conditional evidence read."""

    signals: list[Signal]
    verdict: Verdict
    tier2: Tier2Evidence
    metrics_answer: Answer | None


@dataclass(frozen=True)
class State:
    """The evidence so far. Texts keep their first-seen order and are never repeated."""

    run: Run
    target: Target
    evidence: tuple[Evidence, ...] = ()
    limitations: tuple[str, ...] = ()
    next_steps: tuple[str, ...] = ()
    workload_id: str = ""
    status: parse.Workload | None = None
    # What Option B read on the way (statuses, event pages), reused by step 1.
    cached_status: Mapping[str, Answer] = field(default_factory=dict)
    cached_events: Mapping[str, Paged] = field(default_factory=dict)
    # Workloads Option B found among deleted ones: their list entry, by id.
    deleted_entries: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # Where the status was read: the status endpoint, or the deleted workloads' list.
    status_source: str = "get_workload_status"
    # Limitations found while paging the events, noted once the status has passed its checks.
    event_notes: tuple[str, ...] = ()
    status_observations: tuple[Observation, ...] = ()
    event_observations: tuple[Observation, ...] = ()
    events_read: bool = False
    history_observations: tuple[Observation, ...] = ()
    history_read: bool = False
    pods: tuple[tuple[str, parse.Pod], ...] = ()
    spec: parse.WorkloadSpec | None = None
    conditional: Conditional | None = None

    @property
    def t(self) -> Translator:
        return self.run.t

    @property
    def known_status(self) -> parse.Workload:
        """The workload status; only asked for by the steps after step 1 has read it."""
        if self.status is None:
            raise LookupError("the workload status is read before this step")
        return self.status

    def but(self, **changes: Any) -> State:
        return dataclasses.replace(self, **changes)

    def noted(self, *texts: str) -> State:
        """With more limitations (a text already noted is not repeated)."""
        return self.but(limitations=_added(self.limitations, texts))

    def stepped(self, *texts: str) -> State:
        """With more next steps (a text already listed is not repeated)."""
        return self.but(next_steps=_added(self.next_steps, texts))

    def with_evidence(self, *items: Evidence) -> State:
        return self.but(evidence=(*self.evidence, *items))

    def with_target(self, **changes: Any) -> State:
        return self.but(target=self.target.model_copy(update=changes))

    def timeline(self) -> list[Observation]:
        """Status, events and history observations, in that order."""
        return [*self.status_observations, *self.event_observations, *self.history_observations]


def _added(existing: tuple[str, ...], texts: tuple[str, ...]) -> tuple[str, ...]:
    result = list(existing)
    for text in texts:
        if text not in result:
            result.append(text)
    return tuple(result)


@dataclass(frozen=True)
class Next:
    """Go on with `step`, given `state`."""

    step: Step
    state: State


class Step(Protocol):
    """One step of the runbook: the next step, or the finished diagnosis."""

    async def __call__(self, state: State, /) -> Next | Diagnosis: ...


async def run_steps(first: Step, state: State) -> Diagnosis:
    result = await first(state)
    while isinstance(result, Next):
        result = await result.step(result.state)
    return result
