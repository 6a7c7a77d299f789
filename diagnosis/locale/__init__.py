"""The engine's message catalogues: <lang>/LC_MESSAGES/<domain>.po and the compiled .mo beside it."""

from __future__ import annotations

from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent
