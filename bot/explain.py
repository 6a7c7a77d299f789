"""`explain 137`: what an exit code means, as Markdown, from the engine's explanation tables."""

from __future__ import annotations

import importlib
from typing import Any


def explain_markdown(code: int, *, lang: str) -> str | None:
    """The engine's explanation (diagnosis.knowledge.explain), else the exit-code table; None when neither knows."""
    try:
        explain_module: Any = importlib.import_module("diagnosis.knowledge.explain")
    except ModuleNotFoundError:
        explain_module = None
    if explain_module is not None and hasattr(explain_module, "explain"):
        result = explain_module.explain(code, lang=lang)
        if result is None:
            return None
        if hasattr(result, "to_markdown"):
            return str(result.to_markdown())
        return str(result)
    try:
        exitcodes: Any = importlib.import_module("diagnosis.knowledge.exitcodes")
    except ModuleNotFoundError:
        return None
    text = exitcodes.describe_exit_code(code, lang)
    return f"**exit code {code}**: {text}" if text else None
