"""Recurring causes of a scan: what counts, how often, in what order, and that values are masked."""

from __future__ import annotations

from diagnosis.scan.recurring import ScanMember, cell, recurring_causes


def test_only_diagnosed_jobs_count_and_each_job_once_per_value() -> None:
    members = [
        ScanMember("a", "diagnosed", signature="OOMKilled", images=("img:1", "img:1 "), nodes=("n1",)),
        ScanMember("b", "diagnosed", signature="OOMKilled", images=("img:1",), nodes=("n2",)),
        ScanMember("c", "permission_denied", images=("img:1",), nodes=("n1",)),
        ScanMember("d", "diagnosed", signature=None, images=(), nodes=("n1",)),
    ]
    found = [(cause.kind, cause.value, cause.workloads) for cause in recurring_causes(members)]
    assert found == [
        ("signature", "OOMKilled", ("a", "b")),
        ("image", "img:1", ("a", "b")),
        ("node", "n1", ("a", "d")),
    ]


def test_larger_groups_come_first_and_single_jobs_are_no_cause() -> None:
    members = [ScanMember(name, "diagnosed", nodes=("n9",)) for name in "xyz"]
    members += [ScanMember("p", "diagnosed", signature="E1"), ScanMember("q", "diagnosed", signature="E1")]
    members += [ScanMember("r", "diagnosed", signature="E2")]
    causes = recurring_causes(members)
    assert [(cause.kind, cause.count) for cause in causes] == [("node", 3), ("signature", 2)]


def test_json_values_and_names_are_masked() -> None:
    members = [ScanMember(name, "diagnosed", images=("10.2.3.4:5000/team/train:1",)) for name in ("a", "b")]
    data = recurring_causes(members)[0].to_json_dict()
    assert "10.2.3.4" not in data["value"] and data["count"] == 2 and data["workloads"] == ["a", "b"]


def test_cell_is_one_bounded_line_without_table_breakers() -> None:
    assert cell("a | b\n`c`", 100) == "a \\| b 'c'"
    assert len(cell("x" * 500, 50)) == 50
