"""A Slack report shown without Slack: Block Kit → one self-contained HTML page → a PNG.

`render_html` draws the same message dict the bot posts (`{"text", "blocks"}`) the way Slack
would: header, sections with mrkdwn, two-column fields, context, dividers, buttons, rich text.
Every piece of text is HTML-escaped after Slack's own entities are decoded, so a log line holding
`<script>` or `<!channel>` shows as those characters and nothing else. The page loads nothing: CSS
is in the page and a Content-Security-Policy forbids scripts and any fetch (images only as data:).

`screenshot` photographs the page with headless Chromium (Debian package `chromium`), with the
browser's own network features turned off and a throw-away profile.
"""

from __future__ import annotations

import base64
import html
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blocks.preview.live import LIVE_ELEMENTS, live_element, live_input
from diagnosis.masking import mask

CHROMIUM_NAMES = ("chromium", "chromium-browser")
SCREENSHOT_TIMEOUT_S = 90
# Tall enough for a full report at 1000 px; the empty space below the message is cropped off.
DEFAULT_WINDOW_HEIGHT = 4000
CROP_MARGIN_PX = 24

# Slack emoji short codes the bot uses, drawn with glyphs every installed font has (no emoji font
# is needed): (glyph, colour).
EMOJI: dict[str, tuple[str, str]] = {
    "red_circle": ("●", "#e01e5a"),
    "large_green_circle": ("●", "#2eb67d"),
    "white_circle": ("○", "#616061"),
    "large_blue_circle": ("●", "#1d9bd1"),
    "warning": ("⚠", "#e8a723"),
    "question": ("?", "#e01e5a"),
    "grey_question": ("?", "#868686"),
    "information_source": ("ℹ", "#1d9bd1"),
    "lock": ("⚿", "#616061"),
    "mag": ("⌕", "#616061"),
    "hourglass_flowing_sand": ("⌛", "#e8a723"),
    "twisted_rightwards_arrows": ("⇄", "#1d9bd1"),
    "scissors": ("✂", "#616061"),
    "x": ("✗", "#e01e5a"),
    "white_check_mark": ("✓", "#2eb67d"),
    "heavy_check_mark": ("✓", "#2eb67d"),
    "test_tube": ("⚗", "#616061"),
    "rotating_light": ("◉", "#e01e5a"),
    "arrows_counterclockwise": ("↻", "#1d9bd1"),
    "link": ("⛓", "#616061"),
    "page_facing_up": ("▤", "#616061"),
    "bar_chart": ("▥", "#1d9bd1"),
}

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


class PreviewError(RuntimeError):
    """The screenshot could not be taken (no Chromium, a crash, a timeout): a one-line reason."""


@dataclass(frozen=True)
class ThreadFile:
    """A PNG the bot uploads into the report's thread (the memory chart), shown under the message."""

    title: str
    png: bytes


# ---------------------------------------------------------------------------------------------
# Text: Slack entities decoded, then HTML-escaped


