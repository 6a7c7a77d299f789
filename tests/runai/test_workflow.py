"""Workflow branches and bad input, built from scenarios in the wire format and replayed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from diagnosis import engine
from diagnosis.evidence.answer import Answer
from diagnosis.evidence.bundles import parse_bundle
from diagnosis.models import Diagnosis
from diagnosis.runai.backend import BACKEND
from diagnosis.timeutil import parse_instant
from tests.runai.factory import Scenario, k8s_status, runai_error, uid
from tests.runai.scenarios import T, _failed_basics, _image_pull, oom_killed


class RecordingSource:
    """Forwards to a source and keeps every (op, args) asked for."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.asked: list[tuple[str, dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer:
        self.asked.append((op, dict(args)))
        answer: Answer = await self.inner.fetch(op, variant=variant, **args)
        return answer


async def run(s: Scenario, *, lang: str | None = None) -> tuple[Diagnosis, list[tuple[str, dict[str, Any]]]]:
    bundle = parse_bundle(s.bundle())
    request = engine.request_from_bundle(bundle)
    async with BACKEND.replay_source(bundle) as source:
        recording = RecordingSource(source)
        diagnosis = await engine.diagnose_with(request, recording, now=bundle.captured_at, lang=lang)
    return diagnosis, recording.asked


async def test_missing_identifiers_are_asked_for_before_any_call() -> None:
    s = Scenario("no-cluster", name="x", project="p", captured_at=T)
    s.request = {"workload_name": "x", "project": "p"}
    diagnosis, asked = await run(s)
    assert diagnosis.outcome == "needs_input" and diagnosis.questions[0].key == "cluster_id"
    assert asked == [] and diagnosis.calls == []
    s.request = {"cluster_id": s.cluster, "workload_name": "x"}
    diagnosis, asked = await run(s)
    assert diagnosis.outcome == "needs_input" and diagnosis.questions[0].key == "workload" and asked == []


async def test_option_b_uses_exact_filters_sorted_by_phase_update() -> None:
    s = Scenario("filters", name="bert-large", project="nlp", captured_at=T)
    s.request = {"cluster_id": s.cluster, "workload_name": s.name, "project": s.project}
    # The server ignored the filter: a prefix match and another project must not be taken.
    others = [
        s.workload(
            phase="Failed",
            created=s.at(hours=5),
            phase_updated=s.at(hours=1),
            completed=s.at(hours=1),
            name="bert-large-v2",
            workload_id=uid("f", "1"),
            detailed=False,
        ),
    ]
    s.add(
        "list_workloads",
        {"filterBy": f"name=={s.name},clusterId=={s.cluster},projectName=={s.project}"},
        {"workloads": others, "next": None},
    )
    diagnosis, asked = await run(s)
    op, args = asked[0]
    assert op == "list_workloads"
    assert set(args["filterBy"].split(",")) == {
        f"name=={s.name}",
        f"clusterId=={s.cluster}",
        f"projectName=={s.project}",
    }
    assert args["sortBy"] == "phaseUpdatedAt" and args["sortOrder"] == "desc"
    # Rulings R4: nothing matching is a question, never not_found; no id is invented.
    assert diagnosis.outcome == "needs_input" and diagnosis.questions[0].key == "workload_id"
    # Before asking, the same search among deleted workloads (a failed run someone deleted).
    assert [op for op, _ in asked] == ["list_workloads", "list_workloads"]
    assert asked[1][1]["deleted"] is True and asked[1][1]["filterBy"] == args["filterBy"]
    assert "live or deleted" in diagnosis.root_cause


async def test_a_name_with_a_comma_cannot_be_filtered_and_is_asked_about() -> None:
    s = Scenario("comma", name="a,b", project="p", captured_at=T)
    s.request = {"cluster_id": s.cluster, "workload_name": "a,b", "project": "p"}
    diagnosis, asked = await run(s)
    assert diagnosis.outcome == "needs_input" and asked == []


