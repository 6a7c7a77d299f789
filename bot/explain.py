"""`explain 137`: what an exit code means, as Markdown, from the engine's explanation tables."""

from __future__ import annotations

from diagnosis.knowledge.explain import explain


def explain_markdown(code: int, *, lang: str) -> str | None:
    """The engine's explanation of a code; None when the tables do not know it."""
    result = explain(code, lang=lang)
    return None if result is None else result.to_markdown()
