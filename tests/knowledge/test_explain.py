"""`explain`: the catalogue rows, lookup rules, unknown codes and the CLI."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from cli.main import main
from diagnosis.knowledge.catalogue import ENTRIES, TORCH_NPU_MODULES, TORCH_NPU_TYPES, Entry
from diagnosis.knowledge.explain import LANGUAGES, Explanation, catalogue_codes, explain, unknown_message
from diagnosis.logs.rules import LINE_RULES
from diagnosis.render.i18n import UnsupportedLanguage
from diagnosis.runai import rules as runai_rules
from tests import upstream_facts as facts

# Every code the task names must be in the catalogue (or decoded by structure).
REQUIRED = [
    # Kubernetes
    "ImagePullBackOff",
    "ErrImagePull",
    "CrashLoopBackOff",
    "OOMKilled",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "StartError",
    "FailedMount",
    "FailedScheduling",
    "Unschedulable",
    "Evicted",
    "Preempting",
    "Evict",
    "BackoffLimitExceeded",
    "DeadlineExceeded",
    "ContainerStatusUnknown",
    "InvalidImageName",
    "NodeNotReady",
    # Run:ai
    "NonPreemptibleOverQuota",
    "OverLimit",
    # API gateway and ModelArts
    "APIGW.0101",
    "APIGW.0201",
    "APIGW.0301",
    "APIGW.0302",
    "APIGW.0303",
    "APIGW.0305",
    "APIGW.0306",
    "APIGW.0307",
    "APIGW.0308",
    "ModelArts.0010",
    "ModelArts.0012",
    "ModelArts.0013",
    "ModelArts.0102",
    "ModelArts.0116",
    "ModelArts.2775",
    "ModelArts.0201",
    "ModelArts.0203",
    "ModelArts.0204",
    "ModelArts.4204",
    # Ascend / torch_npu
    "EL0004",
    "EL0003",
    "EL9999",
    "EI0011",
    "EI9999",
    "EZ9999",
    "E19999",
    "ERR99999",
    # exit codes
    "0",
    "1",
    "2",
    "126",
    "127",
    "128",
    "130",
    "134",
    "135",
    "137",
    "139",
    "143",
    "247",
    "255",
    "-9",
]


@pytest.mark.parametrize("code", REQUIRED)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_required_codes_are_explained(code: str, lang: str) -> None:
    explanation = explain(code, lang=lang)
    assert explanation is not None, code
    assert explanation.lang == lang
    assert explanation.code.upper() == code.upper()
    assert explanation.meaning and explanation.likely_cause
    assert explanation.what_to_do
    assert any(host in explanation.source for host in _hosts(explanation.family)), explanation.source
    if lang == "zh":
        assert re.search(r"[\u4e00-\u9fff]", explanation.meaning), explanation.meaning


def _hosts(family: str) -> tuple[str, ...]:
    return facts.SOURCE_HOSTS[family]


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry.code for entry in ENTRIES])
def test_catalogue_rows_are_complete_and_cite_upstream_documentation(entry: Entry) -> None:
    for text in (entry.meaning, entry.cause, *(step.text for step in entry.steps)):
        assert set(text) == set(LANGUAGES)
        assert all(value.strip() for value in text.values())
    # The source is a page the reader can open, of the family's upstream documentation.
    links = re.findall(r"https://\S+", entry.source)
    assert links, entry.source
    assert all(link.startswith(_hosts(entry.family)) for link in links), entry.source


KUBERNETES_CODES = [entry for entry in ENTRIES if entry.family == "kubernetes"]
RUNAI_CODES = [entry for entry in ENTRIES if entry.family == "runai"]


@pytest.mark.parametrize("entry", KUBERNETES_CODES, ids=[entry.code for entry in KUBERNETES_CODES])
def test_kubernetes_codes_are_spelled_as_kubernetes_writes_them(entry: Entry) -> None:
    for code in (entry.code, *entry.aliases):
        assert code in facts.KUBERNETES_REASONS, code


@pytest.mark.parametrize("entry", RUNAI_CODES, ids=[entry.code for entry in RUNAI_CODES])
def test_runai_codes_are_spelled_as_the_scheduler_writes_them(entry: Entry) -> None:
    for code in (entry.code, *entry.aliases):
        assert code in facts.RUNAI_REASONS | facts.KUBERNETES_REASONS, code


@pytest.mark.parametrize("code", sorted(facts.API_GATEWAY_STATUS))
def test_gateway_codes_carry_the_documented_http_status(code: str) -> None:
    explanation = explain(code)
    assert explanation is not None and explanation.http_status is not None
    assert set(explanation.http_status.split("/")) == facts.API_GATEWAY_STATUS[code]
    alias = explain(code.replace("APIGW.", "APIG."))
    assert alias is not None and alias.code == code


@pytest.mark.parametrize("code", sorted(facts.MODELARTS_CODES))
def test_modelarts_codes_carry_the_documented_meaning(code: str) -> None:
    explanation = explain(code)
    assert explanation is not None, code
    assert facts.MODELARTS_CODES[code] in explanation.meaning.lower()


def test_gateway_and_modelarts_rows_are_all_documented_codes() -> None:
    listed = {entry.code for entry in ENTRIES if entry.family in ("api_gateway", "modelarts")}
    assert listed == set(facts.API_GATEWAY_STATUS) | set(facts.MODELARTS_CODES)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.family == "ascend"], ids=lambda e: e.code)
def test_ascend_rows_have_the_documented_code_shape(entry: Entry) -> None:
    pattern = facts.ACL_RETURN_CODE_PATTERN if entry.code.isdigit() else facts.ASCEND_CODE_PATTERN
    assert re.match(pattern, entry.code), entry.code


def _codes_named_by_log_rows() -> list[str]:
    """The literal codes a log row quotes as the finding's code (`code=r"(EI0002|EI0006)"`),
    plus the AscendCL return code the device-allocation row reads."""
    named = ["207001"]
    for rule in LINE_RULES:
        literal = re.fullmatch(r"\(((?:[A-Z0-9]+\|)*[A-Z0-9]+)\)", rule.code or "")
        if literal:
            named.extend(literal.group(1).split("|"))
    return named


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("code", _codes_named_by_log_rows())
def test_every_code_a_log_row_quotes_is_explained(code: str, lang: str) -> None:
    explanation = explain(code, lang=lang)
    assert explanation is not None, f"a report quotes {code}; add it to diagnosis/knowledge/catalogue.py"
    assert explanation.family == "ascend" and explanation.what_to_do


# Words a Run:ai row matches as a reason that are not codes with one meaning, so `explain` leaves
# them out; every other name a row matches must be explained.
GENERIC_REASON_WORDS = {
    # The kubelet writes `Failed` for a failed pull, create or start alike: the meaning is in the
    # message (`Failed to pull image …`), not the word.
    "Failed": "one kubelet reason for several failures; the message says which",
    # A status word several components write (a node's STATUS column, the KAI scheduler's PodGroup
    # event `Job is not ready for scheduling`); its meaning depends on who wrote it.
    "NotReady": "a status word with a meaning that depends on the component that wrote it",
    # The kubelet's Normal image events: progress news, no failure.
    "Pulling": "the kubelet's Normal news that a pull started",
    "Pulled": "the kubelet's Normal news that a pull succeeded",
}
# Reason names a row matches that no upstream source names (searched: Run:ai docs and API, the
# KAI scheduler, Kueue, Kubernetes): `explain` says they are unknown rather than guess a meaning.
UNSOURCED_REASON_NAMES = {
    "MaxDurationExceeded": "seen on a stop by a maximum-duration policy; no source defines it",
    "MaxRuntimeExceeded": "seen on a stop by a maximum-runtime policy; no source defines it",
}
_NOT_EXPLAINED = {name.lower() for name in (*GENERIC_REASON_WORDS, *UNSOURCED_REASON_NAMES)}
_MATCHERS = ("_reason", "_condition")


def _reasons_matched_by_runai_rows() -> list[str]:
    """Every name a `_reason(...)` or `_condition(...)` predicate of the Run:ai rule table matches
    (a condition's type and its reasons), read from the table's source."""
    source = Path(runai_rules.__file__).read_text(encoding="utf-8")
    names: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _MATCHERS):
            continue
        for argument in node.args:
            # A name built at run time could not be checked here: the rows spell reasons out.
            assert isinstance(argument, ast.Constant) and isinstance(argument.value, str), (
                f"line {node.lineno}: {node.func.id}(...) takes literal reason names"
            )
            names.setdefault(argument.value.lower(), argument.value)
    return sorted(names.values())


_RUNAI_ROW_REASONS = _reasons_matched_by_runai_rows()


def test_the_runai_rows_match_reasons_by_name_and_the_generic_words_are_among_them() -> None:
    lowered = {name.lower() for name in _RUNAI_ROW_REASONS}
    assert {"oomkilled", "disruptiontarget", "stalejob"} <= lowered
    # An exception no row needs any more is removed from the lists, not kept.
    assert lowered >= _NOT_EXPLAINED


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(
    "reason", [name for name in _RUNAI_ROW_REASONS if name.lower() not in _NOT_EXPLAINED]
)
def test_every_reason_a_runai_row_matches_is_explained(reason: str, lang: str) -> None:
    explanation = explain(reason, lang=lang)
    assert explanation is not None, (
        f"a report can quote {reason}; add it to diagnosis/knowledge/catalogue.py in every language, "
        "or, if it is a generic word or no source defines it, to GENERIC_REASON_WORDS or "
        "UNSOURCED_REASON_NAMES with the reason"
    )
    assert explanation.code.lower() == reason.lower() or reason.lower() in (
        alias.lower() for entry in ENTRIES if entry.code == explanation.code for alias in entry.aliases
    )
    assert explanation.family in ("kubernetes", "runai") and explanation.what_to_do


@pytest.mark.parametrize("word", sorted([*GENERIC_REASON_WORDS, *UNSOURCED_REASON_NAMES]))
def test_generic_words_and_unsourced_names_are_not_given_a_meaning(word: str) -> None:
    assert explain(word) is None


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("DisruptionTarget", ("about to be terminated", "PreemptionByScheduler")),
        ("Killing", ("Stopping container", "consequence")),
        ("StaleJob", ("minMember", "evicts the remaining pods")),
        ("NodeStatusUnknown", ("Kubelet stopped posting node status.",)),
        ("SignatureValidationFailed", ("signature",)),
    ],
)
def test_reasons_from_the_rows_say_what_the_component_that_writes_them_means(
    reason: str, words: tuple[str, ...]
) -> None:
    explanation = explain(reason)
    assert explanation is not None
    for word in words:
        assert word in f"{explanation.meaning} {explanation.likely_cause}", word


def test_french_reason_texts_put_a_no_break_space_before_high_punctuation() -> None:
    for reason in ("DisruptionTarget", "Killing", "StaleJob", "RegistryUnavailable"):
        explanation = explain(reason, lang="fr")
        assert explanation is not None
        texts = [
            explanation.meaning,
            explanation.likely_cause,
            *(step.text for step in explanation.what_to_do),
        ]
        prose = " ".join("".join(text.split("`")[::2]) for text in texts)
        assert not re.search(r" [:;?!]", prose), prose
        assert "\u00a0:" in prose


def test_a_numeric_platform_code_is_not_read_as_an_exit_code() -> None:
    explanation = explain("207001")
    assert explanation is not None and "ACL_ERROR_RT_MEMORY_ALLOCATION" in explanation.meaning
    assert explain("ACL_ERROR_RT_MEMORY_ALLOCATION") == explanation


def test_torch_npu_modules_and_types_are_the_documented_ones() -> None:
    assert set(TORCH_NPU_MODULES) == set(facts.TORCH_NPU_MODULES)
    for number, name in facts.TORCH_NPU_MODULES.items():
        assert TORCH_NPU_MODULES[number]["en"].startswith(name)
    assert {number: text["en"] for number, text in TORCH_NPU_TYPES.items()} == facts.TORCH_NPU_TYPES


@pytest.mark.parametrize("number", sorted(facts.LINUX_SIGNALS))
def test_signal_exit_codes_follow_linux_signal_numbers(number: int) -> None:
    name = facts.LINUX_SIGNALS[number]
    killed = explain(str(facts.FATAL_SIGNAL_BASE + number))
    assert killed is not None and killed.signal == name
    child = explain(f"-{number}")
    assert child is not None and child.signal == name


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry.code for entry in ENTRIES])
def test_read_only_checks_come_first_and_changes_need_a_person(entry: object) -> None:
    from diagnosis.knowledge.catalogue import Entry

    assert isinstance(entry, Entry)
    flags = [step.changes_resources for step in entry.steps]
    assert flags == sorted(flags), "a change step comes before a read-only check"
    for step in entry.steps:
        if step.changes_resources:
            assert "confirm" in step.text["en"].lower()
            assert "确认" in step.text["zh"]


def test_lookup_is_case_insensitive_and_accepts_aliases_and_quotes() -> None:
    for spelling in ("crashloopbackoff", "CRASHLOOPBACKOFF", " `CrashLoopBackOff` "):
        found = explain(spelling)
        assert found is not None and found.code == "CrashLoopBackOff"
    gateway = explain("APIG.0301")  # some service pages spell the prefix APIG.
    assert gateway is not None and gateway.code == "APIGW.0301" and gateway.http_status == "401"
    assert explain("modelarts.2775") is not None


def test_exit_code_explanations_carry_signal_and_steps() -> None:
    oom = explain("137")
    assert oom is not None
    assert oom.family == "exit_code" and oom.signal == "SIGKILL"
    assert any(step.changes_resources for step in oom.what_to_do)
    assert not oom.what_to_do[0].changes_resources
    child = explain("-9")
    assert child is not None and child.signal == "SIGKILL"
    assert explain("+143") is not None
    assert explain("129") is not None  # 128 + SIGHUP


def test_torch_npu_codes_are_decoded_by_structure() -> None:
    dist = explain("err02005")
    assert dist is not None
    assert dist.code == "ERR02005"
    assert dist.decoded == {
        "module": "02",
        "module_name": "DIST (distributed communication)",
        "type": "005",
        "type_name": "internal error",
    }
    partial = explain("ERR03001")
    assert partial is not None and partial.decoded is not None
    assert "not in the documented list" in partial.decoded["module_name"]
    assert explain("ERR03004") is None  # neither part documented: not guessed
    zh = explain("ERR01010", lang="zh")
    assert zh is not None and "系统调用失败" in zh.meaning


def test_ascend_families() -> None:
    inner = explain("E39999")
    assert inner is not None and "inner error" in inner.meaning
    operator = explain("EZ0003")
    assert operator is not None and "operator" in operator.meaning
    ai_core = explain("E50003")
    assert ai_core is not None and "TBE" in ai_core.meaning
    assert explain("EQ1234") is None


def test_out_of_resource_admission_reasons() -> None:
    gpu = explain("OutOfnvidia.com/gpu")
    assert gpu is not None and "nvidia.com/gpu" in gpu.meaning
    assert explain("OutOfMemoryError") is None


@pytest.mark.parametrize("code", ["1.015", "200", "APIGW.9999", "NotARealReason", "", "   "])
def test_unknown_codes_are_not_guessed(code: str) -> None:
    assert explain(code) is None


def test_unknown_message_is_plain_and_says_the_search_for_1_015_found_nothing() -> None:
    message = unknown_message("1.015")
    assert message.startswith("`1.015` is not in the built-in catalogue; its meaning is not guessed.")
    assert "No meaning for it was found in the ModelArts SDK" in message
    assert unknown_message("XYZ") == "`XYZ` is not in the built-in catalogue; its meaning is not guessed."
    assert unknown_message("1.015", lang="zh").startswith("`1.015` 不在内置目录中，不对其含义做猜测。")


def test_integer_codes_and_markdown_for_the_bot() -> None:
    explanation = explain(139, lang="zh")
    assert explanation is not None and explanation.code == "139"
    markdown = explanation.to_markdown()
    assert markdown.startswith("## 139 — 进程退出码\n")
    assert "**含义**：段错误，SIGSEGV（128+11）。" in markdown
    assert explain(3) is None


def test_every_language_reads_its_own_text_and_an_unknown_one_is_refused() -> None:
    japanese = explain("OOMKilled", lang="ja")
    french = explain("OOMKilled", lang="fr")
    assert japanese is not None and japanese.lang == "ja" and "メモリ上限" in japanese.meaning
    assert french is not None and french.lang == "fr" and "limite de mémoire" in french.meaning
    assert "**Signification** : " in french.to_markdown()
    assert "**意味**：" in japanese.to_markdown()
    with pytest.raises(UnsupportedLanguage):
        explain("OOMKilled", lang="de")


def test_catalogue_codes_are_unique() -> None:
    codes = [code.upper() for code in catalogue_codes()]
    assert len(codes) == len(set(codes))
    aliases = [alias.upper() for entry in ENTRIES for alias in entry.aliases]
    assert not set(codes) & set(aliases)


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def test_cli_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "OOMKilled"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## OOMKilled — Kubernetes reason\n")
    assert "**Meaning**: The container was killed by the kernel" in out
    assert "changes resources: a person runs this after confirming" in out
    assert "Source: Kubernetes, container states (terminated reasons set by the container runtime): " in out
    assert "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-states" in out


def test_cli_markdown_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "APIGW.0308", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## APIGW.0308 — 华为云 API 网关错误码\n")
    assert "**含义**：已达到限流阈值（HTTP 429）。" in out
    assert "**HTTP 状态码**：429" in out


def test_cli_json_is_the_explanation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "137", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "explain/v1" and data["known"] is True
    expected = explain("137")
    assert expected is not None
    assert (
        Explanation.model_validate({k: v for k, v in data.items() if k not in ("schema", "known")})
        == expected
    )


def test_cli_negative_exit_code_is_a_code_not_an_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "-9"]) == 0
    assert capsys.readouterr().out.startswith("## -9 — process exit code")


def test_cli_unknown_code_exits_0_with_a_plain_statement(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "1.015"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("`1.015` is not in the built-in catalogue; its meaning is not guessed.")
    assert main(["explain", "1.015", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {
        "schema": "explain/v1",
        "known": False,
        "code": "1.015",
        "message": unknown_message("1.015"),
    }


def test_cli_never_echoes_a_pasted_secret(capsys: pytest.CaptureFixture[str]) -> None:
    from diagnosis.masking import mask

    pasted = "password=hunter2-secret"
    assert main(["explain", pasted]) == 0
    out = capsys.readouterr().out
    assert mask(pasted) in out
    assert "hunter2-secret" not in out
