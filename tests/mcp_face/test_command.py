"""`diagnose mcp` from the shell: its usage errors, and a `diagnose --help` that stays free of
the MCP SDK."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main
from tests.mcp_face.helpers import ROOT


def test_http_without_a_policy_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("DIAGNOSE_MCP_POLICY", "DIAGNOSE_MCP_POLICY_JSON"):
        monkeypatch.delenv(name, raising=False)
    assert main(["mcp", "--http"]) == 2
    assert "serving over HTTP needs an access policy" in capsys.readouterr().err
    assert main(["mcp", "--http", "--policy", str(tmp_path / "absent.yaml")]) == 2
    assert "cannot read policy" in capsys.readouterr().err
    assert main(["mcp", "--timeout", "0"]) == 2
    assert "--timeout must be above 0" in capsys.readouterr().err
    assert main(["mcp", "--http", "--port", "70000"]) == 2
    monkeypatch.setenv("DIAGNOSE_MCP_TIMEOUT", "soon")
    assert main(["mcp"]) == 2
    assert "DIAGNOSE_MCP_TIMEOUT" in capsys.readouterr().err


def test_an_unreadable_now_stops_the_server_at_start(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIAGNOSE_NOW", "yesterday-ish")
    assert main(["mcp"]) == 2
    assert "cannot read DIAGNOSE_NOW 'yesterday-ish'" in capsys.readouterr().err


def test_the_cli_lists_mcp_without_importing_the_sdk() -> None:
    code = "import sys; from cli.main import build_parser; build_parser(); print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "[]"
    listed = subprocess.run(
        [sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main(['--help']))"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    words = listed.stdout.split()
    assert "mcp" in words and "Model Context Protocol" in " ".join(words)
