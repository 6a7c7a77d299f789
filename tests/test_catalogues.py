"""Every message catalogue: each id in every language, the same placeholders as English, and the
committed .mo files compiled from their .po sources.

The failure messages say exactly what to add where, so that a developer who adds a message id in
one language sees the lines to write in the others.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from diagnosis.masking import mask
from diagnosis.render.i18n import LANGUAGES
from tests.conftest import ROOT
from tools import messages as tool

DOMAINS = tool.domains()
HOW = "then run `make messages` and commit the .po and .mo files (`python -m tools.messages missing` lists every gap)"
LANGUAGE_NAMES = {"en": "English", "fr": "French", "zh": "Chinese", "ja": "Japanese"}


def _ids(item: tool.CatalogueFile) -> dict[str, str]:
    return dict(tool.messages(tool.read_catalog(item.po)))


def _domain_id(key: tuple[str, str]) -> str:
    return f"{key[0]}:{key[1]}"


def test_the_catalogues_are_found() -> None:
    assert {
        ("diagnosis", "runai"),
        ("diagnosis", "modelarts"),
        ("diagnosis", "explain"),
        ("blocks", "slack"),
        ("playground", "playground"),
    } <= set(DOMAINS)
    assert all(tool.BASE_LANGUAGE in files for files in DOMAINS.values()), "every domain has an en .po"


@pytest.mark.parametrize("key", sorted(DOMAINS), ids=_domain_id)
def test_every_domain_offers_every_language(key: tuple[str, str]) -> None:
    package, domain = key
    missing = [lang for lang in LANGUAGES if lang not in DOMAINS[key]]
    assert not missing, (
        f"{package}:{domain} has no catalogue for {', '.join(missing)}: copy "
        f"{DOMAINS[key][tool.BASE_LANGUAGE].relative} to {package}/locale/<lang>/LC_MESSAGES/{domain}.po, "
        "translate every msgstr (set the Language header), " + HOW
    )


@pytest.mark.parametrize("key", sorted(DOMAINS), ids=_domain_id)
def test_every_id_exists_in_every_language(key: tuple[str, str]) -> None:
    files = DOMAINS[key]
    english = _ids(files[tool.BASE_LANGUAGE])
    problems: list[str] = []
    for lang, item in sorted(files.items()):
        present = _ids(item)
        missing = [msgid for msgid in english if not present.get(msgid)]
        if missing:
            name = LANGUAGE_NAMES.get(lang, lang)
            snippets = "\n".join(
                f'msgid "{msgid}"\nmsgstr "<{name} text of: {english[msgid]!r}; '
                f'keep exactly the placeholders {tool.placeholders(english[msgid]) or "none"}>"\n'
                for msgid in missing
            )
            problems.append(
                f"{item.relative} lacks {len(missing)} id(s) that en has. Add to that file:\n\n{snippets}"
            )
        extra = sorted(set(present) - set(english))
        if extra:
            problems.append(
                f"{item.relative} has id(s) the English catalogue "
                f"{files[tool.BASE_LANGUAGE].relative} lacks: {', '.join(extra)}. Add each to the "
                "English file (the base language) or remove it here."
            )
    assert not problems, "\n".join(problems) + "\n" + HOW


@pytest.mark.parametrize("key", sorted(DOMAINS), ids=_domain_id)
def test_every_translation_has_the_placeholders_of_its_english_source(key: tuple[str, str]) -> None:
    files = DOMAINS[key]
    english = _ids(files[tool.BASE_LANGUAGE])
    wrong: list[str] = []
    for lang, item in sorted(files.items()):
        for msgid, text in _ids(item).items():
            try:
                fields = tool.placeholders(text)
            except ValueError as error:
                wrong.append(
                    f"{item.relative} {msgid}: not a str.format template ({error}); write {{{{ for a literal brace"
                )
                continue
            if (
                msgid in english
                and lang != tool.BASE_LANGUAGE
                and fields != tool.placeholders(english[msgid])
            ):
                wrong.append(
                    f"{item.relative} {msgid}: placeholders {fields}, English has "
                    f"{tool.placeholders(english[msgid])}"
                )
    assert not wrong, "\n".join(wrong) + "\n" + HOW


@pytest.mark.parametrize("item", tool.catalogue_files(), ids=lambda item: item.relative)
def test_the_committed_mo_is_compiled_from_its_po(item: tool.CatalogueFile) -> None:
    assert tool.build(item, check=True) == [], HOW


def test_a_catalogue_missing_an_id_is_reported_with_what_to_add(tmp_path: Path) -> None:
    """The developer's view of the check above: a language lacking an id gets the lines to add."""
    root = tmp_path
    for lang, entries in {
        "en": {"a.one": "One {count}", "a.two": "Two"},
        "ja": {"a.one": "一つ {count}"},
    }.items():
        folder = root / "pkg" / "locale" / lang / "LC_MESSAGES"
        folder.mkdir(parents=True)
        body = "".join(f'msgid "{msgid}"\nmsgstr "{text}"\n\n' for msgid, text in entries.items())
        (folder / "demo.po").write_text(
            'msgid ""\nmsgstr "Content-Type: text/plain; charset=utf-8\\n"\n\n' + body
        )
    assert tool.missing_report(root) == ["pkg/locale/ja/LC_MESSAGES/demo.po: a.two  (en: 'Two')"]


