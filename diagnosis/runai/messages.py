"""Run:ai message catalogue: every free-text field (root cause, recommendations, limitations, next
steps, questions, permissions) and the report's fixed labels, read from the gettext domain `runai`
(diagnosis/locale/<lang>/LC_MESSAGES/runai.po). Signatures and evidence quotes are verbatim and
never translated.
"""

from __future__ import annotations

from diagnosis.locale import LOCALE_DIR
from diagnosis.render.i18n import Catalogue

CATALOGUE = Catalogue("runai", LOCALE_DIR)
LANGUAGES: tuple[str, ...] = CATALOGUE.languages
