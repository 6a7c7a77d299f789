"""A template's punctuation and a quoted platform message's do not double up where they meet: one
fix where every catalogue template is filled, not one per sentence."""

from __future__ import annotations

import asyncio
import re

import pytest

from diagnosis import engine
from diagnosis.evidence.bundles import load_bundle
from diagnosis.render import render_markdown
from diagnosis.render.compose import compose
from simulator.environment import BUILTIN_SCENARIOS


@pytest.mark.parametrize(
    ("template", "values", "expected"),
    [
        (
            "failed by itself: {signature}.",
            {"signature": "1.02 GiB is free."},
            "failed by itself: 1.02 GiB is free.",
        ),
        (
            "{op} answered {failure}; not read",
            {"op": "X", "failure": "try again later."},
            "X answered try again later; not read",
        ),
        (
            "answered {failure}, then {next}",
            {"failure": "later.", "next": "stop"},
            "answered later, then stop",
        ),
        ("it said {message}.", {"message": "why?"}, "it said why?"),
        ("it said {message}.", {"message": "wait..."}, "it said wait..."),
        ("出错：{message}。", {"message": "内存不足。"}, "出错：内存不足。"),
        # Untouched: a stop inside a value, a stop after a closing quote, values that end otherwise.
        ("see {a}.", {"a": "v1.2 build"}, "see v1.2 build."),
        ("quoted '{a}'.", {"a": "done."}, "quoted 'done.'."),
        ("{a} and {b}.", {"a": "x", "b": 3}, "x and 3."),
        ("{{literal}} {a:>4}|{b!r}", {"a": "x", "b": "q"}, "{literal}    x|'q'"),
    ],
)
def test_a_value_and_the_template_share_one_punctuation_mark(
    template: str, values: dict[str, object], expected: str
) -> None:
    assert compose(template, values) == expected


def test_a_report_quoting_a_message_that_ends_its_sentence_has_no_doubled_stop() -> None:
    bundle = load_bundle(BUILTIN_SCENARIOS / "runai" / "runai-crashloop-active-option-b.bundle.json")
    diagnosis = asyncio.run(engine.replay(bundle, lang="en"))
    assert diagnosis.root_cause and "is free." in diagnosis.root_cause
    for lang in ("en", "fr"):
        report = render_markdown(asyncio.run(engine.replay(bundle, lang=lang)), lang=lang)
        assert not re.search(r"[^.]\.\.(?!\.)|\.;", report), report
