from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from blocks.escape import code_block, code_span, escape_mrkdwn
from blocks.mrkdwn import markdown_to_mrkdwn


def test_escape_replaces_ampersand_first() -> None:
    assert escape_mrkdwn("a & <b> &lt;") == "a &amp; &lt;b&gt; &amp;lt;"


def test_channel_ping_and_user_mention_become_inert() -> None:
    assert escape_mrkdwn("<!channel> hi <@U123> <https://evil|x>") == (
        "&lt;!channel&gt; hi &lt;@U123&gt; &lt;https://evil|x&gt;"
    )


@given(st.text())
def test_escaped_text_never_contains_a_control_sequence(text: str) -> None:
    escaped = escape_mrkdwn(text)
    assert "<" not in escaped and ">" not in escaped
    assert escaped.replace("&amp;", "").replace("&lt;", "").replace("&gt;", "").count("&") == 0


def test_code_span_uses_a_block_for_multiline_and_backticks() -> None:
    assert code_span("exit 137") == "`exit 137`"
    assert code_span("a\nb").startswith("```\n")
    assert code_span("has ` tick").startswith("```")
    block = code_block("x ``` y")
    assert block.count("```") == 2


@given(st.text())
def test_markdown_conversion_escapes_everything(markdown: str) -> None:
    converted = markdown_to_mrkdwn(markdown)
    # `>` survives only as mrkdwn's own quote marker at the start of a line.
    unquoted = "\n".join(re.sub(r"^(?:>\s*)+", "", line) for line in converted.split("\n"))
    assert "<" not in converted and ">" not in unquoted


def test_markdown_headings_lists_tables_become_mrkdwn() -> None:
    converted = markdown_to_mrkdwn(
        "## 诊断结论\n\n**bold** and *it*\n\n1. one\n2. two\n   - sub\n\n| k | v |\n|---|---|\n| a | bb |\n\n---\n"
    )
    assert "*诊断结论*" in converted
    assert "*bold* and _it_" in converted
    assert "1. one\n2. two\n    • sub" in converted
    assert "```\nk | v\n--+---\na | bb\n```" in converted
    assert "#" not in converted and "|---" not in converted


def test_links_are_not_made_active() -> None:
    converted = markdown_to_mrkdwn("see [docs](https://example.com/x?a=1&b=2)")
    assert converted == "see docs (https://example.com/x?a=1&amp;b=2)"


def test_raw_html_and_mentions_in_markdown_are_text() -> None:
    converted = markdown_to_mrkdwn("<script>x</script> <!here> `<!channel>`")
    assert "&lt;script&gt;" in converted
    assert "&lt;!here&gt;" in converted
    assert "`&lt;!channel&gt;`" in converted
