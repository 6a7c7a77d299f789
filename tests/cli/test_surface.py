"""One surface: a command typed wrong is answered under that subcommand's usage, the region-wide
ModelArts scan is `diagnose modelarts scan` (a bare `diagnose modelarts` is a usage error), and a
configuration value that cannot be used says what is checked."""

from __future__ import annotations

import pytest

from cli.main import main


def exit_status(argv: list[str]) -> int:
    """What the shell sees: argparse's own errors end the process with status 2."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def usage_and_reason(capsys: pytest.CaptureFixture[str]) -> tuple[list[str], str]:
    *usage, reason = capsys.readouterr().err.strip().splitlines()
    return usage, reason


@pytest.mark.parametrize(
    ("argv", "prog", "needle"),
    [
        (["runai", "--bogus"], "diagnose runai", "unrecognized arguments: --bogus"),
        (["runai", "scan", "--cluster-id", "c", "--bogus"], "diagnose runai scan", "unrecognized arguments"),
        (["runai", "--workload-id", "w"], "diagnose runai", "--cluster-id is required"),
        (["modelarts"], "diagnose modelarts", "diagnose modelarts scan"),
        (["modelarts", "--region", "cn-north-4"], "diagnose modelarts", "give --job-id or --job-name"),
        (
            ["modelarts", "scan", "--bundle", "a.json", "--capture", "b.json"],
            "diagnose modelarts scan",
            "--capture",
        ),
        (
            ["runai", "scan", "--cluster-id", "c", "--bundle", "a", "--capture", "b"],
            "diagnose runai scan",
            "--capture",
        ),
        (["modelarts", "scan", "--concurrency", "0"], "diagnose modelarts scan", "--concurrency"),
        (["try"], "diagnose try", "name a scenario"),
    ],
)
def test_a_usage_error_shows_the_usage_of_the_subcommand_typed(
    argv: list[str], prog: str, needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_status(argv) == 2
    usage, reason = usage_and_reason(capsys)
    assert usage and usage[0].startswith(f"usage: {prog} ")
    assert reason.startswith(f"{prog}: error: ") and needle in reason


def test_missing_configuration_is_one_line_without_a_usage(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("RUNAI_URL", "RUNAI_CLIENT_ID", "RUNAI_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    assert main(["runai", "--cluster-id", "c", "--workload-id", "w"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("diagnose: error: Run:ai is not configured")


@pytest.mark.parametrize(
    "url",
    ["acme.run.ai", "ftp://acme.run.ai", "https://", "https://acme.run.ai?tenant=1", "https://a b.run.ai"],
)
def test_runai_url_validation_says_what_it_checks(
    url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RUNAI_URL", url)
    monkeypatch.setenv("RUNAI_CLIENT_ID", "id")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "secret")
    assert main(["runai", "--cluster-id", "c", "--workload-id", "w"]) == 2
    err = capsys.readouterr().err
    for checked in ("https:// (or http://)", "a host name", "user:password@", "?query", "#fragment"):
        assert checked in err
    assert repr(url) in err


def test_a_password_in_runai_url_is_never_echoed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RUNAI_URL", "https://admin:Hunter2Hunter2@acme.run.ai")
    monkeypatch.setenv("RUNAI_CLIENT_ID", "id")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "secret")
    assert main(["runai", "--cluster-id", "c", "--workload-id", "w"]) == 2
    err = capsys.readouterr().err
    assert "Hunter2" not in err and "acme.run.ai" in err
