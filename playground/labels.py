"""The playground page's own words, per language (the bot's messages come in the channel's language):
the gettext domain `playground` (playground/locale/<lang>/LC_MESSAGES/playground.po)."""

from __future__ import annotations

from pathlib import Path

from diagnosis.render.i18n import LANGUAGES, Catalogue, check_language

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LABELS = Catalogue("playground", LOCALE_DIR)

__all__ = ["LABELS", "LANGUAGES", "labels_for"]


def labels_for(lang: str) -> dict[str, str]:
    """Every label in `lang` (an unknown language is the caller's error: the page offers only these)."""
    return dict(LABELS[check_language(lang)])
