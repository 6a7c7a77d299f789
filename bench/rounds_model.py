"""The data-dependency model of one diagnosis: what each call must wait for, as data.

This is the limit the runbooks' data dependencies set, written down independently of how the
workflows schedule their calls. Given the calls a diagnosis actually made (as the stand-in server
received them), `minimum_rounds` says how many latency rounds the fastest schedule of those same
calls would need: a call can start once every call it waits for has answered.

Run:ai, with a workload id and a cached token:
  (1) status and events together (both need only the workload id);
  (2) spec, pods and the first history page together (after the phase rule, which reads both);
  (3) metrics and the Tier-2 pod, previous log and pod events together (each only when its rule
      asks, which needs the pods and the history); the log of a container only the pod object
      names (an init container that failed, which no Tier-1 answer names) waits for that object;
  (4) the node, only for node-failure signals (named by the pod evidence).
Option B's listing pages come before (1) (the unsorted list after a refused sort, the deleted
workloads after a live list that matched nothing); when several active candidates are checked,
each is checked after the previous one was ruled out. Each further page of a paged list waits for the
previous page. The token request, when no token is cached, is one round before everything else.

ModelArts: the name search (each page after the previous one, the unfiltered search after the
filtered one), then the details, then events, stages and log previews together; nothing else.

A call repeated with the same arguments (a retry) waits for the attempt before it.

Two dependencies hold only for some answers, named by the predicates below (`only_if`):
- a Stopped workload whose events could not be read rules preemption out in its history before
  anything else of step 2 (spec and pods wait for the history);
- when neither an OOM kill nor an exit 137 shows before Tier 2, what asks for the metrics is the
  Tier-2 pod evidence (the metrics wait for it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

# Query arguments that only page or size an answer: a page differs from another by these alone.
PAGING_ARGS = frozenset({"offset", "limit"})
TOKEN = "token"


@dataclass(frozen=True)
class Call:
    """One request as the stand-in received it: the op and its path and query arguments."""

    op: str
    args: Mapping[str, str] = field(default_factory=dict)
    status: int | None = None  # of the answer, when known
    answer: str = ""  # the answer's body as sent, when known

    @classmethod
    def of(cls, op: str, args: Mapping[str, object], *, status: int | None = None, answer: str = "") -> Call:
        """From a workflow's own (op, args): values as they are written on the wire."""
        wire = {key: _wire(value) for key, value in args.items() if value is not None}
        return cls(op, wire, status=status, answer=answer)

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def _wire(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Waits:
    """A dependency: every call of `op` (matching `where`) that shares the values of `same`.

    `where` maps an argument to the value it must have, or to None for "absent". `earlier_only`
    limits the dependency to calls received before this one (candidates checked one after the
    other); every other dependency holds whatever the order the calls were received in.
    """

    op: str
    same: tuple[str, ...] = ()
    where: Mapping[str, str | None] = field(default_factory=dict)
    differ: tuple[str, ...] = ()
    earlier_only: bool = False
    only_if: str | None = None  # a key of PREDICATES
    only_if_call: str | None = None  # a key of CALL_PREDICATES: holds for the waiting call itself


@dataclass(frozen=True)
class Rule:
    """What a call of `op` (whose arguments match `when`) waits for; `paged`: further pages wait
    for the previous page of the same list."""

    op: str
    waits: tuple[Waits, ...] = ()
    when: Mapping[str, str | None] = field(default_factory=dict)
    paged: bool = False


_STOPPED = re.compile(r'"phase"\s*:\s*"stopped"', re.IGNORECASE)
_EVENTS_NULL = re.compile(r'"events"\s*:\s*null')
# An OOM kill, or an exit code 137 in any of its spellings (JSON field, message prose).
_KILL = re.compile(
    r'OOMKilled|exitCode"?\s*[:=]\s*137\b|exit(?:ed)?(?: with)?(?: code| status)?\s*[:=]?\s*137\b'
    r"|\bcode\s+137\b",
    re.IGNORECASE,
)
_TIER_1 = ("get_workload_status", "get_workload_events", "get_workload_pods", "get_workload_history")


def _stopped_without_events(calls: Sequence[Call]) -> bool:
    stopped = any(c.op == "get_workload_status" and _STOPPED.search(c.answer) for c in calls)
    events = [c for c in calls if c.op == "get_workload_events"]
    unread = all(not c.ok or _EVENTS_NULL.search(c.answer) for c in events)
    return stopped and unread


def _kill_only_in_tier2(calls: Sequence[Call]) -> bool:
    return not any(c.op in _TIER_1 and _KILL.search(c.answer) for c in calls)


PREDICATES: dict[str, Callable[[Sequence[Call]], bool]] = {
    "stopped_without_events": _stopped_without_events,
    "kill_only_in_tier2": _kill_only_in_tier2,
}


def _container_only_in_the_pod_object(call: Call, calls: Sequence[Call]) -> bool:
    """The call names a container that no Tier-1 answer names (Run:ai's pods list names the main
    containers; a kubelet back-off event may name a failing init container)."""
    container = call.args.get("container")
    if not container:
        return False
    named = re.compile(r"(?<![\w.-])" + re.escape(container) + r"(?![\w.-])")
    return not any(c.op in _TIER_1 and named.search(c.answer) for c in calls)


CALL_PREDICATES: dict[str, Callable[[Call, Sequence[Call]], bool]] = {
    "container_only_in_the_pod_object": _container_only_in_the_pod_object,
}


def _all(ops: Sequence[str], *, same: tuple[str, ...] = ()) -> tuple[Waits, ...]:
    return tuple(Waits(op, same=same) for op in ops)


_CONTROL_PLANE = (TOKEN,)
_STEP_1 = ("get_workload_status", "get_workload_events")
_STEP_2 = ("get_workload_spec", "get_workload_pods", "get_workload_history")
_TIER_2_PODS = ("k8s.read_pod", "k8s.read_pod_log", "k8s.list_events")
_SAME_WORKLOAD = ("workloadId",)

RUNAI: tuple[Rule, ...] = (
    Rule(TOKEN),
    # Option B: the deleted workloads are listed once the live list matched nothing; the unsorted
    # list follows a refused sort (control planes before 2.21 know no phaseUpdatedAt sort).
    Rule(
        "list_workloads",
        (*_all(_CONTROL_PLANE), Waits("list_workloads", where={"deleted": None})),
        when={"deleted": "true"},
        paged=True,
    ),
    Rule(
        "list_workloads",
        (*_all(_CONTROL_PLANE), Waits("list_workloads", where={"sortBy": "*"})),
        when={"sortBy": None},
        paged=True,
    ),
    Rule("list_workloads", _all(_CONTROL_PLANE), paged=True),
    *(
        Rule(
            op,
            (
                *_all(_CONTROL_PLANE),
                Waits("list_workloads"),
                # Option B's active candidates: one is checked after the previous was ruled out.
                *(Waits(step_1, differ=_SAME_WORKLOAD, earlier_only=True) for step_1 in _STEP_1),
            ),
            paged=op == "get_workload_events",
        )
        for op in _STEP_1
    ),
    # Restarted or replaced pods are asked for (`deleted=true`) once the plain list came back empty.
    Rule(
        "get_workload_pods",
        (
            *_all(_CONTROL_PLANE),
            *_all(_STEP_1, same=_SAME_WORKLOAD),
            Waits("get_workload_pods", same=_SAME_WORKLOAD, where={"deleted": None}),
        ),
        when={"deleted": "true"},
        paged=True,
    ),
    Rule("get_workload_history", (*_all(_CONTROL_PLANE), *_all(_STEP_1, same=_SAME_WORKLOAD)), paged=True),
    *(
        Rule(
            op,
            (
                *_all(_CONTROL_PLANE),
                *_all(_STEP_1, same=_SAME_WORKLOAD),
                Waits("get_workload_history", same=_SAME_WORKLOAD, only_if="stopped_without_events"),
            ),
            paged=op != "get_workload_spec",
        )
        for op in ("get_workload_spec", "get_workload_pods")
    ),
    Rule(
        "get_workload_metrics",
        (
            *_all(_CONTROL_PLANE),
            *_all(_STEP_2, same=_SAME_WORKLOAD),
            Waits("k8s.read_pod", only_if="kill_only_in_tier2"),
        ),
    ),
    # The current log is read when the previous one is refused (no previous instance); a container
    # only the pod object names is known once that object answered.
    Rule(
        "k8s.read_pod_log",
        (
            *_all(_STEP_2),
            Waits("k8s.read_pod_log", same=("namespace", "name"), where={"previous": "true"}),
            Waits(
                "k8s.read_pod", same=("namespace", "name"), only_if_call="container_only_in_the_pod_object"
            ),
        ),
        when={"previous": None},
    ),
    Rule(
        "k8s.read_pod_log",
        (
            *_all(_STEP_2),
            Waits(
                "k8s.read_pod", same=("namespace", "name"), only_if_call="container_only_in_the_pod_object"
            ),
        ),
    ),
    *(Rule(op, _all(_STEP_2)) for op in _TIER_2_PODS),
    Rule("k8s.read_node", (*_all(_STEP_2), *_all(_TIER_2_PODS))),
)

_MODELARTS_AFTER_DETAILS = (
    "ListTrainingJobEvents",
    "ListTrainingJobStages",
    "ShowTrainingJobLogsPreview",
    "ListTrainingJobTasks",
    "ShowTrainingJobMetrics",
    "ShowTrainingJobUserDiagnosis",
)

MODELARTS: tuple[Rule, ...] = (
    # The unfiltered search (case-insensitive substring matches) follows an empty filtered one.
    Rule(
        "ListTrainingJobs", (Waits("ListTrainingJobs", where={"name": "*"}),), when={"name": None}, paged=True
    ),
    Rule("ListTrainingJobs", paged=True),
    Rule("ShowTrainingJobDetails", (Waits("ListTrainingJobs"),)),
    *(
        Rule(op, (Waits("ShowTrainingJobDetails"),), paged=op == "ListTrainingJobEvents")
        for op in _MODELARTS_AFTER_DETAILS
    ),
)

MODELS: dict[str, tuple[Rule, ...]] = {"runai": RUNAI, "modelarts": MODELARTS}


def _matches(args: Mapping[str, str], wanted: Mapping[str, str | None]) -> bool:
    for key, value in wanted.items():
        if value is None and key in args:
            return False
        if value == "*" and key not in args:
            return False
        if value not in (None, "*") and args.get(key) != value:
            return False
    return True


def rule_for(model: Sequence[Rule], call: Call) -> Rule:
    for rule in model:
        if rule.op == call.op and _matches(call.args, rule.when):
            return rule
    raise KeyError(f"the model has no rule for {call.op}")


def _list_key(call: Call) -> tuple[str, tuple[tuple[str, str], ...]]:
    return call.op, tuple(sorted((k, v) for k, v in call.args.items() if k not in PAGING_ARGS))


def _offset(call: Call) -> int:
    try:
        return int(call.args.get("offset", "0") or 0)
    except ValueError:
        return 0


def _depends(
    call: Call,
    index: int,
    other: Call,
    other_index: int,
    rule: Rule,
    holds: Mapping[str, bool],
    calls: Sequence[Call],
) -> bool:
    if other_index == index:
        return False
    if other.op == call.op and other.args == call.args:
        return other_index < index  # a retry waits for the attempt before it
    if rule.paged and _list_key(other) == _list_key(call):
        return _offset(other) < _offset(call)
    for waits in rule.waits:
        if other.op != waits.op or not _matches(other.args, waits.where):
            continue
        if waits.earlier_only and other_index > index:
            continue
        if waits.only_if is not None and not holds[waits.only_if]:
            continue
        if waits.only_if_call is not None and not CALL_PREDICATES[waits.only_if_call](call, calls):
            continue
        if any(other.args.get(key) != call.args.get(key) for key in waits.same):
            continue
        if waits.differ and all(other.args.get(key) == call.args.get(key) for key in waits.differ):
            continue
        return True
    return False


def minimum_rounds(platform: str, calls: Sequence[Call]) -> list[int]:
    """The round of each call in the fastest schedule the model allows (1 = first round)."""
    model = MODELS[platform]
    rules = [rule_for(model, call) for call in calls]
    holds = {name: predicate(calls) for name, predicate in PREDICATES.items()}
    rounds: list[int | None] = [None] * len(calls)
    visiting: set[int] = set()

    def round_of(index: int) -> int:
        known = rounds[index]
        if known is not None:
            return known
        if index in visiting:
            raise ValueError(f"the model waits in a circle at {calls[index].op}")
        visiting.add(index)
        waited = [
            round_of(other)
            for other in range(len(calls))
            if _depends(calls[index], index, calls[other], other, rules[index], holds, calls)
        ]
        visiting.discard(index)
        result = 1 + max(waited, default=0)
        rounds[index] = result
        return result

    return [round_of(index) for index in range(len(calls))]
