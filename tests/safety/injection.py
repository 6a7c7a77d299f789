"""Guarantee 3, untrusted text stays data: hostile log lines and event messages, one string at a time.

Each injection string is added to every free-text field and log of a scenario; the planted run
must keep the unplanted run's verdict (outcome, category, route, confidence) and its `calls`
(nothing extra fetched), and render inert:
- Slack messages (the report and the follow-up answers) hold no control sequence Slack acts on
  (`<!…>`, `<@…>`, `<#…>`, `<https://…|…>`, `<mailto:…>`), no direction-changing character, and
  stay within Block Kit's limits;
- the Markdown report keeps the structure of the unplanted one (same headings, lists, tables,
  links, code spans, emphasis: markdown-it tokens), with no raw HTML and no direction override.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from markdown_it import MarkdownIt

from blocks.kit import SlackMessage
from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.masking import mask
from diagnosis.models import Diagnosis
from diagnosis.render import render_markdown
from tests.blocks.checks import assert_message_within_limits
from tests.safety.bundles import Scenario, plant_text
from tests.safety.corpus import INJECTIONS, Injection
from tests.safety.outputs import slack_messages, slack_strings, verdict

# What Slack would act on in a mrkdwn text: `<!channel>`, `<@U…>`, `<#C…>`, `<https://…|…>`, `<mailto:…>`.
SLACK_CONTROL = re.compile(r"<(?:[!@#]|[a-z][a-z0-9+.\-]*:)", re.IGNORECASE)
# Characters that reorder what follows them (Trojan Source): overrides, embeddings, isolates, marks.
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
_ACTIVE_INLINE = frozenset({"link_open", "image", "html_inline"})


@dataclass
class InjectionResult:
    tried_by_kind: Counter[str] = field(default_factory=Counter)
    reached_by_kind: Counter[str] = field(default_factory=Counter)
    inert_by_kind: Counter[str] = field(default_factory=Counter)
    verdicts_changed: list[str] = field(default_factory=list)
    calls_changed: list[str] = field(default_factory=list)
    # `scenario: injection kind: what went wrong`
    failures: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)

    @property
    def tried(self) -> int:
        return sum(self.tried_by_kind.values())

    @property
    def inert(self) -> int:
        return sum(self.inert_by_kind.values())


def markdown_shape(markdown: str) -> list[str]:
    """The structure of a Markdown document: its blocks (headings, lists, tables, quotes, code
    blocks, rules, raw HTML) and the inline tokens that act (links, images, raw HTML). Emphasis
    and code spans are left out: inside a quoted line they change no layout and link nothing."""
    shape: list[str] = []
    for token in _MARKDOWN.parse(markdown):
        if token.type != "inline":
            shape.append(f"{token.type}:{token.tag}")
        shape.extend(child.type for child in token.children or [] if child.type in _ACTIVE_INLINE)
    return shape


def slack_problems(messages: Sequence[SlackMessage]) -> list[str]:
    problems: list[str] = []
    for text in slack_strings(messages):
        control = SLACK_CONTROL.search(text)
        if control:
            problems.append(f"Slack control sequence {text[control.start() : control.start() + 16]!r}")
        if BIDI.search(text):
            problems.append("direction-changing character in a Slack message")
    for message in messages:
        try:
            assert_message_within_limits(message.payload())
        except AssertionError as exc:
            problems.append(f"Slack message outside Block Kit limits ({str(exc).splitlines()[0][:80]})")
    return problems


def markdown_problems(planted: str, original: str) -> list[str]:
    problems: list[str] = []
    if markdown_shape(planted) != markdown_shape(original):
        problems.append("Markdown structure changed")
    if BIDI.search(planted):
        problems.append("direction-changing character in the Markdown report")
    return problems


@dataclass
class _Baseline:
    diagnosis: Diagnosis
    markdown: str


def probe_for(number: int) -> str:
    return f"zqinj{number:03d}q"


async def _baseline(bundle: Bundle, lang: str) -> _Baseline:
    diagnosis = await engine.replay(bundle, lang=lang)
    return _Baseline(diagnosis, render_markdown(diagnosis, lang=lang))


async def _attack(
    result: InjectionResult,
    scenario: Scenario,
    number: int,
    injection: Injection,
    baselines: dict[str, _Baseline],
) -> None:
    text = f"{injection.text} {probe_for(number)}"
    planted, sites = plant_text(scenario.bundle, text)
    if not sites:
        return
    result.tried_by_kind[injection.kind] += 1
    problems: list[str] = []
    reached = False
    for lang, base in baselines.items():
        diagnosis = await engine.replay(planted, lang=lang)
        if verdict(diagnosis) != verdict(base.diagnosis):
            result.verdicts_changed.append(f"{scenario.name}: {injection.kind}")
            problems.append(f"verdict {verdict(base.diagnosis)} became {verdict(diagnosis)}")
        if diagnosis.calls != base.diagnosis.calls:
            result.calls_changed.append(f"{scenario.name}: {injection.kind}")
            problems.append("calls changed")
        markdown = render_markdown(diagnosis, lang=lang)
        messages = slack_messages(diagnosis, lang=lang)
        probe = probe_for(number)
        reached = reached or probe in markdown or any(probe in text for text in slack_strings(messages))
        problems += slack_problems(messages) + markdown_problems(markdown, base.markdown)
    if reached:
        result.reached_by_kind[injection.kind] += 1
    if problems:
        for problem in dict.fromkeys(problems):
            result.failures.append(f"{scenario.name}: {injection.kind}: {problem}")
    else:
        result.inert_by_kind[injection.kind] += 1


async def _run(
    result: InjectionResult,
    scenarios: Sequence[Scenario],
    injections: Sequence[Injection],
    *,
    all_languages: bool,
) -> None:
    for scenario in scenarios:
        platform = engine.backend(scenario.bundle.platform)
        languages = platform.languages if all_languages else platform.languages[:1]
        try:
            baselines = {lang: await _baseline(scenario.bundle, lang) for lang in languages}
        except Exception as exc:
            result.crashes.append(f"{scenario.name}: baseline: {type(exc).__name__}: {mask(str(exc))[:160]}")
            continue
        for number, injection in enumerate(injections):
            try:
                await _attack(result, scenario, number, injection, baselines)
            except Exception as exc:  # counted as a crash: the figures must come out
                result.crashes.append(
                    f"{scenario.name}: {injection.kind}: {type(exc).__name__}: {mask(str(exc))[:160]}"
                )


def inject_untrusted(
    scenarios: Sequence[Scenario],
    *,
    injections: Sequence[Injection] = INJECTIONS,
    all_languages: bool = False,
) -> InjectionResult:
    """Every injection string into every free-text field and log of every scenario, one at a time."""
    result = InjectionResult()
    asyncio.run(_run(result, scenarios, injections, all_languages=all_languages))
    return result
