"""Each command imports what it uses and nothing else (a command starts in the time Python takes
to load what it needs: the Kubernetes client, the charts, the other platform, the bot and the MCP
SDK are loaded by the commands that use them).

Each command runs in a fresh interpreter, as a user types it; the modules it loaded are listed at
its exit. No timing is asserted here (bench/startup.py measures the start against importing httpx
and pydantic).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

RUNAI_BUNDLE = "diagnosis/examples/runai/runai-oom-killed.bundle.json"
RUNAI_TIER2_BUNDLE = "diagnosis/examples/runai/runai-crash-app-error.bundle.json"
MODELARTS_BUNDLE = "diagnosis/examples/modelarts/modelarts-exit-137-killed.bundle.json"

PROBE = """
import atexit, json, sys
atexit.register(lambda: sys.__stderr__.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
from cli.main import main
sys.exit(main(sys.argv[1:]))
"""

# Never needed by a command that does not talk to the platform, draw a chart or run a face.
LIVE_ONLY = ("kubernetes", "huaweicloudsdkcore", "pydantic_settings", "diagnosis.runai.k8s")
FACES = (
    "slack_sdk",
    "slack_bolt",
    "huey",
    "waitress",
    "mcp",
    "mcp_face",
    "bot",
    "simulator",
    "blocks",
    "playground",
)
CHARTS = ("matplotlib", "numpy", "PIL")
# Never needed to diagnose one job: scans, the memory series a chart reads, and the log scanner's
# Hyperscan database (compiled only for a text too long for the line engine).
ONE_JOB_NEVER = ("diagnosis.scan", "diagnosis.evidence.series", "hyperscan")


def modules_after(*argv: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = [line for line in done.stderr.splitlines() if line.startswith("MODULES ")]
    assert lines, f"`diagnose {' '.join(argv)}` exited {done.returncode}: {done.stderr[-2000:]}"
    found: list[str] = json.loads(lines[-1].removeprefix("MODULES "))
    return set(found)


def loaded(modules: set[str], *names: str) -> list[str]:
    """Which of `names` (packages: their submodules count) were loaded."""
    return sorted(
        module for module in modules if any(module == name or module.startswith(name + ".") for name in names)
    )


def test_help_loads_no_library_and_no_engine() -> None:
    modules = modules_after("--help")
    assert loaded(modules, "pydantic", "httpx", *LIVE_ONLY, *FACES, *CHARTS) == []
    # The engine's modules: only the constants the parser shows (languages, scan defaults) and the
    # catalogue reader of the CLI's own words (no catalogue is read before a text is said).
    engine = [module for module in modules if module.startswith("diagnosis.")]
    assert set(engine) <= {
        "diagnosis.languages",
        "diagnosis.render",
        "diagnosis.render.compose",
        "diagnosis.render.i18n",
        "diagnosis.runai",
        "diagnosis.runai.defaults",
        "diagnosis.modelarts",
        "diagnosis.modelarts.defaults",
    }, engine
    assert loaded(modules, "diagnosis.masking", "diagnosis.models") == []


@pytest.mark.parametrize(
    "command", ["runai", "modelarts", "bot", "sim", "mcp", "explain", "replay", "playground"]
)
def test_a_subcommand_help_loads_no_library(command: str) -> None:
    modules = modules_after(command, "--help")
    assert loaded(modules, "pydantic", "httpx", *LIVE_ONLY, *FACES, *CHARTS) == []


def test_replaying_a_runai_bundle_loads_neither_kubernetes_nor_modelarts() -> None:
    for bundle in (RUNAI_BUNDLE, RUNAI_TIER2_BUNDLE):  # with and without recorded Tier-2 answers
        modules = modules_after("replay", bundle)
        assert "diagnosis.runai.workflow" in modules  # it did diagnose
        assert loaded(modules, *LIVE_ONLY, *FACES, *CHARTS, *ONE_JOB_NEVER) == []
        assert loaded(modules, "diagnosis.runai.scan", "diagnosis.modelarts.workflow") == []
        # The views of Kubernetes objects are read only where Tier-2 answers were recorded.
        assert ("diagnosis.runai.k8s_views" in modules) is (bundle == RUNAI_TIER2_BUNDLE)


def test_replaying_a_modelarts_bundle_loads_no_runai_workflow() -> None:
    modules = modules_after("replay", MODELARTS_BUNDLE)
    assert "diagnosis.modelarts.workflow" in modules
    assert "diagnosis.logs.scan" in modules  # it did scan the log previews
    assert loaded(modules, *LIVE_ONLY, *FACES, *CHARTS, *ONE_JOB_NEVER) == []
    assert (
        loaded(modules, "diagnosis.runai.workflow", "diagnosis.runai.client", "diagnosis.modelarts.scan")
        == []
    )


def test_a_chart_loads_matplotlib_only_when_asked(tmp_path: object) -> None:
    modules = modules_after("replay", RUNAI_BUNDLE, "--chart", str(tmp_path) + "/memory.png")
    assert "matplotlib" in modules


def test_explain_loads_no_platform() -> None:
    modules = modules_after("explain", "137")
    assert loaded(modules, "httpx", "asyncio", *LIVE_ONLY, *FACES, *CHARTS) == []
    assert (
        loaded(modules, "diagnosis.runai.workflow", "diagnosis.modelarts.workflow", "diagnosis.engine") == []
    )


def test_the_explain_parser_offers_the_catalogue_languages() -> None:
    from cli import explain as cli_explain
    from diagnosis.knowledge import explain as catalogue

    assert cli_explain.LANGUAGES == catalogue.LANGUAGES


def test_the_simulator_help_names_every_release_it_knows() -> None:
    from simulator.runai_planes import PLANES

    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "sim", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    help_text = " ".join(done.stdout.split())
    names = sorted(PLANES)
    assert f"release, {', '.join(names[:-1])} or {names[-1]} (" in help_text
    refused = subprocess.run(
        [sys.executable, "-m", "cli.main", "sim", "--runai-plane", "9.99"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2 and f"use {', '.join(names)}" in refused.stderr


def test_each_command_name_leads_to_the_module_that_registers_it() -> None:
    import argparse
    import importlib

    from cli.main import SUBCOMMANDS

    for name, module_name in SUBCOMMANDS.items():
        subparsers = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(module_name).register(subparsers)
        assert name in subparsers.choices, f"{module_name} does not register {name!r}"


def test_a_command_loads_no_other_command() -> None:
    from cli.main import SUBCOMMANDS

    modules = modules_after("replay", RUNAI_BUNDLE)
    others = [module for name, module in SUBCOMMANDS.items() if name != "replay"]
    assert loaded(modules, *others) == []
    # A name that is no command still gets argparse's list of every command.
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "replai"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and all(name in done.stderr for name in SUBCOMMANDS), done.stderr
