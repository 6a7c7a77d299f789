"""Diagnosis -> Markdown (the source runbooks' report shapes) or JSON. Renderers never call an API.

Every text rendered here is masked; masking (and the models it reads) is imported by the renderers
that use it, so that reading a message catalogue (diagnosis.render.i18n) loads neither.
"""

from __future__ import annotations

import importlib
import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from diagnosis.models import Diagnosis
    from diagnosis.scan import ScanResultBase

_REPORT_MODULES = {"runai": "diagnosis.runai.report", "modelarts": "diagnosis.modelarts.report"}
_SCAN_REPORT_MODULES = {"runai": "diagnosis.runai.scan.markdown", "modelarts": "diagnosis.modelarts.scan"}


# Outside code spans, what makes a link, an image, an autolink or raw HTML (and the escape itself).
_ACTIVE_MARKDOWN = re.compile(r"([\\<>\[\]])")
# Direction overrides, embeddings, isolates and marks reorder the text after them (Trojan Source):
# the report shows a visible replacement character in their place.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)


def inert_prose(text: str) -> str:
    """Prose of the diagnosis as Markdown that acts on nothing: the root cause and the steps can
    quote a log line or a platform message, which must not become a link, an image or raw HTML.
    Code spans are kept as they are (nothing inside one is active)."""
    pieces: list[str] = []
    position = 0
    for span in _CODE_SPAN.finditer(text):
        pieces.append(_ACTIVE_MARKDOWN.sub(r"\\\1", text[position : span.start()]))
        pieces.append(span.group(0))
        position = span.end()
    pieces.append(_ACTIVE_MARKDOWN.sub(r"\\\1", text[position:]))
    return "".join(pieces)


def _with_inert_prose(diagnosis: Diagnosis) -> Diagnosis:
    copy = diagnosis.model_copy(deep=True)
    copy.root_cause = inert_prose(copy.root_cause)
    for recommendation in copy.recommendations:
        recommendation.text = inert_prose(recommendation.text)
    copy.limitations = [inert_prose(text) for text in copy.limitations]
    copy.next_steps = [inert_prose(text) for text in copy.next_steps]
    for question in copy.questions:
        question.prompt = inert_prose(question.prompt)
    return copy


def render_markdown(diagnosis: Diagnosis, *, lang: str) -> str:
    from diagnosis.masking import mask, mask_diagnosis

    module = importlib.import_module(_REPORT_MODULES[diagnosis.platform])
    text: str = module.render_markdown(_with_inert_prose(mask_diagnosis(diagnosis)), lang=lang)
    return _BIDI.sub("\ufffd", mask(text))


def render_scan_markdown(result: ScanResultBase, *, lang: str) -> str:
    """A scan's Markdown summary in its platform's shape (as `diagnose … scan` prints it), masked."""
    from diagnosis.masking import mask

    module = importlib.import_module(_SCAN_REPORT_MODULES[result.platform])
    text: str = module.render_scan_markdown(result, lang=lang)
    return _BIDI.sub("\ufffd", mask(text))


def render_json(diagnosis: Diagnosis) -> str:
    from diagnosis.masking import mask_diagnosis

    return json.dumps(mask_diagnosis(diagnosis).to_json_dict(), ensure_ascii=False, indent=2)


class QueryError(ValueError):
    pass


def apply_query(data: Any, expression: str) -> Any:
    """`--query EXPR`: a JMESPath expression over the JSON output, as `hcloud --cli-query` does."""
    import jmespath  # only for --query
    import jmespath.exceptions

    try:
        return jmespath.search(expression, data)
    except jmespath.exceptions.JMESPathError as exc:
        reason = " ".join(str(exc).split())
        raise QueryError(f"invalid --query expression {expression!r}: {reason}") from None
