"""Live controls for the playground's page: Block Kit buttons, selects and inputs as real HTML
controls carrying what Slack would send when they are used.

A button or select carries its action (type, action_id, block_id, value; the options of a select)
as JSON in a `data-action` attribute, HTML-escaped; the page's script turns a click into the
`actions[]` entry of a `block_actions` payload
(https://docs.slack.dev/reference/interaction-payloads/block_actions-payload). An input block's
field carries its block and action ids, which a modal's submit turns into `view.state.values`.
No text is ever inserted unescaped.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping
from typing import Any

SELECT_KINDS = ("static_select", "external_select", "overflow")
LIVE_ELEMENTS = ("button", *SELECT_KINDS)
LabelRenderer = Callable[[Any], str]


def _attribute(data: Mapping[str, Any]) -> str:
    return html.escape(json.dumps(data, ensure_ascii=False, separators=(",", ":")), quote=True)


def _options(element: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = element.get("options")
    if not isinstance(found, list):
        groups = element.get("option_groups")
        found = [
            item
            for group in (groups if isinstance(groups, list) else [])
            if isinstance(group, Mapping)
            for item in (group.get("options") or [])
        ]
    return [item for item in found if isinstance(item, Mapping)]


def _option_text(option: Mapping[str, Any]) -> str:
    text = option.get("text")
    return str(text.get("text") or "") if isinstance(text, Mapping) else str(text or "")


def live_element(element: Mapping[str, Any], *, block_id: str | None, label_html: LabelRenderer) -> str:
    kind = str(element.get("type"))
    action: dict[str, Any] = {"type": kind, "action_id": element.get("action_id"), "block_id": block_id}
    if kind == "button":
        action["text"] = element.get("text")
        if element.get("value") is not None:
            action["value"] = element.get("value")
        style = element.get("style")
        css = f"button {style}" if style in ("primary", "danger") else "button"
        return (
            f'<button type="button" class="{css}" data-action="{_attribute(action)}">'
            f"{label_html(element.get('text'))}</button>"
        )
    placeholder = element.get("placeholder")
    placeholder_text = (
        str(placeholder.get("text") or "")
        if isinstance(placeholder, Mapping)
        else ("…" if kind != "overflow" else "⋯")
    )
    choices = "".join(
        f'<option value="{html.escape(str(option.get("value") or ""), quote=True)}">'
        f"{html.escape(_option_text(option))}</option>"
        for option in _options(element)
    )
    return (
        f'<select class="select live" data-action="{_attribute(action)}">'
        f'<option value="" disabled selected>{html.escape(placeholder_text)}</option>{choices}</select>'
    )


def live_input(block: Mapping[str, Any]) -> str:
    """The field of an input block (plain text, or a select), named by its block and action ids."""
    element = block.get("element")
    if not isinstance(element, Mapping):
        return ""
    ids = {
        "block_id": block.get("block_id"),
        "action_id": element.get("action_id"),
        "type": element.get("type"),
    }
    data = _attribute(ids)
    kind = element.get("type")
    if kind in ("static_select", "external_select"):
        choices = "".join(
            f'<option value="{html.escape(str(option.get("value") or ""), quote=True)}">'
            f"{html.escape(_option_text(option))}</option>"
            for option in _options(element)
        )
        return f'<select class="field" data-input="{data}"><option value=""></option>{choices}</select>'
    limits = ""
    if isinstance(element.get("max_length"), int):
        limits += f' maxlength="{element["max_length"]}"'
    if isinstance(element.get("min_length"), int):
        limits += f' minlength="{element["min_length"]}"'
    initial = html.escape(str(element.get("initial_value") or ""), quote=True)
    if element.get("multiline"):
        return f'<textarea class="field" data-input="{data}"{limits}>{initial}</textarea>'
    return f'<input class="field" type="text" data-input="{data}" value="{initial}"{limits}>'
