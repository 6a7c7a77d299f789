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
    result = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"diagnose {_project_version()}\n"


def test_version_is_answered_without_importing_the_subcommands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"diagnose {_project_version()}\n"
    probe = "import sys; from cli.main import main; main(['--version']); print(sorted(m for m in sys.modules if m.startswith(('bot', 'cli.'))))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert result.stdout.splitlines()[-1] == "['cli.main']"


def test_version_is_listed_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    assert "--version" in capsys.readouterr().out
