"""How Run:ai control planes of different releases answer where they differ (`diagnose sim --runai-plane`).

Each release's OpenAPI document is the source; NVIDIA's client generated from it (runapy 1.2NN
for control plane 2.NN, https://github.com/runai-professional-services/runapy) shows each
difference, and the tests judge each stand-in's requests and answers with that release's client:
- the token request: `client_credentials` and `clientSecret` exist from 2.20; 2.18 and 2.19 know
  only the application grant (`app_token` with `appID`/`appSecret`), and a token answer holds
  `expiresIn` only in the current release;
- the workload list sorts and filters by `phaseUpdatedAt` from 2.21 on: 2.18 to 2.20 answer 400;
- query parameters a release does not have are refused (400), e.g. the events' `sortOrder`, which
  appears in 2.20;
- answers hold only the fields of the release: no `category`, `priority` or `phaseReason` on a 2.18
  workload, no `pendingSchedulingMessages` (the detailed workload came in 2.20), and so on.
Bundles hold answers in the current release's shape; a plane takes out what its release lacks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Workload fields the current release has and 2.20 does not (2.18 lacks more, below).
_WORKLOAD_AFTER_2_20 = (
    "totalPendingTimeSeconds",
    "totalRunningTimeSeconds",
    "category",
    "guaranteedRuntimeEndsAt",
    "aiApplicationId",
    "aiApplicationName",
    "sourceApi",
    "topology",
)
_WORKLOAD_AFTER_2_18 = (
    *_WORKLOAD_AFTER_2_20,
    "priority",
    "environmentVariables",
    "command",
    "arguments",
    "phaseReason",
    "idleGpus",
    "idleAllocatedGpus",
    "environments.connections.authorizationType",
    "environments.connections.containerPort",
    "externalConnections.authorizationType",
    "externalConnections.containerPort",
)
_SPEC_AFTER_2_20 = (
    "deletedAt",
    "spec.category",
    "spec.imagePullSecrets",
    "spec.nodeAffinityRequired",
    "spec.preemptibility",
    "spec.restartPolicy",
    "spec.storage.emptyDirVolume",
)
# The workload list's sort and filter fields of 2.18 to 2.20 (no phaseUpdatedAt).
_LIST_FIELDS_2_18 = frozenset(
    {
        "type",
        "name",
        "clusterId",
        "projectId",
        "projectName",
        "departmentId",
        "departmentName",
        "createdAt",
        "deletedAt",
        "submittedBy",
        "phase",
        "completedAt",
        "nodepool",
        "allocatedGPU",
        "distributedFramework",
    }
)
_LIST_FIELDS_CURRENT = _LIST_FIELDS_2_18 | {
    "idleGpus",
    "idleAllocatedGpus",
    "phaseUpdatedAt",
    "category",
    "priority",
    "totalPendingTimeSeconds",
    "totalRunningTimeSeconds",
    "priorityClassName",
    "guaranteedRuntimeEndsAt",
    "aiApplicationId",
    "aiApplicationName",
}
_FILTER_OPERATORS = ("==", "!=", "<=", ">=", "=@", "!@", "=^", "=$")
_PAGING = ("offset", "limit")


@dataclass(frozen=True)
class Plane:
    """One control-plane release as the stand-in answers it."""

    name: str
    runapy: str  # the generated client's release for this plane
    token_grants: frozenset[str]
    token_expires_in: bool
    list_fields: frozenset[str]
    # The query parameters of each op the client uses.
    parameters: Mapping[str, frozenset[str]]
    # Fields of the current release's answers this release lacks, by op (`a.b` reaches into
    # objects and every item of a list).
    absent: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def token_answer(self, body: bytes, *, token: str, lifetime_seconds: int) -> tuple[int, dict[str, Any]]:
        try:
            request = json.loads(body or b"{}")
        except ValueError:
            request = None
        if not isinstance(request, dict):
            return 400, {"code": 400, "message": "Required parameter is missing"}
        # The server matches JSON keys case-insensitively (runapy sends `AppId`).
        keys = {str(key).lower(): value for key, value in request.items()}
        grant = keys.get("granttype")
        if grant not in self.token_grants:
            allowed = ", ".join(sorted(self.token_grants))
            return 400, {"code": 400, "message": f"grantType must be one of {allowed}"}
        id_key, secret_key = ("appid", "appsecret") if grant == "app_token" else ("clientid", "clientsecret")
        if not keys.get(id_key) or not keys.get(secret_key):
            return 400, {"code": 400, "message": "Required parameter is missing"}
        answer: dict[str, Any] = {"accessToken": token, "idToken": ""}
        if self.token_expires_in:
            answer["expiresIn"] = lifetime_seconds
        return 200, answer

    def refusal(self, op: str, query: Mapping[str, str]) -> dict[str, Any] | None:
        """The 400 this release answers to the query, or None when it takes it."""
        known = self.parameters.get(op)
        if known is not None:
            for name in query:
                if name not in known:
                    return {"code": 400, "message": f"unknown query parameter {name}"}
        if op != "list_workloads":
            return None
        sort_by = query.get("sortBy")
        if sort_by is not None and sort_by not in self.list_fields:
            return {"code": 400, "message": f"sortBy: {sort_by} is not a field that can be sorted by"}
        for expression in filter(None, (query.get("filterBy") or "").split(",")):
            name = _filter_field(expression)
            if name not in self.list_fields:
                return {"code": 400, "message": f"filterBy: {expression} does not match the filter pattern"}
        return None

    def recorded_args(self, op: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments a current-release recording answers this release's request under: the
        unsorted workload list an older release is asked for has the sorted list's items (the
        client sorts the matches itself)."""
        if op == "list_workloads" and "sortBy" not in args:
            return {**args, "sortBy": "phaseUpdatedAt"}
        return dict(args)

    def shaped(self, op: str, body: Any) -> Any:
        """The answer without the fields this release does not have."""
        paths = self.absent.get(op)
        if not paths or not isinstance(body, dict):
            return body
        copy = json.loads(json.dumps(body))
        for path in paths:
            _drop(copy, path.split("."))
        return copy


