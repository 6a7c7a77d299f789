"""`make messages`: normalise every message catalogue (.po) and compile it to the committed .mo.

Catalogues are found as `<package>/locale/<lang>/LC_MESSAGES/<domain>.po` (monolingual gettext:
symbolic ids, `en` the base language). For each file this tool flags the templates that carry
`str.format` placeholders `python-brace-format` (so translation tools check them), rewrites the
.po in Babel's canonical layout, and writes the .mo next to it. `--check` changes nothing and
exits 1 naming each .mo that does not match its .po.

To add a message: add the same `msgid` with its text to the domain's .po in every language
(`python -m tools.messages missing` lists what each language lacks), then run `make messages`
and commit the .po and .mo files together. `merge PACKAGE:DOMAIN FILE.py` adds the ids of a
Python dict catalogue (`CATALOGUE = {lang: {id: text}}`, or `EN`/`FR`/`ZH`/`JA` dicts, as the
catalogues were kept before) that a domain's .po files lack, for porting a branch's new ids.
"""

from __future__ import annotations

import argparse
import io
import runpy
import string
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
BASE_LANGUAGE = "en"
BRACE_FLAG = "python-brace-format"


@dataclass(frozen=True)
class CatalogueFile:
    package: str
    lang: str
    domain: str
    po: Path

    @property
    def mo(self) -> Path:
        return self.po.with_suffix(".mo")

    @property
    def relative(self) -> str:
        """`<package>/locale/<lang>/LC_MESSAGES/<domain>.po`."""
        return self.po.relative_to(self.po.parents[4]).as_posix()

    @property
    def relative_mo(self) -> str:
        return self.mo.relative_to(self.po.parents[4]).as_posix()


def catalogue_files(root: Path = ROOT) -> list[CatalogueFile]:
    found = [
        CatalogueFile(package=po.parents[3].name, lang=po.parents[1].name, domain=po.stem, po=po)
        for po in root.glob("*/locale/*/LC_MESSAGES/*.po")
    ]
    return sorted(found, key=lambda item: (item.package, item.domain, item.lang))


def domains(root: Path = ROOT) -> dict[tuple[str, str], dict[str, CatalogueFile]]:
    """(package, domain) -> {lang: file}."""
    grouped: dict[tuple[str, str], dict[str, CatalogueFile]] = {}
    for item in catalogue_files(root):
        grouped.setdefault((item.package, item.domain), {})[item.lang] = item
    return grouped


def read_catalog(path: Path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, abort_invalid=True)


def placeholders(template: str) -> list[str]:
    """The names of a template's `str.format` fields (`{seconds:g}` is `seconds`), each once."""
    return sorted({name for _literal, name, _spec, _conversion in string.Formatter().parse(template) if name})


def messages(catalog: Catalog) -> Iterator[tuple[str, str]]:
    for message in catalog:
        if message.id and isinstance(message.id, str):
            yield message.id, message.string if isinstance(message.string, str) else ""


def compiled(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def in_order(catalog: Catalog, order: list[str]) -> Catalog:
    """The catalogue with its messages in `order` (the base language's), others after them."""
    position = {msgid: index for index, msgid in enumerate(order)}
    entries = sorted(
        (message for message in catalog if message.id),
        key=lambda message: position.get(str(message.id), len(position)),
    )
    for message in entries:
        del catalog[message.id]
    for message in entries:
        catalog[message.id] = message
    return catalog


def normalised(catalog: Catalog) -> bytes:
    for message in catalog:
        if not message.id or not isinstance(message.string, str):
            continue
        has_fields = bool(placeholders(message.string)) or "{{" in message.string
        if has_fields:
            message.flags.add(BRACE_FLAG)
        else:
            message.flags.discard(BRACE_FLAG)
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, sort_output=False, include_previous=False)
    return buffer.getvalue()


