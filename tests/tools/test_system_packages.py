"""`make test`'s system packages: present here; where they cannot be installed, one line naming the command."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tools import system_packages

SCRIPT = ROOT / "tools" / "system_packages.py"


def test_everything_make_test_needs_is_here() -> None:
    # This machine ran `make test`: the script installed what was missing, or it was there.
    assert system_packages.missing() == []
    assert system_packages.main([]) == 0


def _bare_path(tmp_path: Path) -> str:
    """A PATH with only python3 on it: no redis-server, no chromium, no apt-get, no sudo."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "python3").symlink_to(sys.executable)
    return str(folder)


def test_without_a_package_manager_it_stops_at_once_with_the_command(tmp_path: Path) -> None:
    result = subprocess.run(
        ["python3", str(SCRIPT)],
        env={**os.environ, "PATH": _bare_path(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("make test needs redis-server, chromium, which this user cannot install: ")
    assert "run `sudo apt-get update && sudo apt-get install -y redis-server chromium`" in line


def test_as_a_user_who_is_not_root_it_names_the_command_instead_of_installing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    installed: list[list[str]] = []
    monkeypatch.setattr(system_packages, "missing", lambda: ["redis-server", "fonts-noto-cjk"])
    monkeypatch.setattr(system_packages.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(system_packages, "install", lambda packages: installed.append(list(packages)) or 0)
    assert system_packages.main([]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "run `sudo apt-get update && sudo apt-get install -y redis-server fonts-noto-cjk`" in line
    assert installed == []


def test_as_root_with_apt_get_it_installs_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    still_missing = [["chromium"], []]
    installed: list[list[str]] = []
    monkeypatch.setattr(system_packages, "missing", lambda: still_missing.pop(0))
    monkeypatch.setattr(system_packages, "can_install", lambda: True)
    monkeypatch.setattr(system_packages, "install", lambda packages: installed.append(list(packages)) or 0)
    assert system_packages.main([]) == 0
    assert installed == [["chromium"]]


def test_check_mode_never_installs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(system_packages, "missing", lambda: ["chromium"])
    monkeypatch.setattr(system_packages, "can_install", lambda: True)
    monkeypatch.setattr(system_packages, "install", lambda packages: pytest.fail("installed in --check"))
    assert system_packages.main(["--check"]) == 2


@pytest.mark.parametrize("name", ["system_packages.py", "with_redis.py"])
def test_the_scripts_run_before_the_virtualenv_exists(name: str) -> None:
    """Standard library only: they run with the system python3."""
    tree = ast.parse((ROOT / "tools" / name).read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported - {"__future__"} <= set(sys.stdlib_module_names), imported
