"""End to end: the live Run:ai client (token auth, ReadOnlyGuard, Retrying, real sockets) and the
Tier-2 Kubernetes client (kubeconfig) against `diagnose sim` on a loopback port."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cli.main import main
from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import load_bundle
from diagnosis.evidence.capture import build_bundle, write_bundle
from diagnosis.evidence.http.retrying import RetryPolicy
from diagnosis.models import Diagnosis
from diagnosis.render.charts.figure import png_size
from simulator.server import Fault, SimServer
from tests.runai.helpers import DEMO_BUNDLES, WORKED_RUNAI

EXACT_FIELDS = (
    "outcome",
    "route",
    "category",
    "confidence",
    "signature",
    "measurements",
    "recurrence",
    "calls",
)
SCENARIOS = sorted(DEMO_BUNDLES.glob("*.bundle.json")) + WORKED_RUNAI
BUNDLES = {path.name: load_bundle(path) for path in SCENARIOS}


def write_kubeconfig(folder: Path, server: str) -> Path:
    path = folder / "kubeconfig"
    path.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: sim\n  cluster:\n    server: {server}\n"
        "users:\n- name: reader\n  user:\n    token: sim-read-only-token\n"
        "contexts:\n- name: sim\n  context: {cluster: sim, user: reader}\ncurrent-context: sim\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def shared_sim() -> Iterator[SimServer]:
    """All scenario bundles served at once (one server for the module: starting one costs ~0.5 s)."""
    with SimServer(list(BUNDLES.values()), timeout_hold_seconds=3) as sim:
        yield sim


@pytest.fixture
def sim_env(shared_sim: SimServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[SimServer, Path]:
    """Run:ai environment pointing at the shared simulator (faults and counters reset)."""
    shared_sim.faults.clear()
    shared_sim.requests.clear()
    shared_sim.ops.clear()
    shared_sim.tokens_issued = 0
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.delenv("DIAGNOSE_NOW", raising=False)
    monkeypatch.setenv("RUNAI_URL", shared_sim.base_url)
    monkeypatch.setenv("RUNAI_CLIENT_ID", "diag-client")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "diag-secret-value-123")
    return shared_sim, write_kubeconfig(tmp_path, shared_sim.base_url)


def use_tier2(bundle: Bundle, kubeconfig: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tier 2 live exactly when the bundle had it (rulings G2), so live and replay can be compared."""
    has_k8s = any(exchange.op.startswith("k8s.") for exchange in bundle.exchanges)
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig if has_k8s else kubeconfig.with_name("absent")))


async def live(bundle: Bundle, **options: Any) -> tuple[Diagnosis, Any]:
    request = engine.request_from_bundle(bundle)
    async with engine.live(request, **options) as (source, recorder):
        diagnosis = await engine.diagnose_with(request, source, now=bundle.captured_at)
    return diagnosis, recorder


def exact(diagnosis: Diagnosis) -> dict[str, Any]:
    data = diagnosis.to_json_dict()
    return {key: data[key] for key in EXACT_FIELDS}


