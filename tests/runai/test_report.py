"""Markdown in the runbook's shape: first line per rulings G13, sources on every evidence line, and
nothing that the diagnosis JSON does not hold (rulings G10)."""

from __future__ import annotations

import pytest

from diagnosis.models import Diagnosis, Evidence, Recommendation, Recurrence, Target
from diagnosis.render import render_markdown
from tests.runai.factory import uid
from tests.runai.helpers import replay_named


@pytest.mark.parametrize(
    ("bundle", "first_line"),
    [
        ("runai-oom-killed", "Category: OOM_KILLED"),
        ("runai-unknown-no-tier2", "Category: UNKNOWN"),
        ("runai-preempted-reclaim", "Routed: preempted (no failure category)"),
        ("runai-pending-scheduling", "Routed: pending_scheduling (no failure category)"),
        ("runai-completed", "Not a failure: Completed"),
        ("runai-suspended", "Out of scope: Suspended"),
        ("runai-running-no-symptom", "Needs input: did you mean a past run?"),
        ("runai-option-b-no-match", "Needs input: workload id"),
        ("runai-not-found", f"Not found: {uid('not-found', 'workload')}"),
        ("runai-permission-denied", "Permission denied: get_workload_status"),
        (
            "runai-wrong-cluster",
            f"Wrong cluster: asked {uid('wrong-cluster', 'cluster')}, workload is on {uid('wrong-cluster', 'other')}",
        ),
    ],
)
def test_first_line_per_outcome(bundle: str, first_line: str) -> None:
    report = render_markdown(replay_named(bundle), lang="en")
    assert report.splitlines()[0] == first_line


def test_runbook_shape_for_a_diagnosed_workload() -> None:
    diagnosis = replay_named("runai-oom-killed")
    lines = render_markdown(diagnosis, lang="en").splitlines()
    assert lines[2] == "Workload: llama-sft-7b | Phase: Failed | Project: nlp-core"
    assert lines[4].startswith("Root cause (confidence HIGH): ")
    evidence = lines[lines.index("Evidence:") + 1 : lines.index("", lines.index("Evidence:"))]
    cited = [item for item in diagnosis.evidence if item.source != "get_workload_history"]
    assert len(evidence) == len(cited)
    for line, item in zip(evidence, cited, strict=True):
        assert line.startswith("- ") and line.endswith(f"(source: {item.source})")
    assert any(line.startswith("History: 1 OOM_KILLED failure(s) in the last 7d") for line in lines)
    assert "Recommendation:" in lines and "Limitations:" in lines


def test_the_report_shows_only_what_the_json_holds() -> None:
    diagnosis = Diagnosis(
        platform="runai",
        target=Target(workload_id="w-1", name="job", phase="Failed", project="p"),
        outcome="diagnosed",
        category="CRASH_APP_ERROR",
        confidence="MEDIUM",
        root_cause="It crashed.",
        evidence=[
            Evidence(source="get_workload_status", field="phaseMessage", text="container exited with code 3")
        ],
        recurrence=Recurrence(count=1, window="2d", recurring=False),
        recommendations=[Recommendation(text="Fix it.", changes_resources=True)],
        calls=["get_workload_status"],
    )
    report = render_markdown(diagnosis, lang="en")
    assert "- Phase message: container exited with code 3 (source: get_workload_status)" in report
    assert "History: 1 CRASH_APP_ERROR failure(s) in the last 2d: a one-off" in report
    assert "- Fix it. (changes resources)" in report
    for absent in ("Limitations:", "Next steps:", "Measurements:", "Signature:", "Question:"):
        assert absent not in report
    diagnosis.evidence = []
    assert "exited with code 3" not in render_markdown(diagnosis, lang="en")


def test_untrusted_text_is_quoted_without_markdown_of_its_own() -> None:
    diagnosis = Diagnosis(
        platform="runai",
        target=Target(name="x", phase="Failed"),
        outcome="diagnosed",
        category="UNKNOWN",
        confidence="LOW",
        root_cause="r",
        evidence=[
            Evidence(
                source="k8s.read_pod_log",
                field="line 3",
                text="<script>alert(1)</script> **bold** `code` [click](http://evil.example)\nsecond line",
            )
        ],
        calls=["k8s.read_pod_log"],
    )
    line = next(
        line for line in render_markdown(diagnosis, lang="en").splitlines() if line.startswith("- Log line")
    )
    assert "<script>" not in line and "\\<script\\>" in line
    assert "\\*\\*bold\\*\\*" in line and "\\`code\\`" in line and "](http" not in line
    assert "second line" in line  # one line: the quote cannot start Markdown blocks of its own


def test_french_report() -> None:
    report = render_markdown(replay_named("runai-oom-killed", lang="fr"), lang="fr")
    lines = report.splitlines()
    assert lines[0] == "Catégorie : OOM_KILLED"
    assert lines[2] == "Workload : llama-sft-7b | Phase : Failed | Projet : nlp-core"
    assert "Preuves :" in lines and "Recommandation :" in lines
    assert "(source : get_workload_pods)" in report
    routed = render_markdown(replay_named("runai-preempted-reclaim", lang="fr"), lang="fr")
    assert routed.splitlines()[0] == "Routé : preempted (pas de catégorie de défaillance)"


def test_questions_show_their_choices() -> None:
    report = render_markdown(replay_named("option-b-all-active"), lang="en")
    assert "Question: Every workload named serve-canary is still active." in report
    assert report.count(f"- `{uid('all-active', '0')}`") == 1


def test_permissions_are_listed_for_a_denied_call() -> None:
    report = render_markdown(replay_named("runai-permission-denied"), lang="en")
    # Option A: the status was refused, so the project is unknown and the cluster is named.
    assert "Permissions needed:" in report and f"workloads on cluster {uid('denied', 'cluster')}" in report
