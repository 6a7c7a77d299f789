"""Guarantee 2, no secret leaves: plant the corpus everywhere the product reads, search every output.

Outputs searched, each decoded before searching (outputs.normalise):
- `markdown`, `json`, `slack`: the replayed diagnosis in every language of its platform, rendered
  as the CLI prints it and as the bot posts it (report and follow-up answers);
- `bundle`: a `--capture` bundle of a live run against the simulator serving the planted answers;
- `bot messages`, `bot logs`: `diagnose bot --bundles` over planted bundles, every Web API call and
  uploaded file, and the bot's own log lines as production configures logging;
- `exceptions`: failures whose message carries a secret (an engine error inside the bot, values
  typed into the CLI), as the user and the log see them.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from cli.main import main as cli_main
from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.evidence.capture import build_bundle, write_bundle
from diagnosis.masking import mask, mask_obj
from diagnosis.models import DiagnoseRequest, Diagnosis
from tests.bot.harness import ScriptedBackend
from tests.masking_corpus import PlantedSecret
from tests.safety.bundles import Plant, Scenario, plant_secrets
from tests.safety.corpus import secret_corpus
from tests.safety.detector import DetectorResult
from tests.safety.detector import scan as detector_scan
from tests.safety.live import LiveRig, environment
from tests.safety.outputs import (
    Haystack,
    haystack,
    leaked,
    render_all,
    replay_all_languages,
    strings_in,
    verdict,
)
from tests.safety.slackbot import bot_running, bundles_backend, unique_commands

T = TypeVar("T")

FORMATS = ("markdown", "json", "slack", "bundle", "bot messages", "bot logs", "exceptions")

# Words a diagnosis is made of that masking must keep: exception names, error codes, reasons.
_KEPT_WORD = re.compile(
    r"\b(?:[A-Z][A-Za-z]*(?:Error|Exception|Killed|Exceeded|BackOff|Failed|Evicted)"
    r"|[A-Z][A-Za-z]+\.\d{4}|[A-Z]{2,}\d{4,}|exit code \d+)\b"
)


@dataclass
class LeakResult:
    planted_by_format: Counter[str] = field(default_factory=Counter)
    reached_by_format: Counter[str] = field(default_factory=Counter)
    leaked_by_format: Counter[str] = field(default_factory=Counter)
    # `format: scenario field (kind)`, never the secret itself.
    examples: list[str] = field(default_factory=list)
    verdicts_kept: int = 0
    verdicts_compared: int = 0
    words_kept: int = 0
    words_compared: int = 0
    not_idempotent: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    reached_by_scenario: Counter[str] = field(default_factory=Counter)
    # The credential family of each plant (`wandb`, `azure`, …; `first corpus` for the others).
    planted_by_family: Counter[str] = field(default_factory=Counter)
    leaked_by_family: Counter[str] = field(default_factory=Counter)
    # What a reader sees of each output, line by line, for the independent detector.
    shown_lines: dict[str, set[str]] = field(default_factory=dict)
    detector: DetectorResult | None = None

    @property
    def planted(self) -> int:
        return sum(self.planted_by_format.values())

    @property
    def leaked(self) -> int:
        return sum(self.leaked_by_format.values())

    def count(
        self,
        format_name: str,
        plants: Sequence[Plant],
        stack: Haystack,
        *,
        scenario: str,
        baseline: Haystack | None = None,
    ) -> None:
        self.shown_lines.setdefault(format_name, set()).update(stack.shown_lines)
        for plant in plants:
            family = plant.case.family or "first corpus"
            self.planted_by_format[format_name] += 1
            self.planted_by_family[family] += 1
            if plant.probe is not None and plant.probe in stack:
                self.reached_by_format[format_name] += 1
                self.reached_by_scenario[scenario] += 1
            if leaked(plant.case.secret, stack, baseline=baseline):
                self.leaked_by_format[format_name] += 1
                self.leaked_by_family[family] += 1
                if len(self.examples) < 50:
                    self.examples.append(f"{format_name}: {scenario} {plant.where} ({plant.case.kind})")


@dataclass(frozen=True)
class PlantedScenario:
    scenario: Scenario
    bundle: Bundle
    plants: list[Plant]

    @property
    def key(self) -> str:
        return json.dumps([self.bundle.platform, self.bundle.request], sort_keys=True)


def _kept_words(diagnosis: Diagnosis) -> set[str]:
    return set(_KEPT_WORD.findall(json.dumps(diagnosis.to_json_dict(), ensure_ascii=False)))


def _failure(where: str, exc: Exception) -> str:
    return f"{where}: {type(exc).__name__}: {mask(str(exc))[:200]}"


async def _replayed_formats(result: LeakResult, items: Sequence[PlantedScenario]) -> None:
    for item in items:
        name = item.scenario.name
        try:
            original = await replay_all_languages(item.scenario.bundle)
            diagnoses = await replay_all_languages(item.bundle)
        except Exception as exc:  # counted, never raised: the figures must come out
            result.crashes.append(_failure(f"replay {name}", exc))
            continue
        base, out = render_all(original).haystacks(), render_all(diagnoses)
        for format_name, stack in out.haystacks().items():
            result.count(format_name, item.plants, stack, scenario=name, baseline=base[format_name])
        before, after = next(iter(original.values())), next(iter(diagnoses.values()))
        result.verdicts_compared += 1
        result.verdicts_kept += verdict(before) == verdict(after)
        words = _kept_words(before)
        result.words_compared += len(words)
        result.words_kept += len(words & _kept_words(after))
        for lang, diagnosis in diagnoses.items():
            data = diagnosis.to_json_dict()
            if mask_obj(data) != data or mask(out.markdown[lang]) != out.markdown[lang]:
                result.not_idempotent.append(f"{name} ({lang})")


async def _captured_bundles(result: LeakResult, items: Sequence[PlantedScenario]) -> None:
    with LiveRig() as rig, tempfile.TemporaryDirectory(prefix="safety-capture-") as folder:
        for number, item in enumerate(items):
            rig.serve(item.bundle)
            try:
                live = await rig.diagnose(item.bundle, capture=True)
            except Exception as exc:
                result.crashes.append(_failure(f"capture {item.scenario.name}", exc))
                continue
            if live.recorder is None:
                continue
            request = engine.request_from_bundle(item.bundle)
            target = Path(folder) / f"captured-{number}.bundle.json"
            write_bundle(target, build_bundle(request, live.recorder, captured_at=item.bundle.captured_at))
            captured = json.loads(target.read_text(encoding="utf-8"))
            result.count(
                "bundle",
                item.plants,
                haystack("bundle", strings_in(captured)),
                scenario=item.scenario.name,
                baseline=haystack("bundle", strings_in(item.scenario.bundle.to_json_dict())),
            )


def _bot_outputs(result: LeakResult, items: Sequence[PlantedScenario], *, limit: int) -> None:
    by_key = {item.key: item for item in items}
    with tempfile.TemporaryDirectory(prefix="safety-bundles-") as folder:
        backend = bundles_backend([item.bundle for item in items], Path(folder))
        answerable = [
            (by_key[json.dumps([bundle.platform, bundle.request], sort_keys=True)], command)
            for bundle, command in unique_commands(backend)
        ]
        # The scenarios whose planted text the reports show most: the bot gets the most to leak.
        answerable.sort(key=lambda pair: -result.reached_by_scenario[pair[0].scenario.name])
        chosen = answerable[:limit]
        with bot_running(backend=backend) as run:
            for _item, command in chosen:
                run.ask(command)
            sent = haystack("bot messages", run.sent())
            logs = haystack("bot logs", run.logs.getvalue())
    for item, _command in chosen:
        result.count("bot messages", item.plants, sent, scenario=item.scenario.name)
        result.count("bot logs", item.plants, logs, scenario=item.scenario.name)


def _engine_failures_in_the_bot(result: LeakResult, cases: Sequence[PlantedSecret]) -> None:
    """The engine fails with a secret in its message: what the user is told and what is logged."""
    pending = list(cases)

    def explode(request: DiagnoseRequest) -> Diagnosis:
        case = pending.pop(0)
        raise RuntimeError(f"{case.carrier}\nwhile reading the workload")

    backend = ScriptedBackend(answer=explode, steps=())
    with bot_running(backend=backend) as run:
        for _case in cases:
            run.ask("runai cluster=c0ffee00-0000-4000-8000-000000000001 workload=w project=p", follow_ups=())
        stack = haystack("exceptions", [*run.sent(), run.logs.getvalue()])
    plants = [Plant(None, case, "engine exception in the bot") for case in cases]
    result.count("exceptions", plants, stack, scenario="bot")


def _cli_argv(case: PlantedSecret) -> list[list[str]]:
    """Command lines a person could type with a secret in the wrong place."""
    value = case.carrier
    return [
        ["runai", "--cluster-id", "c", "--workload-id", "w", "--format", value],
        ["runai", "--cluster-id", "c", "--workload-id", "w", "--lookback", value],
        ["runai", "--cluster-id", "c", "--workload-id", "w", "--query", value],
        ["runai", "--cluster-id", "c", "--workload-id", "w", "--as-of", value],
        ["modelarts", "--job-id", "j", "--region", value],
        ["explain", value],
    ]


def _cli_failures(result: LeakResult, cases: Sequence[PlantedSecret]) -> None:
    """Typed secrets that the CLI refuses: its error lines must not repeat them."""
    for case in cases:
        for argv in _cli_argv(case):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    cli_main(argv)
                except SystemExit:
                    pass
                except Exception as exc:
                    result.crashes.append(f"cli {argv[0]}: {type(exc).__name__}")
            stack = haystack("exceptions", [out.getvalue(), err.getvalue()])
            result.count(
                "exceptions", [Plant(None, case, f"cli {argv[0]} {argv[-2]}")], stack, scenario="cli"
            )


# Configuration the product reads, holding a secret, that leads to an error the user sees.
_CONFIGURATIONS: tuple[tuple[str, dict[str, str], list[str]], ...] = (
    (
        "s3cr3tP4ss",
        {
            "RUNAI_URL": "ftp://deploy:s3cr3tP4ss@runai.example.com",
            "RUNAI_CLIENT_ID": "c",
            "RUNAI_CLIENT_SECRET": "x",
        },
        ["runai", "--cluster-id", "c", "--workload-id", "w"],
    ),
    (
        "pgPass0rd",
        {
            "RUNAI_URL": "http://deploy:pgPass0rd@127.0.0.1:9",
            "RUNAI_CLIENT_ID": "c",
            "RUNAI_CLIENT_SECRET": "x",
        },
        ["runai", "--cluster-id", "c", "--workload-id", "w", "--format", "json"],
    ),
)


def _configuration_failures(result: LeakResult) -> None:
    """Secrets in the configuration the CLI reads (a URL with a password, a client secret) that
    end in an error: neither the error line nor the report repeats them."""
    for secret, values, argv in _CONFIGURATIONS:
        out, err = io.StringIO(), io.StringIO()
        removed = ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "DIAGNOSE_NOW")
        with (
            environment({**values, "KUBECONFIG": "/nonexistent/kubeconfig"}, remove=removed),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            try:
                cli_main(argv)
            except SystemExit:
                pass
            except Exception as exc:
                result.crashes.append(f"cli {argv[0]} with a bad configuration: {type(exc).__name__}")
        case = PlantedSecret("configuration", secret, f"{values}")
        stack = haystack("exceptions", [out.getvalue(), err.getvalue()])
        result.count(
            "exceptions", [Plant(None, case, f"configuration {sorted(values)}")], stack, scenario="cli"
        )


def plant_everywhere(
    scenarios: Sequence[Scenario], *, captured: int, bot_bundles: int, exception_cases: int
) -> LeakResult:
    """Plant the corpus into every scenario and search every output (see the module docstring)."""
    cases = secret_corpus()
    result = LeakResult()
    items: list[PlantedScenario] = []
    offset = 0
    for scenario in scenarios:
        bundle, plants = plant_secrets(scenario.bundle, cases, start=offset)
        offset += len(plants)
        items.append(PlantedScenario(scenario, bundle, plants))
    asyncio.run(_replayed_formats(result, items))
    asyncio.run(_captured_bundles(result, spread_evenly(items, captured)))
    _bot_outputs(result, items, limit=bot_bundles)
    chosen = spread_evenly(cases, exception_cases)
    _engine_failures_in_the_bot(result, chosen)
    _cli_failures(result, chosen)
    _configuration_failures(result)
    result.detector = detector_scan(result.shown_lines)
    return result


def spread_evenly(items: Sequence[T], count: int) -> list[T]:
    """`count` items taken at even steps through the list (all of them when there are fewer)."""
    if count >= len(items):
        return list(items)
    step = len(items) / count
    return [items[int(index * step)] for index in range(count)]
