"""Scenario bundles of both platforms, and planting text into every field the product reads.

Planting works on the JSON of a bundle: free-text fields of every answer (task and exit messages,
events' message/info, phase messages, conditions' messages, error bodies, log previews, submitted
command and args), text answers (pod logs), and the structured places a secret hides in
(environment pairs, annotations, argv lists, datasource URLs), added where the API has them.
Only non-empty text is extended, so a planted bundle tells the same story as its original.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diagnosis.bundle import Bundle
from diagnosis.contract_schemas import SCHEMA_DIR
from diagnosis.evidence.bundles import BundleError, load_bundle, parse_bundle
from tests.masking_corpus import PlantedSecret

ROOT = Path(__file__).resolve().parents[2]
BUNDLE_DIRS: tuple[Path, ...] = (
    ROOT / "diagnosis" / "examples",
    ROOT / "tests" / "runai" / "bundles",
    ROOT / "tests" / "modelarts" / "bundles",
    SCHEMA_DIR / "examples",
)

# Keys whose string value is free text an API answer carries (platform and Kubernetes shapes).
TEXT_KEYS = frozenset(
    {
        "message",  # events, conditions, task_statuses, error bodies, container states
        "phaseMessage",  # Run:ai status and history phase updates
        "info",  # ModelArts events
        "en_message",  # ModelArts stages
        "description",  # ModelArts metadata, parameters
        "error_msg",  # ModelArts and API-gateway error bodies
        "errorMsg",
        "error_description",
        "details",
        "solution",  # ModelArts platform analysis
        "content",  # ModelArts log preview
        "command",  # submitted command (Run:ai spec, ModelArts algorithm)
        "args",  # submitted args (Run:ai spec)
    }
)
# Where a job's own text reaches: every free-text field but the platform's advice (ModelArts'
# failure analysis `solution`, numbered steps the report keeps as written).
UNTRUSTED_KEYS = TEXT_KEYS - {"solution"}


@dataclass(frozen=True)
class Scenario:
    name: str
    path: Path
    bundle: Bundle


def scenarios(platform: str | None = None) -> list[Scenario]:
    """Every distinct scenario bundle (examples, test bundles, worked examples), in a stable order."""
    seen: set[str] = set()
    found: list[Scenario] = []
    for folder in BUNDLE_DIRS:
        for path in sorted(folder.rglob("*.json")):
            if path.name.endswith(".diagnosis.json"):
                continue
            try:
                bundle = load_bundle(path)
            except BundleError:
                continue
            digest = hashlib.sha256(
                json.dumps(bundle.to_json_dict(), sort_keys=True).encode("utf-8")
            ).hexdigest()
            if digest in seen or (platform is not None and bundle.platform != platform):
                continue
            seen.add(digest)
            name = f"{folder.name}/{path.relative_to(folder).as_posix().removesuffix('.bundle.json')}"
            found.append(Scenario(name=name, path=path, bundle=bundle))
    return found


def spread(items: Sequence[Scenario], count: int) -> list[Scenario]:
    """`count` scenarios spread over the list, half of each platform when both are there."""
    if count >= len(items):
        return list(items)
    by_platform: dict[str, list[Scenario]] = {}
    for item in items:
        by_platform.setdefault(item.bundle.platform, []).append(item)
    chosen: list[Scenario] = []
    share = max(1, count // len(by_platform))
    for group in by_platform.values():
        step = max(1, len(group) // share)
        chosen.extend(group[::step][:share])
    return chosen


# ---------------------------------------------------------------------------------------------------
# Sites: where text goes into an answer


@dataclass
class TextSite:
    """A non-empty free-text string in an answer; `where` names it (`op:path`)."""

    where: str
    multiline: bool


TextPlanter = Callable[[str, TextSite], str]


def _path_text(path: Sequence[str | int]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _rewrite_text(
    value: Any, path: list[str | int], op: str, planter: TextPlanter, keys: frozenset[str]
) -> Any:
    if isinstance(value, dict):
        result: dict[str, Any] = {}
        for key, item in value.items():
            if key in keys and isinstance(item, str) and item.strip():
                site = TextSite(f"{op}:{_path_text([*path, key])}", "\n" in item.strip())
                result[key] = planter(item, site)
            else:
                result[key] = _rewrite_text(item, [*path, key], op, planter, keys)
        return result
    if isinstance(value, list):
        return [_rewrite_text(item, [*path, index], op, planter, keys) for index, item in enumerate(value)]
    return value


def rewrite_text(
    data: dict[str, Any], planter: TextPlanter, *, keys: frozenset[str] = TEXT_KEYS
) -> dict[str, Any]:
    """A copy of a bundle's JSON with `planter` applied to every free-text site and text answer."""
    result = copy.deepcopy(data)
    for exchange in result.get("exchanges") or []:
        op = str(exchange.get("op"))
        if isinstance(exchange.get("text"), str) and exchange["text"].strip():
            exchange["text"] = planter(exchange["text"], TextSite(f"{op}:text", True))
        exchange["body"] = _rewrite_text(exchange.get("body"), [], op, planter, keys)
    return result


