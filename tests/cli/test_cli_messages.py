"""The command line's own words come from the `cli` catalogue, in the command's `--lang` (English
without it): a usage error, a configuration error, a note on stderr. No text of its own is written
into cli/ as a literal: what cli/ prints, writes to stderr or raises as a usage error is a
catalogue lookup (the AST check below fails on a new literal sentence)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from cli.main import main
from cli.messages import CLI_MESSAGES, say, speaking
from diagnosis.render.i18n import LANGUAGES, UnsupportedLanguage
from tests.conftest import ROOT
from tests.literal_text import call_name, literal_words

CLI_DIR = ROOT / "cli"


def exit_status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


@pytest.mark.parametrize(
    ("lang", "prog_line", "reason"),
    [
        (
            "en",
            "diagnose runai: error: ",
            "--cluster-id is required: the diagnosis never guesses the cluster",
        ),
        ("fr", "diagnose runai : erreur : ", "--cluster-id est obligatoire"),
        ("zh", "diagnose runai：错误：", "--cluster-id 是必需的"),
        ("ja", "diagnose runai: エラー: ", "--cluster-id は必須です"),
    ],
)
def test_a_usage_error_is_said_in_the_commands_language(
    lang: str, prog_line: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_status(["runai", "--workload-id", "w", "--lang", lang]) == 2
    *usage, line = capsys.readouterr().err.strip().splitlines()
    assert usage[0].startswith("usage: diagnose runai ")  # argparse's own words stay as it prints them
    assert line.startswith(prog_line) and reason in line


def test_without_lang_the_cli_speaks_english(capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_status(["modelarts", "--region", "cn-north-4"]) == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line == (
        "diagnose modelarts: error: give --job-id or --job-name (the region-wide scan of abnormal jobs "
        "is `diagnose modelarts scan`)"
    )


@pytest.mark.parametrize(
    ("lang", "checked"),
    [
        ("fr", ("https:// (ou http://)", "un nom d’hôte", "user:password@", "?query", "#fragment")),
        ("zh", ("https://（或 http://）", "主机名", "user:password@", "?query", "#fragment")),
        ("ja", ("https://（または http://）", "ホスト名", "user:password@", "?query", "#fragment")),
    ],
)
def test_runai_url_validation_in_the_commands_language(
    lang: str, checked: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RUNAI_URL", "https://admin:Hunter2Hunter2@acme.run.ai?tenant=1")
    monkeypatch.setenv("RUNAI_CLIENT_ID", "id")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "secret")
    assert main(["runai", "--cluster-id", "c", "--workload-id", "w", "--lang", lang]) == 2
    err = capsys.readouterr().err
    for text in checked:
        assert text in err
    assert "Hunter2" not in err and "acme.run.ai" in err, "the password is never echoed, in any language"


def test_a_secret_typed_in_an_option_is_masked_in_every_language(capsys: pytest.CaptureFixture[str]) -> None:
    secret = "password=Hunter2Hunter2Hunter2"
    for lang in LANGUAGES:
        assert exit_status(["runai", "scan", "--cluster-id", "c", "--lang", lang, secret]) == 2
        err = capsys.readouterr().err
        assert "Hunter2" not in err, lang


def test_the_language_is_the_commands_own_and_only_while_it_runs() -> None:
    with speaking("ja"):
        assert say("demo.summary") == CLI_MESSAGES["ja"]["demo.summary"]
    assert say("demo.summary") == "Summary"
    with pytest.raises(UnsupportedLanguage), speaking("de"):
        pass


# --- no sentence of the CLI's own outside the catalogue ---

# Calls whose positional arguments reach the user: print(), a stream's write(), argparse's error(),
# and the usage errors the CLI raises.
_SHOWN_CALLS = {"print", "write", "error", "UsageError", "ArgumentsError"}
# Catalogue lookups (their arguments are message ids and values, not text).
_LOOKUPS = {"say", "said"}
# What may stay outside the catalogue: terminal control sequences and punctuation.
_CONTROL = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _is_text(value: str) -> bool:
    # The command's own name is never translated (`diagnose 0.1.0`, `diagnose: …`).
    return bool(re.search(r"[^\W\d_]", _CONTROL.sub("", value).replace("diagnose", "")))


def _literal_words(node: ast.AST) -> list[str]:
    """Text with letters written in `node`, not counting what goes through a catalogue lookup."""
    return literal_words(node, lookups=_LOOKUPS, is_text=_is_text)


def literal_sentences(source: str, filename: str) -> list[str]:
    problems: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Call) and call_name(node.func) in _SHOWN_CALLS:
            for argument in node.args:
                for text in _literal_words(argument):
                    problems.append(f"{filename}:{node.lineno}: {text!r}")
    return problems


def test_the_check_finds_a_literal_sentence() -> None:
    assert literal_sentences('print(f"scan: {n} done", file=sys.stderr)', "x.py")
    assert literal_sentences('raise UsageError("no bundle")', "x.py")
    assert literal_sentences('parser.error(f"bad {x}")', "x.py")
    assert not literal_sentences('print(say("scan.done", n=n) + "\\033[K", file=sys.stderr)', "x.py")
    assert not literal_sentences("raise UsageError(str(exc)) from None", "x.py")
    assert not literal_sentences('print(f"{name:<44} {count:>5}")', "x.py")


def test_no_sentence_of_the_cli_is_a_literal() -> None:
    problems: list[str] = []
    for path in sorted(CLI_DIR.glob("*.py")):
        problems += literal_sentences(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    assert not problems, (
        "text shown by the CLI outside the `cli` catalogue: add an id to cli/locale/<lang>/LC_MESSAGES/"
        "cli.po in every language and use cli.messages.say(id, …), then run `make messages`:\n"
        + "\n".join(problems)
    )


def test_every_id_the_cli_names_is_in_its_catalogue() -> None:
    named: set[str] = set()
    for path in sorted(CLI_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and call_name(node.func) == "say" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    named.add(first.value)
    assert len(named) > 40
    missing = sorted(named - set(CLI_MESSAGES["en"]))
    assert not missing, f"ids used in cli/ that cli.po lacks: {missing}"
    assert Path(CLI_MESSAGES.po_path("en")).is_file()
