"""The fixed labels exist in every language the bot speaks, with the same placeholders."""

from __future__ import annotations

import string

import pytest

from blocks.labels import LABELS, label, label_mrkdwn
from blocks.progress import progress_message, scan_progress_message, step_label
from blocks.report import report_message
from diagnosis.models import Diagnosis
from diagnosis.render.i18n import UnsupportedLanguage
from tests.blocks.checks import assert_message_within_limits
from tests.conftest import EXAMPLES, load_json

LANGUAGES = ("en", "zh", "fr", "ja")


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_label_is_translated_with_the_same_placeholders(lang: str) -> None:
    assert set(LABELS[lang]) == set(LABELS["en"])
    for key, template in LABELS[lang].items():
        assert template.strip(), key
        assert placeholders(template) == placeholders(LABELS["en"][key]), key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_step_is_named(lang: str) -> None:
    steps = [
        key.removeprefix("step.") for key in LABELS["en"] if key.startswith("step.") and key != "step.unknown"
    ]
    assert "ShowTrainingJobDetails" in steps and "get_workload_status" in steps
    assert all(step_label(op, lang=lang) == LABELS[lang][f"step.{op}"] for op in steps)
    assert "ShowTrainingJobDetails" not in step_label("ShowTrainingJobDetails", lang=lang)
    assert "NewOp" in step_label("NewOp", lang=lang), "an op without a row is named as it is"


def test_french_typography_puts_a_no_break_space_before_colons_and_question_marks() -> None:
    for key, template in LABELS["fr"].items():
        if key == "modal_invalid":
            continue  # lists the characters allowed, the colon among them
        without_code = "".join(part for index, part in enumerate(template.split("`")) if index % 2 == 0)
        assert " :" not in without_code and " ?" not in without_code, key
        for mark in (":", "?"):
            for position, character in enumerate(without_code):
                if (
                    character == mark
                    and position + 1 < len(without_code)
                    and without_code[position + 1] == " "
                ):
                    assert without_code[position - 1] in "\u00a0\u202f", f"{key}: {template!r}"
    assert label("progress_step", "fr", step="x") == "Étape\u00a0: x"


def test_a_language_the_bot_does_not_speak_is_refused_not_replaced_by_english() -> None:
    with pytest.raises(UnsupportedLanguage):
        label("confidence", "de")
    with pytest.raises(UnsupportedLanguage):
        label_mrkdwn("cancelled", "de", user="U1")
    assert label("confidence", "ja") == "確信度"


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("fr", ("Confiance", "Cause racine", "Recommandations", "demandé par")),
        ("ja", ("確信度", "根本原因", "推奨対応", "依頼者")),
    ],
)
def test_a_report_in_french_and_japanese(lang: str, words: tuple[str, ...]) -> None:
    diagnosis = Diagnosis.model_validate(load_json(EXAMPLES / "runai-optb-oom-recurring.diagnosis.json"))
    message = report_message(diagnosis, lang=lang, requested_by="U0ALICE01")
    assert_message_within_limits(message.payload())
    text = str(message.blocks)
    for word in words:
        assert word in text, word
    assert "Confidence" not in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_progress_messages_in_every_language(lang: str) -> None:
    for message in (
        progress_message(what="w", user="U1", lang=lang, step="get_workload_pods"),
        scan_progress_message(what="w", user="U1", lang=lang),
        scan_progress_message(what="w", user="U1", lang=lang, done=3, total=7),
    ):
        assert_message_within_limits(message.payload())
    shown = str(scan_progress_message(what="w", user="U1", lang=lang, done=3, total=7).blocks)
    assert "3" in shown and "7" in shown


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_label_is_filled_as_every_catalogue_template_is(lang: str) -> None:
    """A value that ends its sentence meets the label's own full stop once, not twice, and
    label_mrkdwn escapes what it fills in the same way."""
    plain = label("scan_none_runai", lang, lookback="7d.")
    assert ".." not in plain and "。。" not in plain
    assert "7d" in plain
    escaped = label_mrkdwn("scan_none_runai", lang, lookback="<7d>.")
    assert "&lt;7d&gt;" in escaped and ".." not in escaped
