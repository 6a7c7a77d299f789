"""Diagnosis -> Markdown (the source runbooks' report shapes) or JSON. Renderers never call an API."""

from __future__ import annotations

import importlib
import json
from typing import Any

import jmespath
import jmespath.exceptions

from diagnosis.masking import mask, mask_diagnosis
from diagnosis.models import Diagnosis

_REPORT_MODULES = {"runai": "diagnosis.runai.report", "modelarts": "diagnosis.modelarts.report"}


def render_markdown(diagnosis: Diagnosis, *, lang: str) -> str:
    module = importlib.import_module(_REPORT_MODULES[diagnosis.platform])
    text: str = module.render_markdown(mask_diagnosis(diagnosis), lang=lang)
    return mask(text)


def render_json(diagnosis: Diagnosis) -> str:
    return json.dumps(mask_diagnosis(diagnosis).to_json_dict(), ensure_ascii=False, indent=2)


class QueryError(ValueError):
    pass


def apply_query(data: Any, expression: str) -> Any:
    """`--query EXPR`: a JMESPath expression over the JSON output, as `hcloud --cli-query` does."""
    try:
        return jmespath.search(expression, data)
    except jmespath.exceptions.JMESPathError as exc:
        reason = " ".join(str(exc).split())
        raise QueryError(f"invalid --query expression {expression!r}: {reason}") from None
