"""A report in French, Chinese or Japanese reads in that language: besides what the platform
itself said (quoted evidence, recorded answers, signatures), commands and code spans, no English
sentence of the product's own is left in it, also when calls fail and the report says why.

Every bundle is replayed in each language, whole and with each of its operations missing (the
"not recorded" path of a call that failed); English is recognised by its function words, which
French shares none of.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import pytest

from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import load_bundle
from diagnosis.models import Diagnosis
from diagnosis.render import render_markdown
from tests.conftest import ROOT

BUNDLES = sorted(
    [
        *(ROOT / "diagnosis" / "examples").rglob("*.bundle.json"),
        *(ROOT / "tests").glob("*/bundles/*.bundle.json"),
    ]
)
# Four or more words in Latin letters: a candidate English phrase.
PHRASE = re.compile(r"[A-Za-z][A-Za-z'’-]*(?:[ ,]+[A-Za-z][A-Za-z'’-]*){3,}")
ENGLISH_WORDS = frozenset(
    [
        "the",
        "was",
        "were",
        "with",
        "from",
        "could",
        "not",
        "has",
        "have",
        "is",
        "no",
        "and",
        "of",
        "to",
        "by",
        "are",
        "been",
        "this",
        "that",
        "be",
        "on",
        "in",
    ]
)


def _platform_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
        yield from value.splitlines()
    elif isinstance(value, dict):
        for item in value.values():
            yield from _platform_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _platform_strings(item)


def _own_prose(markdown: str, diagnosis: Diagnosis, bundle: Bundle) -> str:
    """The report without code, quotes and anything the platform wrote."""
    text = re.sub(r"```.*?```", "", markdown, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    # Quoted text is escaped for Markdown (`\*`): read back as the platform wrote it.
    text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~])", r"\1", text)
    quoted = [item.text for item in diagnosis.evidence] + [diagnosis.signature or ""]
    for exchange in bundle.exchanges:
        quoted += [*_platform_strings(exchange.body), *_platform_strings(exchange.text or "")]
    for piece in sorted({piece.strip() for piece in quoted if len(piece.strip()) > 3}, key=len, reverse=True):
        text = text.replace(piece, "")
    # Next steps quote read-only commands to run as they are.
    return re.sub(r"kubectl [^\n]*", "", text)


def english_phrases(markdown: str, diagnosis: Diagnosis, bundle: Bundle) -> list[str]:
    found = []
    for match in PHRASE.finditer(_own_prose(markdown, diagnosis, bundle)):
        words = [word.lower() for word in re.findall(r"[A-Za-z']+", match.group(0))]
        if sum(word in ENGLISH_WORDS for word in words) >= 2:
            found.append(match.group(0))
    return found


def _variants(bundle: Bundle) -> Iterator[tuple[str, Bundle]]:
    yield "whole", bundle
    for op in sorted({exchange.op for exchange in bundle.exchanges}):
        kept = [exchange for exchange in bundle.exchanges if exchange.op != op]
        yield f"without {op}", bundle.model_copy(update={"exchanges": kept})


@pytest.mark.parametrize("lang", ["fr", "zh", "ja"])
def test_no_english_prose_of_the_product_in_another_language(lang: str) -> None:
    leftovers: list[str] = []
    for path in BUNDLES:
        original = load_bundle(path)
        for variant, bundle in _variants(original):
            diagnosis = asyncio.run(engine.replay(bundle, lang=lang))
            markdown = render_markdown(diagnosis, lang=lang)
            leftovers += [
                f"{path.name} ({variant}): {phrase!r}"
                for phrase in english_phrases(markdown, diagnosis, original)
            ]
    assert len(BUNDLES) > 60, "the bundles were found"
    assert not leftovers, "\n".join(dict.fromkeys(leftovers))


def test_the_check_sees_an_english_sentence_left_in_a_japanese_report() -> None:
    bundle = load_bundle(ROOT / "diagnosis" / "examples" / "runai" / "runai-oom-killed.bundle.json")
    diagnosis = asyncio.run(engine.replay(bundle, lang="ja"))
    markdown = render_markdown(diagnosis, lang="ja")
    assert english_phrases(markdown, diagnosis, bundle) == []
    left = markdown + "\n- 制限事項：the events could not be read from the bundle\n"
    assert english_phrases(left, diagnosis, bundle) == ["the events could not be read from the bundle"]
    # What the platform wrote is not the product's prose, whatever its language.
    platform_words = next(item.text for item in diagnosis.evidence if "has reached the" in item.text)
    assert english_phrases(markdown + f"\n- {platform_words}\n", diagnosis, bundle) == []
