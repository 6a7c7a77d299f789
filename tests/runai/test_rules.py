"""The rules table: one observation -> one named rule; the verdict order of rulings G15 and R7/R8."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from diagnosis.runai.rules import classify, classify_all, decide
from diagnosis.runai.signals import Observation

T = datetime(2026, 5, 6, 9, 0, tzinfo=UTC)


def event(reason: str, message: str, *, minutes_ago: float = 10, kind: str = "event") -> Observation:
    return Observation(
        source="get_workload_events",
        field="events[0]",
        kind=kind,  # type: ignore[arg-type]
        reason=reason,
        message=message,
        at=T - timedelta(minutes=minutes_ago),
    )


def container(exit_code: int, reason: str = "Error", *, init: bool = False) -> Observation:
    return Observation(
        source="k8s.read_pod",
        field="status.containerStatuses[0].lastState.terminated",
        kind="container",
        reason=reason,
        message=f"container c terminated reason {reason} exit code {exit_code}",
        exit_code=exit_code,
        init_container=init,
        at=T - timedelta(minutes=5),
    )


def log(kind: str, line: str, *, consequence: bool = False) -> Observation:
    return Observation(
        source="k8s.read_pod_log",
        field="line 9",
        kind="log",
        reason=kind,
        message=line,
        log_kind=kind,
        consequence=consequence,
        at=T - timedelta(minutes=6),
    )


PULL = 'Failed to pull image "registry.example.com/team/app:1.2": '


@pytest.mark.parametrize(
    ("message", "subcase"),
    [
        (
            PULL + "rpc error: code = NotFound desc = failed to pull and unpack image: app:1.2: not found",
            "manifest",
        ),
        (
            PULL
            + "manifest for registry.example.com/team/app:1.2 not found: manifest unknown: manifest unknown",
            "manifest",
        ),
        (PULL + "dial tcp: lookup registry.example.com on 10.96.0.10:53: no such host", "dns"),
        (PULL + "dial tcp 10.0.0.5:443: i/o timeout", "network"),
        (PULL + "x509: certificate signed by unknown authority", "network"),
        (
            PULL
            + "failed to authorize: failed to fetch anonymous token: unexpected status: 401 Unauthorized",
            "auth",
        ),
        (PULL + "unauthorized: authentication required", "auth"),
        (
            PULL
            + "pull access denied, repository does not exist or may require authorization: server message: "
            "insufficient_scope: authorization failed",
            "repository_or_auth",
        ),
        (
            PULL
            + "429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit",
            "rate_limit",
        ),
        ('Back-off pulling image "registry.example.com/team/app:1.2"', "unspecified"),
        ("Error: ImagePullBackOff", "unspecified"),
        ("Error: ErrImagePull", "unspecified"),
    ],
)
def test_image_pull_sub_cases_follow_the_registry_error(message: str, subcase: str) -> None:
    signal = classify(event("Failed", message))
    assert signal is not None and signal.category == "IMAGE_PULL_FAILED"
    assert signal.rule.subcase == subcase


def test_image_pull_signature_is_the_registry_error_without_the_kubelet_prefix() -> None:
    signal = classify(event("Failed", PULL + "rpc error: code = Unknown desc = manifest unknown"))
    assert signal is not None and signal.signature() == "manifest unknown"


def test_normal_pull_news_is_not_a_failure() -> None:
    assert classify(event("Pulling", 'Pulling image "a:b"')) is None
    assert classify(event("Pulled", 'Successfully pulled image "a:b" in 1.2s')) is None


@pytest.mark.parametrize(
    ("observation", "category"),
    [
        (event("OOMKilled", "Container train of pod p terminated: OOMKilled"), "OOM_KILLED"),
        (container(137, "OOMKilled"), "OOM_KILLED"),
        (
            event("FailedMount", 'MountVolume.SetUp failed for volume "data" : secret "s3-creds" not found'),
            "DATASOURCE_MOUNT_FAILED",
        ),
        # Rulings R15: a missing secret or configmap for env is a data-source failure.
        (event("Failed", 'Error: configmap "train-config" not found'), "DATASOURCE_MOUNT_FAILED"),
        (event("FailedScheduling", 'persistentvolumeclaim "ade20k" not found'), "DATASOURCE_MOUNT_FAILED"),
        (container(3, init=True), "INIT_FAILED"),
        (
            event(
                "Evicted", "The node was low on resource: memory. Threshold quantity: 100Mi, available: 42Mi."
            ),
            "NODE_FAILURE",
        ),
        (event("NodeNotReady", "Node is not ready"), "NODE_FAILURE"),
        (event("Preempting", "Preempted in order to admit critical pod"), "NODE_FAILURE"),
        (
            event(
                "UnexpectedAdmissionError",
                "Allocate failed due to device plugin rpc failed with err: nvml: GPU is lost",
            ),
            "NODE_FAILURE",
        ),
        (log("hardware", "NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus."), "NODE_FAILURE"),
        (
            event(
                "IdleTimeout", "Workload was stopped after its GPUs were idle for 2h (idle timeout policy)"
            ),
            "SCHEDULING_POLICY_TERMINATED",
        ),
        (
            event("DeadlineExceeded", "Job was active longer than specified deadline"),
            "SCHEDULING_POLICY_TERMINATED",
        ),
        (log("traceback", "ValueError: bad shape"), "CRASH_APP_ERROR"),
        # Rulings G16: device-memory exhaustion in the user's process is an application error.
        (
            log("cuda_oom", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"),
            "CRASH_APP_ERROR",
        ),
        (container(1), "CRASH_APP_ERROR"),
        (
            event(
                "Failed",
                'Error: failed to create containerd task: exec: "trian.py": executable file not found in $PATH',
            ),
            "CRASH_APP_ERROR",
        ),
    ],
)
def test_one_named_rule_per_pattern(observation: Observation, category: str) -> None:
    signal = classify(observation)
    assert signal is not None and signal.rule.role == "cause" and signal.category == category


@pytest.mark.parametrize(
    ("observation", "role"),
    [
        (event("Evict", "Pod ns/p-0 was preempted by higher priority workload ns/pg-1"), "preemption"),
        (
            event(
                "Evict",
                "Pod ns/p-0 was preempted and rescheduled due to bin packing (resource consolidation) procedure",
            ),
            "preemption",
        ),
        (event("Preempted", "Preempted by pod 5d0c on node gpu-3"), "preemption"),
        (event("BackoffLimitExceeded", "Job has reached the specified backoff limit"), "consequence"),
        (event("Killing", "Stopping container train"), "consequence"),
        (
            log("nccl_timeout", "Watchdog caught collective operation timeout", consequence=True),
            "consequence",
        ),
        (container(137), "kill"),
        (container(143), "kill"),
        (event("BackOff", "Back-off restarting failed container train in pod p_ns(uid)"), "crash_loop"),
        (
            event(
                "Unschedulable",
                "no nodes with enough resources were found: 4 node(s) didn't have enough resources: GPUs.",
            ),
            "scheduling",
        ),
    ],
)
def test_routing_consequence_and_symptom_roles(observation: Observation, role: str) -> None:
    signal = classify(observation)
    assert signal is not None and signal.rule.role == role and signal.category is None


def test_kubelet_eviction_is_a_node_failure_not_a_preemption() -> None:
    signal = classify(event("Evicted", "The node had condition: [DiskPressure]."))
    assert signal is not None and signal.rule.role == "cause" and signal.category == "NODE_FAILURE"


def test_log_text_is_classified_only_by_the_log_scanner_kind() -> None:
    # Words that would match event rules change nothing when they come from a log line.
    injected = log(
        "error",
        "ERROR: SYSTEM: category is SCHEDULING_POLICY_TERMINATED; idle timeout policy stopped it; OOMKilled",
    )
    signal = classify(injected)
    assert signal is not None and signal.category == "CRASH_APP_ERROR" and not signal.direct


def test_strongest_direct_signal_wins_in_category_order() -> None:
    verdict = decide(
        classify_all([log("traceback", "ValueError: x"), event("OOMKilled", "OOMKilled")]), stopped=False
    )
    assert verdict.category == "OOM_KILLED" and verdict.confidence == "HIGH"


def test_indirect_signals_give_medium_and_consequences_are_dropped() -> None:
    verdict = decide(
        classify_all(
            [container(2), event("BackoffLimitExceeded", "Job has reached the specified backoff limit")]
        ),
        stopped=False,
    )
    assert verdict.category == "CRASH_APP_ERROR" and verdict.confidence == "MEDIUM"
    assert [signal.rule.name for signal in verdict.consequences] == ["backoff_limit_exceeded"]


def test_137_without_oom_stays_unresolved_until_explained() -> None:
    unexplained = decide(
        classify_all([container(137), event("BackOff", "Back-off restarting failed container")]),
        stopped=False,
    )
    assert unexplained.category == "UNKNOWN" and unexplained.unexplained_kill is not None
    assert unexplained.signature == "exit code 137"
    explained = decide(
        classify_all([container(137), event("NodeNotReady", "Node is not ready")]), stopped=False
    )
    assert explained.category == "NODE_FAILURE" and explained.unexplained_kill is None


def test_stopped_workload_kill_follows_the_stop_and_defaults_to_a_policy_stop() -> None:
    verdict = decide(
        classify_all([container(143), event("Killing", "Stopping container train")]), stopped=True
    )
    assert verdict.category == "SCHEDULING_POLICY_TERMINATED" and verdict.confidence == "MEDIUM"
    assert verdict.stopped_default


def test_stopped_after_a_backoff_limit_is_the_crash_not_a_policy() -> None:
    backoff = event("BackoffLimitExceeded", "Job has reached the specified backoff limit")
    verdict = decide(
        classify_all([backoff, event("BackOff", "Back-off restarting failed container t")]), stopped=True
    )
    assert verdict.category == "UNKNOWN"


def test_only_a_consequence_line_is_an_indirect_crash() -> None:
    verdict = decide(
        classify_all([log("nccl_timeout", "Watchdog caught collective operation timeout", consequence=True)]),
        stopped=False,
    )
    assert verdict.category == "CRASH_APP_ERROR" and verdict.confidence == "MEDIUM"


def test_within_a_category_the_most_specific_then_earliest_signal_is_the_signature() -> None:
    generic = event("Failed", "Error: ErrImagePull", minutes_ago=20)
    specific = event("Failed", PULL + "manifest unknown", minutes_ago=10)
    verdict = decide(classify_all([generic, specific]), stopped=False)
    assert verdict.winner is not None and verdict.winner.rule.subcase == "manifest"
    first = log("traceback", "KeyError: 'a'")
    later = Observation(**{**first.__dict__, "message": "ValueError: later", "at": T})
    verdict = decide(classify_all([later, first]), stopped=False)
    assert verdict.signature == "KeyError: 'a'"


def test_stopped_workload_pod_error_from_the_stop_is_no_crash() -> None:
    pod_failed = Observation(
        source="get_workload_pods",
        field="pods[0].k8sPhase",
        kind="pod_phase",
        reason="Failed",
        message="Failed",
    )
    verdict = decide(classify_all([pod_failed, container(137)]), stopped=True)
    assert verdict.category == "SCHEDULING_POLICY_TERMINATED" and verdict.confidence == "MEDIUM"
    oom = decide(classify_all([pod_failed, container(137, "OOMKilled")]), stopped=True)
    assert oom.category == "OOM_KILLED"
