"""`diagnose --version` prints the installed package's version (pyproject.toml is its one source)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cli.main import main
from tests.conftest import ROOT


def _project_version() -> str:
    version: str = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    return version


def test_the_installed_command_prints_the_project_version() -> None:
    found = shutil.which("diagnose", path=str(Path(sys.executable).parent))
    assert found, "the diagnose console script is not installed beside this Python"
    result = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"diagnose {_project_version()}\n"


def test_version_exits_0_before_any_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"diagnose {_project_version()}"
