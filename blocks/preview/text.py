"""Text of a Slack message as HTML: Slack's entities decoded, then everything HTML-escaped, mrkdwn
(bold, italic, strike, code, quotes, lists) and emoji drawn."""

from __future__ import annotations

import html
import re

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


def _decode_slack(text: str) -> str:
    """mrkdwn carries `&amp;`, `&lt;`, `&gt;` for the characters themselves (decoded `&` last)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _text(text: str) -> str:
    """Literal text from a mrkdwn string, safe in HTML."""
    return html.escape(_decode_slack(text), quote=True)


def emoji_html(name: str) -> str | None:
    found = EMOJI.get(name)
    if found is None:
        return None
    glyph, colour = found
    return f'<span class="emoji" style="color:{colour}" title=":{html.escape(name)}:">{html.escape(glyph)}</span>'


_EMOJI_CODE = re.compile(r":([a-z0-9_+\-]*[a-z][a-z0-9_+\-]*):")


def plain_html(text: str, *, emoji: bool = True) -> str:
    """A plain_text object: never parsed for markup; short codes become glyphs when `emoji`."""
    escaped = html.escape(text, quote=True)
    if not emoji:
        return escaped
    return _EMOJI_CODE.sub(lambda m: emoji_html(m.group(1)) or m.group(0), escaped)


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
            out.append(emoji_html(token[1:-1]) or _text(token))
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