def _decode_slack(text: str) -> str:
    """mrkdwn carries `&amp;`, `&lt;`, `&gt;` for the characters themselves (decoded `&` last)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _text(text: str) -> str:
    """Literal text from a mrkdwn string, safe in HTML."""
    return html.escape(_decode_slack(text), quote=True)


def _emoji(name: str) -> str | None:
    found = EMOJI.get(name)
    if found is None:
        return None
    glyph, colour = found
    return f'<span class="emoji" style="color:{colour}" title=":{html.escape(name)}:">{html.escape(glyph)}</span>'


_EMOJI_CODE = re.compile(r":([a-z0-9_+\-]*[a-z][a-z0-9_+\-]*):")


def _plain(text: str, *, emoji: bool = True) -> str:
    """A plain_text object: never parsed for markup; short codes become glyphs when `emoji`."""
    escaped = html.escape(text, quote=True)
    if not emoji:
        return escaped
    return _EMOJI_CODE.sub(lambda m: _emoji(m.group(1)) or m.group(0), escaped)


# ---------------------------------------------------------------------------------------------
# mrkdwn → HTML

_FENCE = re.compile(r"```(.*?)```", re.DOTALL)
_INLINE = re.compile(
    r"(?P<code>`[^`\n]+`)"
    r"|(?P<control><[^<>\n]+>)"
    r"|(?P<bold>(?<![\w*])\*[^*\n]+\*(?![\w*]))"
    # Slack closes italics at an underscore followed by a non-word character: `_get_workload_status_`.
    r"|(?P<italic>(?<![\w_])_(?=[^\s_])(?:[^\n]*?\S)?_(?!\w))"
    r"|(?P<strike>(?<![\w~])~[^~\n]+~(?![\w~]))"
    r"|(?P<emoji>:[a-z0-9_+\-]*[a-z][a-z0-9_+\-]*:)"
)


def mrkdwn_to_html(text: str) -> str:
    """Slack mrkdwn → HTML: code blocks, quotes, bold, italic, strike, code, links, mentions."""
    parts: list[str] = []
    position = 0
    for match in _FENCE.finditer(text):
        parts.append(_lines_to_html(text[position : match.start()]))
        body = match.group(1)
        if body.startswith("\n"):
            body = body[1:]
        parts.append(f"<pre>{_text(body.rstrip(chr(10)))}</pre>")
        position = match.end()
    parts.append(_lines_to_html(text[position:]))
    return "".join(parts)


def _lines_to_html(text: str) -> str:
    if not text:
        return ""
    out: list[str] = []
    quote: list[str] = []
    lines = text.split("\n")
    # A line break next to a code block belongs to the block.
    if lines and lines[0] == "":
        lines = lines[1:]
    if lines and lines[-1] == "":
        lines = lines[:-1]
    for line in lines:
        if line.startswith(">"):
            quote.append(_inline(line[1:].removeprefix(" ")))
            continue
        if quote:
            out.append("<blockquote>" + "<br>".join(quote) + "</blockquote>")
            quote = []
        out.append(_inline(line) + "<br>")
    if quote:
        out.append("<blockquote>" + "<br>".join(quote) + "</blockquote>")
    joined = "".join(out)
    return joined.removesuffix("<br>")


def _inline(text: str) -> str:
    out: list[str] = []
    position = 0
    for match in _INLINE.finditer(text):
        out.append(_text(text[position : match.start()]))
        token = match.group(0)
        kind = match.lastgroup
        if kind == "code":
            out.append(f"<code>{_text(token[1:-1])}</code>")
        elif kind == "control":
            out.append(_control(token[1:-1]))
        elif kind == "bold":
            out.append(f"<b>{_inline(token[1:-1])}</b>")
        elif kind == "italic":
            out.append(f"<i>{_inline(token[1:-1])}</i>")
        elif kind == "strike":
            out.append(f"<s>{_inline(token[1:-1])}</s>")
        else:
            out.append(_emoji(token[1:-1]) or _text(token))
        position = match.end()
    out.append(_text(text[position:]))
    return "".join(out)


def _control(body: str) -> str:
    """`<@U…>`, `<#C…|name>`, `<!channel>`, `<url|label>`: shown as text, never as a live link."""
    target, _, label = body.partition("|")
    if target.startswith("@"):
        return f'<span class="mention">@{_text(label or target[1:])}</span>'
    if target.startswith("#"):
        return f'<span class="mention">#{_text(label or target[1:])}</span>'
    if target.startswith("!"):
        command = target[1:]
        if command in ("channel", "here", "everyone"):
            return f'<span class="broadcast">@{_text(command)}</span>'
        if command.startswith("subteam^"):
            return f'<span class="mention">{_text(label or "@group")}</span>'
        return _text(label or command)
    return f'<span class="link">{_text(label or target)}</span>'


# ---------------------------------------------------------------------------------------------
# Blocks


def _text_object(obj: Any) -> str:
    if not isinstance(obj, Mapping):
        return ""
    text = str(obj.get("text") or "")
    if obj.get("type") == "plain_text":
        return _plain(text, emoji=bool(obj.get("emoji", True)))
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


def _rich_inline(element: Any) -> str:
    if not isinstance(element, Mapping):
        return ""
    kind = element.get("type")
    if kind == "text":
        out = html.escape(str(element.get("text") or ""))
        style = element.get("style")
        if not isinstance(style, Mapping):
            style = {}
        if style.get("code"):
            out = f"<code>{out}</code>"
        if style.get("bold"):
            out = f"<b>{out}</b>"
        if style.get("italic"):
            out = f"<i>{out}</i>"
        if style.get("strike"):
            out = f"<s>{out}</s>"
        return out
    if kind == "link":
        return (
            f'<span class="link">{html.escape(str(element.get("text") or element.get("url") or ""))}</span>'
        )
    if kind == "emoji":
        name = str(element.get("name") or "")
        return _emoji(name) or html.escape(f":{name}:")
    if kind == "user":
        return f'<span class="mention">@{html.escape(str(element.get("user_id") or ""))}</span>'
    if kind == "usergroup":
        return f'<span class="mention">@{html.escape(str(element.get("usergroup_id") or ""))}</span>'
    if kind == "channel":
        return f'<span class="mention">#{html.escape(str(element.get("channel_id") or ""))}</span>'
    if kind == "broadcast":
        return f'<span class="broadcast">@{html.escape(str(element.get("range") or ""))}</span>'
    if kind == "date":
        return html.escape(str(element.get("fallback") or ""))
    return ""


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


def _rich_text(block: Mapping[str, Any], live: bool = False) -> str:
    elements = block.get("elements")
    return "".join(_rich_part(part) for part in elements) if isinstance(elements, list) else ""


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
    "rich_text": ("block rich-text", _rich_text),
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


# ---------------------------------------------------------------------------------------------
# Screenshot


def find_chromium() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise PreviewError(
        "Chromium was not found on PATH (looked for chromium, chromium-browser): "
        "install Debian's `chromium` package to take the screenshot"
    )


def chromium_command(
    binary: str, html_path: Path, png_path: Path, *, width: int, height: int, profile_dir: Path
) -> list[str]:
    """Headless, no GPU, no sandbox (containers), and every background network feature off."""
    return [
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--mute-audio",
        f"--user-data-dir={profile_dir}",
        f"--screenshot={png_path}",
        f"--window-size={width},{height}",
        html_path.resolve().as_uri(),
    ]


def screenshot(
    html_path: str | Path,
    png_path: str | Path,
    *,
    width: int = 1000,
    height: int | None = None,
    timeout_s: float = SCREENSHOT_TIMEOUT_S,
) -> Path:
    """Photograph a local HTML page; without `height`, a tall window cropped to the content."""
    binary = find_chromium()
    source = Path(html_path)
    target = Path(png_path).resolve()
    if not source.is_file():
        raise PreviewError(f"no HTML page at {source}")
    window_height = height or DEFAULT_WINDOW_HEIGHT
    with tempfile.TemporaryDirectory(prefix="diagnose-chromium-") as scratch:
        scratch_dir = Path(scratch)
        profile = scratch_dir / "profile"
        command = chromium_command(
            binary, source, target, width=width, height=window_height, profile_dir=profile
        )
        # A private HOME keeps Chromium's caches and crash reports out of the user's files.
        env = {**os.environ, "HOME": str(scratch_dir), "XDG_CONFIG_HOME": str(scratch_dir / "config")}
        target.unlink(missing_ok=True)
        try:
            finished = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                env=env,
                check=False,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise PreviewError(f"Chromium did not finish the screenshot within {timeout_s:.0f} s") from None
        except OSError as exc:
            raise PreviewError(f"Chromium could not be started: {exc.strerror or exc}") from None
    if not target.is_file() or target.stat().st_size == 0:
        tail = " ".join((finished.stderr or "").strip().splitlines()[-3:])
        raise PreviewError(
            mask(f"Chromium wrote no screenshot (exit status {finished.returncode}): {tail or 'no output'}")
        )
    if height is None:
        _crop_to_content(target)
    return target


def _crop_to_content(png_path: Path) -> None:
    """Cut the empty page below the message (Pillow comes with matplotlib; without it, keep all)."""
    try:
        from PIL import Image, ImageChops
    except ImportError:
        return
    with Image.open(png_path) as image:
        picture = image.convert("RGB")
    background = Image.new("RGB", picture.size, picture.getpixel((picture.width - 1, picture.height - 1)))
    box = ImageChops.difference(picture, background).getbbox()
    if box is None:
        return
    bottom = min(picture.height, box[3] + CROP_MARGIN_PX)
    if bottom < picture.height:
        picture.crop((0, 0, picture.width, bottom)).save(png_path, format="PNG")
