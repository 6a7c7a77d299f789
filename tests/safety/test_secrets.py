"""Guarantee 2: no planted secret reaches any output, and masking keeps what a diagnosis says."""

from __future__ import annotations

import asyncio
import io
from contextlib import redirect_stderr, redirect_stdout, suppress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli.main import main as cli_main
from diagnosis import engine
from diagnosis.evidence.bundles import parse_bundle
from diagnosis.masking import mask
from tests.masking_corpus import FAKE_JWT
from tests.safety import checks
from tests.safety.bundles import plant_secrets, scenarios
from tests.safety.corpus import fragments, secret_corpus
from tests.safety.leaks import FORMATS, LeakResult
from tests.safety.outputs import haystack, leaked, render_all


@pytest.fixture(scope="module")
def result() -> LeakResult:
    return checks.plant_secrets(checks.SMALL)


def test_no_planted_secret_leaks_in_any_output_format(result: LeakResult) -> None:
    assert result.crashes == []
    assert set(result.planted_by_format) == set(FORMATS), "every output format was attacked"
    assert result.leaked == 0, result.examples
    # The planting is not in vain: the fields were read and shown (next to their masked secrets).
    for format_name in ("markdown", "json", "slack", "bundle", "bot messages"):
        assert result.reached_by_format[format_name] > 0, format_name


def test_masking_keeps_verdicts_and_the_words_of_a_diagnosis(result: LeakResult) -> None:
    assert result.verdicts_compared >= 10
    assert result.verdicts_kept == result.verdicts_compared
    assert result.words_compared > 0 and result.words_kept == result.words_compared
    assert result.not_idempotent == []


def test_the_search_finds_a_secret_whatever_escaping_the_format_adds() -> None:
    secret = "sv=2024&sig=FAKE_<x>"
    assert leaked(secret, haystack("slack", "token: sv=2024&amp;sig=FAKE_&lt;x&gt;"))
    assert leaked(secret, haystack("markdown", r"token: sv=2024&sig=FAKE\_\<x\>"))
    # A cut secret is still found by its distinctive part.
    assert leaked(FAKE_JWT, haystack("json", "evidence: " + FAKE_JWT[:60] + "…"))
    assert not leaked(FAKE_JWT, haystack("json", "evidence: [MASKED:jwt]"))
    assert fragments("xoxp-0000000000-0000000000-FAKEfake0000")[1] == "000-FAKEfake"


def test_a_secret_in_a_log_line_the_workflow_quotes_mid_sentence_is_masked() -> None:
    # The Run:ai workflow quotes the failing line inside a sentence ("failed by itself: …"), where
    # `private_key: …` no longer starts a line: answers are masked on arrival, before any quoting.
    scenario = next(item for item in scenarios("runai") if item.name.endswith("log-injection"))
    data = scenario.bundle.to_json_dict()
    for exchange in data["exchanges"]:
        if exchange["op"] == "k8s.read_pod_log":
            exchange["text"] = exchange["text"].replace(
                "ModuleNotFoundError", "private_key: fakePrivateKeyBody\nModuleNotFoundError"
            )
    diagnosis = asyncio.run(engine.replay(parse_bundle(data)))
    rendered = render_all({"en": diagnosis}).haystacks()
    assert not any(leaked("fakePrivateKeyBody", stack) for stack in rendered.values())


@pytest.mark.parametrize(
    "argv",
    [
        ["runai", "--cluster-id", "c", "--workload-id", "w", "--format", "{carrier}"],
        ["runai", "--cluster-id", "c", "--workload-id", "w", "--as-of", "{carrier}"],
        ["runai", "--cluster-id", "c", "--workload-id", "w", "--query", "{carrier}"],
        ["modelarts", "--job-id", "j", "--region", "{carrier}"],
    ],
    ids=["argparse-choice", "as-of", "query", "region"],
)
def test_cli_error_lines_never_repeat_a_typed_secret(argv: list[str]) -> None:
    for case in secret_corpus():
        out, err = io.StringIO(), io.StringIO()
        # argparse exits (status 2) where the handlers return 2: either way one error line.
        with redirect_stdout(out), redirect_stderr(err), suppress(SystemExit):
            cli_main([part.replace("{carrier}", case.carrier) for part in argv])
        shown = out.getvalue() + err.getvalue()
        assert "error" in shown, shown
        assert not leaked(case.secret, haystack("exceptions", shown)), (case.kind, shown)


def test_planting_covers_every_structured_place_a_secret_hides_in() -> None:
    runai = next(item for item in scenarios("runai") if item.name.endswith("runai-crash-app-error"))
    _bundle, plants = plant_secrets(runai.bundle, secret_corpus())
    places = {plant.where.split("[")[0] for plant in plants}
    for expected in (
        "get_workload_spec:spec.environmentVariables",
        "get_workload_spec:spec.annotations",
        "get_workload_spec:spec.storage",
        "k8s.read_pod_log:text",
        "get_workload_events:events",
    ):
        assert any(place.startswith(expected) for place in places), (expected, sorted(places))


_PIECES = [case.carrier for case in secret_corpus()] + [case.secret for case in secret_corpus()]


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(
        st.one_of(
            st.sampled_from(_PIECES),
            st.sampled_from([":", "::", ".", "]", "[", "=", ": ", "\n", "\\n", '"', "'", " ", "100", "::1"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_masking_twice_changes_nothing_more(parts: list[str]) -> None:
    """Secrets glued to each other and to separators: a second masking pass finds nothing new."""
    once = mask("".join(parts))
    assert mask(once) == once


def test_a_masked_token_followed_by_colons_is_not_an_address() -> None:
    once = mask("eyJabcd.eyJabcd.sig::100")
    assert once == "[MASKED:jwt]::100" and mask(once) == once
