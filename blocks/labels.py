"""Fixed labels of the Slack messages, per language (the free text comes translated from the engine).

The labels, the progress steps (`step.<op>`) and the help (`usage.help`) are one gettext domain.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from diagnosis.render.compose import compose
from diagnosis.render.i18n import Catalogue, check_language

LOCALE_DIR = Path(__file__).resolve().parent / "locale"

# The gettext domain `slack` (blocks/locale/<lang>/LC_MESSAGES/slack.po): `LABELS[lang][id]`.
LABELS = Catalogue("slack", LOCALE_DIR)


def _template(key: str, lang: str) -> str:
    """The label's template in `lang`; a language the bot does not speak is an error, never English."""
    return LABELS[check_language(lang)].get(key) or LABELS["en"][key]


def label(key: str, lang: str, /, **values: Any) -> str:
    """The label in `lang`, filled as every catalogue template is (no doubled full stop where a
    value's sentence meets the template's punctuation)."""
    template = _template(key, lang)
    return compose(template, values) if values else template


class Mention(str):
    """A Slack user id to show as a mention (`<@U…>`) inside an escaped label."""

    __slots__ = ()


def label_mrkdwn(key: str, lang: str, /, **values: Any) -> str:
    """The label as escaped mrkdwn: the template and every value escaped, `Mention`s rendered."""
    from blocks.escape import escape_mrkdwn

    template = escape_mrkdwn(_template(key, lang))
    rendered = {
        name: f"<@{value}>" if isinstance(value, Mention) else escape_mrkdwn(str(value))
        for name, value in values.items()
    }
    return compose(template, rendered) if rendered else template
