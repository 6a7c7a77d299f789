"""`diagnose explain CODE [--lang en|zh] [--format md|json]`: the built-in catalogue from the shell.

Exit status 0 whenever something was printed, including the plain statement that a code is not in
the catalogue (its meaning is never guessed).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from diagnosis.languages import LANGUAGES

if TYPE_CHECKING:
    from diagnosis.knowledge.explain import Explanation


def explanation_json(code: str, explanation: Explanation | None, *, lang: str) -> dict[str, Any]:
    from diagnosis.knowledge.explain import SCHEMA, normalize_code, unknown_message

    if explanation is None:
        return {
            "schema": SCHEMA,
            "known": False,
            "code": normalize_code(code),
            "message": unknown_message(code, lang=lang),
        }
    return {"schema": SCHEMA, "known": True, **explanation.model_dump(mode="json")}


def _handle(args: argparse.Namespace) -> int:
    from diagnosis.knowledge.explain import explain, render_explanation_markdown, unknown_message
    from diagnosis.masking import mask

    lang = args.lang or "en"
    explanation = explain(args.code, lang=lang)
    code = mask(args.code)  # echoed only when unknown: whatever was pasted is masked
    if args.format == "json":
        print(json.dumps(explanation_json(code, explanation, lang=lang), ensure_ascii=False, indent=2))
    elif explanation is None:
        print(unknown_message(code, lang=lang))
    else:
        print(render_explanation_markdown(explanation), end="")
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "explain",
        help="explain an exit code, Kubernetes/Run:ai reason, API error code or Ascend/torch_npu code",
        description=(
            "Explain a code from the built-in catalogue: exit codes (137, -9), Kubernetes and Run:ai reasons "
            "(CrashLoopBackOff, OOMKilled, OverLimit), Huawei API codes (APIGW.0301, ModelArts.2775) and "
            "Ascend/torch_npu codes (EL0004, ERR99999). Unknown codes are reported as such, never guessed."
        ),
    )
    parser.add_argument("code", metavar="CODE", help="the code to explain (case-insensitive)")
    parser.add_argument(
        "--lang", choices=LANGUAGES, default=None, help="language of the explanation (default en)"
    )
    parser.add_argument("--format", choices=("md", "json"), default="md", help="output format (default md)")
    parser.set_defaults(handler=_handle)
