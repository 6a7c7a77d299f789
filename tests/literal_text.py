"""Finding text written as a literal in source code, for the checks that every sentence shown to a
user goes through a catalogue (the CLI's output, Slack's Block Kit texts)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection


def call_name(node: ast.expr) -> str:
    """`print` for `print(…)`, `write` for `sys.stderr.write(…)`, "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def literal_words(node: ast.AST, *, lookups: Collection[str], is_text: Callable[[str], bool]) -> list[str]:
    """The string constants in `node` that `is_text` calls text, not counting the arguments of a
    catalogue lookup (their arguments are message ids and values) nor an f-string's format spec."""
    if isinstance(node, ast.Call) and call_name(node.func) in lookups:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if is_text(node.value) else []
    if isinstance(node, ast.FormattedValue):
        return literal_words(node.value, lookups=lookups, is_text=is_text)
    found: list[str] = []
    for child in ast.iter_child_nodes(node):
        found += literal_words(child, lookups=lookups, is_text=is_text)
    return found
