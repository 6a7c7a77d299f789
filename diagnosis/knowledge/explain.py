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
    t,
)
from diagnosis.knowledge.exitcodes import CHILD_EXIT_STEPS, EXIT_CODE_STEPS, SIGNAL_EXIT_STEPS, exit_code_info

LANGUAGES = ("en", "zh")
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
    return lang if lang in LANGUAGES else "en"


def _pick(text: Mapping[str, str], lang: str) -> str:
    return text.get(lang) or text["en"]


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
        meaning=meaning[:1].upper() + meaning[1:] + ("。" if lang == "zh" else "."),
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
    undocumented = t("{part} {value} (not in the documented list)", "{part} {value}（不在文档列出的范围内）")
    module_label = (
        _pick(module_text, lang)
        if module_text
        else _pick(undocumented, lang).format(part="module" if lang == "en" else "模块", value=module)
    )
    type_label = (
        _pick(type_text, lang)
        if type_text
        else _pick(undocumented, lang).format(part="type" if lang == "en" else "类型", value=kind)
    )
    meaning = t(
        "torch_npu error: module {module}, type {kind}.",
        "torch_npu 错误：模块 {module}，类型 {kind}。",
    )
    cause = t(
        "The code only says which part of torch_npu failed and how; the text after it names the call.",
        "错误码只说明 torch_npu 的哪个部分以何种方式出错；其后的文本会指出具体调用。",
    )
    return Explanation(
        code=code,
        family="torch_npu",
        title=_title(code, "torch_npu", lang),
        meaning=_pick(meaning, lang).format(module=module_label, kind=type_label),
        likely_cause=_pick(cause, lang),
        what_to_do=_steps(TORCH_NPU_STEPS, lang),
        source=TORCH_NPU,
        lang=lang,
        decoded={"module": module, "module_name": module_label, "type": kind, "type_name": type_label},
    )


def _ascend_family(code: str, lang: str) -> Explanation | None:
    if code in ASCEND_OPERATOR_CODES:
        meaning = t(
            "Ascend public operator error: invalid input, attribute or dtype, or an unsupported operator.",
            "昇腾公共算子错误：输入、属性或数据类型无效，或算子不受支持。",
        )
        cause = t(
            "The model calls an operator with inputs this CANN version does not accept.",
            "模型以当前 CANN 版本不接受的输入调用了某个算子。",
        )
        steps = ASCEND_OPERATOR_STEPS
    elif match := _ASCEND_INNER.match(code):
        meaning = t(
            f"Ascend inner error of module {match.group(1)} (a `…9999` catch-all).",
            f"昇腾模块 {match.group(1)} 的内部错误（`…9999` 兜底错误码）。",
        )
        cause = t("The code itself does not say; the plog does.", "错误码本身不说明原因，需查看 plog。")
        steps = ASCEND_INNER_STEPS
    elif _ASCEND_AI_CORE.match(code):
        meaning = t(
            "Ascend AI Core operator compile / TBE error (E5xxxx-EBxxxx, third-party source).",
            "昇腾 AI Core 算子编译 / TBE 错误（E5xxxx-EBxxxx，第三方来源）。",
        )
        cause = t(
            "An operator failed to compile or run for the given shapes or dtypes.",
            "某个算子在给定形状或数据类型下编译或运行失败。",
        )
        steps = ASCEND_OPERATOR_STEPS
    else:
        return None
    return Explanation(
        code=code,
        family="ascend",
        title=_title(code, "ascend", lang),
        meaning=_pick(meaning, lang),
        likely_cause=_pick(cause, lang),
        what_to_do=_steps(steps, lang),
        source=ASCEND,
        lang=lang,
    )


def _out_of_resource(code: str, lang: str) -> Explanation:
    resource = code[len("OutOf") :]
    meaning = t(
        f"The kubelet refused the pod: the node did not have enough {resource} when the pod arrived.",
        f"kubelet 拒绝了该 Pod：Pod 到达时节点上的 {resource} 不足。",
    )
    cause = t(
        "The node's free capacity changed between scheduling and admission (or a device plugin reported "
        "devices it could not provide).",
        "节点的可用容量在调度与准入之间发生了变化（或设备插件上报了无法提供的设备）。",
    )
    steps = (
        Step(
            t(
                "Read the pod's `status.message` (`Node didn't have enough resource: …`) and the node's capacity.",
                "查看 Pod 的 `status.message`（`Node didn't have enough resource: …`）以及节点容量。",
            )
        ),
        Step(
            t(
                "After confirming, a person resubmits the workload so that it is scheduled again.",
                "确认后，由用户重新提交作业以重新调度。",
            ),
            changes_resources=True,
        ),
    )
    return Explanation(
        code=code,
        family="kubernetes",
        title=_title(code, "kubernetes", lang),
        meaning=_pick(meaning, lang),
        likely_cause=_pick(cause, lang),
        what_to_do=_steps(steps, lang),
        source=K8S_ADMISSION,
        lang=lang,
    )


def explain(code: str | int, *, lang: str = "en") -> Explanation | None:
    """The catalogue's explanation of `code`, or None when the code is not in the catalogue."""
    language = _language(lang)
    text = normalize_code(str(code))
    if not text:
        return None
    if _EXIT_CODE.match(text):
        return _exit_code(int(text), language)
    key = text.upper()
    entry = _INDEX.get(key)
    if entry is not None:
        return _from_entry(entry, language)
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
    if language == "zh":
        message = f"`{text}` 不在内置目录中，不对其含义做猜测。"
    else:
        message = f"`{text}` is not in the built-in catalogue; its meaning is not guessed."
    if note:
        message += (" " if language != "zh" else "") + _pick(note, language)
    return message


def catalogue_codes() -> list[str]:
    """Every code the catalogue names directly (exit codes and structured families excluded)."""
    return [entry.code for entry in ENTRIES]


_LABELS: dict[str, dict[str, str]] = {
    "en": {
        "meaning": "Meaning",
        "cause": "Likely cause",
        "todo": "What to do",
        "source": "Source",
        "http": "HTTP status",
        "signal": "Signal",
        "change": "changes resources: a person runs this after confirming",
    },
    "zh": {
        "meaning": "含义",
        "cause": "可能原因",
        "todo": "处理建议",
        "source": "来源",
        "http": "HTTP 状态码",
        "signal": "信号",
        "change": "涉及变更：需用户确认后手动执行",
    },
}


def render_explanation_markdown(explanation: Explanation) -> str:
    """Markdown for one explanation (fixed labels in the explanation's language)."""
    labels = _LABELS.get(explanation.lang, _LABELS["en"])
    colon = "：" if explanation.lang == "zh" else ": "
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
