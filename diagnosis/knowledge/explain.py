"""`explain(code)`: what an exit code, Kubernetes or Run:ai reason, API error code or Ascend /
torch_npu code means, from the built-in catalogue (diagnosis.knowledge.catalogue).

Lookup is case-insensitive; numeric strings are exit codes; `ERR` + 5 digits (torch_npu) and the
Ascend `E…` families are decoded by their structure. A code that is not in the catalogue gives
None: its meaning is never guessed (e.g. ModelArts "1.015", which the references searched for
and did not find). The Slack bot calls `explain()` directly; `Explanation.to_markdown()` (the
same Markdown as `diagnose explain`) and the JSON fields are what it shows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from diagnosis.knowledge.catalogue import (
    ASCEND,
    ASCEND_INNER_STEPS,
    ASCEND_OPERATOR_CODES,
    ASCEND_OPERATOR_STEPS,
    CATALOGUE,
    ENTRIES,
    FAMILY_LABELS,
    K8S_ADMISSION,
    TORCH_NPU,
    TORCH_NPU_MODULES,
    TORCH_NPU_STEPS,
    TORCH_NPU_TYPES,
    UNDOCUMENTED,
    Entry,
    Step,
    change,
    check,
)
from diagnosis.knowledge.exitcodes import CHILD_EXIT_STEPS, EXIT_CODE_STEPS, SIGNAL_EXIT_STEPS, exit_code_info
from diagnosis.render.i18n import Translator, check_language

LANGUAGES: tuple[str, ...] = CATALOGUE.languages
SCHEMA = "explain/v1"


class ExplanationStep(BaseModel):
    text: str
    changes_resources: bool = False


class Explanation(BaseModel):
    code: str = Field(description="the code as the catalogue spells it")
    family: str = Field(description="exit_code, kubernetes, runai, api_gateway, modelarts, ascend, torch_npu")
    title: str
    meaning: str
    likely_cause: str
    what_to_do: list[ExplanationStep]
    source: str
    lang: str
    http_status: str | None = None
    signal: str | None = None
    decoded: dict[str, str] | None = Field(default=None, description="parts of a structured code")

    def to_markdown(self) -> str:
        return render_explanation_markdown(self)


_INDEX: dict[str, Entry] = {}
for _entry in ENTRIES:
    for _name in (_entry.code, *_entry.aliases):
        _INDEX[_name.upper()] = _entry

_EXIT_CODE = re.compile(r"^[+-]?[0-9]{1,6}$")
_TORCH_NPU = re.compile(r"^ERR([0-9]{2})([0-9]{3})$")
_ASCEND_INNER = re.compile(r"^E([0-9A-Z])9999$")
_ASCEND_AI_CORE = re.compile(r"^E[5-9AB][0-9A-Z]{4}$")
_OUT_OF = re.compile(r"^OUTOF(CPU|MEMORY|PODS|EPHEMERAL-STORAGE|[A-Z0-9.-]+/[A-Z0-9.-]+)$")


def normalize_code(code: str) -> str:
    """Strip spaces, quotes and backticks a user may paste around a code."""
    return code.strip().strip("`'\"“”‘’").strip()


def _language(lang: str) -> str:
    """`lang` when the catalogue offers it, else UnsupportedLanguage (never another language)."""
    return check_language(lang, LANGUAGES)


def _pick(text: Mapping[str, str], lang: str) -> str:
    return text.get(lang) or text["en"]


def _t(lang: str) -> Translator:
    return Translator(CATALOGUE, lang)


def _steps(steps: Sequence[Step], lang: str) -> list[ExplanationStep]:
    return [
        ExplanationStep(text=_pick(step.text, lang), changes_resources=step.changes_resources)
        for step in steps
    ]


def _title(code: str, family: str, lang: str) -> str:
    label = _pick(FAMILY_LABELS[family], lang)
    return f"{code} — {label}"


def _from_entry(entry: Entry, lang: str) -> Explanation:
    return Explanation(
        code=entry.code,
        family=entry.family,
        title=_title(entry.code, entry.family, lang),
        meaning=_pick(entry.meaning, lang),
        likely_cause=_pick(entry.cause, lang),
        what_to_do=_steps(entry.steps, lang),
        source=entry.source,
        lang=lang,
        http_status=entry.http_status,
    )


def _exit_code(code: int, lang: str) -> Explanation | None:
    info = exit_code_info(code)
    if not info.documented or info.source is None:
        return None
    if code in EXIT_CODE_STEPS:
        steps = EXIT_CODE_STEPS[code]
    elif code < 0:
        steps = CHILD_EXIT_STEPS if code == -9 else CHILD_EXIT_STEPS[:1]
    else:
        steps = SIGNAL_EXIT_STEPS
    meaning = info.meaning(lang)
    return Explanation(
        code=str(code),
        family="exit_code",
        title=_title(str(code), "exit_code", lang),
        meaning=meaning[:1].upper() + meaning[1:] + _t(lang)("exit.sentence_end"),
        likely_cause=info.typical_cause(lang),
        what_to_do=_steps(steps, lang),
        source=info.source,
        lang=lang,
        signal=info.signal,
    )


def _torch_npu(code: str, module: str, kind: str, lang: str) -> Explanation | None:
    module_text = TORCH_NPU_MODULES.get(module)
    type_text = TORCH_NPU_TYPES.get(kind)
    if module_text is None and type_text is None:
        return None
    t = _t(lang)
    module_label = (
        _pick(module_text, lang)
        if module_text
        else t("torch_npu.undocumented", part=t("torch_npu.part.module"), value=module)
    )
    type_label = (
        _pick(type_text, lang)
        if type_text
        else t("torch_npu.undocumented", part=t("torch_npu.part.type"), value=kind)
    )
    return Explanation(
        code=code,
        family="torch_npu",
        title=_title(code, "torch_npu", lang),
        meaning=t("torch_npu.meaning", module=module_label, kind=type_label),
        likely_cause=t("torch_npu.cause"),
        what_to_do=_steps(TORCH_NPU_STEPS, lang),
        source=TORCH_NPU,
        lang=lang,
        decoded={"module": module, "module_name": module_label, "type": kind, "type_name": type_label},
    )


def _ascend_family(code: str, lang: str) -> Explanation | None:
    t = _t(lang)
    if code in ASCEND_OPERATOR_CODES:
        meaning, cause = t("ascend.operator.meaning"), t("ascend.operator.cause")
        steps = ASCEND_OPERATOR_STEPS
    elif match := _ASCEND_INNER.match(code):
        meaning, cause = t("ascend.inner.meaning", module=match.group(1)), t("ascend.inner.cause")
        steps = ASCEND_INNER_STEPS
    elif _ASCEND_AI_CORE.match(code):
        meaning, cause = t("ascend.ai_core.meaning"), t("ascend.ai_core.cause")
        steps = ASCEND_OPERATOR_STEPS
    else:
        return None
    return Explanation(
        code=code,
        family="ascend",
        title=_title(code, "ascend", lang),
        meaning=meaning,
        likely_cause=cause,
        what_to_do=_steps(steps, lang),
        source=ASCEND,
        lang=lang,
    )


# The steps for a kubelet `OutOf<resource>` admission refusal (decoded from the reason's name).
_OUT_OF_STEPS = (check("out_of.step.1"), change("out_of.step.2"))


def _out_of_resource(code: str, lang: str) -> Explanation:
    resource = code[len("OutOf") :]
    t = _t(lang)
    return Explanation(
        code=code,
        family="kubernetes",
        title=_title(code, "kubernetes", lang),
        meaning=t("out_of.meaning", resource=resource),
        likely_cause=t("out_of.cause"),
        what_to_do=_steps(_OUT_OF_STEPS, lang),
        source=K8S_ADMISSION,
        lang=lang,
    )


def explain(code: str | int, *, lang: str = "en") -> Explanation | None:
    """The catalogue's explanation of `code`, or None when the code is not in the catalogue."""
    language = _language(lang)
    text = normalize_code(str(code))
    if not text:
        return None
    key = text.upper()
    entry = _INDEX.get(key)
    if entry is not None:  # a numeric platform code (AscendCL's 207001) is not an exit code
        return _from_entry(entry, language)
    if _EXIT_CODE.match(text):
        return _exit_code(int(text), language)
    npu = _TORCH_NPU.match(key)
    if npu:
        return _torch_npu(key, npu.group(1), npu.group(2), language)
    if key.startswith("E") and len(key) == 6:
        ascend = _ascend_family(key, language)
        if ascend is not None:
            return ascend
    if _OUT_OF.match(key):
        return _out_of_resource("OutOf" + text[len("OutOf") :], language)
    return None


