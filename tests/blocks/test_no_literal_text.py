"""No sentence of the product's own reaches Slack (or the playground's Slack stand-in) without a
catalogue: every Block Kit text built in blocks/, bot/ and playground/ is a catalogue lookup
(`label`, `label_mrkdwn`, an engine Translator), a value, or markup (emoji codes, punctuation).
A new literal sentence in a section, a notice, a button or a message's fallback fails here."""

from __future__ import annotations

import ast
import re

from tests.conftest import ROOT
from tests.literal_text import call_name, literal_words

PACKAGES = ("blocks", "bot", "playground")
# The Block Kit builders (blocks.kit, blocks.messages) whose text arguments are shown as they are.
SHOWN_CALLS = {
    "SlackMessage",
    "button",
    "context",
    "fallback_text",
    "fields_section",
    "header",
    "markdown_message",
    "mrkdwn",
    "notice",
    "notice_mrkdwn",
    "option",
    "plain_text",
    "section",
    "static_select",
}
SHOWN_KEYWORDS = {"text", "title", "fallback", "placeholder"}
# Catalogue lookups: their arguments are message ids and values.
LOOKUPS = {"label", "label_mrkdwn", "t", "usage_problem", "describe_failure", "step_label", "say"}
EMOJI = re.compile(r":[a-z0-9_+-]+:")
# Command words, kept verbatim in every language (`explain 137`).
VERBATIM = re.compile(r"\b(?:explain|diagnose)\b")


def _is_text(value: str) -> bool:
    return bool(re.search(r"[^\W\d_]{2,}", VERBATIM.sub("", EMOJI.sub("", value))))


def _words(node: ast.AST) -> list[str]:
    return literal_words(node, lookups=LOOKUPS, is_text=_is_text)


def literal_texts(source: str, filename: str) -> list[str]:
    problems: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Call) and call_name(node.func) in SHOWN_CALLS:
            shown = [*node.args, *(item.value for item in node.keywords if item.arg in SHOWN_KEYWORDS)]
            for argument in shown:
                problems += [f"{filename}:{node.lineno}: {text!r}" for text in _words(argument)]
    return problems


def test_the_check_finds_a_literal_sentence() -> None:
    assert literal_texts('notice("I could not do it")', "x.py")
    assert literal_texts('section(f":warning: {name} is missing")', "x.py")
    assert literal_texts('SlackMessage(text="Working on it", blocks=[])', "x.py")
    assert not literal_texts("section(f\":warning: {escape_mrkdwn(label('missing', lang))}\")", "x.py")
    assert not literal_texts('markdown_message(md, fallback=f"explain {mask(code)}", lang=lang)', "x.py")


def test_no_literal_sentence_is_sent_to_slack() -> None:
    problems: list[str] = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            problems += literal_texts(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    assert not problems, (
        "text sent to Slack outside a catalogue: add an id to blocks/locale/<lang>/LC_MESSAGES/slack.po "
        "in every language and use blocks.labels.label(id, lang, …), then run `make messages`:\n"
        + "\n".join(problems)
    )