class _Value:
    """A harmless value for any placeholder, whatever its format spec (`{seconds:g}`, `{n:02d}`)."""

    def __format__(self, spec: str) -> str:
        return "7" if spec else "x"


@pytest.mark.parametrize("key", sorted(DOMAINS), ids=_domain_id)
def test_every_message_survives_masking_unchanged(key: tuple[str, str]) -> None:
    """Masking runs on every output: a fixed text it takes for a secret (`SECRET：…` in a
    translation) would reach the user as `[MASKED:…]`."""
    mangled: list[str] = []
    for _lang, item in sorted(DOMAINS[key].items()):
        for msgid, text in _ids(item).items():
            filled = text.format(**{name: _Value() for name in tool.placeholders(text)})
            if mask(filled) != filled:
                mangled.append(f"{item.relative} {msgid}: {filled!r} is masked as {mask(filled)!r}")
    assert not mangled, "\n".join(mangled) + "\nreword the text so that no secret-like assignment remains"


PRODUCT_PACKAGES = ("diagnosis", "blocks", "bot", "cli", "simulator", "mcp_face", "playground")


def _per_language_dicts(path: Path) -> list[int]:
    """Line numbers of dict literals keyed by two or more languages (`{"en": …, "zh": …}`)."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            keys = {
                key.value for key in node.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)
            }
            if len(keys & set(LANGUAGES)) >= 2:
                lines.append(node.lineno)
    return lines


def test_no_text_is_kept_in_a_python_dict_per_language() -> None:
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{line}"
        for package in PRODUCT_PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for line in _per_language_dicts(path)
    ]
    assert not found, (
        "texts kept per language in Python dicts: "
        + ", ".join(found)
        + ". Move them to a gettext domain (<package>/locale/<lang>/LC_MESSAGES/<domain>.po, read with "
        "diagnosis.render.i18n.Catalogue; `python -m tools.messages merge PACKAGE:DOMAIN FILE.py` "
        "ports a dict catalogue into existing .po files); see docs/messages.md"
    )


# Where code names a message id literally, per domain: (package, domain) -> (folders, call pattern).
NAMED_IDS: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("diagnosis", "runai"): (("diagnosis/runai",), r"""\bt\(\s*"([a-z_]+\.[A-Za-z0-9_.]+)\""""),
    ("diagnosis", "modelarts"): (("diagnosis/modelarts",), r"""\bt\(\s*"([a-z_]+\.[A-Za-z0-9_.]+)\""""),
    ("diagnosis", "charts"): (("diagnosis/render",), r"""\bt\(\s*"(chart\.[A-Za-z0-9_.]+)\""""),
    ("diagnosis", "evidence"): (
        ("diagnosis/evidence",),
        r"""(?:failed\([^)]*?|failure_words\()\s*"(failure\.[a-z_]+)\"""",
    ),
    ("blocks", "slack"): (
        ("blocks", "bot", "cli", "playground"),
        r"""\b(?:label|label_mrkdwn|BackendUnavailable)\(\s*"([a-z_]+(?:\.[A-Za-z0-9_.]+)?)\"""",
    ),
}


@pytest.mark.parametrize("key", sorted(NAMED_IDS), ids=_domain_id)
def test_every_id_the_code_names_exists(key: tuple[str, str]) -> None:
    folders, pattern = NAMED_IDS[key]
    named: dict[str, str] = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for msgid in re.findall(pattern, path.read_text(encoding="utf-8")):
                named.setdefault(msgid, path.relative_to(ROOT).as_posix())
    assert named, f"no message id named in {', '.join(folders)}"
    english = _ids(DOMAINS[key][tool.BASE_LANGUAGE])
    missing = sorted(f"{msgid} ({where})" for msgid, where in named.items() if msgid not in english)
    assert not missing, (
        f"ids named in the code that {DOMAINS[key][tool.BASE_LANGUAGE].relative} lacks: "
        + ", ".join(missing)
        + ". Add them in every language, "
        + HOW
    )
