"""Every `diagnose …` command the product's own texts name exists: the catalogues (every language)
and the docs quote commands a user will paste, so each one's subcommand answers `--help` and each
option it names is one that subcommand accepts (`diagnose sim --env`, named by the playground once,
never existed)."""

from __future__ import annotations

import argparse
import re

import pytest

from cli.main import build_parser, main
from tests.conftest import ROOT
from tools import messages as tool

# `diagnose` as a command: not `/diagnose` or `@diagnose` (Slack), not `diagnose-bot` (the package).
COMMAND = re.compile(
    r"(?<![\w/@.-])diagnose((?: +[^\s`'\"，、。（）()；;,|<>\[\]#]+| +\[[^\]\n]*\]| +<[^>\n]*>)*)"
)
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)
WORD = re.compile(r"[a-z][a-z0-9-]*")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}


PARSER = build_parser()


def _resolve(words: list[str]) -> tuple[list[str], argparse.ArgumentParser, list[str]]:
    """(subcommand path, its parser, the rest of the words) for the words after `diagnose`."""
    path: list[str] = []
    parser = PARSER
    rest = list(words)
    while rest and rest[0] in _subparsers(parser):
        path.append(rest[0])
        parser = _subparsers(parser)[rest.pop(0)]
    return path, parser, rest


def _candidates(text: str, *, quoted: bool) -> list[tuple[str, bool]]:
    """(the words after `diagnose`, whether the text marks it as a command) for each mention."""
    found: list[tuple[str, bool]] = []
    for match in COMMAND.finditer(text):
        found.append((match.group(1).strip(), quoted))
    return found


def _mentions() -> list[tuple[str, str, bool]]:
    """(where, the command's words, quoted as code) for every `diagnose …` the texts name."""
    mentions: list[tuple[str, str, bool]] = []
    for files in tool.domains().values():
        for item in files.values():
            for msgid, text in tool.messages(tool.read_catalog(item.po)):
                spans = CODE_SPAN.findall(text)
                for span in spans:
                    mentions += [
                        (f"{item.relative} {msgid}", c, q) for c, q in _candidates(span, quoted=True)
                    ]
                for c, q in _candidates(CODE_SPAN.sub(" ", text), quoted=False):
                    mentions.append((f"{item.relative} {msgid}", c, q))
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for document in documents:
        text = document.read_text(encoding="utf-8")
        where = document.relative_to(ROOT).as_posix()
        for block in FENCE.findall(text):
            for line in block.splitlines():
                line = line.split("#", 1)[0]
                # A line that starts with the command is one to paste; elsewhere (a help text
                # printed in the docs) `diagnose` may be the verb.
                command_line = line.lstrip().removeprefix("$ ").startswith("diagnose ")
                mentions += [(where, c, q) for c, q in _candidates(line, quoted=command_line)]
        for span in CODE_SPAN.findall(FENCE.sub(" ", text)):
            mentions += [(where, c, q) for c, q in _candidates(span, quoted=True)]
    return mentions


MENTIONS = _mentions()


def _problem(words_text: str, *, quoted: bool) -> tuple[list[str], str | None]:
    words = words_text.split()
    path, parser, rest = _resolve(words)
    if not path:
        if quoted and words and WORD.fullmatch(words[0]) and not words[0].startswith("-"):
            return path, f"no subcommand {words[0]!r}"
        return path, None
    if any(action.nargs == argparse.REMAINDER for action in parser._actions):
        # `diagnose try SCENARIO …`: what follows the scenario goes to the scenario's own command.
        words_before = []
        for word in rest:
            if not word.lstrip("[").startswith("-"):
                break
            words_before.append(word)
        rest = words_before
    unknown = sorted(set(OPTION.findall(" ".join(rest))) - _options(parser))
    if unknown:
        return path, f"diagnose {' '.join(path)} has no option {', '.join(unknown)}"
    return path, None


def test_the_texts_name_commands() -> None:
    named = {tuple(_resolve(c.split())[0]) for _where, c, _quoted in MENTIONS}
    # The catalogues and docs name the main commands (the extraction finds them).
    assert {("sim",), ("try",), ("explain",), ("modelarts", "scan"), ("runai",)} <= named


def test_every_command_the_texts_name_exists() -> None:
    problems = []
    for where, words, quoted in MENTIONS:
        _path, problem = _problem(words, quoted=quoted)
        if problem:
            problems.append(f"{where}: `diagnose {words}`: {problem}")
    assert not problems, "commands named that do not exist:\n" + "\n".join(sorted(set(problems)))


@pytest.mark.parametrize(
    "path", sorted({tuple(_resolve(c.split())[0]) for _w, c, _q in MENTIONS} - {()}), ids=" ".join
)
def test_each_named_command_answers_help(path: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*path, "--help"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: diagnose {' '.join(path)}")


def test_a_command_that_does_not_exist_is_caught() -> None:
    assert _problem("sim --env", quoted=False)[1] == "diagnose sim has no option --env"
    assert _problem("simulate --bundles x", quoted=True)[1] == "no subcommand 'simulate'"
    assert _problem("modelarts scan --region r", quoted=True)[1] is None
    assert _problem("it directly", quoted=False)[1] is None
