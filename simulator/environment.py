"""What points the live CLI (and the bot) at the simulator: the environment, and per scenario the
identifiers and the moment to ask about.

- Run:ai: `RUNAI_URL` (the simulator; its token endpoint answers any client), a client id and
  secret, and a kubeconfig naming the simulator as the cluster's API server (Tier 2);
- ModelArts: the access keys the simulator checks signatures with, the region's endpoint override
  (`HUAWEICLOUD_SDK_REGION_MODELARTS_<REGION>`), and the IAM project id, which differs per scenario;
- every scenario was recorded at its own moment: `--as-of` makes "now" that moment, so lookback
  windows, stalls and pending times read as they did.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from diagnosis.bundle import Bundle

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


def simulator_environment(sim_url: str, folder: Path, *, regions: tuple[str, ...] = ()) -> dict[str, str]:
    """The variables that point both platforms' live clients at the simulator (a kubeconfig is
    written in `folder`); `regions`: ModelArts regions whose endpoint is the simulator."""
    environment = {
        "RUNAI_URL": sim_url,
        "RUNAI_CLIENT_ID": "demo-client",
        "RUNAI_CLIENT_SECRET": "demo-client-secret",
        "KUBECONFIG": str(write_kubeconfig(folder, sim_url)),
        "HUAWEICLOUD_SDK_AK": DEMO_ACCESS_KEY,
        "HUAWEICLOUD_SDK_SK": DEMO_SECRET_KEY,
        # No credentials file of the person running it is read.
        "HUAWEICLOUD_SDK_CREDENTIALS_FILE": str(folder / "no-credentials-file"),
    }
    for region in regions or (DEFAULT_MODELARTS_REGION,):
        environment[region_endpoint_variable(region)] = sim_url
    return environment


def modelarts_project_id(bundle: Bundle) -> str | None:
    for exchange in bundle.exchanges:
        project_id = exchange.args.get("project_id")
        if project_id:
            return str(project_id)
    return None


@dataclass(frozen=True)
class Scenario:
    """One example bundle as the live CLI asks about it."""

    name: str
    bundle: Bundle

    @property
    def platform(self) -> str:
        return self.bundle.platform

    def environment(self) -> dict[str, str]:
        """What differs per scenario: the ModelArts project id and the moment."""
        found = {"DIAGNOSE_NOW": self.bundle.captured_at.isoformat()}
        project_id = modelarts_project_id(self.bundle) if self.platform == "modelarts" else None
        if project_id:
            found["HUAWEICLOUD_SDK_PROJECT_ID"] = project_id
        return found

    def arguments(self) -> list[str]:
        """`diagnose runai …` / `diagnose modelarts …` with the bundle's own identifiers."""
        request = self.bundle.request
        if self.platform == "modelarts":
            words = ["modelarts"]
            if request.get("job_id"):
                words += ["--job-id", str(request["job_id"])]
            elif request.get("job_name"):
                words += ["--job-name", str(request["job_name"])]
            if request.get("region"):
                words += ["--region", str(request["region"])]
            return words
        words = ["runai"]
        if request.get("workload_id"):
            words += ["--workload-id", str(request["workload_id"])]
        elif request.get("workload_name"):
            words += ["--name", str(request["workload_name"])]
        for key, option in (
            ("cluster_id", "--cluster-id"),
            ("project", "--project"),
            ("lookback", "--lookback"),
        ):
            if request.get(key):
                words += [option, str(request[key])]
        if request.get("intent") == "active":
            words.append("--active")
        return words

    def command(self) -> list[str]:
        return ["diagnose", *self.arguments(), "--as-of", self.bundle.captured_at.isoformat()]