async def test_failure_request_with_only_active_matches_asks_about_a_past_run() -> None:
    from tests.runai.scenarios import option_b_all_active

    diagnosis, _ = await run(option_b_all_active())
    question = diagnosis.questions[0]
    assert question.key == "past_run" and question.choices is not None and len(question.choices) == 2
    assert all("Running" in choice.label for choice in question.choices)


async def test_active_request_with_no_confirmed_candidate_lists_the_candidates() -> None:
    from tests.runai.scenarios import option_b_active_none

    diagnosis, _ = await run(option_b_active_none())
    assert diagnosis.outcome == "needs_input"
    question = diagnosis.questions[0]
    assert question.choices is not None and [c.value for c in question.choices] == [
        uid("active-none", "0"),
        uid("active-none", "1"),
    ]


async def test_running_with_crash_loop_in_a_condition_is_diagnosed() -> None:
    s = Scenario("running-crash", name="loop", project="p", captured_at=T)
    condition = {
        "type": "Ready",
        "status": "False",
        "reason": "CrashLoopBackOff",
        "message": "back-off 5m0s restarting failed container=trainer",
    }
    s.status(
        s.workload(
            phase="Running", conditions=[condition], created=s.at(hours=2), phase_updated=s.at(hours=1)
        )
    )
    s.events([])
    s.spec_answer(s.spec(created=s.at(hours=2), actual_phase="Running"))
    s.pods([s.pod_object(k8s_phase="Running", created=s.at(hours=2), updated=s.at(hours=1))])
    s.history([])
    diagnosis, _ = await run(s)
    assert diagnosis.outcome == "diagnosed" and diagnosis.category == "UNKNOWN"
    # Tier 2 would be needed and the bundle has none: the limitation and kubectl next steps say so.
    assert any("Tier-2" in text for text in diagnosis.limitations)
    assert any(f"kubectl logs {s.pod} -n {s.namespace} --previous" in step for step in diagnosis.next_steps)


async def test_running_without_symptom_stops_after_status_and_events() -> None:
    from tests.runai.scenarios import running_no_symptom

    diagnosis, asked = await run(running_no_symptom())
    assert diagnosis.outcome == "needs_input" and diagnosis.questions[0].key == "past_run"
    assert [op for op, _ in asked] == ["get_workload_status", "get_workload_events"]


async def test_wrong_cluster_stops_and_names_both_clusters() -> None:
    from tests.runai.scenarios import wrong_cluster

    s = wrong_cluster()
    diagnosis, asked = await run(s)
    # Status and events are requested together; the events of another cluster's workload are
    # never used: the diagnosis stops at the cluster check.
    assert diagnosis.outcome == "wrong_cluster"
    assert [op for op, _args in asked] == ["get_workload_status", "get_workload_events"]
    assert {item.source for item in diagnosis.evidence} == {"get_workload_status"}
    assert diagnosis.target.cluster_id == uid("wrong-cluster", "other")
    assert diagnosis.target.asked_cluster_id == s.cluster


async def test_preemption_before_the_last_start_does_not_route() -> None:
    s = Scenario("old-preempt", name="resumed", project="p", captured_at=T)
    failed = s.at(hours=1)
    evict = s.event(
        s.at(hours=6),
        "Evict",
        f"Pod {s.namespace}/{s.pod} was preempted by higher priority workload x/y",
        event_type="Normal",
    )
    started = s.event(s.at(hours=5), "Started", "Started container trainer", event_type="Normal")
    oom = s.event(failed, "OOMKilled", "Container trainer of pod x terminated: OOMKilled")
    _failed_basics(s, events=[oom, started, evict], history=[s.history_event(oom)], failed_hours=1)
    s.metrics([])
    diagnosis, _ = await run(s)
    assert diagnosis.outcome == "diagnosed" and diagnosis.category == "OOM_KILLED"


