"""Exit codes: documented meanings, signals, torchrun's negative codes, and no guessing."""

from __future__ import annotations

import re

import pytest

from diagnosis.knowledge.exitcodes import LANGUAGES, describe_exit_code, exit_code_info
from diagnosis.render.i18n import UnsupportedLanguage
from tests import upstream_facts as facts

# (code, signal, words the English meaning must carry): the Bash manual's exit statuses, signal(7)
# numbers (tests/upstream_facts.py) and ModelArts' troubleshooting notes for 247.
DOCUMENTED: list[tuple[int, str | None, str]] = [
    (0, None, "success"),
    (1, None, "generic failure"),
    (2, None, "usage error"),
    (126, None, "not executable"),
    (127, None, "command not found"),
    (128, None, "StartError"),
    (130, "SIGINT", "SIGINT"),
    (134, "SIGABRT", "SIGABRT"),
    (135, "SIGBUS", "bus error"),
    (137, "SIGKILL", "SIGKILL"),
    (139, "SIGSEGV", "segmentation fault"),
    (143, "SIGTERM", "SIGTERM"),
    (247, None, "memory overflow"),
    (255, None, "exit(-1)"),
]


@pytest.mark.parametrize(("code", "signal", "words"), DOCUMENTED)
def test_documented_codes(code: int, signal: str | None, words: str) -> None:
    info = exit_code_info(code)
    assert info.code == code
    assert info.documented
    assert info.signal == signal
    assert words.lower() in info.meaning_en.lower()
    assert info.typical_cause_en
    assert info.source is not None and re.search(r"https://\S+", info.source), info.source
    if signal is not None:
        assert facts.LINUX_SIGNALS[code - facts.FATAL_SIGNAL_BASE] == signal
    if code in facts.SHELL_EXIT_STATUS:
        assert facts.SHELL_EXIT_STATUS[code] in info.meaning_en


@pytest.mark.parametrize("code", sorted(facts.MODELARTS_EXIT_CODES))
def test_modelarts_exit_codes_carry_the_troubleshooting_guide_cause(code: int) -> None:
    info = exit_code_info(code)
    assert facts.MODELARTS_EXIT_CODES[code] in (info.meaning_en + " " + info.typical_cause_en).lower()


def test_137_names_both_oom_and_other_killers() -> None:
    cause = exit_code_info(137).typical_cause_en
    assert "OOMKilled" in cause
    assert "grace period" in cause


def test_247_comes_from_the_modelarts_reference() -> None:
    info = exit_code_info(247)
    assert info.source is not None and "support.huaweicloud.com" in info.source


@pytest.mark.parametrize(
    ("code", "signal"), [(129, "SIGHUP"), (131, "SIGQUIT"), (138, "SIGUSR1"), (152, "SIGXCPU")]
)
def test_other_signal_exits_follow_128_plus_n(code: int, signal: str) -> None:
    info = exit_code_info(code)
    assert info.documented
    assert info.signal == signal
    assert f"128+{code - 128}" in info.meaning_en


@pytest.mark.parametrize(
    ("code", "signal"), [(-9, "SIGKILL"), (-15, "SIGTERM"), (-6, "SIGABRT"), (-11, "SIGSEGV")]
)
def test_negative_codes_are_signals_reported_by_torchrun(code: int, signal: str) -> None:
    info = exit_code_info(code)
    assert info.documented
    assert info.signal == signal
    assert "torchrun" in info.meaning_en


@pytest.mark.parametrize("code", [3, 42, 200, 256, 1000, -200])
def test_unknown_codes_are_not_guessed(code: int) -> None:
    info = exit_code_info(code)
    assert not info.documented
    assert info.signal is None
    assert info.meaning_en == f"no documented meaning for exit code {code}"
    assert describe_exit_code(code, "en") == f"Exit code {code}: no documented meaning for exit code {code}."


def test_describe_in_every_language() -> None:
    assert describe_exit_code(137, "en") == "Exit code 137: killed by SIGKILL (128+9)."
    assert describe_exit_code(137, "fr") == "Code de sortie 137 : tué par SIGKILL (128+9)."
    assert describe_exit_code(137, "zh") == "退出码 137：被 SIGKILL 强制终止（128+9）。"
    assert describe_exit_code(137, "ja") == "終了コード 137：SIGKILL により強制終了（128+9）。"
    assert describe_exit_code(1, "en") == "Exit code 1: generic failure raised by the program itself."
    assert describe_exit_code(-9, "en").startswith("Exit code -9: child process killed by signal SIGKILL (9)")
    assert describe_exit_code(42, "zh") == "退出码 42：退出码 42 没有已记录的含义。"


@pytest.mark.parametrize("code", [code for code, _, _ in DOCUMENTED] + [129, -9])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_documented_code_is_translated(code: int, lang: str) -> None:
    info = exit_code_info(code)
    meaning = info.meaning(lang)
    cause = info.typical_cause(lang)
    assert meaning and cause
    if lang != "en":
        assert meaning != info.meaning_en and cause != info.typical_cause_en


def test_an_unsupported_language_is_refused_not_replaced_by_english() -> None:
    with pytest.raises(UnsupportedLanguage):
        describe_exit_code(139, "de")


def test_the_killing_signal_is_the_signal_the_catalogue_names() -> None:
    from diagnosis.knowledge.exitcodes import killing_signal

    for code in range(-70, 300):
        assert killing_signal(code) == exit_code_info(code).signal, code
