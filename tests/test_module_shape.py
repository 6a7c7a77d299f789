"""The shape of the code, measured so that it cannot drift back: small modules and short decisions.

Module size is counted in lines over every first-party module (tests, benchmarks and tools aside);
the data catalogues (message tables, the explanation catalogue, labels, exit codes, literals) are
data, not code, and are left out. Cyclomatic complexity is radon's (the number of independent paths
through a function: https://radon.readthedocs.io/en/latest/intro.html#cyclomatic-complexity) and
holds for every function of the repository but the tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from radon.complexity import cc_visit
from radon.visitors import Class, Function

from tests.conftest import ROOT

MAX_P90_MODULE_LINES = 250
MAX_COMPLEXITY = 20
# Data, not code: message tables and catalogues hold one entry per line.
DATA_CATALOGUES = frozenset({"messages.py", "catalogue.py", "labels.py", "exitcodes.py", "literals.py"})
NOT_PRODUCT = frozenset({"tests", "bench", "tools"})


def _python_files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if any(part.startswith(".") for part in parts) or "node_modules" in parts:
            continue
        yield path


def product_modules(root: Path) -> dict[str, int]:
    """Lines of each product module (relative path -> lines), the data catalogues left out."""
    sizes: dict[str, int] = {}
    for path in _python_files(root):
        relative = path.relative_to(root)
        if relative.parts[0] in NOT_PRODUCT or path.name in DATA_CATALOGUES:
            continue
        sizes[relative.as_posix()] = len(path.read_text(encoding="utf-8").splitlines())
    return sizes


def percentile(values: list[int], fraction: float) -> float:
    """The `fraction` quantile with linear interpolation between closest ranks (numpy's default)."""
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _functions(blocks: list[Function | Class], owner: str = "") -> Iterator[tuple[str, int]]:
    """Every function, method and closure once: radon lists a class's methods beside the class."""
    for block in blocks:
        if isinstance(block, Class):
            continue
        name = f"{owner}{block.classname}.{block.name}" if block.classname else f"{owner}{block.name}"
        yield name, block.complexity
        yield from _functions(list(block.closures), f"{name}.")


def complexities(root: Path) -> dict[str, int]:
    """radon's cyclomatic complexity of every function and method outside the tests
    (`path:Class.method` -> complexity)."""
    found: dict[str, int] = {}
    for path in _python_files(root):
        relative = path.relative_to(root)
        if relative.parts[0] == "tests":
            continue
        for name, complexity in _functions(cc_visit(path.read_text(encoding="utf-8"))):
            found[f"{relative.as_posix()}:{name}"] = complexity
    return found


def test_nine_modules_in_ten_are_at_most_250_lines() -> None:
    sizes = product_modules(ROOT)
    assert len(sizes) > 150, "the product's modules were found"
    p90 = percentile(list(sizes.values()), 0.9)
    largest = sorted(sizes.items(), key=lambda item: -item[1])[:15]
    assert p90 <= MAX_P90_MODULE_LINES, f"p90 module size {p90:.0f} lines; the largest: {largest}"


def test_no_function_is_more_complex_than_20() -> None:
    found = complexities(ROOT)
    assert len(found) > 1000, "the functions were read"
    too_complex = {name: value for name, value in found.items() if value > MAX_COMPLEXITY}
    assert too_complex == {}


@pytest.mark.parametrize(
    ("values", "expected"), [([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 9.1), ([5], 5.0), ([1, 100], 90.1)]
)
def test_the_percentile_interpolates_between_ranks(values: list[int], expected: float) -> None:
    assert percentile(values, 0.9) == pytest.approx(expected)


def test_the_measures_see_catalogues_closures_and_methods(tmp_path: Path) -> None:
    branchy = "def ladder(x):\n" + "".join(f"    if x == {n}:\n        return {n}\n" for n in range(21))
    files = {
        "diagnosis/engine.py": "\n" * 300,
        "diagnosis/runai/messages.py": "\n" * 900,
        "tests/test_big.py": "\n" * 900 + branchy,
        "bench/run.py": "\n" * 900,
        "bot/app.py": "class App:\n    def go(self):\n        def inner(y):\n"
        + "".join(f"            if y == {n}:\n                return {n}\n" for n in range(21)),
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert product_modules(tmp_path) == {"bot/app.py": 45, "diagnosis/engine.py": 300}
    found = complexities(tmp_path)
    assert found["bot/app.py:App.go.inner"] == 22
    assert not any(name.startswith("tests/") for name in found)