async def test_preemption_followed_by_an_oom_kill_is_diagnosed_not_routed() -> None:
    s = Scenario("preempt-then-oom", name="x", project="p", captured_at=T)
    evict = s.event(
        s.at(hours=3),
        "Evict",
        f"Pod {s.namespace}/{s.pod} was preempted by workload a/b.",
        event_type="Normal",
    )
    oom = s.event(s.at(hours=2), "OOMKilled", "Container trainer of pod x terminated: OOMKilled")
    _failed_basics(s, events=[oom, evict], history=[], failed_hours=2)
    s.metrics([])
    diagnosis, _ = await run(s)
    assert diagnosis.outcome == "diagnosed" and diagnosis.category == "OOM_KILLED"


async def test_disruption_target_condition_routes_to_preemption() -> None:
    s = Scenario("disruption", name="x", project="p", captured_at=T)
    condition = {
        "type": "DisruptionTarget",
        "status": "True",
        "reason": "PreemptionByScheduler",
        "message": "Pod ns/p was preempted by higher priority workload ns/pg",
    }
    s.status(
        s.workload(
            phase="Stopped",
            conditions=[condition],
            created=s.at(hours=3),
            phase_updated=s.at(hours=1),
            completed=s.at(hours=1),
        )
    )
    s.events([])
    diagnosis, asked = await run(s)
    assert (diagnosis.outcome, diagnosis.route, diagnosis.confidence) == ("routed", "preempted", "HIGH")
    assert len(asked) == 2


async def test_pending_with_only_a_quota_reason_routes_with_medium_confidence() -> None:
    s = Scenario("quota", name="x", project="p", captured_at=T)
    s.status(
        s.workload(
            phase="Pending", phase_reason="OverLimit", created=s.at(hours=3), phase_updated=s.at(hours=3)
        )
    )
    s.events([])
    diagnosis, _ = await run(s)
    assert (diagnosis.outcome, diagnosis.route, diagnosis.confidence) == (
        "routed",
        "pending_scheduling",
        "MEDIUM",
    )
    assert diagnosis.category is None


@pytest.mark.parametrize(
    "phase", ["Creating", "Resuming", "Updating", "Stopping", "Deleting", "Terminating", "Unknown", "Weird"]
)
async def test_other_phases_are_reported_out_of_scope(phase: str) -> None:
    s = Scenario("phase-" + phase, name="x", project="p", captured_at=T)
    s.status(s.workload(phase=phase, created=s.at(hours=3), phase_updated=s.at(hours=3)))
    s.events([])
    diagnosis, _ = await run(s)
    assert (
        diagnosis.outcome == "out_of_scope" and diagnosis.category is None and diagnosis.target.phase == phase
    )


async def test_image_pull_backoff_alone_never_blames_credentials() -> None:
    s = Scenario("backoff-only", name="x", project="p", captured_at=T)
    start = s.at(minutes=5)
    s.status(s.workload(phase="Initializing", created=s.at(minutes=6), phase_updated=start))
    s.events(
        [s.event(s.at(minutes=1), "BackOff", f'Back-off pulling image "{s.image}"', event_type="Normal")]
    )
    s.spec_answer(s.spec(created=s.at(minutes=6), actual_phase="Initializing"))
    s.pods([])
    s.history([])
    diagnosis, _ = await run(s)
    assert diagnosis.category == "IMAGE_PULL_FAILED"
    assert len(diagnosis.recommendations) == 1 and diagnosis.recommendations[0].changes_resources is False
    text = diagnosis.recommendations[0].text.lower()
    assert (
        "registry's error" in text and "credential" in text
    )  # it says credentials are not known to be at fault