@pytest.mark.parametrize("name", sorted(BUNDLES))
async def test_live_client_matches_replay(
    name: str, sim_env: tuple[SimServer, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    sim, kubeconfig = sim_env
    bundle = BUNDLES[name]
    use_tier2(bundle, kubeconfig, monkeypatch)
    live_result, _ = await live(bundle)
    replayed = await engine.replay(bundle)
    assert exact(live_result) == exact(replayed)
    # Read-only on the wire: GETs, and the one token POST.
    assert {method for method, _path in sim.requests} <= {"GET", "POST"}
    assert all(path == "/api/v1/token" for method, path in sim.requests if method == "POST")
    assert sim.tokens_issued == 1


async def test_429_with_retry_after_then_success(
    sim_env: tuple[SimServer, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    sim, kubeconfig = sim_env
    bundle = BUNDLES["runai-optb-oom-recurring.bundle.json"]
    use_tier2(bundle, kubeconfig, monkeypatch)
    sim.faults["get_workload_events"] = [Fault(status=429, retry_after=0.05)]
    sim.faults["get_workload_history"] = [Fault(status=503, times=2)]
    result, _ = await live(bundle, retry_policy=RetryPolicy(base_delay=0.01))
    assert exact(result) == exact(await engine.replay(bundle))
    assert sim.op_count("get_workload_events") == 2 and sim.op_count("get_workload_history") == 3
    # Retries are not calls of the diagnosis (rulings G1).
    assert result.calls.count("get_workload_events") == 1


async def test_a_timeout_becomes_a_limitation_and_the_diagnosis_goes_on(
    sim_env: tuple[SimServer, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    sim, kubeconfig = sim_env
    bundle = BUNDLES["runai-optb-oom-recurring.bundle.json"]
    use_tier2(bundle, kubeconfig, monkeypatch)
    sim.faults["get_workload_pods"] = [Fault(timeout=True, times=-1)]
    result, _ = await live(bundle, timeout=0.4, retry_policy=RetryPolicy(attempts=1))
    assert result.outcome == "diagnosed" and result.category == "OOM_KILLED"
    assert any("get_workload_pods failed (timeout)" in text for text in result.limitations)
    assert "get_workload_pods" in result.calls


async def test_tier2_over_kubeconfig_reads_pods_logs_events(
    sim_env: tuple[SimServer, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    sim, kubeconfig = sim_env
    bundle = BUNDLES["runai-crash-app-error.bundle.json"]
    use_tier2(bundle, kubeconfig, monkeypatch)
    result, _ = await live(bundle)
    assert result.category == "CRASH_APP_ERROR" and result.signature == "KeyError: 'attention_mask'"
    paths = [path for _method, path in sim.requests]
    assert any(path.endswith("/pods/t5-pretrain-0-0/log") for path in paths)
    assert any(path.startswith("/api/v1/namespaces/runai-nlp-core/events") for path in paths)


async def test_capture_writes_a_masked_bundle_that_replays_the_same(
    sim_env: tuple[SimServer, Path],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    bundle_schema: dict[str, Any],
) -> None:
    _sim, kubeconfig = sim_env
    bundle = BUNDLES["runai-crashloop-active-option-b.bundle.json"]
    use_tier2(bundle, kubeconfig, monkeypatch)
    result, recorder = await live(bundle, capture=True)
    request = engine.request_from_bundle(bundle)
    target = tmp_path / "captured.bundle.json"
    write_bundle(target, build_bundle(request, recorder, captured_at=bundle.captured_at))
    data = json.loads(target.read_text())
    jsonschema.validate(data, bundle_schema)
    # Non-identifying args (limit, tailLines, start/end…) are not recorded (rulings G4).
    assert all(
        "limit" not in exchange["args"] and "tailLines" not in exchange["args"]
        for exchange in data["exchanges"]
    )
    assert "diag-secret-value-123" not in target.read_text()
    assert exact(await engine.replay(load_bundle(target))) == exact(result)


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_runs_live_against_the_simulator(
    sim_env: tuple[SimServer, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    diagnosis_schema: dict[str, Any],
) -> None:
    _sim, kubeconfig = sim_env
    bundle = BUNDLES["runai-optb-oom-recurring.bundle.json"]
    use_tier2(bundle, kubeconfig, monkeypatch)
    request = bundle.request
    base = [
        "runai",
        "--cluster-id",
        request["cluster_id"],
        "--name",
        request["workload_name"],
        "--project",
        request["project"],
        "--as-of",
        "2026-03-19T08:30:00Z",
    ]
    code, out, _ = run_cli([*base, "--format", "json"], capsys)
    data = json.loads(out)
    jsonschema.validate(data, diagnosis_schema)
    assert (
        code == 0
        and data["category"] == "OOM_KILLED"
        and data["recurrence"] == {"count": 2, "window": "7d", "recurring": True}
    )

    code, out, _ = run_cli([*base, "--query", "measurements.memory_peak_bytes"], capsys)
    assert code == 0 and out.strip() == "16903045120"

    capture = tmp_path / "run.bundle.json"
    code, out, _ = run_cli([*base, "--lang", "fr", "--capture", str(capture)], capsys)
    assert code == 0 and out.startswith("Catégorie : OOM_KILLED")
    assert load_bundle(capture).captured_at.isoformat().startswith("2026-03-19T08:30:00")

    # Another as-of moves the lookback window: a month later neither kill is recent.
    code, out, _ = run_cli([*base, "--as-of", "2026-04-30T00:00:00Z", "--query", "recurrence.count"], capsys)
    assert code == 0 and out.strip() == "0"


def test_cli_exit_codes(
    sim_env: tuple[SimServer, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _sim, kubeconfig = sim_env
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    not_found = BUNDLES["runai-not-found.bundle.json"].request
    code, out, _ = run_cli(
        ["runai", "--cluster-id", not_found["cluster_id"], "--workload-id", not_found["workload_id"]], capsys
    )
    assert code == 0 and out.startswith(f"Not found: {not_found['workload_id']}")
    for argv, needle in (
        (["runai", "--workload-id", "w"], "--cluster-id is required"),
        (["runai", "--cluster-id", "c", "--name", "n"], "--name together with --project"),
        (["runai", "--cluster-id", "c", "--workload-id", "w", "--lookback", "a week"], "--lookback"),
        (["runai", "--cluster-id", "c", "--workload-id", "w", "--as-of", "yesterday"], "--as-of"),
        (["runai", "--cluster-id", "c", "--workload-id", "w", "--query", "[[["], "--query"),
    ):
        code, _out, err = run_cli(argv, capsys)
        # The reason on the last line, under the usage of `diagnose runai` (not the top level's).
        *usage, reason = err.strip().splitlines()
        assert code == 2 and needle in reason and reason.startswith("diagnose runai: error: ")
        assert usage[0].startswith("usage: diagnose runai ") and "COMMAND" not in "\n".join(usage)
    monkeypatch.delenv("RUNAI_CLIENT_SECRET")
    code, _out, err = run_cli(["runai", "--cluster-id", "c", "--workload-id", "w"], capsys)
    assert code == 2 and "RUNAI_CLIENT_SECRET" in err


def _cli_for(bundle: Bundle) -> list[str]:
    request = bundle.request
    return [
        "runai",
        "--cluster-id",
        request["cluster_id"],
        "--workload-id",
        request["workload_id"],
        "--as-of",
        bundle.captured_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
    ]


def test_cli_chart_draws_memory_for_an_oom_and_says_why_not_for_a_crash(
    sim_env: tuple[SimServer, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    _sim, kubeconfig = sim_env
    oom = BUNDLES["runai-oom-killed.bundle.json"]
    use_tier2(oom, kubeconfig, monkeypatch)
    chart = tmp_path / "oom.png"
    code, out, err = run_cli([*_cli_for(oom), "--chart", str(chart)], capsys)
    assert code == 0 and out.startswith("Category: OOM_KILLED")
    assert err.strip() == f"chart: memory use vs limit written to {chart}"
    width, height = png_size(chart.read_bytes())
    assert width > 0 and height > 0

    crash = BUNDLES["runai-crash-app-error.bundle.json"]
    use_tier2(crash, kubeconfig, monkeypatch)
    missing = tmp_path / "crash.png"
    code, out, err = run_cli([*_cli_for(crash), "--chart", str(missing)], capsys)
    assert code == 0 and out.startswith("Category: CRASH_APP_ERROR")
    assert err.strip() == "chart: no memory metrics were recorded, no chart written" and not missing.exists()
