"""`python -m tests.safety.report [--quick|--full]`: run the safety suite and print its figures.

The table (Markdown, as docs/safety.md shows it) gives, per guarantee, what was tried and what held;
the lines below it give detail (planted secrets that reached an output, verdicts kept, fault
kinds, timings). The exit status is 1 if a secret leaked, anything crashed, a verdict
changed, untrusted text was not inert, a fault was not survived or hung, a request was not
read-only, or an access attack got through; 0 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bench import parsing
from tests.safety import checks, deadlines
from tests.safety.corpus import secret_corpus
from tests.safety.detector import detector_recall
from tests.safety.leaks import FORMATS

FORMAT_LABELS = {
    "markdown": "Markdown reports",
    "json": "diagnosis JSON",
    "slack": "Slack blocks",
    "bundle": "captured bundles",
    "bot messages": "bot messages and uploads",
    "bot logs": "bot log lines",
    "exceptions": "exception messages",
}


@dataclass
class Figures:
    rows: list[tuple[str, int, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    def row(self, label: str, count: int, outcome: int) -> None:
        self.rows.append((label, count, outcome))

    def table(self) -> str:
        width = max(len(label) for label, _count, _outcome in self.rows)
        lines = [
            f"| {'Figure':<{width}} | {'Count':>7} | {'Result':>7} |",
            f"|{'-' * (width + 2)}|{'-' * 8}:|{'-' * 8}:|",
        ]
        lines += [f"| {label:<{width}} | {count:>7} | {outcome:>7} |" for label, count, outcome in self.rows]
        return "\n".join(lines)


def _secrets(figures: Figures, profile: checks.Profile) -> None:
    result = checks.plant_secrets(profile)
    for name in FORMATS:
        planted = result.planted_by_format[name]
        if planted:
            figures.row(
                f"Secrets planted / leaked: {FORMAT_LABELS[name]}", planted, result.leaked_by_format[name]
            )
    reached = ", ".join(f"{FORMAT_LABELS[name]} {count}" for name, count in result.reached_by_format.items())
    figures.notes.append(f"planted text seen in the output (field read and shown): {reached}")
    figures.notes.append(
        f"verdicts kept with secrets planted: {result.verdicts_kept}/{result.verdicts_compared}; exception "
        f"names, error codes and reasons kept: {result.words_kept}/{result.words_compared}; outputs that "
        f"masking would change again: {len(result.not_idempotent)}"
    )
    width = max(len("Credential family"), *(len(family) for family in result.planted_by_family))
    rows = [
        f"| {'Credential family':<{width}} | Planted |  Leaked |",
        f"|{'-' * (width + 2)}|--------:|--------:|",
    ]
    rows += [
        f"| {family:<{width}} | {result.planted_by_family[family]:>7} | {result.leaked_by_family[family]:>7} |"
        for family in sorted(result.planted_by_family)
    ]
    figures.tables.append("\n".join(rows))
    detector = result.detector
    if detector is not None:
        figures.row("Detector (detect-secrets) lines scanned / findings", detector.lines, detector.findings)
        by_format = ", ".join(
            f"{FORMAT_LABELS[name]} {detector.lines_by_format[name]}/{detector.findings_by_format[name]}"
            for name in FORMATS
            if name in detector.lines_by_format
        )
        flagged, carriers = detector_recall(secret_corpus())
        figures.notes.append(
            f"the same detector on the corpus before masking flags {flagged} of {carriers} carriers "
            "(what it has no plugin for, the suite's own leak search finds)"
        )
        figures.notes.append(
            f"detector findings: {detector.findings} ({len(detector.plugins)} detect-secrets plugins, default "
            f"settings; lines/findings by output: {by_format}; findings that were only our markers or "
            f"address tokens: {detector.allowed})"
        )
        figures.problems += [f"detector: {line}" for line in detector.examples]
    if result.leaked:
        figures.problems += [f"leak: {line}" for line in result.examples]
    if result.words_kept != result.words_compared or result.not_idempotent:
        figures.problems.append(
            f"masking changed the diagnosis words or is not idempotent: {result.not_idempotent[:5]}"
        )
    figures.problems += [f"crash: {line}" for line in result.crashes]


def _injection(figures: Figures, profile: checks.Profile) -> None:
    result = checks.inject_untrusted(profile)
    figures.row("Injection strings tried / rendered inert", result.tried, result.inert)
    kinds = ", ".join(
        f"{kind} {result.inert_by_kind[kind]}/{count}" for kind, count in sorted(result.tried_by_kind.items())
    )
    figures.notes.append(
        f"injection by kind (inert/tried): {kinds}; verdicts changed: {len(result.verdicts_changed)}, "
        f"calls changed: {len(result.calls_changed)}; reached a report: {sum(result.reached_by_kind.values())}"
    )
    figures.problems += [f"not inert: {line}" for line in result.failures[:20]]
    figures.problems += [f"crash: {line}" for line in result.crashes]


def _fuzz(figures: Figures, profile: checks.Profile) -> None:
    result = checks.fuzz(profile)
    figures.row("Fuzz cases run / crashes", result.cases, result.crashes)
    targets = ", ".join(
        f"{target} {result.crashes_by_target[target]}/{count}"
        for target, count in result.cases_by_target.items()
    )
    figures.notes.append(
        f"fuzz by target (crashes/cases): {targets}; log scanned: {profile.huge_log_bytes // checks.MEGABYTE} MB"
    )
    figures.problems += [f"crash: {line}" for line in result.examples]


def _faults(figures: Figures, profile: checks.Profile) -> None:
    result = checks.faults(profile)
    figures.row("Fault scenarios run / survived with a diagnosis", result.run, result.survived)
    kinds = ", ".join(
        f"{kind} {result.survived_by_kind[kind]}/{count}" for kind, count in result.run_by_kind.items()
    )
    figures.notes.append(
        f"faults by kind (survived/run): {kinds}; hung: {len(result.hung)}; slowest: {result.slowest_seconds:.1f} s"
    )
    figures.problems += [f"fault: {line}" for line in result.failures[:20]]


def _read_only(figures: Figures, profile: checks.Profile) -> None:
    result = checks.read_only(profile)
    figures.row("Requests checked / not read-only", result.requests, len(result.violations))
    methods = ", ".join(f"{method} {count}" for method, count in sorted(result.methods.items()))
    figures.notes.append(f"read-only: {result.runs} runs, methods seen: {methods}")
    figures.problems += [f"write: {line}" for line in result.violations[:20]]
    figures.problems += [f"crash: {line}" for line in result.crashes]


def _access(figures: Figures, profile: checks.Profile) -> None:
    result = checks.access(profile)
    figures.row("Access attacks tried / refused", result.tried, result.refused)
    figures.problems += [f"access: {line}" for line in result.failures]
    # Timings are printed, never judged here (bench/parsing.py holds the targets and the growth).
    timings, refused = parsing.measure(sizes=(parsing.MIB,), repeat=1, min_seconds=0)
    slowest = max(timings, key=lambda timing: timing.at(parsing.MIB))
    figures.notes.append(
        f"parsing adversarial Slack text ({len(timings)} shapes of 1 MiB, cap lifted): worst "
        f"{slowest.at(parsing.MIB):.2f} s per MiB ({slowest.shape}); through the entry points a 1 MiB "
        f"text is refused unread in {refused * 1e6:.0f} µs"
    )


def _deadlines(figures: Figures, profile: checks.Profile) -> None:
    ended = asyncio.run(deadlines.run_all())
    figures.row("Deadline cases run / ended in time", len(ended), sum(ended.values()))
    figures.notes.append(f"deadline cases: {', '.join(ended)} (each within {deadlines.BOUND_SECONDS:g} s)")
    figures.problems += [f"deadline: {name} did not end in time" for name, ok in ended.items() if not ok]


SECTIONS: dict[str, Callable[[Figures, checks.Profile], None]] = {
    "secrets": _secrets,
    "injection": _injection,
    "fuzz": _fuzz,
    "faults": _faults,
    "read-only": _read_only,
    "access": _access,
    "deadlines": _deadlines,
}


def run(profile: checks.Profile, sections: Sequence[str] = tuple(SECTIONS)) -> Figures:
    figures = Figures()
    for name in sections:
        started = time.monotonic()
        try:
            SECTIONS[name](figures, profile)
        except Exception as exc:  # a section that cannot run is a failure of the suite, shown as such
            figures.problems.append(f"{name}: the check itself failed: {type(exc).__name__}: {exc}")
        figures.timings[name] = time.monotonic() - started
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.safety.report", description=__doc__.splitlines()[0]
    )
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--quick", action="store_true", help="the budget of `make test` (default)")
    budget.add_argument("--full", action="store_true", help="every scenario and language, a 100 MB log")
    parser.add_argument("--only", action="append", choices=tuple(SECTIONS), help="run only these sections")
    args = parser.parse_args(argv)
    profile = checks.FULL if args.full else checks.QUICK
    # The bot's own warnings during the Slack fault scenarios are expected: keep the table readable.
    logging.getLogger().addHandler(logging.NullHandler())
    started = time.monotonic()
    figures = run(profile, args.only or tuple(SECTIONS))
    print(f"Safety figures ({profile.name}, {time.monotonic() - started:.0f} s)\n")
    print(figures.table())
    print()
    for table in figures.tables:
        print(table)
        print()
    for note in figures.notes:
        print(f"- {note}")
    timings = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in figures.timings.items())
    print(f"- time per section: {timings}")
    if figures.problems:
        print(f"\nFAILED: {len(figures.problems)} problem(s)", file=sys.stderr)
        for problem in figures.problems[:60]:
            print(f"  {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