def first_line(text: str, line: str) -> str:
    """`line` before the text (inside a log it would split a traceback from its exception line)."""
    return f"{line}\n{text}"


def end_of_last_line(text: str, addition: str) -> str:
    """`addition` at the end of the last non-empty line: a log's error line, the one quoted."""
    last = text.rstrip("\n")
    return f"{last}{addition}{text[len(last) :]}"


# ---------------------------------------------------------------------------------------------------
# Secrets


@dataclass(frozen=True)
class Plant:
    """One planted secret: where it went and, for text, the probe word that travels next to it."""

    probe: str | None
    case: PlantedSecret
    where: str


_ENV_CARRIER = re.compile(r"^(?:export )?([A-Za-z_][A-Za-z0-9_]*)=(\S+)$")
_URL_IN_CARRIER = re.compile(r"[a-z][a-z0-9+.\-]*://\S+")


def _named_pairs(cases: Sequence[PlantedSecret]) -> list[tuple[str, PlantedSecret]]:
    """(variable name, case) for carriers of the form `NAME=secret`."""
    pairs = []
    for case in cases:
        match = _ENV_CARRIER.match(case.carrier)
        if match and match.group(2) == case.secret:
            pairs.append((match.group(1), case))
    return pairs


def _urls(cases: Sequence[PlantedSecret]) -> list[tuple[str, PlantedSecret]]:
    """(URL, case) for carriers holding a URL that holds the secret (userinfo, signed query)."""
    found = []
    for case in cases:
        for match in _URL_IN_CARRIER.finditer(case.carrier):
            url = match.group(0).rstrip(".,;:!?)]}")
            if case.secret in url:
                found.append((url, case))
    return found


class SecretPlanter:
    """Plants corpus secrets, each carrier in turn, into a bundle's JSON; remembers every plant."""

    def __init__(self, cases: Sequence[PlantedSecret], *, start: int = 0) -> None:
        self.cases = list(cases)
        self.named = _named_pairs(self.cases)
        self.urls = _urls(self.cases)
        self.plants: list[Plant] = []
        self._turn = start

    def _next(self, pool: Sequence[Any]) -> Any:
        item = pool[self._turn % len(pool)]
        self._turn += 1
        return item

    def _probe(self) -> str:
        return f"probe{len(self.plants):05d}x"

    def _carrier(self, where: str) -> str:
        case: PlantedSecret = self._next(self.cases)
        probe = self._probe()
        self.plants.append(Plant(probe, case, where))
        return f"{case.carrier} {probe}"

    def text(self, original: str, site: TextSite) -> str:
        """The carrier after the original text, with a probe word that shows the field was read.

        A log (multi-line) gets one carrier as a line of its own and one at the end of its last
        line, the error line a diagnosis quotes.
        """
        if site.multiline:
            original = first_line(original, self._carrier(site.where))
            return end_of_last_line(original, f"; {self._carrier(site.where + ' (last line)')}")
        return f"{original}; {self._carrier(site.where)}"

    def env_pairs(
        self, where: str, *, name_key: str = "name", value_key: str = "value"
    ) -> list[dict[str, Any]]:
        """`NAME=secret` as a pair, and a whole carrier as the value of a harmless name."""
        name, case = self._next(self.named)
        self.plants.append(Plant(None, case, f"{where}[{name}]"))
        carried: PlantedSecret = self._next(self.cases)
        probe = self._probe()
        self.plants.append(Plant(probe, carried, f"{where}[EXTRA_ARGS]"))
        return [
            {name_key: name, value_key: case.secret},
            {name_key: "EXTRA_ARGS", value_key: f"{carried.carrier} {probe}"},
        ]

    def mapping(self, where: str) -> dict[str, str]:
        pairs = self.env_pairs(where)
        return {str(pair["name"]): str(pair["value"]) for pair in pairs}

    def argv(self, where: str) -> list[str]:
        case: PlantedSecret = self._next(self.cases)
        self.plants.append(Plant(None, case, f"{where}[--password]"))
        return ["--password", case.secret]

    def url(self, where: str) -> str:
        url, case = self._next(self.urls)
        self.plants.append(Plant(None, case, where))
        return str(url)


