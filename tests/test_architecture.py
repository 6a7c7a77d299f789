"""The import rules of the layout (docs/architecture.md), checked on the source with `ast`.

The engine (`diagnosis/`) holds no faces; the renderers of Slack messages (`blocks/`) read only the
engine's models, masking and rendering; the bot reaches a platform only through the engine's
backend protocol; and no two modules import each other at load time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.architecture import Import, cycles, imports, within
from tests.conftest import ROOT

FACES = ("blocks", "bot", "cli", "simulator", "playground", "mcp_face", "bench", "tests")

# package -> the first-party packages and modules it may import, besides its own modules.
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "diagnosis": (),
    "blocks": ("diagnosis.models", "diagnosis.masking", "diagnosis.render"),
    "simulator": ("diagnosis",),
    "bot": ("diagnosis", "blocks"),
    "cli": ("diagnosis", "blocks", "bot", "simulator", "mcp_face", "playground"),
    "mcp_face": ("diagnosis",),
    # The playground runs the bot as a process (its public entry point), never its modules.
    "playground": ("diagnosis", "blocks", "simulator"),
}
# Inside what a package may import, what it still may not: a platform's internals.
NEVER: dict[str, tuple[str, ...]] = {
    "bot": ("diagnosis.runai", "diagnosis.modelarts"),
    "blocks": ("diagnosis.runai", "diagnosis.modelarts"),
    "mcp_face": ("diagnosis.runai", "diagnosis.modelarts"),
}


def broken_rules(found: list[Import]) -> list[str]:
    problems: list[str] = []
    for item in found:
        package = item.importer.split(".")[0]
        if package not in MAY_IMPORT or within(item.imported, package):
            continue
        allowed = any(within(item.imported, prefix) for prefix in MAY_IMPORT[package])
        forbidden = any(within(item.imported, prefix) for prefix in NEVER.get(package, ()))
        if not allowed or forbidden:
            problems.append(item.where())
    return problems


@pytest.fixture(scope="module")
def product_imports() -> list[Import]:
    return imports(ROOT)


def test_every_package_imports_only_what_the_layout_allows(product_imports: list[Import]) -> None:
    assert broken_rules(product_imports) == []


def test_the_engine_imports_no_face_not_even_lazily(product_imports: list[Import]) -> None:
    engine = [item for item in product_imports if within(item.importer, "diagnosis")]
    assert len(engine) > 100, "the engine's own imports were read"
    assert [item.where() for item in engine if item.imported.split(".")[0] in FACES] == []


def test_no_two_modules_import_each_other_at_load_time(product_imports: list[Import]) -> None:
    assert cycles([item for item in product_imports if item.at_load]) == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_the_checks_see_lazy_dynamic_and_relative_imports_and_name_the_cycle(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "diagnosis/__init__.py": "",
            "diagnosis/engine.py": "def go():\n    import bot.app\n",
            "diagnosis/loader.py": "import importlib\nimportlib.import_module('cli.main')\n",
            "diagnosis/models.py": "from . import engine\n",
            "diagnosis/a.py": "from diagnosis import b\n",
            "diagnosis/b.py": "from diagnosis.c import thing\n",
            "diagnosis/c.py": "import diagnosis.a\nthing = 1\n",
            "diagnosis/typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import diagnosis.a\n",
            "blocks/__init__.py": "",
            "blocks/report.py": "from diagnosis.models import X\nfrom diagnosis.runai import rules\n",
            "bot/__init__.py": "",
            "bot/app.py": "from diagnosis.modelarts.scan import run_scan\nfrom diagnosis import engine\n",
        },
    )
    found = imports(root)
    assert sorted(broken_rules(found)) == [
        "blocks.report:2 imports diagnosis.runai",
        "bot.app:1 imports diagnosis.modelarts.scan",
        "diagnosis.engine:2 imports bot.app",
        "diagnosis.loader:2 imports cli.main",
    ]
    assert ("diagnosis.models", "diagnosis.engine") in {(i.importer, i.imported) for i in found}
    assert cycles([item for item in found if item.at_load]) == [
        ["diagnosis.a", "diagnosis.b", "diagnosis.c", "diagnosis.a"]
    ]
    typed = [item for item in found if item.importer == "diagnosis.typed"]
    assert [(item.imported, item.at_load) for item in typed] == [("diagnosis.a", False)]
