"""Markdown (as the engine writes it) → Slack mrkdwn, with markdown-it-py.

Slack renders neither Markdown headings nor tables nor lists, and reads `<…>` as control sequences.
Every piece of text is escaped; headings become bold lines, lists become `•`/`1.` lines, tables an
aligned code block, rules a line of dashes. Links keep their label and show the address as text,
never as an active link: the engine's Markdown can quote log lines, and a log must not add links.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from blocks.escape import code_block, escape_mrkdwn

_PARSER = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])

_INLINE_MARKS = {"strong": "*", "em": "_", "s": "~"}


def markdown_to_mrkdwn(markdown: str) -> str:
    """Convert a Markdown string; the result is safe to put in a mrkdwn text object."""
    tree = SyntaxTreeNode(_PARSER.parse(markdown))
    blocks = [_block(child, indent=0) for child in tree.children]
    return "\n\n".join(part for part in blocks if part).strip("\n")


def _block(node: SyntaxTreeNode, *, indent: int) -> str:
    kind = node.type
    if kind == "paragraph":
        return _inline_children(node)
    if kind == "heading":
        text = _inline_children(node).strip()
        return f"*{text}*" if text else ""
    if kind in ("bullet_list", "ordered_list"):
        return _list(node, indent=indent)
    if kind == "blockquote":
        inner = "\n\n".join(_block(child, indent=0) for child in node.children)
        return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))
    if kind in ("fence", "code_block"):
        return code_block(node.content)
    if kind == "hr":
        return "──────────"
    if kind == "table":
        return _table(node)
    if kind == "html_block":
        return escape_mrkdwn(node.content.strip("\n"))
    return "\n".join(_block(child, indent=indent) for child in node.children)


def _list(node: SyntaxTreeNode, *, indent: int) -> str:
    lines: list[str] = []
    start = int(node.attrs.get("start", 1) or 1) if node.type == "ordered_list" else 1
    pad = "    " * indent
    for number, item in enumerate(node.children, start=start):
        bullet = f"{number}." if node.type == "ordered_list" else "•"
        parts: list[str] = []
        for child in item.children:
            if child.type in ("bullet_list", "ordered_list"):
                parts.append(_list(child, indent=indent + 1))
            else:
                parts.append(_block(child, indent=indent + 1))
        first, *rest = "\n".join(part for part in parts if part).split("\n") or [""]
        lines.append(f"{pad}{bullet} {first}")
        lines.extend(line if line.startswith(pad + "    ") else f"{pad}    {line}" for line in rest)
    return "\n".join(lines)


def _table(node: SyntaxTreeNode) -> str:
    rows: list[list[str]] = []
    for part in node.children:
        for row_node in part.children:
            rows.append([_plain_inline(cell) for cell in row_node.children])
    if not rows:
        return ""
    widths = [max(len(row[i]) if i < len(row) else 0 for row in rows) for i in range(max(map(len, rows)))]
    lines: list[str] = []
    for index, row in enumerate(rows):
        cells = [(row[i] if i < len(row) else "").ljust(widths[i]) for i in range(len(widths))]
        lines.append(" | ".join(cells).rstrip())
        if index == 0 and len(rows) > 1:
            lines.append("-+-".join("-" * width for width in widths))
    return code_block("\n".join(lines))


def _plain_inline(node: SyntaxTreeNode) -> str:
    """Cell text without formatting marks (it goes into a code block, which shows marks literally)."""
    parts: list[str] = []
    for child in node.children:
        if child.type in ("text", "code_inline", "html_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        else:
            parts.append(_plain_inline(child))
    return "".join(parts).replace("\n", " ")


def _inline_children(node: SyntaxTreeNode) -> str:
    return "".join(_inline(child) for child in node.children)


def _inline(node: SyntaxTreeNode) -> str:
    kind = node.type
    if kind == "inline":
        return _inline_children(node)
    if kind in ("text", "html_inline"):
        return escape_mrkdwn(node.content)
    if kind == "code_inline":
        content = escape_mrkdwn(node.content)
        return f"`{content}`" if "`" not in content else content
    if kind in ("softbreak", "hardbreak"):
        return "\n"
    if kind in _INLINE_MARKS:
        mark = _INLINE_MARKS[kind]
        inner = _inline_children(node)
        return f"{mark}{inner}{mark}" if inner.strip() else inner
    if kind == "link":
        label = _inline_children(node)
        href = str(node.attrs.get("href", ""))
        if not href or escape_mrkdwn(href) == label:
            return label
        return f"{label} ({escape_mrkdwn(href)})"
    if kind == "image":
        return escape_mrkdwn(str(node.attrs.get("alt", "") or node.content))
    return _inline_children(node)
