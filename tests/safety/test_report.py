"""`python -m tests.safety.report`: the figures table, and an exit status that fails on a breach."""

from __future__ import annotations

import pytest

from tests.safety import report


def test_the_table_lines_up_and_the_report_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert report.main(["--only", "read-only"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("|")]
    assert lines[0].startswith("| Figure") and len({len(line) for line in lines}) == 1
    assert any(line.startswith("| Requests checked / not read-only") for line in lines)


def test_a_breach_fails_the_report(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def breached(figures: report.Figures, profile: object) -> None:
        figures.row("Requests checked / not read-only", 3, 1)
        figures.problems.append("write: demo: DELETE /api/v1/workloads/w1")

    monkeypatch.setitem(report.SECTIONS, "read-only", breached)
    assert report.main(["--only", "read-only"]) == 1
    assert "DELETE /api/v1/workloads/w1" in capsys.readouterr().err
