"""Every command that reports in a language offers the four languages, and refuses any other."""

from __future__ import annotations

import argparse

import pytest

from cli.main import build_parser, main
from diagnosis import engine
from diagnosis.render.i18n import LANGUAGES, UnsupportedLanguage
from tests.conftest import EXAMPLES


def _lang_choices(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    for action in parser._actions:
        if "--lang" in action.option_strings:
            found[" ".join(path) or "diagnose"] = tuple(action.choices or ())
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found.update(_lang_choices(child, (*path, name)))
    return found


def test_every_lang_option_offers_en_fr_zh_and_ja() -> None:
    choices = _lang_choices(build_parser())
    assert {"runai", "modelarts", "replay", "explain"} <= set(choices), choices
    assert {command: set(offered) for command, offered in choices.items()} == {
        command: set(LANGUAGES) for command in choices
    }


def test_a_language_no_catalogue_offers_is_refused_by_the_engine() -> None:
    for platform in ("runai", "modelarts"):
        assert [engine.resolve_lang(platform, lang) for lang in LANGUAGES] == list(LANGUAGES)
        with pytest.raises(UnsupportedLanguage):
            engine.resolve_lang(platform, "de")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_replay_reports_in_the_language_asked_for(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(["replay", str(EXAMPLES / "runai-optb-oom-recurring.bundle.json"), "--lang", lang])
    report = capsys.readouterr().out
    marker = {"en": "Evidence:", "fr": "Preuves", "zh": "证据", "ja": "証拠"}[lang]
    assert marker in report, report[:400]


def test_an_unknown_language_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["replay", str(EXAMPLES / "runai-preempted.bundle.json"), "--lang", "de"])
    assert exited.value.code == 2 and "invalid choice" in capsys.readouterr().err