@pytest.mark.parametrize(
    ("key", "needle", "changes"),
    [
        ("image-manifest", "tag", True),
        ("image-dns", "dns", False),
        ("image-auth", "pull secret", True),
    ],
)
async def test_image_pull_recommendation_follows_the_sub_case(key: str, needle: str, changes: bool) -> None:
    from tests.runai import scenarios

    builder = {
        "image-manifest": scenarios.image_pull_manifest,
        "image-dns": scenarios.image_pull_dns,
        "image-auth": scenarios.image_pull_unauthorized,
    }[key]
    diagnosis, _ = await run(builder())
    first = diagnosis.recommendations[0]
    assert needle in first.text.lower() and first.changes_resources is changes


async def test_metrics_window_is_the_lookback_clipped_to_the_run() -> None:
    s = oom_killed()
    diagnosis, asked = await run(s)
    metrics_args = next(args for op, args in asked if op == "get_workload_metrics")
    assert "CPU_MEMORY_USAGE_BYTES" in metrics_args["metricType"].split(",")
    # createdAt is 9 h before now (inside the 7d lookback) and completedAt 3 h before now.
    assert parse_instant(metrics_args["start"]) == T - timedelta(hours=9)
    assert parse_instant(metrics_args["end"]) == T - timedelta(hours=3)
    assert diagnosis.measurements.memory_peak_bytes == max(int((20 + 2.2 * i) * 2**30) for i in range(11))
    assert diagnosis.measurements.memory_limit_bytes == 32 * 2**30


async def test_metrics_are_not_read_without_an_oom_or_unexplained_kill() -> None:
    from tests.runai.scenarios import crash_app_error, mount_failed

    for builder in (crash_app_error, mount_failed):
        diagnosis, asked = await run(builder())
        assert "get_workload_metrics" not in [op for op, _ in asked]
        assert diagnosis.measurements.memory_peak_bytes is None


async def test_empty_metrics_say_no_peak_and_never_present_the_limit_as_one() -> None:
    from tests.runai.scenarios import empty_metrics

    diagnosis, _ = await run(empty_metrics())
    assert diagnosis.measurements.memory_peak_bytes is None
    assert diagnosis.measurements.memory_limit_bytes == 16 * 2**30
    assert any("no peak was observed" in text for text in diagnosis.limitations)
    assert "no peak was observed" in diagnosis.root_cause


async def test_history_paging_stops_at_a_page_older_than_the_cut() -> None:
    from tests.runai.scenarios import lookback_cutoff

    diagnosis, asked = await run(lookback_cutoff())
    offsets = [args["offset"] for op, args in asked if op == "get_workload_history"]
    assert offsets == [0, 50]
    assert all(args["limit"] == 50 for op, args in asked if op == "get_workload_history")
    assert diagnosis.recurrence is not None and diagnosis.recurrence.count == 1


async def test_history_records_are_cited_for_each_counted_failure() -> None:
    from tests.runai.scenarios import duplicate_event_phase_update

    diagnosis, _ = await run(duplicate_event_phase_update())
    cited = [item for item in diagnosis.evidence if item.source == "get_workload_history"]
    # Two occurrences: the gang's two pods and their Failed update (first), the kill and its update.
    assert len(cited) == 5
    assert diagnosis.recurrence is not None and diagnosis.recurrence.count == 2


async def test_events_null_is_a_retrieval_failure_not_no_events() -> None:
    from tests.runai.scenarios import events_null_max_duration

    diagnosis, _ = await run(events_null_max_duration())
    assert any("`events: null`" in text for text in diagnosis.limitations)
    assert diagnosis.category == "SCHEDULING_POLICY_TERMINATED"


async def test_missing_pods_are_reported_not_invented() -> None:
    from tests.runai.scenarios import missing_pods

    diagnosis, _ = await run(missing_pods())
    assert any("No pods were returned" in text for text in diagnosis.limitations)
    assert not any(item.source == "get_workload_pods" for item in diagnosis.evidence)


