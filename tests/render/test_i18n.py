"""The Translator reads the compiled catalogues and never swaps a language for another."""

from __future__ import annotations

import pytest

from diagnosis.render.i18n import LANGUAGES, Translator, UnsupportedLanguage, check_language
from diagnosis.runai.messages import CATALOGUE


def test_a_message_is_read_from_the_compiled_catalogue_and_formatted() -> None:
    french = Translator(CATALOGUE, "fr")
    assert french("report.unreachable", call="GET /api/v1/workloads") == "Injoignable : GET /api/v1/workloads"
    assert Translator(CATALOGUE, "en")("report.unreachable", call="x") == "Unreachable: x"


def test_a_language_no_catalogue_offers_is_refused_not_replaced() -> None:
    with pytest.raises(UnsupportedLanguage) as raised:
        Translator(CATALOGUE, "de")
    assert "'de'" in str(raised.value) and "en" in str(raised.value)
    with pytest.raises(UnsupportedLanguage):
        check_language("pt")
    assert [check_language(lang) for lang in LANGUAGES] == list(LANGUAGES)


def test_an_unknown_id_is_an_error_not_an_empty_text() -> None:
    with pytest.raises(KeyError, match=r"no\.such\.id"):
        Translator(CATALOGUE, "fr")("no.such.id")
