"""What points the live CLI (and the bot) at the simulator: the environment, and per scenario the
command that asks about it.

- Run:ai: `RUNAI_URL` (the simulator; its token endpoint answers any client), a client id and
  secret, and a kubeconfig naming the simulator as the cluster's API server (Tier 2);
- ModelArts: the access keys the simulator checks signatures with, the region's endpoint override
  (`HUAWEICLOUD_SDK_REGION_MODELARTS_<REGION>`), IAM at the simulator too (a project id is never
  asked of the real IAM), and the one project that holds every scenario's jobs;
- every scenario was recorded at its own moment: `--as-of` makes "now" that moment, so lookback
  windows, stalls and pending times read as they did.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import diagnosis
from diagnosis.bundle import Bundle
from simulator.listings import SIMULATOR_PROJECT_ID

# The scenario bundles shipped with the engine (package data of `diagnosis`).
BUILTIN_SCENARIOS = Path(diagnosis.__file__).resolve().parent / "examples"
DEMO_ACCESS_KEY = "DEMOACCESSKEY0000000"
DEMO_SECRET_KEY = "demo-secret-key-for-the-simulator"
DEFAULT_MODELARTS_REGION = "cn-north-4"


def write_kubeconfig(folder: Path, server_url: str) -> Path:
    path = folder / "kubeconfig"
    path.write_text(
        "\n".join(
            [
                "apiVersion: v1",
                "kind: Config",
                "clusters:",
                "- name: sim",
                "  cluster:",
                f"    server: {server_url}",
                "users:",
                "- name: sim-reader",
                "  user:",
                "    token: demo-read-only-token",
                "contexts:",
                "- name: sim",
                "  context: {cluster: sim, user: sim-reader}",
                "current-context: sim",
                "",
            ]
        ),
        encoding="utf-8",
    )
    return path


def region_endpoint_variable(region: str) -> str:
    """The huaweicloud SDK's endpoint override for ModelArts in one region."""
    return f"HUAWEICLOUD_SDK_REGION_MODELARTS_{region.upper().replace('-', '_')}"


def modelarts_regions(bundles: Sequence[Bundle]) -> tuple[str, ...]:
    """The regions the ModelArts scenarios were recorded in (the default region when none says)."""
    found = {
        str(bundle.request.get("region") or DEFAULT_MODELARTS_REGION)
        for bundle in bundles
        if bundle.platform == "modelarts"
    }
    return tuple(sorted(found or {DEFAULT_MODELARTS_REGION}))


def simulator_environment(
    sim_url: str,
    folder: Path,
    *,
    regions: Sequence[str] = (),
    modelarts_keys: tuple[str, str] = (DEMO_ACCESS_KEY, DEMO_SECRET_KEY),
) -> dict[str, str]:
    """The variables that point both platforms' live clients at the simulator (a kubeconfig is
    written in `folder`); `regions`: ModelArts regions whose endpoint is the simulator."""
    access_key, secret_key = modelarts_keys
    environment = {
        "RUNAI_URL": sim_url,
        "RUNAI_CLIENT_ID": "demo-client",
        "RUNAI_CLIENT_SECRET": "demo-client-secret",
        "KUBECONFIG": str(write_kubeconfig(folder, sim_url)),
        "HUAWEICLOUD_SDK_AK": access_key,
        "HUAWEICLOUD_SDK_SK": secret_key,
        "HUAWEICLOUD_SDK_PROJECT_ID": SIMULATOR_PROJECT_ID,
        # A project id lookup goes to the simulator, never to the real IAM.
        "HUAWEICLOUD_SDK_IAM_ENDPOINT": sim_url,
        # No credentials file of the person running it is read.
        "HUAWEICLOUD_SDK_CREDENTIALS_FILE": str(folder / "no-credentials-file"),
        # The simulator is on loopback: never through a proxy the shell may have set.
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    for region in regions or (DEFAULT_MODELARTS_REGION,):
        environment[region_endpoint_variable(region)] = sim_url
    return environment


def export_lines(environment: Mapping[str, str]) -> list[str]:
    """`export NAME=value` lines a POSIX shell reads back exactly."""
    return [f"export {name}={shlex.quote(value)}" for name, value in environment.items()]


@dataclass(frozen=True)
class Scenario:
    """One example bundle as the live CLI asks about it."""

    name: str
    bundle: Bundle

    @property
    def platform(self) -> str:
        return self.bundle.platform

    @property
    def as_of(self) -> str:
        return self.bundle.captured_at.isoformat().replace("+00:00", "Z")

    def own_environment(self) -> dict[str, str]:
        """The project the scenario was recorded in (ModelArts): its calls are answered exactly as
        recorded, a name search included, where the one project of every scenario would find the
        same name in other scenarios too."""
        if self.platform != "modelarts":
            return {}
        for exchange in self.bundle.exchanges:
            project_id = exchange.args.get("project_id")
            if project_id:
                return {"HUAWEICLOUD_SDK_PROJECT_ID": str(project_id)}
        return {}

    def arguments(self) -> list[str]:
        """`runai …` / `modelarts …` with the bundle's own identifiers and moment."""
        request = self.bundle.request
        if self.platform == "modelarts":
            words = ["modelarts"]
            if request.get("job_id"):
                words += ["--job-id", str(request["job_id"])]
            elif request.get("job_name"):
                words += ["--job-name", str(request["job_name"])]
            if request.get("region"):
                words += ["--region", str(request["region"])]
            return [*words, "--as-of", self.as_of]
        words = ["runai"]
        for key, option in (
            ("cluster_id", "--cluster-id"),
            ("workload_id", "--workload-id"),
            ("workload_name", "--name"),
            ("project", "--project"),
            ("lookback", "--lookback"),
        ):
            if request.get(key):
                words += [option, str(request[key])]
        if request.get("intent") == "active":
            words.append("--active")
        return [*words, "--as-of", self.as_of]

    def scan_arguments(self) -> list[str]:
        """The scan that lists this scenario's job with the others of its region or cluster."""
        if self.platform == "modelarts":
            region = str(self.bundle.request.get("region") or DEFAULT_MODELARTS_REGION)
            return ["modelarts", "scan", "--region", region, "--as-of", self.as_of]
        return [
            "runai",
            "scan",
            "--cluster-id",
            str(self.bundle.request.get("cluster_id") or ""),
            "--as-of",
            self.as_of,
        ]

    def command(self) -> str:
        return shlex.join(["diagnose", *self.arguments()])


def scenario_name(path: Path) -> str:
    """`runai-oom-killed.bundle.json` → `runai-oom-killed`."""
    return path.name.removesuffix(".json").removesuffix(".bundle")


def scenarios_of(pairs: Sequence[tuple[Path, Bundle]]) -> list[Scenario]:
    """The scenarios a live command can ask about: bundles that name a job (scan captures do not)."""
    found: list[Scenario] = []
    for path, bundle in pairs:
        request = bundle.request
        if any(request.get(key) for key in ("job_id", "job_name", "workload_id", "workload_name")):
            found.append(Scenario(scenario_name(path), bundle))
    return found