async def test_replaced_pods_are_read_with_deleted_true_only_when_the_list_is_empty() -> None:
    from tests.runai.scenarios import replaced_pods_deleted

    diagnosis, asked = await run(replaced_pods_deleted())
    pod_reads = [args for op, args in asked if op == "get_workload_pods"]
    assert [args.get("deleted") for args in pod_reads] == [None, True]
    cited = [item for item in diagnosis.evidence if item.source == "get_workload_pods"]
    assert cited and all("@deleted=true" in str(item.field) for item in cited)
    assert any(item.text == "OOMKilled" for item in cited)
    assert not any("No pods were returned" in text for text in diagnosis.limitations)
    # A non-empty plain list is never asked again with deleted=true.
    _, asked = await run(oom_killed())
    assert [args.get("deleted") for op, args in asked if op == "get_workload_pods"] == [None]


async def test_a_failing_deleted_pods_read_leaves_the_empty_list_standing() -> None:
    from tests.runai.scenarios import missing_pods

    s = missing_pods()
    s.exchanges = [e for e in s.exchanges if e["args"].get("deleted") is not True]
    s.pods([], deleted=False)
    s.add(
        "get_workload_pods",
        {"workloadId": s.workload_id, "deleted": True},
        runai_error(400, "deleted is not supported"),
        status=400,
    )
    diagnosis, _ = await run(s)
    assert diagnosis.outcome == "diagnosed" and diagnosis.category == "OOM_KILLED"
    assert any("No pods were returned" in text for text in diagnosis.limitations)
    assert not any("400" in text for text in diagnosis.limitations)


async def test_control_plane_403_after_the_status_is_permission_denied() -> None:
    s = Scenario("spec-403", name="x", project="secret-proj", captured_at=T)
    _failed_basics(s, events=[], history=[])
    s.exchanges = [e for e in s.exchanges if e["op"] != "get_workload_spec"]
    s.spec_answer(runai_error(403, "You do not have sufficient permissions."), status=403)
    diagnosis, _ = await run(s)
    assert diagnosis.outcome == "permission_denied" and diagnosis.confidence == "LOW"
    assert "secret-proj" in diagnosis.permissions[0]


async def test_list_403_is_permission_denied() -> None:
    s = Scenario("list-403", name="x", project="p", captured_at=T)
    s.request = {"cluster_id": s.cluster, "workload_name": "x", "project": "p"}
    s.add("list_workloads", {}, runai_error(403, "You do not have sufficient permissions."), status=403)
    diagnosis, _ = await run(s)
    assert diagnosis.outcome == "permission_denied" and diagnosis.permissions


async def test_failing_reads_become_limitations_and_the_diagnosis_continues() -> None:
    s = Scenario("flaky-reads", name="x", project="p", captured_at=T)
    oom = s.event(s.at(hours=2), "OOMKilled", "Container trainer of pod x terminated: OOMKilled")
    s.status(
        s.workload(
            phase="Failed",
            created=s.at(hours=9),
            phase_updated=s.at(hours=2),
            completed=s.at(hours=2),
            phase_message="OOMKilled",
        )
    )
    s.add(
        "get_workload_events",
        {"workloadId": s.workload_id},
        runai_error(500, "Something went wrong."),
        status=500,
    )
    s.spec_answer(runai_error(404, "Resource id not found."), status=404)
    s.add("get_workload_pods", {"workloadId": s.workload_id}, {"pods": "not-a-list", "next": None})
    s.add(
        "get_workload_history",
        {"workloadId": s.workload_id},
        runai_error(503, "Please try again in few minutes."),
        status=503,
    )
    s.add(
        "get_workload_metrics",
        {"workloadId": s.workload_id},
        {
            "measurements": [
                {"type": "CPU_MEMORY_USAGE_BYTES", "values": [{"value": "garbage", "timestamp": None}, None]}
            ]
        },
    )
    del oom
    diagnosis, _ = await run(s)
    assert diagnosis.outcome == "diagnosed" and diagnosis.category == "OOM_KILLED"
    text = " ".join(diagnosis.limitations)
    assert "get_workload_events failed (HTTP 500" in text
    assert "spec" in text and "HTTP 404" in text
    assert "get_workload_history failed (HTTP 503" in text
    # History unreadable: recurrence is unknown, not zero.
    assert diagnosis.recurrence is None and "recurrence is unknown" in text
    assert diagnosis.measurements.memory_peak_bytes is None