def _dig(data: Any, path: Sequence[str]) -> Iterator[dict[str, Any]]:
    """The dicts at `path` ("*" walks every list item); nothing when a step is missing."""
    if not path:
        if isinstance(data, dict):
            yield data
        return
    head, rest = path[0], path[1:]
    if head == "*":
        if isinstance(data, list):
            for item in data:
                yield from _dig(item, rest)
        return
    if isinstance(data, dict) and head in data:
        yield from _dig(data[head], rest)


@dataclass(frozen=True)
class StructuredSite:
    """A structured place an API answer keeps a secret in: `parent` must exist, `key` is added to."""

    op: str
    parent: tuple[str, ...]
    key: str
    shape: str  # "pairs" | "map" | "map_list" | "argv" | "url_list" | "obs_inputs" | "s3" | "git"


# Rules as data: one row per structured place (runai-api.md §spec, modelarts-api.md §job, k8s Pod).
STRUCTURED_SITES: tuple[StructuredSite, ...] = (
    StructuredSite("get_workload_spec", ("spec",), "environmentVariables", "pairs"),
    StructuredSite("get_workload_spec", ("spec",), "annotations", "pairs"),
    StructuredSite("get_workload_spec", ("spec",), "labels", "pairs"),
    StructuredSite("get_workload_spec", ("spec",), "storage", "storage"),
    StructuredSite("k8s.read_pod", ("metadata",), "annotations", "map"),
    StructuredSite("k8s.read_pod", ("spec", "containers", "*"), "env", "pairs"),
    StructuredSite("k8s.read_pod", ("spec", "containers", "*"), "args", "argv"),
    StructuredSite("ShowTrainingJobDetails", ("metadata",), "annotations", "map"),
    StructuredSite("ShowTrainingJobDetails", ("algorithm",), "parameters", "pairs"),
    StructuredSite("ShowTrainingJobDetails", ("algorithm",), "environments", "map_list"),
    StructuredSite("ShowTrainingJobDetails", ("algorithm",), "inputs", "obs_inputs"),
)


def _plant_structured(site: StructuredSite, parent: dict[str, Any], planter: SecretPlanter) -> None:
    where = f"{site.op}:{'.'.join(site.parent)}.{site.key}"
    current = parent.get(site.key)
    items: list[Any] = current if isinstance(current, list) else []
    if site.shape == "pairs":
        parent[site.key] = [*items, *planter.env_pairs(where)]
    elif site.shape == "map":
        mapping: dict[str, Any] = current if isinstance(current, dict) else {}
        parent[site.key] = {**mapping, **planter.mapping(where)}
    elif site.shape == "map_list":
        parent[site.key] = [*items, planter.mapping(where)]
    elif site.shape == "argv":
        parent[site.key] = [*items, *planter.argv(where)]
    elif site.shape == "obs_inputs":
        remote = {"obs": {"obs_url": planter.url(where)}}
        parent[site.key] = [*items, {"name": "data_url", "local_dir": "/home/ma-user/data", "remote": remote}]
    elif site.shape == "storage":
        storage = dict(current) if isinstance(current, dict) else {}
        storage["s3"] = [
            *storage.get("s3", []),
            {"name": "data", "bucket": "data", "url": planter.url(where)},
        ]
        storage["git"] = [*storage.get("git", []), {"name": "code", "repository": planter.url(where)}]
        parent[site.key] = storage


def plant_secrets(
    bundle: Bundle, cases: Sequence[PlantedSecret], *, start: int = 0
) -> tuple[Bundle, list[Plant]]:
    """A copy of `bundle` with corpus secrets in every text site and structured site of its answers."""
    planter = SecretPlanter(cases, start=start)
    data = rewrite_text(bundle.to_json_dict(), planter.text)
    for exchange in data["exchanges"]:
        status = int(exchange.get("status") or 0)
        if not 200 <= status < 300:
            continue
        for site in STRUCTURED_SITES:
            if exchange.get("op") != site.op:
                continue
            for parent in list(_dig(exchange.get("body"), site.parent)):
                _plant_structured(site, parent, planter)
    return parse_bundle(data), planter.plants


def plant_text(bundle: Bundle, text: str) -> tuple[Bundle, int]:
    """A copy of `bundle` with `text` added to every free-text site and log (hostile text)."""
    count = 0

    def planter(original: str, site: TextSite) -> str:
        nonlocal count
        count += 1
        if site.multiline:
            return end_of_last_line(original, f" {text}")
        return f"{original} {text}"

    data = rewrite_text(bundle.to_json_dict(), planter, keys=UNTRUSTED_KEYS)
    return parse_bundle(data), count
