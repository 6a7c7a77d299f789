"""The languages every surface offers (reports, Slack, explanations, questions and next steps).

In a module of its own: the command line's argument parser offers them without loading the
catalogues or the renderers (diagnosis.render.i18n reads the catalogues).
"""

from __future__ import annotations

from typing import Literal, get_args

Language = Literal["en", "fr", "zh", "ja"]
LANGUAGES: tuple[str, ...] = get_args(Language)
BASE_LANGUAGE = "en"