@pytest.mark.parametrize("body", [None, [], "oops", {"phase": ["Failed"]}])
async def test_a_status_in_an_unexpected_shape_gives_a_partial_diagnosis(body: Any) -> None:
    s = Scenario("shape", name="x", project="p", captured_at=T)
    s.status(body)  # type: ignore[arg-type]
    diagnosis, _ = await run(s)
    assert (
        diagnosis.outcome == "diagnosed" and diagnosis.category == "UNKNOWN" and diagnosis.confidence == "LOW"
    )
    assert diagnosis.limitations and diagnosis.next_steps


async def test_status_timeout_or_unrecorded_answer_is_unknown_low() -> None:
    s = Scenario("nothing", name="x", project="p", captured_at=T)
    diagnosis, _ = await run(s)
    assert (diagnosis.outcome, diagnosis.category, diagnosis.confidence) == ("diagnosed", "UNKNOWN", "LOW")
    assert any("not recorded" in text for text in diagnosis.limitations)


async def test_an_unreadable_lookback_falls_back_to_the_default() -> None:
    s = oom_killed()
    s.request = {**s.request, "lookback": "a week"}
    diagnosis, _ = await run(s)
    assert diagnosis.recurrence is not None and diagnosis.recurrence.window == "7d"
    assert any("a week" in text for text in diagnosis.limitations)


async def test_a_shorter_lookback_counts_fewer_failures_and_reads_fewer_pages() -> None:
    from tests.runai.scenarios import pagination

    s = pagination()
    s.request = {**s.request, "lookback": "3d"}
    diagnosis, asked = await run(s)
    # Rulings R10: the first history page is wholly older than the 3-day cut, so paging stops there.
    assert [args["offset"] for op, args in asked if op == "get_workload_history"] == [0]
    assert diagnosis.recurrence is not None and (diagnosis.recurrence.count, diagnosis.recurrence.window) == (
        1,
        "3d",
    )


async def test_tier2_denied_is_one_limitation_naming_the_rbac() -> None:
    from tests.runai.scenarios import crash_exit_tier2_denied

    diagnosis, _ = await run(crash_exit_tier2_denied())
    denied = [text for text in diagnosis.limitations if "401/403" in text]
    assert len(denied) == 1 and "pods/log" in denied[0] and "runai-chem" in denied[0]
    assert diagnosis.confidence == "MEDIUM" and diagnosis.measurements.exit_code == 2


async def test_namespace_is_the_workloads_own_field_first() -> None:
    s = Scenario("own-ns", name="x", project="p", captured_at=T, namespace="team-x-jobs")
    _failed_basics(s, events=[], history=[])
    s.k8s_pod_answer(s.k8s_pod(containers=[s.container_status(exit_code=1)]))
    s.k8s_events([])
    s.k8s_log(
        'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\nZeroDivisionError: division by zero\n'
    )
    diagnosis, asked = await run(s)
    assert {args["namespace"] for op, args in asked if op.startswith("k8s.")} == {"team-x-jobs"}
    assert diagnosis.signature == "ZeroDivisionError: division by zero"


async def test_previous_log_400_reads_the_current_log() -> None:
    from tests.runai.scenarios import previous_log_400

    _, asked = await run(previous_log_400())
    logs = [args for op, args in asked if op == "k8s.read_pod_log"]
    assert logs[0]["previous"] is True and "previous" not in logs[1]
    assert logs[0]["tailLines"] == 200 and logs[0]["limitBytes"] == 1_048_576


