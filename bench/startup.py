"""Benchmark: how long the `diagnose` command takes to start, against importing httpx and pydantic.

Every command runs as a fresh process, the way a user types it (`diagnose …`: the installed
entry point, or the same `from cli.main import main` when it is not installed), with its output
thrown away. The reference is `python -c "import httpx, pydantic"` with the same interpreter: the
two libraries any command needs, so the ratio is what the CLI adds on top of its unavoidable
imports. The commands and the reference run in one interleaved loop (each round runs every
command once, in an order rotated from round to round), after warm-up runs that fill the file
cache and write the bytecode, so a machine whose load changes during the run slows all of them
alike. Each figure is the median of `--repeat` rounds; the load average is printed before and
after.

Targets: `diagnose --help` at most 1.5 x the reference, `diagnose replay BUNDLE` (a Run:ai and a
ModelArts example) at most 2.5 x. `--version` and `explain 137` are reported without a target.

    python -m bench.startup [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness import BenchResult, Check, project_root

DEFAULT_REPEAT = 15
WARM_UP_RUNS = 2
HELP_FACTOR = 1.5
REPLAY_FACTOR = 2.5
REFERENCE = "import httpx, pydantic"
RUNAI_BUNDLE = Path("diagnosis", "examples", "runai", "runai-oom-killed.bundle.json")
MODELARTS_BUNDLE = Path("diagnosis", "examples", "modelarts", "modelarts-exit-137-killed.bundle.json")
# Exit status 3 is a report whose platform was not reached; the example bundles are diagnoses.
EXPECTED_STATUS = 0


@dataclass(frozen=True)
class Command:
    label: str
    argv: tuple[str, ...]
    target: float | None = None  # the ceiling of its ratio to the reference, when there is one


@dataclass
class Timings:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @property
    def wall_median(self) -> float:
        return statistics.median(self.wall)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)


def diagnose_argv() -> tuple[str, ...]:
    """The installed `diagnose` entry point beside this interpreter, else what it runs."""
    script = Path(sys.executable).parent / "diagnose"
    if script.is_file() and os.access(script, os.X_OK):
        return (str(script),)
    return (sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main())")


def commands() -> list[Command]:
    diagnose = diagnose_argv()
    return [
        Command("reference: python -c 'import httpx, pydantic'", (sys.executable, "-c", REFERENCE)),
        Command("diagnose --help", (*diagnose, "--help"), HELP_FACTOR),
        Command("diagnose --version", (*diagnose, "--version")),
        Command(
            f"diagnose replay {RUNAI_BUNDLE.name}", (*diagnose, "replay", str(RUNAI_BUNDLE)), REPLAY_FACTOR
        ),
        Command(
            f"diagnose replay {MODELARTS_BUNDLE.name}",
            (*diagnose, "replay", str(MODELARTS_BUNDLE)),
            REPLAY_FACTOR,
        ),
        Command("diagnose explain 137", (*diagnose, "explain", "137")),
    ]


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(command: Command, *, environment: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run; a failing command stops the benchmark."""
    cpu_before = children_cpu_seconds()
    started = time.perf_counter()
    finished = subprocess.run(
        command.argv,
        cwd=project_root(),
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    wall = time.perf_counter() - started
    if finished.returncode != EXPECTED_STATUS:
        error = finished.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        raise RuntimeError(f"{command.label} exited {finished.returncode}: {error[0]}")
    return wall, children_cpu_seconds() - cpu_before


def measure(chosen: list[Command], *, repeat: int, warm_up: int = WARM_UP_RUNS) -> dict[str, Timings]:
    # The user's own settings must not change what runs (a pinned now, a default language).
    environment = {key: value for key, value in os.environ.items() if not key.startswith("DIAGNOSE_")}
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    for _ in range(warm_up):
        for command in chosen:
            run_once(command, environment=environment)
    timings = {command.label: Timings() for command in chosen}
    for round_number in range(repeat):
        shift = round_number % len(chosen)
        for command in chosen[shift:] + chosen[:shift]:
            wall, cpu = run_once(command, environment=environment)
            timings[command.label].wall.append(wall)
            timings[command.label].cpu.append(cpu)
    return timings


def load_average() -> str:
    if not hasattr(os, "getloadavg"):
        return "unknown"
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def run(*, repeat: int = DEFAULT_REPEAT, warm_up: int = WARM_UP_RUNS) -> BenchResult:
    chosen = commands()
    reference = chosen[0]
    print(
        f"CLI start: {len(chosen)} commands, {repeat} interleaved rounds after {warm_up} warm-up "
        f"rounds; load average {load_average()} (1, 5, 15 min) at start"
    )
    timings = measure(chosen, repeat=repeat, warm_up=warm_up)
    base = timings[reference.label]
    print(f"load average {load_average()} at the end\n")
    print(f"{'command':<58} {'wall ms':>8} {'x ref':>6} {'target':>7} {'CPU ms':>7} {'x ref':>6}")
    result = BenchResult(title="startup")
    for command in chosen:
        measured = timings[command.label]
        wall_ratio = measured.wall_median / base.wall_median
        cpu_ratio = measured.cpu_median / base.cpu_median if base.cpu_median else 0.0
        target = f"{command.target:.2g}" if command.target else ""
        print(
            f"{command.label:<58} {measured.wall_median * 1000:8.0f} {wall_ratio:6.2f} {target:>7} "
            f"{measured.cpu_median * 1000:7.0f} {cpu_ratio:6.2f}"
        )
        if command is not reference:
            result.figures[command.label] = (
                f"{measured.wall_median * 1000:.0f} ms, {wall_ratio:.2f} x the reference "
                f"(CPU {cpu_ratio:.2f} x)"
            )
        if command.target is not None:
            result.checks.append(Check(f"{command.label} / reference (wall)", wall_ratio, command.target))
    result.figures["reference"] = f"{base.wall_median * 1000:.0f} ms (import httpx, pydantic)"
    result.notes.append(f"medians of {repeat} rounds; CPU is user + system time of the process")
    result.print_checks()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__)
    parser.add_argument(
        "--repeat", type=int, default=DEFAULT_REPEAT, help=f"rounds (default {DEFAULT_REPEAT})"
    )
    options = parser.parse_args(argv)
    run(repeat=max(1, options.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
