"""requirements/lock.txt pins exactly what pyproject.toml asks for; make and the image install from it."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.conftest import ROOT

LOCK = ROOT / "requirements" / "lock.txt"
PYPROJECT = ROOT / "pyproject.toml"
FIX = "run `make lock` and commit requirements/lock.txt"
# pip-compile's name for the project itself in the `# via` comments.
PROJECT_VIA = "(pyproject.toml)"


@dataclass
class Pin:
    name: str
    version: Version
    marker: str | None
    via: list[str] = field(default_factory=list)


def parse_lock(text: str) -> dict[str, Pin]:
    """`name==version [; marker]` lines with the `# via` comments that follow each."""
    pins: dict[str, Pin] = {}
    current: Pin | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            comment = stripped.lstrip("#").strip()
            if not line.startswith((" ", "\t")):
                current = None  # a section comment, not a pin's `# via`
            elif current is not None and comment and comment != "via":
                current.via.append(comment.removeprefix("via ").strip())
            continue
        if line.startswith((" ", "\t")) or stripped.startswith("-"):
            raise AssertionError(f"unexpected line in the lock: {line!r}: {FIX}")
        requirement = Requirement(stripped)
        specifiers = list(requirement.specifier)
        assert len(specifiers) == 1 and specifiers[0].operator == "==", (
            f"{stripped!r} is not pinned with ==: {FIX}"
        )
        current = Pin(
            canonicalize_name(requirement.name),
            Version(specifiers[0].version),
            str(requirement.marker) if requirement.marker else None,
        )
        pins[current.name] = current
    return pins


def declared_requirements() -> list[Requirement]:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    declared = [Requirement(text) for text in project["dependencies"]]
    for extra in ("charts", "dev"):
        declared += [Requirement(text) for text in project["optional-dependencies"][extra]]
    return declared


def test_every_declared_dependency_is_pinned_within_its_specifier() -> None:
    pins = parse_lock(LOCK.read_text(encoding="utf-8"))
    for requirement in declared_requirements():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement} (pyproject.toml) is not in the lock: {FIX}"
        pin = pins[name]
        assert requirement.specifier.contains(pin.version, prereleases=True), (
            f"the lock pins {name}=={pin.version}, outside {requirement} (pyproject.toml): {FIX}"
        )
        if requirement.marker is not None:
            assert pin.marker == str(requirement.marker), f"{name}: marker {pin.marker!r}: {FIX}"


def test_the_lock_holds_nothing_the_project_no_longer_asks_for() -> None:
    pins = parse_lock(LOCK.read_text(encoding="utf-8"))
    declared = {canonicalize_name(requirement.name) for requirement in declared_requirements()}
    for pin in pins.values():
        assert pin.via, f"{pin.name} has no `# via` in the lock: {FIX}"
        direct = any(via.endswith(PROJECT_VIA) for via in pin.via)
        assert not direct or pin.name in declared, f"{pin.name} is no longer in pyproject.toml: {FIX}"
        for parent in (via for via in pin.via if not via.endswith(PROJECT_VIA)):
            assert canonicalize_name(parent) in pins, f"{pin.name} comes via {parent}, not in the lock: {FIX}"


def test_the_lock_says_how_it_is_regenerated_and_names_no_index() -> None:
    text = LOCK.read_text(encoding="utf-8")
    assert "#    make lock\n" in text
    assert not re.search(r"^--(?:extra-)?index-url|^--find-links", text, re.MULTILINE)


def test_parse_lock_refuses_an_unpinned_line() -> None:
    for line in ("redis>=5\n", "redis\n"):
        try:
            parse_lock(line)
        except AssertionError as exc:
            assert FIX in str(exc)
        else:
            raise AssertionError(f"{line!r} was accepted")


def test_make_and_the_image_install_from_the_lock() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "pip install -q -r $(LOCK)" in makefile and "LOCK := requirements/lock.txt" in makefile
    assert "--no-deps" in makefile
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "COPY requirements/lock.txt" in dockerfile
    assert re.search(r"pip install [^\n]*-c requirements/lock\.txt[^\n]*'\.\[charts\]'", dockerfile)