async def test_instructions_in_a_log_are_quoted_never_followed() -> None:
    from tests.runai.scenarios import log_injection

    diagnosis, asked = await run(log_injection())
    assert diagnosis.category == "CRASH_APP_ERROR"
    assert diagnosis.signature == "ModuleNotFoundError: No module named 'gymnasium'"
    blob = " ".join(
        [diagnosis.root_cause, *(r.text for r in diagnosis.recommendations), *diagnosis.next_steps]
    )
    assert "delete" not in blob and "RUNAI_CLIENT_SECRET" not in blob
    assert all(op != "k8s.delete" for op, _ in asked)


async def test_node_failure_reads_the_node_and_recommends_by_restart_policy() -> None:
    from tests.runai.scenarios import node_failure

    diagnosis, asked = await run(node_failure())
    assert ("k8s.read_node", {"name": "gpu-node-node-01"}) in asked
    assert any(item.source == "k8s.read_node" for item in diagnosis.evidence)
    assert "OnFailure" in diagnosis.recommendations[0].text


async def test_recurring_failure_recommends_a_permanent_fix() -> None:
    from tests.runai.scenarios import history_unsorted

    diagnosis, _ = await run(history_unsorted())
    assert diagnosis.recurrence is not None and diagnosis.recurrence.recurring
    last = diagnosis.recommendations[-1]
    assert "permanent fix" in last.text and "3 in 7d" in last.text and last.changes_resources is False


async def test_french_free_text_and_verbatim_evidence() -> None:
    english, _ = await run(oom_killed())
    french, _ = await run(oom_killed(), lang="fr")
    assert french.root_cause != english.root_cause and "limite" in french.root_cause
    assert [e.text for e in french.evidence] == [e.text for e in english.evidence]
    assert french.signature == english.signature == "OOMKilled"


async def test_the_workflow_reads_no_clock() -> None:
    s = oom_killed()
    first, _ = await run(s)
    later = parse_bundle(s.bundle())
    request = engine.request_from_bundle(later)
    async with BACKEND.replay_source(later) as source:
        shifted = await engine.diagnose_with(request, source, now=later.captured_at + timedelta(days=30))
    # A month later the same failure is outside the 7-day lookback: only `now` moved.
    assert first.recurrence is not None and first.recurrence.count == 1
    assert shifted.recurrence is not None and shifted.recurrence.count == 0
    assert any("outside the 7d lookback" in text for text in shifted.limitations)


async def test_k8s_status_helper_bodies_are_kubernetes_status_objects() -> None:
    assert k8s_status(404, "x")["kind"] == "Status"


async def test_pending_image_pull_with_ambiguous_registry_answer() -> None:
    s = _image_pull(
        "amb",
        "priv",
        "pull access denied for registry.example.com/x, repository does not exist or may require 'docker login': denied: requested access to the resource is denied",
    )
    diagnosis, _ = await run(s)
    assert diagnosis.category == "IMAGE_PULL_FAILED"
    assert "exists" in diagnosis.recommendations[0].text


class EndlessPages:
    """A source whose list answers never end, or repeat their `next` (rulings G4)."""

    tier2_available = False

    def __init__(self, *, repeat_next: bool) -> None:
        self.repeat_next = repeat_next
        self.calls: list[str] = []
        self.pages = 0

    async def fetch(self, op: str, /, *, variant: str | None = None, **args: Any) -> Answer:
        self.calls.append(op)
        if op == "list_workloads" and args.get("deleted"):
            return Answer(op=op, args=args, status=200, body={"workloads": []})  # none was deleted
        if op == "list_workloads":
            self.pages += 1
            offset = int(args.get("offset", 0))
            following = offset if self.repeat_next and offset else offset + 1
            item = {"id": f"w{offset}", "name": "n", "projectName": "p", "clusterId": "c", "phase": "Running"}
            return Answer(op=op, args=args, status=200, body={"workloads": [item], "next": following})
        return Answer(op=op, args=args, error="not recorded in the bundle")