def _filter_field(expression: str) -> str:
    cut = min((expression.find(op) for op in _FILTER_OPERATORS if op in expression), default=-1)
    return expression[:cut] if cut > 0 else expression


def _drop(node: Any, parts: list[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _drop(item, parts)
        return
    if not isinstance(node, dict) or not parts:
        return
    head, rest = parts[0], parts[1:]
    if not rest:
        node.pop(head, None)
    elif head in node:
        _drop(node[head], rest)


def _in_list(paths: tuple[str, ...], collection: str) -> tuple[str, ...]:
    return tuple(f"{collection}.{path}" for path in paths)


_PARAMETERS_2_18: dict[str, frozenset[str]] = {
    "list_workloads": frozenset({"deleted", *_PAGING, "sortOrder", "sortBy", "filterBy"}),
    "get_workload_events": frozenset(_PAGING),
    "get_workload_history": frozenset(_PAGING),
    "get_workload_pods": frozenset({"deleted", *_PAGING}),
    "get_workload_metrics": frozenset({"metricType", "start", "end", "numberOfSamples"}),
    "get_workload_status": frozenset(),
    "get_workload_spec": frozenset(),
}
_PARAMETERS_2_20 = {
    **_PARAMETERS_2_18,
    "list_workloads": _PARAMETERS_2_18["list_workloads"] | {"search"},
    "get_workload_events": frozenset({*_PAGING, "sortOrder"}),
}
_PARAMETERS_CURRENT = {
    **_PARAMETERS_2_20,
    "get_workload_pods": _PARAMETERS_2_20["get_workload_pods"] | {"search"},
}

PLANES: dict[str, Plane] = {
    "2.18": Plane(
        name="2.18",
        runapy="1.218.0",
        token_grants=frozenset({"app_token", "refresh_token", "exchange_token", "password"}),
        token_expires_in=False,
        list_fields=_LIST_FIELDS_2_18,
        parameters=_PARAMETERS_2_18,
        absent={
            "list_workloads": _in_list(_WORKLOAD_AFTER_2_18, "workloads"),
            # Before 2.20 the status endpoint answers the plain Workload (no scheduling messages).
            "get_workload_status": (*_WORKLOAD_AFTER_2_18, "pendingSchedulingMessages"),
            "get_workload_pods": ("pods.revisionId", "pods.ip", "pods.nodeAffinity"),
            "get_workload_spec": _SPEC_AFTER_2_20,
        },
    ),
    "2.20": Plane(
        name="2.20",
        runapy="1.220.0",
        token_grants=frozenset(
            {"app_token", "client_credentials", "refresh_token", "exchange_token", "password"}
        ),
        token_expires_in=False,
        list_fields=_LIST_FIELDS_2_18,
        parameters=_PARAMETERS_2_20,
        absent={
            "list_workloads": _in_list(_WORKLOAD_AFTER_2_20, "workloads"),
            "get_workload_status": _WORKLOAD_AFTER_2_20,
            "get_workload_pods": ("pods.revisionId", "pods.nodeAffinity"),
            "get_workload_spec": _SPEC_AFTER_2_20,
        },
    ),
    "current": Plane(
        name="current",
        runapy="1.224.0",
        token_grants=frozenset(
            {
                "app_token",
                "client_credentials",
                "refresh_token",
                "exchange_token",
                "password",
                "external_token_exchange",
            }
        ),
        token_expires_in=True,
        list_fields=_LIST_FIELDS_CURRENT,
        parameters=_PARAMETERS_CURRENT,
    ),
}


def plane_named(name: str) -> Plane:
    if name not in PLANES:
        raise ValueError(f"unknown Run:ai plane {name!r}: use one of {', '.join(PLANES)}")
    return PLANES[name]
