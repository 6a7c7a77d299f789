"""scan/v1 of Run:ai workloads: the diagnoses, and the images and nodes each workload used (read
from the answers its diagnosis read), from which the scan finds the causes that recur."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from diagnosis.models import Exchange, Platform
from diagnosis.runai import parse
from diagnosis.runai.defaults import DEFAULT_LOOKBACK
from diagnosis.runai.phases import FAILING_POD_PHASES, lowered
from diagnosis.scan import DiagnosedJob, ScanResultBase, ScanScope
from diagnosis.scan.recurring import ScanMember


@dataclass
class ScanResult(ScanResultBase):
    platform: ClassVar[Platform] = "runai"

    cluster_id: str
    project: str | None = None
    lookback: str = DEFAULT_LOOKBACK
    throttled: int = field(default=0, kw_only=True)

    def scope_json(self) -> dict[str, Any]:
        return {"cluster_id": self.cluster_id, "project": self.project, "lookback": self.lookback}


# --- what a workload is made of, from the answers its diagnosis read ------------------------------


def images_of(workload: parse.Workload, exchanges: Sequence[Exchange]) -> tuple[str, ...]:
    """`images[]` of the list item and of the status, `spec.image` of the type-specific spec."""
    found = list(workload.images)
    for exchange in exchanges:
        if not 200 <= exchange.status < 300:
            continue
        if exchange.op == "get_workload_status":
            status, _problem = parse.view(parse.Workload, exchange.body)
            found += status.images if status is not None else []
        elif exchange.op == "get_workload_spec":
            spec, _problem = parse.view(parse.WorkloadSpec, exchange.body)
            if spec is not None and spec.spec is not None and spec.spec.image:
                found.append(spec.spec.image)
    return tuple(dict.fromkeys(image.strip() for image in found if image and image.strip()))


def nodes_of(exchanges: Sequence[Exchange]) -> tuple[str, ...]:
    """`nodeName` of the failing pods (k8sPhase Error/OOMKilled/Failed), else of every pod listed."""
    pods: list[parse.Pod] = []
    for exchange in exchanges:
        if exchange.op == "get_workload_pods" and 200 <= exchange.status < 300:
            listed, _problem = parse.view(parse.PodList, exchange.body)
            pods += listed.pods if listed is not None else []
    failing = [pod for pod in pods if lowered(pod.k8sPhase) in FAILING_POD_PHASES]
    return tuple(dict.fromkeys(pod.nodeName for pod in failing or pods if pod.nodeName))


def result_of(scope: ScanScope, jobs: Sequence[DiagnosedJob]) -> ScanResult:
    """scan/v1 of workloads diagnosed one by one (each listed once): their images and nodes come
    from the answers each diagnosis read."""
    members = [
        ScanMember(
            name=job.diagnosis.target.name or job.diagnosis.target.workload_id or "?",
            outcome=job.diagnosis.outcome,
            signature=job.diagnosis.signature,
            images=images_of(parse.Workload(), job.exchanges),
            nodes=nodes_of(job.exchanges),
        )
        for job in jobs
    ]
    return ScanResult(
        cluster_id=scope.cluster_id or "?",
        project=scope.project,
        lookback=scope.lookback or DEFAULT_LOOKBACK,
        scanned=len(jobs),
        results=[job.diagnosis for job in jobs],
        members=members,
    )
