from __future__ import annotations

import json
import re
from typing import Any

from blocks.prompts import ANSWER_INPUT_ACTION, ANSWER_INPUT_BLOCK

# What a typed identifier may hold: letters, digits and - _ . : / (no spaces, no markup).
IDENTIFIER = re.compile(r"^[\w][\w.:/\-]{0,199}$")


def submitted_value(view: dict[str, Any]) -> str:
    values = ((view.get("state") or {}).get("values") or {}).get(ANSWER_INPUT_BLOCK) or {}
    return str((values.get(ANSWER_INPUT_ACTION) or {}).get("value") or "").strip()


def metadata(view: dict[str, Any]) -> dict[str, Any]:
    try:
        data = json.loads(view.get("private_metadata") or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
