"""Message catalogues (gettext domains) and the Translator that formats their templates.

Every user-visible sentence of a report lives in a gettext catalogue: one `.po` file per language
and domain, `<package>/locale/<lang>/LC_MESSAGES/<domain>.po`, in the monolingual style (the
msgid is a stable symbolic id such as `rc.oom_peak`, the msgstr is the text, English included, and
`en` is the base language). Templates are `str.format` templates (`{container}`, flagged
`python-brace-format`); signatures and evidence quotes are verbatim and never go through here.

The package reads the compiled `.mo` files next to the sources with the standard library's
`gettext`, so an installed wheel needs nothing else and nothing is parsed before a catalogue is
used (`diagnose --help` loads none). `make messages` compiles them with Babel; the tests check that
the committed `.mo` files match their `.po` sources, that every id exists in every language and
that every translation has exactly the placeholders of its English source.
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from diagnosis.languages import BASE_LANGUAGE, LANGUAGES
from diagnosis.languages import Language as Language  # re-exported: the type of a language id
from diagnosis.render.compose import compose


class UnsupportedLanguage(ValueError):
    """A language no catalogue offers: said to the user, never replaced by another one."""

    def __init__(self, lang: str, languages: tuple[str, ...] = LANGUAGES) -> None:
        self.lang = lang
        self.languages = languages
        super().__init__(f"language {lang!r} is not offered: use one of {', '.join(languages)}")


def check_language(lang: str, languages: tuple[str, ...] = LANGUAGES) -> str:
    """`lang` when it is offered, else UnsupportedLanguage (there is no silent fallback)."""
    if lang not in languages:
        raise UnsupportedLanguage(lang, languages)
    return lang


class Catalogue(Mapping[str, Mapping[str, str]]):
    """One gettext domain across the languages: `catalogue[lang][msgid] -> template`.

    Each language's compiled `.mo` file is read on first use and kept.
    """

    def __init__(self, domain: str, localedir: Path, *, languages: tuple[str, ...] = LANGUAGES) -> None:
        self.domain = domain
        self.localedir = localedir
        self.languages = languages

    def mo_path(self, lang: str) -> Path:
        return self.localedir / lang / "LC_MESSAGES" / f"{self.domain}.mo"

    def po_path(self, lang: str) -> Path:
        return self.localedir / lang / "LC_MESSAGES" / f"{self.domain}.po"

    def __getitem__(self, lang: str) -> Mapping[str, str]:
        if lang not in self.languages:
            raise KeyError(lang)
        return _read_mo(self.mo_path(lang))

    def __iter__(self) -> Iterator[str]:
        return iter(self.languages)

    def __len__(self) -> int:
        return len(self.languages)

    def __repr__(self) -> str:
        return f"Catalogue({self.domain!r}, {str(self.localedir)!r})"

    def section(self, prefix: str) -> Mapping[str, Mapping[str, str]]:
        """The ids under `prefix` with the prefix taken off: `section("scan.")["en"]["title"]`."""
        return _Section(self, prefix)


class _Section(Mapping[str, Mapping[str, str]]):
    def __init__(self, catalogue: Catalogue, prefix: str) -> None:
        self.catalogue = catalogue
        self.prefix = prefix

    def __getitem__(self, lang: str) -> Mapping[str, str]:
        return _strip_prefix(self.catalogue.mo_path(lang) if lang in self.catalogue else None, self.prefix)

    def __iter__(self) -> Iterator[str]:
        return iter(self.catalogue)

    def __len__(self) -> int:
        return len(self.catalogue)


@functools.cache
def _read_mo(path: Path) -> Mapping[str, str]:
    with path.open("rb") as handle:
        translations = gettext.GNUTranslations(handle)
    # gettext offers no public listing of a catalogue's ids; `_catalog` is the parsed table
    # (Django's translation layer reads it the same way). The empty id is the .po header.
    parsed: dict[Any, Any] = vars(translations)["_catalog"]
    return {str(msgid): str(text) for msgid, text in parsed.items() if isinstance(msgid, str) and msgid}


@functools.cache
def _strip_prefix(path: Path | None, prefix: str) -> Mapping[str, str]:
    if path is None:
        raise KeyError(prefix)
    return {
        msgid.removeprefix(prefix): text for msgid, text in _read_mo(path).items() if msgid.startswith(prefix)
    }


class Translator:
    """`t(msgid, **values)`: the template of `msgid` in one language, formatted.

    An unknown language raises UnsupportedLanguage. An id missing from a language (which the
    catalogue tests forbid) reads the base language's text rather than failing a diagnosis.
    """

    def __init__(
        self, catalogue: Mapping[str, Mapping[str, str]], lang: str, *, fallback: str = BASE_LANGUAGE
    ) -> None:
        if lang not in catalogue:
            raise UnsupportedLanguage(lang, tuple(catalogue))
        self.catalogue = catalogue
        self.lang = lang
        self.fallback = fallback
        self._templates = catalogue[lang]

    def __call__(self, key: str, /, **values: Any) -> str:
        template = self._templates.get(key)
        if template is None:
            template = self.catalogue[self.fallback].get(key)
        if template is None:
            raise KeyError(f"no message {key!r} in {self.lang!r} or {self.fallback!r}")
        return compose(template, values) if values else template

    def has(self, key: str) -> bool:
        return key in self._templates
