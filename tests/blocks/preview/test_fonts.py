"""`diagnose preview` says when the report's language cannot be drawn: Chromium shows a character
no installed font has as an empty box, so a Chinese report without CJK fonts is a picture of boxes.
fontconfig's own `fc-list` is asked, as Chromium asks fontconfig."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from blocks.preview.fonts import fonts_cover
from cli.main import main
from cli.preview import missing_fonts_note
from simulator.environment import BUILTIN_SCENARIOS

ZH_BUNDLE = BUILTIN_SCENARIOS / "modelarts" / "modelarts-exit-137-killed.bundle.json"


def fake_fc_list(folder: Path, output: str) -> None:
    """An `fc-list` that lists `output` whatever it is asked, first on PATH."""
    folder.mkdir(exist_ok=True)
    script = folder / "fc-list"
    script.write_text(f"#!/bin/sh\nprintf '%s' '{output}'\n", encoding="utf-8")
    script.chmod(0o755)


def test_the_installed_cjk_fonts_are_found_by_fontconfig() -> None:
    assert shutil.which("fc-list"), "fontconfig comes with chromium (tools/system_packages.py)"
    assert fonts_cover("zh") is True and fonts_cover("ja") is True
    assert missing_fonts_note("zh") is None


def test_no_font_for_the_language_is_said_with_the_package_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_fc_list(tmp_path / "bin", "")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert fonts_cover("zh") is False
    note = missing_fonts_note("zh")
    assert note is not None and "Chinese" in note and "empty boxes" in note and "fonts-noto-cjk" in note


def test_without_fontconfig_the_check_is_said_not_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    note = missing_fonts_note("ja")
    assert note is not None and "was not checked" in note


def test_preview_warns_on_stderr_and_still_writes_the_picture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert shutil.which("chromium") or shutil.which("chromium-browser"), "apt-get install chromium"
    bin_dir = tmp_path / "bin"
    fake_fc_list(bin_dir, "")
    # This fc-list finds no font; Chromium is still found further along PATH.
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    assert main(["preview", str(ZH_BUNDLE), "--out", str(tmp_path / "out"), "--lang", "zh"]) == 0
    captured = capsys.readouterr()
    # The note is in the command's --lang, the package named as it is.
    assert "没有已安装的字体支持中文" in captured.err and "apt-get install fonts-noto-cjk" in captured.err
    assert (tmp_path / "out" / "report.png").is_file()
