"""A Slack report shown without Slack: Block Kit → one self-contained HTML page.

`render_html` draws the same message dict the bot posts (`{"text", "blocks"}`) the way Slack
would: header, sections with mrkdwn, two-column fields, context, dividers, buttons, rich text.
Every piece of text is HTML-escaped after Slack's own entities are decoded, so a log line holding
`<script>` or `<!channel>` shows as those characters and nothing else. The page loads nothing: CSS
is in the page and a Content-Security-Policy forbids scripts and any fetch (images only as data:).
`chromium.screenshot` photographs it."""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from blocks.preview.live import LIVE_ELEMENTS, live_element, live_input
from blocks.preview.rich_text import rich_text_html
from blocks.preview.text import mrkdwn_to_html, plain_html
from diagnosis.masking import mask

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

STYLE = """
* { box-sizing: border-box; }
body { margin: 0; padding: 24px; background: #ffffff; color: #1d1c1d;
  font: 15px/1.46668 "Lato", "Noto Sans", "Noto Sans CJK JP", "DejaVu Sans", Arial, sans-serif; }
.page { max-width: 960px; }
.msg { display: flex; gap: 8px; padding: 8px 20px 8px 16px; }
.avatar { flex: 0 0 36px; height: 36px; border-radius: 6px; background: #4a154b; color: #fff;
  font-weight: 900; font-size: 18px; display: flex; align-items: center; justify-content: center; }
.body { flex: 1; min-width: 0; }
.meta { margin-bottom: 2px; }
.name { font-weight: 900; }
.app { margin-left: 4px; padding: 0 3px; border-radius: 2px; background: #e8e8e8; color: #616061;
  font-size: 10px; font-weight: 700; vertical-align: 2px; }
.block { margin: 4px 0; overflow-wrap: anywhere; white-space: pre-wrap; }
.header { font-size: 18px; font-weight: 900; line-height: 1.33; margin: 8px 0 4px; }
.fields { display: grid; grid-template-columns: 1fr 1fr; gap: 8px 16px; }
.with-accessory { display: flex; gap: 12px; align-items: flex-start; }
.with-accessory > .text { flex: 1; }
.context { display: flex; flex-wrap: wrap; gap: 8px; color: #616061; font-size: 12px; }
hr.divider { border: 0; border-top: 1px solid #dddddd; margin: 12px 0; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; }
.button { display: inline-block; padding: 3px 12px; border: 1px solid #bbbabb; border-radius: 4px;
  background: #fff; font-size: 13px; font-weight: 700; line-height: 24px; }
.button.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
.button.danger { background: #e01e5a; border-color: #e01e5a; color: #fff; }
.select { display: inline-block; min-width: 160px; padding: 3px 10px; border: 1px solid #bbbabb;
  border-radius: 4px; color: #616061; font-size: 13px; line-height: 24px; }
.select::after { content: " ▾"; }
code { padding: 2px 3px 1px; border: 1px solid #dddddd; border-radius: 3px; background: #f6f6f6;
  color: #c01343; font: 12px "DejaVu Sans Mono", "Noto Sans Mono CJK JP", monospace; }
pre { margin: 4px 0; padding: 8px; border: 1px solid #dddddd; border-radius: 4px; background: #f8f8f8;
  white-space: pre-wrap; overflow-wrap: anywhere;
  font: 12px/1.5 "DejaVu Sans Mono", "Noto Sans Mono CJK JP", monospace; }
blockquote { margin: 4px 0; padding-left: 12px; border-left: 4px solid #dddddd; }
.mention { padding: 0 2px; border-radius: 3px; background: #e8f5fa; color: #1264a3; }
.broadcast { padding: 0 2px; border-radius: 3px; background: #fef4e2; color: #7a4e00; }
.link { color: #1264a3; text-decoration: underline; }
.emoji { font-weight: 700; }
.placeholder { color: #868686; font-style: italic; }
ul, ol { margin: 4px 0; padding-left: 24px; }
.thread { margin: 12px 0 0 60px; padding-top: 8px; border-top: 1px solid #eeeeee; }
.file { margin: 8px 0; }
.file-title { color: #616061; font-size: 13px; margin-bottom: 4px; }
.input-label { font-weight: 700; margin-bottom: 4px; }
.file img { max-width: 100%; border: 1px solid #dddddd; border-radius: 6px; }
"""


@dataclass(frozen=True)
class ThreadFile:
    """A PNG the bot uploads into the report's thread (the memory chart), shown under the message."""

    title: str
    png: bytes


def _text_object(obj: Any) -> str:
    if not isinstance(obj, Mapping):
        return ""
    text = str(obj.get("text") or "")
    if obj.get("type") == "plain_text":
        return plain_html(text, emoji=bool(obj.get("emoji", True)))
    return mrkdwn_to_html(text)


def _element(element: Any, *, block_id: str | None = None, live: bool = False) -> str:
    """A block element (button, select, image, text) as it appears in actions, context, accessory.
    `live`: buttons and selects are real controls that carry what a click sends (the playground)."""
    if not isinstance(element, Mapping):
        return ""
    kind = element.get("type")
    if live and kind in LIVE_ELEMENTS:
        return live_element(element, block_id=block_id, label_html=_text_object)
    if kind == "button":
        style = element.get("style")
        css = f"button {style}" if style in ("primary", "danger") else "button"
        return f'<span class="{css}">{_text_object(element.get("text"))}</span>'
    if kind in ("static_select", "external_select", "users_select", "conversations_select", "overflow"):
        placeholder = _text_object(element.get("placeholder")) or "…"
        return f'<span class="select">{placeholder}</span>'
    if kind == "image":
        alt = html.escape(str(element.get("alt_text") or "image"))
        return f'<span class="placeholder">[{alt}]</span>'
    if kind in ("mrkdwn", "plain_text"):
        return _text_object(element)
    return f'<span class="placeholder">[{html.escape(str(kind))}]</span>'


