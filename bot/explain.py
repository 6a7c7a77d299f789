"""`explain CODE`: what a code means, as Markdown, from the engine's explanation tables.

The same answer as `diagnose explain CODE`: an exit code or signal, a Kubernetes or Run:ai reason,
an API error code, an Ascend or torch_npu code; a code the tables do not hold is said to be unknown
(its meaning is never guessed), with the code masked as the command line masks it.
"""

from __future__ import annotations

from diagnosis.knowledge.explain import explain, unknown_message
from diagnosis.masking import mask


def explain_markdown(code: str, *, lang: str) -> tuple[str, bool]:
    """(Markdown, whether the code is in the catalogue)."""
    result = explain(code, lang=lang)
    if result is None:
        return unknown_message(mask(code), lang=lang), False
    return result.to_markdown(), True
