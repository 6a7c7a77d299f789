"""The command line's own words: usage errors, notes and progress on stderr, what `diagnose sim`,
`try` and `playground` print. They are the gettext domain `cli` (cli/locale/<lang>/LC_MESSAGES/
cli.po), in the language of the command's `--lang` when it has one and was given, else English.

argparse's own phrases (`usage:`, `the following arguments are required`, `invalid choice`) stay
as argparse prints them. Commands, options, variables and paths inside a text stay verbatim.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Protocol, runtime_checkable

from diagnosis.render.i18n import BASE_LANGUAGE, Catalogue, Translator, check_language

LOCALE_DIR = Path(__file__).resolve().parent / "locale"

# The gettext domain `cli`: `CLI_MESSAGES[lang][id]`.
CLI_MESSAGES = Catalogue("cli", LOCALE_DIR)

_LANGUAGE: ContextVar[str] = ContextVar("cli_language", default=BASE_LANGUAGE)


@contextmanager
def speaking(lang: str | None) -> Iterator[None]:
    """The CLI's own words in `lang` (English when None) while the command runs."""
    token = _LANGUAGE.set(check_language(lang) if lang else BASE_LANGUAGE)
    try:
        yield
    finally:
        _LANGUAGE.reset(token)


def say(key: str, /, **values: object) -> str:
    """The text of `key` in the command's language, filled as every catalogue template is."""
    return Translator(CLI_MESSAGES, _LANGUAGE.get())(key, **values)


@runtime_checkable
class _SaidError(Protocol):
    def in_language(self, lang: str) -> str: ...


def said(error: Exception) -> str:
    """An engine error in the command's language when it carries its catalogue sentence
    (`in_language`, as the Run:ai configuration errors do), else its own text."""
    if isinstance(error, _SaidError):
        return error.in_language(_LANGUAGE.get())
    return str(error)