def _section(block: Mapping[str, Any], live: bool = False) -> str:
    parts: list[str] = []
    if block.get("text"):
        parts.append(f'<div class="text">{_text_object(block["text"])}</div>')
    fields = block.get("fields")
    if isinstance(fields, list) and fields:
        cells = "".join(f"<div>{_text_object(item)}</div>" for item in fields)
        parts.append(f'<div class="fields">{cells}</div>')
    inner = "".join(parts)
    accessory = block.get("accessory")
    if accessory:
        return f'<div class="with-accessory"><div class="text">{inner}</div><div>{_element(accessory, block_id=_block_id(block), live=live)}</div></div>'
    return inner


def _block_id(block: Mapping[str, Any]) -> str | None:
    value = block.get("block_id")
    return str(value) if value is not None else None


def _markdown(block: Mapping[str, Any], live: bool = False) -> str:
    """A `markdown` block (standard Markdown); raw HTML in it is escaped, never passed through."""
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": False, "linkify": False})
    rendered: str = renderer.render(str(block.get("text") or ""))
    # Links are shown as text, like everywhere else in the preview.
    return re.sub(r"<a href=\"[^\"]*\">", '<span class="link">', rendered).replace("</a>", "</span>")


def _context(block: Mapping[str, Any], live: bool = False) -> str:
    elements = block.get("elements")
    items = elements if isinstance(elements, list) else []
    return "".join(f"<span>{_element(item)}</span>" for item in items)


def _actions(block: Mapping[str, Any], live: bool = False) -> str:
    elements = block.get("elements")
    items = elements if isinstance(elements, list) else []
    return "".join(_element(item, block_id=_block_id(block), live=live) for item in items)


def _image_block(block: Mapping[str, Any], live: bool = False) -> str:
    alt = html.escape(str(block.get("alt_text") or "image"))
    return f'<span class="placeholder">[image not loaded in the preview: {alt}]</span>'


def _input(block: Mapping[str, Any], live: bool = False) -> str:
    """A modal's input block, live only: its label and a field the page reads on submit."""
    return f'<div class="input-label">{_text_object(block.get("label"))}</div>' + live_input(block)


_RENDERERS: dict[str, tuple[str, Callable[[Mapping[str, Any], bool], str]]] = {
    "section": ("block section", _section),
    "context": ("block context", _context),
    "actions": ("block actions", _actions),
    "rich_text": ("block rich-text", rich_text_html),
    "markdown": ("block markdown", _markdown),
    "image": ("block image", _image_block),
    "input": ("block input", _input),
}


def _block(block: Any, live: bool = False) -> str:
    if not isinstance(block, Mapping):
        return ""
    kind = str(block.get("type") or "")
    if kind == "header":
        return f'<div class="block header">{_text_object(block.get("text"))}</div>'
    if kind == "divider":
        return '<hr class="divider">'
    found = _RENDERERS.get(kind)
    # Input blocks belong to modals: only the playground's live page draws them as fields.
    if found is None or (kind == "input" and not live):
        return f'<div class="block placeholder">[{html.escape(kind or "unknown")} block]</div>'
    css, render = found
    return f'<div class="{css}">{render(block, live)}</div>'


def render_blocks(message: Mapping[str, Any], *, live: bool = False) -> str:
    """The body of one message (its blocks, else its mrkdwn `text`) as an HTML fragment; `live`
    makes buttons, selects and inputs real controls (the playground's page)."""
    blocks = message.get("blocks")
    if isinstance(blocks, list) and blocks:
        return "".join(_block(block, live) for block in blocks)
    return f'<div class="block">{mrkdwn_to_html(str(message.get("text") or ""))}</div>'


def render_html(
    message: Mapping[str, Any],
    *,
    title: str = "Diagnosis report",
    bot_name: str = "diagnose-bot",
    thread_files: Sequence[ThreadFile] = (),
) -> str:
    """A Block Kit message (`{"text", "blocks"}`) as a self-contained HTML page."""
    body = render_blocks(message)
    files = "".join(
        '<div class="file">'
        f'<div class="file-title">{html.escape(mask(item.title))}</div>'
        f'<img alt="{html.escape(mask(item.title))}" '
        f'src="data:image/png;base64,{base64.b64encode(item.png).decode("ascii")}">'
        "</div>"
        for item in thread_files
    )
    thread = (
        f'<div class="thread"><div class="msg"><div class="avatar">D</div><div class="body">'
        f'<div class="meta"><span class="name">{html.escape(bot_name)}</span><span class="app">APP</span>'
        f"</div>{files}</div></div></div>"
        if files
        else ""
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(mask(title))}</title>"
        f"<style>{STYLE}</style></head>\n"
        '<body><div class="page"><div class="msg"><div class="avatar">D</div><div class="body">'
        f'<div class="meta"><span class="name">{html.escape(bot_name)}</span><span class="app">APP</span></div>'
        f"{body}</div></div>{thread}</div></body></html>\n"
    )
