from __future__ import annotations

import json
from typing import Any

from blocks.prompts import ANSWER_INPUT_ACTION, ANSWER_INPUT_BLOCK
from bot.words import is_identifier

__all__ = ["is_identifier", "metadata", "submitted_value"]


def submitted_value(view: dict[str, Any]) -> str:
    values = ((view.get("state") or {}).get("values") or {}).get(ANSWER_INPUT_BLOCK) or {}
    return str((values.get(ANSWER_INPUT_ACTION) or {}).get("value") or "").strip()


def metadata(view: dict[str, Any]) -> dict[str, Any]:
    try:
        data = json.loads(view.get("private_metadata") or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
