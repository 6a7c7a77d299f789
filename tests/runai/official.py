"""The platforms' own artefacts as judges of what the Run:ai client sends and what bundles hold.

Run:ai: `runapy`, NVIDIA's Python client generated from the control plane's OpenAPI document
(https://github.com/runai-professional-services/runapy). Its API classes name every path, method
and query parameter; its pydantic models know every field, which ones are required, which may be
null, and the enums (`Phase` has 14 values). The release importable as `runai` is the judge: the
lock pins the current plane's; an older plane's release is run in its own Python by `in_plane`.
Kubernetes: the official `kubernetes` client, its request builders and its models (which forbid
undeclared fields).

A problem is `(where, what)`: `where` a path into the body (`records[0].spec.phaseUpdate.phase`)
or the request, `what` a short reason. Run as `python -m tests.runai.official` it judges a JSON
payload read from stdin (`{"bodies": [...], "requests": [...]}`) with the `runai` on its path.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any, get_args
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel, ValidationError

ROOT = Path(__file__).resolve().parents[2]
PLANES_DIR = ROOT / ".venv" / "runai-planes"

# The response schema of each op (the spec's `200` answer), by the runapy model generated from it;
# where releases name it differently, the first one the release has. `GET /api/v1/workloads/{id}`
# answers WorkloadDetailed from 2.20 on, the plain Workload before; the metrics' composite answer
# came after 2.20.
RESPONSE_MODELS: dict[str, tuple[str, ...]] = {
    "list_workloads": ("GetWorkloads200Response",),
    "get_workload_status": ("WorkloadDetailed", "Workload"),
    "get_workload_events": ("GetWorkloadEvents200Response",),
    "get_workload_history": ("GetWorkloadHistory200Response",),
    "get_workload_pods": ("ListPods200Response",),
    "get_workload_metrics": ("MetricsCompositeResponse", "MetricsResponse"),
    "token": ("TokenResponse",),
}
# The type-specific spec endpoints, by the route's variant.
SPEC_MODELS: dict[str, str] = {
    "trainings": "Training1",
    "workspaces": "Workspace1",
    "distributed": "DistributedWorkload",
    "inferences": "Inference1",
    "distributed-inferences": "DistributedInference",
}
KUBE_MODELS: dict[str, str] = {
    "k8s.read_pod": "V1Pod",
    "k8s.list_events": "CoreV1EventList",
    "k8s.read_node": "V1Node",
}
# Enums the generator drops (the spec declares them inline on the parameter): sort order for every
# list. `sortBy` of the workload list is judged by the plane stand-ins (simulator/runai_planes.py).
INLINE_ENUMS: dict[str, frozenset[str]] = {"sortOrder": frozenset({"asc", "desc"})}


@dataclass(frozen=True)
class Problem:
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def _path(parts: Sequence[Any]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


# --- bodies ----------------------------------------------------------------------------------------


def runai_version() -> str:
    import runai

    return str(runai.__version__)


def _runai_model(name: str) -> type[BaseModel] | None:
    models = importlib.import_module("runai.models")
    found = getattr(models, name, None)
    return found if isinstance(found, type) and issubclass(found, BaseModel) else None


def _validation_problems(error: ValidationError, prefix: Sequence[Any] = ()) -> list[Problem]:
    problems = []
    for item in error.errors():
        where = _path([*prefix, *item["loc"]]) or "(body)"
        given = item.get("input")
        shown = "" if isinstance(given, dict | list) else f" {given!r}"
        problems.append(Problem(where, f"{item['type']}{shown}"))
    return problems


def _aliases(model: BaseModel) -> dict[str, str]:
    return {(field.alias or name): name for name, field in type(model).model_fields.items()}


def _walk(body: Mapping[str, Any], model: BaseModel, parts: list[Any]) -> Iterator[Problem]:
    """Fields the spec does not declare, and nulls where the spec allows none.

    Whether a field may be null the generated code knows only in `to_dict()`: it writes `None` back
    for the nullable fields it was given and drops every other None.
    """
    written = model.to_dict() if hasattr(model, "to_dict") else model.model_dump(by_alias=True)
    names = _aliases(model)
    for key, value in body.items():
        name = names.get(key)
        where = [*parts, key]
        if name is None:
            if "additional_properties" not in type(model).model_fields:
                yield Problem(_path(where), "not a field of the spec")
            continue
        if value is None:
            if key not in written or written[key] is not None:
                yield Problem(_path(where), "null, which the spec does not allow here")
            continue
        attribute = getattr(model, name)
        if isinstance(attribute, BaseModel) and isinstance(value, dict):
            yield from _walk(value, attribute, where)
        elif isinstance(attribute, list) and isinstance(value, list):
            for index, (item_body, item) in enumerate(zip(value, attribute, strict=False)):
                if isinstance(item, BaseModel) and isinstance(item_body, dict):
                    yield from _walk(item_body, item, [*where, index])


def model_problems(model_name: str, body: Any) -> list[Problem]:
    model = _runai_model(model_name)
    if model is None:
        return [Problem("(body)", f"runapy {runai_version()} has no model {model_name}")]
    if not isinstance(body, dict):
        return [Problem("(body)", f"a JSON object was expected, not {type(body).__name__}")]
    try:
        instance = model.model_validate(body)
    except ValidationError as error:
        return _validation_problems(error)
    return list(_walk(body, instance, []))


def body_problems(op: str, body: Any, *, variant: str | None = None) -> list[Problem]:
    """What the official models find wrong in a 2xx answer of `op`."""
    if op in KUBE_MODELS:
        return kube_body_problems(op, body)
    if op == "get_workload_spec":
        if variant is None:
            return [Problem("(body)", "the spec endpoint's variant is unknown")]
        return model_problems(SPEC_MODELS[variant], body)
    names = RESPONSE_MODELS[op]
    return model_problems(next((name for name in names if _runai_model(name) is not None), names[0]), body)


def kube_body_problems(op: str, body: Any) -> list[Problem]:
    import kubernetes.client

    model: type[BaseModel] = getattr(kubernetes.client, KUBE_MODELS[op])
    try:
        model.model_validate(body)
    except ValidationError as error:
        return _validation_problems(error)
    return []


# --- requests --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Operation:
    """One operation of the spec, as the generated API class builds it."""

    name: str
    method: str
    path: re.Pattern[str]
    template: str
    query: dict[str, Any]  # wire name -> parameter annotation


class _Recorder:
    def call_api(self, **parts: Any) -> Mapping[str, Any]:
        self.parts = parts
        return parts


_SENTINEL = "SENTINEL0PATH0VALUE"


@cache
def runai_operations() -> tuple[Operation, ...]:
    """Every operation of every generated API class, by calling each with sentinel arguments."""
    api_package = importlib.import_module("runai.api")
    found: list[Operation] = []
    for module_info in pkgutil.iter_modules(api_package.__path__):
        module = importlib.import_module(f"runai.api.{module_info.name}")
        for class_name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or not class_name.endswith("Api"):
                continue
            for method_name, function in inspect.getmembers(cls, inspect.isfunction):
                if method_name.startswith("_"):
                    continue
                operation = _operation(cls, method_name, function)
                if operation is not None:
                    found.append(operation)
    return tuple(found)


def _operation(cls: type, method_name: str, function: Any) -> Operation | None:
    parameters = list(inspect.signature(function).parameters.values())[1:]
    recorder = _Recorder()
    arguments = {parameter.name: f"{_SENTINEL}{index}X" for index, parameter in enumerate(parameters)}
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            function(cls(api_client=recorder), **arguments)
    except Exception:
        return None
    parts = getattr(recorder, "parts", None)
    if not parts:
        return None
    template = str(parts["resource_path"])
    annotations = {parameter.name: parameter.annotation for parameter in parameters}
    query: dict[str, Any] = {}
    for wire, value in parts.get("query_params") or []:
        python_name = next((name for name, given in arguments.items() if given == value), None)
        query[str(wire)] = annotations.get(python_name or "")
    generic = re.sub(f"{_SENTINEL}[0-9]+X", "{}", template)
    pattern = re.compile("^" + re.escape(generic).replace(re.escape("{}"), "[^/]+") + "$")
    return Operation(
        name=f"{cls.__name__}.{method_name}",
        method=str(parts["method"]).upper(),
        path=pattern,
        template=generic,
        query=query,
    )


def find_operation(method: str, path: str) -> Operation | None:
    """The spec operation a request is for; the most specific template wins (literal segments)."""
    matches = [op for op in runai_operations() if op.method == method.upper() and op.path.match(path)]
    return max(matches, key=lambda op: len(op.template.replace("{}", ""))) if matches else None


def _enum_values(annotation: Any) -> frozenset[str] | None:
    for candidate in (annotation, *get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, Enum):
            return frozenset(str(member.value) for member in candidate)
        inner = get_args(candidate)
        for item in inner:
            if isinstance(item, type) and issubclass(item, Enum):
                return frozenset(str(member.value) for member in item)
    return None


def _kind(annotation: Any) -> str:
    text = str(annotation)
    for kind in ("List", "bool", "int", "datetime"):
        if kind in text:
            return kind
    return "str"


def _value_problems(name: str, value: str, annotation: Any) -> list[Problem]:
    where = f"query {name}"
    kind = _kind(annotation)
    values = value.split(",") if kind == "List" else [value]
    allowed = _enum_values(annotation) or INLINE_ENUMS.get(name)
    problems = []
    for item in values:
        if allowed is not None and item not in allowed:
            problems.append(Problem(where, f"{item!r} is not one of the spec's values"))
        elif kind == "bool" and item not in ("true", "false"):
            problems.append(Problem(where, f"{item!r} is not a boolean"))
        elif kind == "int" and not re.fullmatch(r"-?[0-9]+", item):
            problems.append(Problem(where, f"{item!r} is not an integer"))
        elif kind == "datetime":
            try:
                datetime.fromisoformat(item.replace("Z", "+00:00"))
            except ValueError:
                problems.append(Problem(where, f"{item!r} is not an ISO-8601 time"))
    return problems


def request_problems(method: str, url: str, body: Any = None) -> list[Problem]:
    """What the spec finds wrong in a request: an unknown path or method, a query parameter the
    operation does not take, a value outside its type or enum, a token body outside TokenRequest."""
    parts = urlsplit(url)
    operation = find_operation(method, parts.path)
    if operation is None:
        return [Problem(f"{method} {parts.path}", "no operation of the spec")]
    problems: list[Problem] = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name not in operation.query:
            problems.append(Problem(f"query {name}", f"not a parameter of {operation.name}"))
            continue
        problems.extend(_value_problems(name, value, operation.query[name]))
    if body is not None:
        problems.extend(model_problems("TokenRequest", body) if "token" in parts.path else [])
    return problems


def kube_request_problems(op: str, url: str) -> list[Problem]:
    """The official client builds the same request from the same arguments (path and query)."""
    from kubernetes import client

    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    segments = parts.path.strip("/").split("/")
    api = client.CoreV1Api(client.ApiClient(client.Configuration(host="https://kube.invalid")))
    renames = {"tailLines": "tail_lines", "limitBytes": "limit_bytes", "fieldSelector": "field_selector"}
    kwargs: dict[str, Any] = {renames.get(key, key): value for key, value in query.items()}
    for key in ("previous",):
        if key in kwargs:
            kwargs[key] = kwargs[key] == "true"
    for key in ("tail_lines", "limit_bytes"):
        if key in kwargs:
            kwargs[key] = int(kwargs[key])
    builders = {
        "k8s.read_pod": ("read_namespaced_pod", {"namespace": segments[3:4], "name": segments[5:6]}),
        "k8s.read_pod_log": ("read_namespaced_pod_log", {"namespace": segments[3:4], "name": segments[5:6]}),
        "k8s.list_events": ("list_namespaced_event", {"namespace": segments[3:4]}),
        "k8s.read_node": ("read_node", {"name": segments[3:4]}),
    }
    method_name, path_args = builders[op]
    serialize = getattr(api, f"_{method_name}_serialize")
    accepted = set(inspect.signature(serialize).parameters)
    unknown = [key for key in kwargs if key not in accepted]
    if unknown:
        return [Problem(f"query {key}", f"not a parameter of CoreV1Api.{method_name}") for key in unknown]
    call = {name: None for name in accepted}
    call.update({key: value[0] for key, value in path_args.items() if value})
    call.update(kwargs)
    call["_host_index"] = 0
    official_method, official_url, *_rest = serialize(**call)
    official = urlsplit(official_url)
    problems = []
    if official.path != parts.path or official_method != "GET":
        problems.append(Problem("path", f"the official client asks {official_method} {official.path}"))
    if sorted(parse_qsl(official.query)) != sorted(parse_qsl(parts.query)):
        problems.append(Problem("query", f"the official client sends {official.query!r}"))
    return problems


# --- another plane's release, in its own Python ----------------------------------------------------


def plane_folder(version: str) -> Path:
    return PLANES_DIR / version


def in_plane(version: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Judge `payload` with runapy `version` (installed by `make` under .venv/runai-planes/)."""
    folder = plane_folder(version)
    if not (folder / "runai" / "__init__.py").exists():
        raise FileNotFoundError(f"runapy {version} is not installed in {folder}: run `make venv`")
    done = subprocess.run(
        [sys.executable, "-m", "tests.runai.official"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": f"{folder}:{ROOT}", "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"runapy {version} judge failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def judge(payload: Mapping[str, Any]) -> dict[str, Any]:
    """`{"version", "bodies": [[problem, ...] per body], "requests": [[problem, ...] per request],
    "phases": the release's Phase enum}`."""
    bodies = [
        [str(p) for p in body_problems(item["op"], item["body"], variant=item.get("variant"))]
        for item in payload.get("bodies", [])
    ]
    requests = [
        [str(p) for p in request_problems(item["method"], item["url"], item.get("body"))]
        for item in payload.get("requests", [])
    ]
    phases = sorted(str(member.value) for member in importlib.import_module("runai.models").Phase)
    return {"version": runai_version(), "bodies": bodies, "requests": requests, "phases": phases}


if __name__ == "__main__":
    json.dump(judge(json.load(sys.stdin)), sys.stdout)