@pytest.mark.parametrize(
    ("repeat_next", "pages", "needle"), [(False, 100, "100 pages"), (True, 2, "same `next`")]
)
async def test_paging_stops_at_100_pages_or_a_repeated_next(
    repeat_next: bool, pages: int, needle: str
) -> None:
    from diagnosis.models import DiagnoseRequest
    from diagnosis.runai.workflow import diagnose

    source = EndlessPages(repeat_next=repeat_next)
    request = DiagnoseRequest(platform="runai", cluster_id="c", workload_name="n", project="p")
    diagnosis = await diagnose(request, source, now=T)
    assert source.pages == pages
    assert any(needle in text for text in diagnosis.limitations)
    assert diagnosis.outcome == "needs_input" and diagnosis.questions[0].key == "past_run"


async def test_metric_timestamps_with_a_space_and_string_values() -> None:
    s = oom_killed()
    metrics = next(e for e in s.exchanges if e["op"] == "get_workload_metrics")
    metrics["body"] = {
        "measurements": [
            {
                "type": "CPU_MEMORY_USAGE_BYTES",
                "labels": None,
                "values": [
                    {"value": "30000000000", "timestamp": "2026-05-06 05:00:00.211"},
                    {"value": "31000000000", "timestamp": "2026-05-06 05:30:00.211"},
                    {"value": "29000000000", "timestamp": "2026-05-06 06:00:00.211"},
                ],
            },
            {
                "type": "CPU_MEMORY_LIMIT_BYTES",
                "labels": None,
                "values": [{"value": "34359738368", "timestamp": None}],
            },
        ]
    }
    diagnosis, _ = await run(s)
    assert diagnosis.measurements.memory_peak_bytes == 31_000_000_000
    assert any("sampled every 30m" in text for text in diagnosis.limitations)
    peak = next(item for item in diagnosis.evidence if item.source == "get_workload_metrics")
    assert peak.value == 31_000_000_000 and "2026-05-06 05:30:00.211" in peak.text


async def test_the_submitted_command_corroborates_a_crash_and_is_masked() -> None:
    from tests.runai.scenarios import crash_app_error

    s = crash_app_error()
    spec = next(e for e in s.exchanges if e["op"] == "get_workload_spec")["body"]["spec"]
    spec["args"] = "train.py --hf-token=hf_abcdefghijklmnopqrstuvwxyz0123 --epochs 3"
    spec["annotations"] = [
        {
            "name": "runai-submit-command",
            "value": "runai submit t5 -e WANDB_API_KEY=abc123def456 -- python train.py",
        }
    ]
    diagnosis, _ = await run(s)
    cited = {item.field: item.text for item in diagnosis.evidence if item.source == "get_workload_spec"}
    assert "hf_abcdefghij" not in cited["spec.command"] and "--epochs 3" in cited["spec.command"]
    assert (
        "abc123def456" not in cited["spec.annotations[0]"]
        and "runai submit t5" in cited["spec.annotations[0]"]
    )
    # Configuration corroborates; the category still comes from the runtime evidence.
    assert diagnosis.signature == "KeyError: 'attention_mask'"


async def test_a_stop_by_a_person_is_voluntary_and_no_admin_review_is_advised() -> None:
    s = Scenario("manual-stop", name="x", project="p", captured_at=T)
    stopped = s.at(hours=2)
    _failed_basics(
        s,
        phase="Stopped",
        events=[
            s.event(stopped.replace(second=4), "Killing", "Stopping container trainer", event_type="Normal")
        ],
        pod_phase="Failed",
        history=[
            s.phase_update(s.at(hours=9), "Running"),
            s.phase_update(stopped, "Stopped", "Workload stopped by user alice@example.com"),
        ],
        failed_hours=2,
    )
    diagnosis, _ = await run(s)
    assert (diagnosis.category, diagnosis.confidence) == ("SCHEDULING_POLICY_TERMINATED", "HIGH")
    assert diagnosis.signature == "Workload stopped by user alice@example.com"
    assert len(diagnosis.recommendations) == 1 and "administrator" not in diagnosis.recommendations[0].text