def build(item: CatalogueFile, *, check: bool, order: list[str] | None = None) -> list[str]:
    """Problems found (check) or files rewritten (build); `order` lists the base language's ids."""
    catalog = read_catalog(item.po)
    if order is not None and not check:
        catalog = in_order(catalog, order)
    fuzzy = [message.id for message in catalog if message.id and message.fuzzy]
    if fuzzy:
        return [f"{item.relative}: fuzzy entries are not compiled, review them: {', '.join(map(str, fuzzy))}"]
    mo = compiled(catalog)
    if check:
        if not item.mo.exists() or item.mo.read_bytes() != mo:
            return [f"{item.relative_mo} does not match {item.relative}"]
        return []
    changed: list[str] = []
    po = normalised(catalog)
    if item.po.read_bytes() != po:
        item.po.write_bytes(po)
        changed.append(item.relative)
    if not item.mo.exists() or item.mo.read_bytes() != mo:
        item.mo.write_bytes(mo)
        changed.append(item.relative_mo)
    return changed


def missing_report(root: Path = ROOT) -> list[str]:
    lines: list[str] = []
    for (_package, _domain), files in domains(root).items():
        base = files.get(BASE_LANGUAGE)
        if base is None:
            continue
        base_ids = dict(messages(read_catalog(base.po)))
        for item in files.values():
            present = dict(messages(read_catalog(item.po)))
            for msgid in base_ids:
                if not present.get(msgid):
                    lines.append(f"{item.relative}: {msgid}  (en: {base_ids[msgid]!r})")
    return lines


def dict_catalogue(path: Path) -> dict[str, dict[str, str]]:
    """`{lang: {id: text}}` from a Python file holding the catalogue as dicts."""
    names = runpy.run_path(str(path))
    found = names.get("CATALOGUE")
    if not isinstance(found, dict):
        found = {
            lang.lower(): names[lang]
            for lang in ("EN", "FR", "ZH", "JA")
            if isinstance(names.get(lang), dict)
        }
    return {str(lang): {str(key): str(text) for key, text in table.items()} for lang, table in found.items()}


def merge(package: str, domain: str, source: Path, root: Path = ROOT) -> list[str]:
    """Add the ids of a dict catalogue that the domain's .po files lack; report differing texts."""
    files = domains(root).get((package, domain), {})
    lines: list[str] = []
    for lang, table in dict_catalogue(source).items():
        item = files.get(lang)
        if item is None:
            lines.append(f"no {package}/locale/{lang}/LC_MESSAGES/{domain}.po: {len(table)} id(s) not merged")
            continue
        catalog = read_catalog(item.po)
        present = dict(messages(catalog))
        added = [key for key in table if key not in present]
        for key in added:
            catalog.add(key, table[key])
        differing = [key for key in table if key in present and present[key] != table[key]]
        if added:
            item.po.write_bytes(normalised(catalog))
            lines.append(f"{item.relative}: added {', '.join(added)}")
        if differing:
            lines.append(f"{item.relative}: kept the .po text of {', '.join(differing)} (the dict differs)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.messages", description=__doc__.split("\n")[0])
    parser.add_argument("command", nargs="?", choices=("build", "check", "missing", "merge"), default="build")
    parser.add_argument("domain", nargs="?", help="merge: PACKAGE:DOMAIN, e.g. diagnosis:modelarts")
    parser.add_argument("source", nargs="?", type=Path, help="merge: the Python file holding the dicts")
    args = parser.parse_args(argv)
    if args.command == "merge":
        if not args.domain or ":" not in args.domain or args.source is None:
            parser.error("merge needs PACKAGE:DOMAIN and a Python file")
        package, domain = args.domain.split(":", 1)
        print("\n".join(merge(package, domain, args.source)) or "nothing to merge")
        args.command = "build"
    if args.command == "missing":
        lines = missing_report()
        print("\n".join(lines) if lines else "every id exists in every language")
        return 1 if lines else 0
    results: list[str] = []
    for files in domains().values():
        base = files.get(BASE_LANGUAGE)
        order = [msgid for msgid, _text in messages(read_catalog(base.po))] if base else None
        for lang, item in files.items():
            results += build(
                item, check=args.command == "check", order=None if lang == BASE_LANGUAGE else order
            )
    if args.command == "check":
        if results:
            print(
                "\n".join(results) + "\nrun `make messages` and commit the .po and .mo files", file=sys.stderr
            )
            return 1
        return 0
    print("\n".join(f"wrote {line}" for line in results) if results else "catalogues up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
