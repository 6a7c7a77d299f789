"""Report preview: the bot's Block Kit message as safe, self-contained HTML, and a real Chromium PNG."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from blocks.preview.chromium import PreviewError, chromium_command, find_chromium, screenshot
from blocks.preview.html import ThreadFile, render_html
from blocks.preview.text import mrkdwn_to_html
from blocks.report import report_message
from cli.main import main
from cli.preview import bot_message
from diagnosis.models import Diagnosis, Evidence, Measurements, Recommendation, Target
from diagnosis.render.charts.figure import png_size
from tests.conftest import EXAMPLES

OOM_BUNDLE = EXAMPLES / "runai-optb-oom-recurring.bundle.json"
HOSTILE_LOG_LINE = '<script>alert("x")</script> <!channel> <@U0ADMIN> <https://evil.example/|click me> & done'


def hostile_diagnosis() -> Diagnosis:
    return Diagnosis(
        platform="runai",
        target=Target(workload_id="w-1", name="train-<b>bold</b>", project="ml", phase="Failed"),
        outcome="diagnosed",
        category="CRASH_APP_ERROR",
        confidence="MEDIUM",
        root_cause="The job crashed: `RuntimeError` in **train.py**.",
        signature="RuntimeError: boom",
        evidence=[
            Evidence(source="k8s.read_pod_log", field="log", text=HOSTILE_LOG_LINE),
            Evidence(
                source="k8s.read_pod_log",
                field="log",
                text="Traceback (most recent call last):\n  <module>\nRuntimeError: boom",
            ),
        ],
        measurements=Measurements(exit_code=1),
        recommendations=[Recommendation(text="Fix the import in `train.py`.", changes_resources=False)],
        limitations=["No metrics were read."],
        calls=["get_workload_status", "k8s.read_pod_log"],
    )


def visible_text(page: str) -> str:
    """The text a reader sees: tags removed, entities decoded."""
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", page))


# ---- HTML -------------------------------------------------------------------------------------


def test_a_log_line_cannot_inject_markup_or_mentions() -> None:
    message = report_message(hostile_diagnosis(), lang="en").payload()
    page = render_html(message)
    lowered = page.lower()
    assert "<script" not in lowered
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "<!channel>" not in page
    assert "&lt;!channel&gt;" in page
    assert 'class="broadcast"' not in page  # shown as text, not as an @channel
    assert "<b>bold</b>" not in page  # the job name's tags are text too
    assert "train-&lt;b&gt;bold&lt;/b&gt;" in page
    # The reader sees the log line exactly as it was written.
    assert HOSTILE_LOG_LINE in visible_text(page)


def test_the_page_loads_nothing_from_outside() -> None:
    chart = ThreadFile(title="memory.png: memory use vs limit", png=b"\x89PNG\r\n\x1a\nfake")
    page = render_html(report_message(hostile_diagnosis(), lang="en").payload(), thread_files=[chart])
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "<link" not in page and "<script" not in page.lower() and "@import" not in page
    sources = re.findall(r'\s(?:src|href)="([^"]*)"', page)
    assert sources == ["data:image/png;base64,iVBORw0KGgpmYWtl"]
    # A real mrkdwn link is shown by its label only, never as a clickable address.
    linked = render_html(
        {"blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "<https://evil.example/|docs>"}}]}
    )
    assert "evil.example" not in linked and '<span class="link">docs</span>' in linked


def test_report_structure_looks_like_slack() -> None:
    diagnosis = hostile_diagnosis()
    page = render_html(bot_message(diagnosis, lang="en").payload())
    assert '<div class="block header">' in page
    assert "CRASH_APP_ERROR · Failed" in visible_text(page)
    assert '<div class="fields">' in page and "<b>Workload</b>" in page and "<b>Confidence</b>" in page
    assert '<hr class="divider">' in page
    assert '<span class="button">Re-run</span>' in page  # the bot's button on a diagnosed report
    assert "<b>Root cause</b>" in page and "<code>RuntimeError</code>" in page
    assert "<pre>Traceback (most recent call last):\n  &lt;module&gt;\nRuntimeError: boom</pre>" in page
    assert '<div class="block context">' in page and "<code>k8s.read_pod_log</code>" in page


def test_permission_denied_preview_has_the_retry_button() -> None:
    diagnosis = Diagnosis(platform="modelarts", target=Target(job_id="j-1"), outcome="permission_denied")
    page = render_html(bot_message(diagnosis, lang="en").payload())
    assert '<span class="button primary">Retry</span>' in page
    assert "Full-log link" in page


@pytest.mark.parametrize(
    ("mrkdwn", "html"),
    [
        ("*Root cause*", "<b>Root cause</b>"),
        ("_get_workload_status_ and snake_case_name", "<i>get_workload_status</i> and snake_case_name"),
        ("~gone~", "<s>gone</s>"),
        ("`a &lt;b&gt; &amp; c`", "<code>a &lt;b&gt; &amp; c</code>"),
        ("```\nline 1\n&lt;tag&gt;\n```", "<pre>line 1\n&lt;tag&gt;</pre>"),
        ("&gt; not a quote\n> a quote", "&gt; not a quote<br><blockquote>a quote</blockquote>"),
        ("<https://runai.example/x|the workload>", '<span class="link">the workload</span>'),
        (
            "<@U123> <#C42|ops> <!here>",
            '<span class="mention">@U123</span> <span class="mention">#ops</span> '
            '<span class="broadcast">@here</span>',
        ),
        ("at 10:30:00 :no_such_emoji:", "at 10:30:00 :no_such_emoji:"),
    ],
)
def test_mrkdwn_becomes_html(mrkdwn: str, html: str) -> None:
    assert mrkdwn_to_html(mrkdwn) == html


def test_rich_text_and_other_blocks() -> None:
    message: dict[str, Any] = {
        "text": "fallback",
        "blocks": [
            {
                "type": "rich_text",
                "elements": [
                    {
                        "type": "rich_text_section",
                        "elements": [
                            {"type": "text", "text": "exit ", "style": {"bold": True}},
                            {"type": "text", "text": "<137>", "style": {"code": True}},
                            {"type": "broadcast", "range": "here"},
                        ],
                    },
                    {
                        "type": "rich_text_preformatted",
                        "elements": [{"type": "text", "text": "<img src=x onerror=y>"}],
                    },
                    {
                        "type": "rich_text_list",
                        "style": "ordered",
                        "elements": [
                            {"type": "rich_text_section", "elements": [{"type": "text", "text": "one"}]}
                        ],
                    },
                ],
            },
            {"type": "image", "image_url": "https://tracker.example/pixel.png", "alt_text": "chart"},
            {"type": "input", "label": {"type": "plain_text", "text": "x"}},
        ],
    }
    page = render_html(message)
    assert "<b>exit </b><code>&lt;137&gt;</code>" in page
    assert '<span class="broadcast">@here</span>' in page  # a real broadcast element is one
    assert "<pre>&lt;img src=x onerror=y&gt;</pre>" in page
    assert "<ol><li>one</li></ol>" in page
    assert "tracker.example" not in page and "[image not loaded in the preview: chart]" in page
    assert "[input block]" in page


def test_message_without_blocks_shows_its_text() -> None:
    page = render_html({"text": "*hello* &lt;world&gt;"})
    assert "<b>hello</b> &lt;world&gt;" in page


# ---- Chromium ---------------------------------------------------------------------------------


def test_chromium_runs_without_network_features(tmp_path: Path) -> None:
    command = chromium_command(
        "/usr/bin/chromium",
        tmp_path / "r.html",
        tmp_path / "r.png",
        width=1000,
        height=800,
        profile_dir=tmp_path,
    )
    for flag in (
        "--headless",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
        f"--user-data-dir={tmp_path}",
        "--window-size=1000,800",
    ):
        assert flag in command
    assert command[-1] == (tmp_path / "r.html").resolve().as_uri()


def test_missing_chromium_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PreviewError, match="Chromium was not found on PATH"):
        find_chromium()


def test_preview_cli_without_chromium_keeps_the_html_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    code = main(["preview", str(OOM_BUNDLE), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert "Chromium was not found on PATH" in err and "report.html was written" in err
    assert (tmp_path / "out" / "report.html").is_file()
    assert png_size((tmp_path / "out" / "memory.png").read_bytes()) == (1200, 600)


def require_chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "headless Chromium is needed for the preview screenshot: apt-get install chromium"
    return found


@pytest.fixture(scope="module")
def preview_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real `diagnose preview` of the worked OOM example (starts Chromium itself)."""
    require_chromium()
    out = tmp_path_factory.mktemp("preview")
    assert main(["preview", str(OOM_BUNDLE), "--out", str(out), "--width", "1000"]) == 0
    return out


def test_preview_writes_a_screenshot_of_the_report(preview_dir: Path) -> None:
    png = (preview_dir / "report.png").read_bytes()
    width, height = png_size(png)
    assert width == 1000
    # The whole report (header to footer and the chart in the thread) is in the picture,
    # and the empty window below it is cropped away.
    assert 800 < height < 4000


def test_preview_page_holds_the_report_and_the_chart(preview_dir: Path) -> None:
    page = (preview_dir / "report.html").read_text(encoding="utf-8")
    text = visible_text(page)
    assert "OOM_KILLED · Failed" in text
    assert "segformer-finetune" in text
    assert "16903045120" in text  # the measured peak, quoted as evidence
    assert 'src="data:image/png;base64,' in page
    assert png_size((preview_dir / "memory.png").read_bytes()) == (1200, 600)


def test_screenshot_has_the_window_size_when_given(tmp_path: Path) -> None:
    require_chromium()
    page = tmp_path / "page.html"
    page.write_text(render_html(report_message(hostile_diagnosis(), lang="en").payload()), encoding="utf-8")
    taken = screenshot(page, tmp_path / "shot.png", width=640, height=480)
    assert png_size(taken.read_bytes()) == (640, 480)
