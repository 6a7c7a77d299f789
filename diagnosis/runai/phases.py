"""Run:ai phase vocabularies and the symptom checks the phase rule and Option B share.

Phases are the API's `Phase` enum (the same 14 values in every control-plane release from 2.18 on;
none of them is Crashed, Succeeded or Suspended: a suspended workload answers `Stopped`), plus the
runbook's words, which old exports or third-party tools may still hold; compared lower-cased.
"""

from __future__ import annotations

from diagnosis.runai.rules import Signal

API_PHASES = frozenset(
    {
        "creating",
        "initializing",
        "resuming",
        "pending",
        "deleting",
        "running",
        "updating",
        "stopped",
        "stopping",
        "degraded",
        "failed",
        "completed",
        "terminating",
        "unknown",
    }
)
RUNBOOK_PHASES = frozenset({"crashed", "succeeded", "suspended"})
TERMINAL = frozenset({"failed", "completed", "stopped", "crashed", "succeeded"})
FAILED = frozenset({"failed", "crashed"})
SUCCEEDED = frozenset({"completed", "succeeded"})
# The phases of a workload an active-symptom request may be about, newest first.
ACTIVE_CANDIDATES = frozenset({"running", "pending", "initializing", "degraded"})
RUNNING = frozenset({"running", "degraded"})
STARTING = frozenset({"pending", "initializing"})
POD_FAILURE_CATEGORIES = frozenset(
    {
        "IMAGE_PULL_FAILED",
        "INIT_FAILED",
        "DATASOURCE_MOUNT_FAILED",
        "OOM_KILLED",
        "CRASH_APP_ERROR",
        "NODE_FAILURE",
    }
)
# Pod `k8sPhase` values of a pod that failed, as Run:ai reports them for a workload's pods.
FAILING_POD_PHASES = frozenset({"error", "oomkilled", "failed"})


def lowered(phase: str | None) -> str:
    return (phase or "").strip().lower()


def pod_failure_confirmed(signals: list[Signal]) -> bool:
    """An image-pull, init, mount, OOM, crash or node failure signal, or a crash loop."""
    return any(
        (signal.rule.role == "cause" and signal.category in POD_FAILURE_CATEGORIES)
        or signal.rule.role == "crash_loop"
        for signal in signals
    )


def crash_confirmed(signals: list[Signal]) -> bool:
    """CrashLoopBackOff, or repeated container crashes (two or more crash/OOM events)."""
    if any(signal.rule.role == "crash_loop" for signal in signals):
        return True
    crashes = {
        (signal.observation.event_id or signal.observation.field)
        for signal in signals
        if signal.rule.role == "cause"
        and signal.category in ("OOM_KILLED", "CRASH_APP_ERROR", "INIT_FAILED")
        and signal.observation.kind == "event"
    }
    return len(crashes) >= 2


def confirms_symptom(signals: list[Signal], phase: str | None) -> bool:
    """An active symptom is confirmed for a running workload by a crash loop, for a starting one by a
    pod failure."""
    if lowered(phase) in RUNNING:
        return crash_confirmed(signals)
    return pod_failure_confirmed(signals)
