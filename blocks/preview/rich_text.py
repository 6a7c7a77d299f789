"""Block Kit `rich_text` blocks as HTML: sections, preformatted text, quotes and lists of styled
text, links, emoji, mentions and dates (https://docs.slack.dev/reference/block-kit/blocks/rich-text-block)."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any

from blocks.preview.text import emoji_html

# Style flags of a rich text element, innermost first.
_STYLE_TAGS = (("code", "code"), ("bold", "b"), ("italic", "i"), ("strike", "s"))


def _styled_text(element: Mapping[str, Any]) -> str:
    out = html.escape(str(element.get("text") or ""))
    style = element.get("style")
    if not isinstance(style, Mapping):
        style = {}
    for flag, tag in _STYLE_TAGS:
        if style.get(flag):
            out = f"<{tag}>{out}</{tag}>"
    return out


def _emoji_element(element: Mapping[str, Any]) -> str:
    name = str(element.get("name") or "")
    return emoji_html(name) or html.escape(f":{name}:")


def _escaped(element: Mapping[str, Any], *keys: str) -> str:
    """The first of `keys` the element holds, escaped."""
    return html.escape(str(next((element.get(key) for key in keys if element.get(key)), "")))


# Element type -> its HTML.
_INLINE_ELEMENTS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "text": _styled_text,
    "link": lambda element: f'<span class="link">{_escaped(element, "text", "url")}</span>',
    "emoji": _emoji_element,
    "user": lambda element: f'<span class="mention">@{_escaped(element, "user_id")}</span>',
    "usergroup": lambda element: f'<span class="mention">@{_escaped(element, "usergroup_id")}</span>',
    "channel": lambda element: f'<span class="mention">#{_escaped(element, "channel_id")}</span>',
    "broadcast": lambda element: f'<span class="broadcast">@{_escaped(element, "range")}</span>',
    "date": lambda element: _escaped(element, "fallback"),
}


def _rich_inline(element: Any) -> str:
    if not isinstance(element, Mapping):
        return ""
    draw = _INLINE_ELEMENTS.get(str(element.get("type")))
    return draw(element) if draw is not None else ""


def _rich_inlines(elements: Any) -> str:
    if not isinstance(elements, list):
        return ""
    return "".join(_rich_inline(item) for item in elements).replace("\n", "<br>")


def _rich_part(part: Any) -> str:
    if not isinstance(part, Mapping):
        return ""
    kind = part.get("type")
    elements = part.get("elements")
    if kind == "rich_text_section":
        return f"<div>{_rich_inlines(elements)}</div>"
    if kind == "rich_text_preformatted":
        # Preformatted text is literal: styles inside are not drawn.
        literal = "".join(
            str(item.get("text") or item.get("url") or "")
            for item in (elements or [])
            if isinstance(item, Mapping)
        )
        return f"<pre>{html.escape(literal)}</pre>"
    if kind == "rich_text_quote":
        return f"<blockquote>{_rich_inlines(elements)}</blockquote>"
    if kind == "rich_text_list":
        tag = "ol" if part.get("style") == "ordered" else "ul"
        items = "".join(
            f"<li>{_rich_inlines(item.get('elements'))}</li>"
            for item in (elements or [])
            if isinstance(item, Mapping)
        )
        return f"<{tag}>{items}</{tag}>"
    return ""


def rich_text_html(block: Mapping[str, Any], live: bool = False) -> str:
    elements = block.get("elements")
    return "".join(_rich_part(part) for part in elements) if isinstance(elements, list) else ""
