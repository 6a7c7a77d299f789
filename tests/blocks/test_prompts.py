from __future__ import annotations

import json

from blocks.messages import scan_message, usage_message
from blocks.progress import progress_message, step_label
from blocks.prompts import (
    answer_modal,
    answered_message,
    log_link_message,
    log_link_modal,
    pending_id_from_block,
    question_message,
)
from diagnosis.models import Choice, Question
from tests.blocks.checks import assert_message_within_limits, assert_view_within_limits


def elements(message: dict) -> list[dict]:
    return [e for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]]


def test_few_choices_are_buttons_whose_value_is_the_choice() -> None:
    question = Question(
        key="workload_id", prompt="Which **one**?", choices=[Choice(value="w1", label="train-42 · Failed")]
    )
    message = question_message(question, pending_id="p1", lang="en", asker="U1").payload()
    assert_message_within_limits(message)
    buttons = elements(message)
    assert buttons[0]["value"] == "w1" and buttons[0]["text"]["text"] == "train-42 · Failed"
    assert [b["action_id"] for b in buttons] == ["answer_choice_0", "answer_other", "answer_cancel"]
    block_id = next(b["block_id"] for b in message["blocks"] if b["type"] == "actions")
    assert pending_id_from_block(block_id) == "p1"
    assert "*one*" in json.dumps(message["blocks"]) and "<@U1>" in json.dumps(message["blocks"])


def test_many_long_choices_become_a_select_within_limits() -> None:
    choices = [Choice(value=f"id-{n}-" + "x" * 100, label=f"job {n} " + "y" * 200) for n in range(150)]
    message = question_message(
        Question(key="job_id", prompt="Which job?", choices=choices), pending_id="p", lang="en"
    )
    assert_message_within_limits(message.payload())
    select = next(e for e in elements(message.payload()) if e["type"] == "static_select")
    assert len(select["options"]) == 100
    assert all(len(o["text"]["text"]) <= 75 for o in select["options"])
    assert select["options"][0]["value"] == choices[0].value, "values are never cut"


def test_choice_values_too_long_for_a_select_are_left_out_not_cut() -> None:
    choices = [
        Choice(value="v" * 200, label="too long"),
        *[Choice(value=f"v{n}", label=f"c{n}") for n in range(6)],
    ]
    message = question_message(
        Question(key="job_id", prompt="?", choices=choices), pending_id="p", lang="en"
    ).payload()
    values = [o["value"] for e in elements(message) if e["type"] == "static_select" for o in e["options"]]
    assert "v" * 200 not in values and len(values) == 6


def test_platform_question_has_no_free_text() -> None:
    question = Question(
        key="platform", prompt="Which platform?", choices=[Choice(value="runai", label="Run:ai")]
    )
    message = question_message(question, pending_id="p", lang="en", free_text=False).payload()
    assert "answer_other" not in json.dumps(message)


def test_modals_are_valid_views() -> None:
    assert_view_within_limits(answer_modal(pending_id="p1", prompt="Which cluster? " * 300, lang="en"))
    view = log_link_modal(ref="C1|1.2", lang="zh", initial_task="worker-0")
    assert_view_within_limits(view)
    assert json.loads(view["private_metadata"]) == {"thread": "C1|1.2", "lang": "zh"}
    assert view["title"]["text"] == "完整日志链接", "the modal speaks the thread's language"


def test_answered_and_log_link_messages_escape_names() -> None:
    answered = answered_message("Which <b>?", answer="<!channel>", user="U1", lang="en").payload()
    assert_message_within_limits(answered)
    assert "<!channel>" not in json.dumps(answered) and "<@U1>" in json.dumps(answered)
    link = log_link_message(
        "https://obs.example.com/x?a=1&Signature=2", job="<job>", task="worker-0", lang="en"
    )
    assert_message_within_limits(link.payload())
    assert "obs.example.com" not in link.text, "the notification text never carries the link"
    assert "<https://obs.example.com/x?a=1&amp;Signature=2|Open the log>" in json.dumps(link.blocks)


def test_progress_names_the_step_in_words() -> None:
    assert step_label("get_workload_history", lang="en") == "reading the workload history"
    assert step_label("ShowTrainingJobDetails", lang="zh") == "读取作业详情"
    assert step_label("k8s.new_thing", lang="en") == "calling k8s.new_thing"
    message = progress_message(
        what="Run:ai workload <x>", user="U1", lang="en", step="get_workload_pods"
    ).payload()
    assert_message_within_limits(message)
    assert "&lt;x&gt;" in json.dumps(message) and "reading the pods" in json.dumps(message)


def test_usage_and_scan_messages() -> None:
    assert_message_within_limits(usage_message(problem="unknown key 'x<y'").payload())
    results = [
        {"target": {"name": f"job-{n}"}, "category": "CRASH_APP_ERROR", "confidence": "HIGH"}
        for n in range(400)
    ]
    scan = {
        "platform": "modelarts",
        "region": "cn-north-4",
        "scanned": 500,
        "by_category": {"CRASH_APP_ERROR": 400},
        "results": results,
    }
    message = scan_message(scan, lang="en")
    assert_message_within_limits(message.payload())
    assert "500 job(s) listed, 400 diagnosed" in message.text


def test_long_markdown_explanations_are_cut_within_limits() -> None:
    from blocks.messages import markdown_message

    markdown = "\n\n".join(
        f"**Code {n}**: " + "meaning " * 80 + "\n\n```\n" + "line\n" * 30 + "```" for n in range(60)
    )
    message = markdown_message(markdown, fallback="explain")
    assert_message_within_limits(message.payload())
    assert message.truncated
    for block in message.blocks:
        if block["type"] == "section":
            assert block["text"]["text"].count("```") % 2 == 0, "no code block is left open"
