"""Why a call got no answer, in words: the gettext domain `evidence`
(diagnosis/locale/<lang>/LC_MESSAGES/evidence.po), shared by both platforms' reports.

An `Answer` that failed keeps the id of its reason (`failure.timeout`, `failure.dns`, …) and the
values that go with it; its English `error` is the base language's text, and a report quotes the
reason in its own language (`Answer.describe_failure(lang=…)`).
"""

from __future__ import annotations

from diagnosis.locale import LOCALE_DIR
from diagnosis.render.i18n import BASE_LANGUAGE, Catalogue, Translator

CATALOGUE = Catalogue("evidence", LOCALE_DIR)


def failure_words(msgid: str, lang: str = BASE_LANGUAGE, **values: str) -> str:
    """The reason `msgid` in `lang` (an exception's name or a request stays as it is)."""
    return Translator(CATALOGUE, lang)(msgid, **values)
