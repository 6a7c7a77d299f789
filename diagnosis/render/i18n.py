"""Message catalogues for the free-text fields (root cause, recommendations, limitations, questions).

Each platform keeps its own catalogue: {lang: {key: template}}. `signature` and evidence `text` are
verbatim and never translated (rulings G9).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from diagnosis.render.compose import compose

Catalogue = Mapping[str, Mapping[str, str]]


class Translator:
    def __init__(self, catalogue: Catalogue, lang: str, *, fallback: str = "en") -> None:
        self.catalogue = catalogue
        self.lang = lang if lang in catalogue else fallback
        self.fallback = fallback

    def __call__(self, key: str, /, **values: Any) -> str:
        template = self.catalogue.get(self.lang, {}).get(key)
        if template is None:
            template = self.catalogue.get(self.fallback, {}).get(key)
        if template is None:
            raise KeyError(f"no message {key!r} in {self.lang!r} or {self.fallback!r}")
        return compose(template, values) if values else template
