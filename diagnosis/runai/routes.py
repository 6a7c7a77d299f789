"""Run:ai op table: op name -> real HTTP path (https://api-docs.run.ai/latest/ and the Kubernetes API,
https://kubernetes.io/docs/reference/kubernetes-api/).

The same table drives live calls, bundle replay and the simulator. Kubernetes (Tier 2) ops carry
the `k8s.` prefix and are sent to the Kubernetes API server instead of the Run:ai control plane.
"""

from __future__ import annotations

from diagnosis.evidence.routes import Route, RouteTable

TOKEN_PATH = "/api/v1/token"
K8S_PREFIX = "k8s."

# The type-specific spec endpoints, by the variant name used in `get_workload_spec`.
SPEC_VARIANTS: tuple[str, ...] = (
    "trainings",
    "workspaces",
    "distributed",
    "inferences",
    "distributed-inferences",
)

# Workload `type` (free string in the API) -> spec endpoint variant. Compared lower-cased, without
# separators, because control planes spell kinds differently (Training, training, TrainingWorkload…).
TYPE_TO_SPEC_VARIANT: dict[str, str] = {
    "training": "trainings",
    "trainings": "trainings",
    "train": "trainings",
    "workspace": "workspaces",
    "workspaces": "workspaces",
    "interactive": "workspaces",
    "distributed": "distributed",
    "distributedtraining": "distributed",
    "distributedworkload": "distributed",
    "inference": "inferences",
    "inferences": "inferences",
    "distributedinference": "distributed-inferences",
    "distributedinferences": "distributed-inferences",
}


def spec_variant_for_type(workload_type: str | None) -> str | None:
    if not workload_type:
        return None
    key = "".join(ch for ch in workload_type.lower() if ch.isalnum())
    return TYPE_TO_SPEC_VARIANT.get(key)


def is_k8s_op(op: str) -> bool:
    return op.startswith(K8S_PREFIX)


# Specific paths first: `/api/v1/workloads/trainings/{id}` must not resolve as a workload id.
ROUTES = RouteTable(
    [
        *[
            Route("get_workload_spec", "GET", f"/api/v1/workloads/{variant}/{{workloadId}}", variant=variant)
            for variant in SPEC_VARIANTS
        ],
        Route("list_workloads", "GET", "/api/v1/workloads"),
        Route("get_workload_events", "GET", "/api/v1/workloads/{workloadId}/events"),
        Route("get_workload_pods", "GET", "/api/v1/workloads/{workloadId}/pods"),
        Route("get_workload_history", "GET", "/api/v1/workloads/{workloadId}/history"),
        Route("get_workload_metrics", "GET", "/api/v1/workloads/{workloadId}/metrics"),
        Route("get_workload_status", "GET", "/api/v1/workloads/{workloadId}"),
        # Tier 2: read-only Kubernetes equivalents of kubectl describe/logs/get events.
        Route("k8s.read_pod", "GET", "/api/v1/namespaces/{namespace}/pods/{name}"),
        Route("k8s.read_pod_log", "GET", "/api/v1/namespaces/{namespace}/pods/{name}/log", text_answer=True),
        Route("k8s.list_events", "GET", "/api/v1/namespaces/{namespace}/events"),
        Route("k8s.read_node", "GET", "/api/v1/nodes/{name}"),
    ]
)

# The commands the Tier-2 ops stand for, as the runbook writes them (for next steps and reports).
K8S_COMMANDS: dict[str, str] = {
    "k8s.read_pod": "kubectl describe pod {name} -n {namespace}",
    "k8s.read_pod_log": "kubectl logs {name} -n {namespace} --previous",
    "k8s.list_events": "kubectl get events -n {namespace} --field-selector involvedObject.name={name}",
    "k8s.read_node": "kubectl describe node {name}",
}