def unknown_message(code: str | int, *, lang: str = "en") -> str:
    """What to say for a code that is not in the catalogue (its meaning is not guessed)."""
    language = _language(lang)
    text = normalize_code(str(code))
    note = UNDOCUMENTED.get(text.upper())
    t = _t(language)
    return t("unknown.with_note", code=text, note=_pick(note, language)) if note else t("unknown", code=text)


def catalogue_codes() -> list[str]:
    """Every code the catalogue names directly (exit codes and structured families excluded)."""
    return [entry.code for entry in ENTRIES]


# The fixed labels of an explanation: the `label.*` ids of the explain catalogue.
_LABELS = CATALOGUE.section("label.")


def render_explanation_markdown(explanation: Explanation) -> str:
    """Markdown for one explanation (fixed labels in the explanation's language)."""
    labels = _LABELS[check_language(explanation.lang, LANGUAGES)]
    colon = labels["colon"]
    lines = [f"## {explanation.title}", ""]
    lines.append(f"**{labels['meaning']}**{colon}{explanation.meaning}")
    lines.append("")
    lines.append(f"**{labels['cause']}**{colon}{explanation.likely_cause}")
    if explanation.http_status:
        lines.append("")
        lines.append(f"**{labels['http']}**{colon}{explanation.http_status}")
    if explanation.signal:
        lines.append("")
        lines.append(f"**{labels['signal']}**{colon}{explanation.signal}")
    lines.append("")
    lines.append(f"**{labels['todo']}**")
    lines.append("")
    for number, step in enumerate(explanation.what_to_do, start=1):
        note = f" _({labels['change']})_" if step.changes_resources else ""
        lines.append(f"{number}. {step.text}{note}")
    lines.append("")
    lines.append(f"{labels['source']}{colon}{explanation.source}")
    return "\n".join(lines) + "\n"
