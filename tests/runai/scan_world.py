"""A cluster with several failed workloads, for `diagnose runai scan`: one evidence bundle whose
request names only the cluster and the lookback (so it is kept out of diagnosis/examples, where the
demo diagnoses every bundle by its request).

Three OOM-killed trainings (two share an image, two a node), an image-pull failure, a workload that
an older cluster reports as `Crashed`, and list items this side must drop although the server sent
them: a Running one, one that failed before the lookback, one on another cluster. Two list pages.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from diagnosis.runai.scan.listing import list_filter
from tests.runai.factory import Scenario, uid
from tests.runai.scenarios import GiB, T, _failed_basics, _oom_history_world

CLUSTER = uid("scan-world", "cluster")
OTHER_CLUSTER = uid("scan-world", "other-cluster")
SHARED_IMAGE = "registry.example.com/nlp-core/llama-sft:2.0"
OTHER_IMAGE = "registry.example.com/nlp-core/t5-base:1.4"
PULL_IMAGE = "registry.example.com/vision/detr-finetune:2.1.0"
NODE_A = "gpu-node-scan-a"
NODE_B = "gpu-node-scan-b"
PAGE_SIZE = 3

# name -> (category the scan must find, image, node)
EXPECTED: dict[str, tuple[str, str, str | None]] = {
    "llama-sft-a": ("OOM_KILLED", SHARED_IMAGE, NODE_A),
    "llama-sft-b": ("OOM_KILLED", SHARED_IMAGE, NODE_B),
    "t5-base-c": ("OOM_KILLED", OTHER_IMAGE, NODE_A),
    "detr-pull": ("IMAGE_PULL_FAILED", PULL_IMAGE, NODE_B),
    "legacy-crash": ("CRASH_APP_ERROR", OTHER_IMAGE, "gpu-node-scan-c"),
}


def _oom(key: str, name: str, *, image: str, node: str, hours: float) -> Scenario:
    s = Scenario(key, name=name, project="nlp-core", captured_at=T, cluster=CLUSTER, image=image, node=node)
    _oom_history_world(s, oom_hours=[hours])
    s.history([s.phase_update(s.at(hours=hours) + timedelta(seconds=3), "Failed", "OOMKilled")])
    s.metrics([(s.at(hours=hours + 1), 12 * GiB), (s.at(hours=hours, minutes=1), 16 * GiB - 2**20)])
    return s


def _image_pull() -> Scenario:
    s = Scenario(
        "scan-pull",
        name="detr-pull",
        project="vision",
        captured_at=T,
        cluster=CLUSTER,
        image=PULL_IMAGE,
        node=NODE_B,
    )
    failed = s.event(
        s.at(hours=6),
        "Failed",
        f'Failed to pull image "{s.image}": rpc error: code = NotFound desc = failed to pull and unpack image '
        f'"{s.image}": failed to resolve reference "{s.image}": {s.image}: not found',
    )
    _failed_basics(s, events=[failed], pod_phase="Failed", history=[s.history_event(failed)], failed_hours=6)
    return s


def _crashed() -> Scenario:
    s = Scenario(
        "scan-crashed",
        name="legacy-crash",
        project="nlp-core",
        captured_at=T,
        cluster=CLUSTER,
        image=OTHER_IMAGE,
        node="gpu-node-scan-c",
    )
    _failed_basics(
        s,
        phase="Crashed",
        phase_message="container trainer exited with code 139",
        events=[],
        history=[s.phase_update(s.at(hours=2), "Crashed")],
    )
    return s


def workloads() -> list[Scenario]:
    return [
        _oom("scan-oom-a", "llama-sft-a", image=SHARED_IMAGE, node=NODE_A, hours=1),
        _oom("scan-oom-b", "llama-sft-b", image=SHARED_IMAGE, node=NODE_B, hours=3),
        _crashed(),
        _oom("scan-oom-c", "t5-base-c", image=OTHER_IMAGE, node=NODE_A, hours=20),
        _image_pull(),
    ]


def _list_item(s: Scenario) -> dict[str, Any]:
    status = next(e for e in s.exchanges if e["op"] == "get_workload_status")["body"]
    item = {key: value for key, value in status.items() if key != "pendingSchedulingMessages"}
    return item


def _noise() -> list[dict[str, Any]]:
    """Items a server that ignores part of the filter may still send."""
    s = Scenario("scan-noise", name="noise", project="nlp-core", captured_at=T, cluster=CLUSTER)
    running = s.workload(
        phase="Running",
        created=s.at(hours=3),
        phase_updated=s.at(hours=2),
        workload_id=uid("scan-noise", "running"),
        name="still-running",
        detailed=False,
    )
    old = s.workload(
        phase="Failed",
        created=s.at(days=12),
        phase_updated=s.at(days=9),
        completed=s.at(days=9),
        workload_id=uid("scan-noise", "old"),
        name="failed-long-ago",
        detailed=False,
    )
    elsewhere = s.workload(
        phase="Failed",
        created=s.at(hours=5),
        phase_updated=s.at(hours=4),
        completed=s.at(hours=4),
        workload_id=uid("scan-noise", "elsewhere"),
        name="other-cluster-job",
        cluster=OTHER_CLUSTER,
        detailed=False,
    )
    return [running, old, elsewhere]


def scan_bundle(*, lookback: str = "7d") -> dict[str, Any]:
    """The whole world as one evidence bundle (its list answers at the scan's exact filter)."""
    scenarios = workloads()
    items = [_list_item(s) for s in scenarios[:2]] + _noise()[:1] + [_list_item(s) for s in scenarios[2:]]
    items += _noise()[1:]
    since = T - timedelta(days=int(lookback.removesuffix("d")))
    filter_by = list_filter(cluster_id=CLUSTER, project=None, since=since)
    exchanges: list[dict[str, Any]] = []
    for offset in range(0, len(items), PAGE_SIZE):
        page = items[offset : offset + PAGE_SIZE]
        more = offset + PAGE_SIZE < len(items)
        body: dict[str, Any] = {"workloads": page}
        if more:
            body["next"] = offset + PAGE_SIZE
        exchanges.append(
            {
                "op": "list_workloads",
                "args": {"filterBy": filter_by, "sortBy": "phaseUpdatedAt", "offset": offset},
                "status": 200,
                "body": body,
            }
        )
    for s in scenarios:
        exchanges += s.exchanges
    return {
        "schema": "evidence-bundle/v1",
        "platform": "runai",
        "captured_at": T.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "request": {"cluster_id": CLUSTER, "lookback": lookback},
        "exchanges": exchanges,
    }
