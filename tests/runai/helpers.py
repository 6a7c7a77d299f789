"""Run:ai test helpers: bundle folders and replay."""

from __future__ import annotations

import asyncio
from pathlib import Path

from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.evidence.bundles import load_bundle
from diagnosis.models import Diagnosis
from tests.conftest import EXAMPLES, ROOT

DEMO_BUNDLES = ROOT / "diagnosis" / "examples" / "runai"
TEST_BUNDLES = Path(__file__).resolve().parent / "bundles"
WORKED_RUNAI = sorted(EXAMPLES.glob("runai-*.bundle.json"))


def bundle_path(name: str) -> Path:
    for folder in (DEMO_BUNDLES, TEST_BUNDLES):
        path = folder / f"{name}.bundle.json"
        if path.exists():
            return path
    raise FileNotFoundError(name)


def replay_file(path: Path, *, lang: str | None = None) -> Diagnosis:
    return asyncio.run(engine.replay(load_bundle(path), lang=lang))


async def replay_bundle(bundle: Bundle, *, lang: str | None = None) -> Diagnosis:
    return await engine.replay(bundle, lang=lang)


def replay_named(name: str, *, lang: str | None = None) -> Diagnosis:
    return replay_file(bundle_path(name), lang=lang)
