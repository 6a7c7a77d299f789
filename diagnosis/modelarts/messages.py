"""The free-text fields of a ModelArts diagnosis, read from the gettext domain `modelarts`
(diagnosis/locale/<lang>/LC_MESSAGES/modelarts.po): zh (the runbook's template language), en and ja.

Ids: `root.*` root-cause sentences, `meaning.<rule>` what a rule's pattern means, `fix.<key>`
one 方案 of numbered steps, `exit.*` exit-code meanings, `limit.*` limitations, `next.*` /
`direction.*` next steps (each with its reason in `（原因：…）`, as the runbook's template has it),
`evidence.*` the few labels evidence needs, `label.*`, `report.*` and `scan.*` the reports' fixed
labels, `duration.*` how long something has lasted.
"""

from __future__ import annotations

from datetime import timedelta

from diagnosis.locale import LOCALE_DIR
from diagnosis.render.i18n import Catalogue, Translator

CATALOGUE = Catalogue("modelarts", LOCALE_DIR, languages=("zh", "en", "fr", "ja"))
LANGUAGES: tuple[str, ...] = CATALOGUE.languages


def format_duration(delta: timedelta, lang: str) -> str:
    """`4 小时 57 分钟`, `4 h 57 min`, `4 時間 57 分`: the stalled scenario's durations."""
    t = Translator(CATALOGUE, lang)
    minutes = int(delta.total_seconds() // 60)
    if minutes < 1:
        return t("duration.under_minute")
    hours, rest = divmod(minutes, 60)
    return (
        t("duration.hours_minutes", hours=hours, minutes=rest)
        if hours
        else t("duration.minutes", minutes=rest)
    )
