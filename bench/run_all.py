"""`make bench`: every benchmark in one run, then one summary of the targets (PASS/MISS).

    python -m bench.run_all [--quick] [--only startup,one_diagnosis,scan,logscan,masking,ack,parsing,mcp_calls]

`--quick` runs small sizes (a minute or so; the figures then say little); the default is the
full run the figures in docs/performance.md come from (several minutes: the 1,000-job scan alone takes about
70 s twice, by design of its 20 requests/s limit).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime

from bench import ack, logscan, masking, mcp_calls, one_diagnosis, parsing, scan, startup
from bench.harness import BenchResult

Runner = Callable[[bool], BenchResult]

BENCHES: dict[str, Runner] = {
    "startup": lambda quick: startup.run(repeat=3 if quick else startup.DEFAULT_REPEAT),
    "one_diagnosis": lambda quick: one_diagnosis.run(repeat=1 if quick else 3),
    "scan": lambda quick: scan.run(jobs=150 if quick else scan.DEFAULT_JOBS),
    "logscan": lambda quick: logscan.run(sizes_mb=(20,) if quick else logscan.DEFAULT_SIZES_MB),
    "masking": lambda quick: masking.run(
        sizes_mb=(1,) if quick else masking.DEFAULT_SIZES_MB,
        repeat=1 if quick else 3,
        adversarial_sizes=(16 * masking.KIB, 64 * masking.KIB) if quick else masking.ADVERSARIAL_SIZES,
    ),
    "ack": lambda quick: ack.run(commands=50 if quick else ack.DEFAULT_COMMANDS),
    "parsing": lambda quick: parsing.run(sizes=parsing.QUICK_SIZES if quick else parsing.DEFAULT_SIZES),
    "mcp_calls": lambda quick: mcp_calls.run(repeat=1 if quick else mcp_calls.DEFAULT_REPEAT),
}


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_gib() -> float | None:
    try:
        with open("/proc/meminfo", encoding="utf-8") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return None


def machine() -> str:
    memory = memory_gib()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    parts = [f"{os.cpu_count()} cores", cpu_model()]
    if memory is not None:
        parts.append(f"{memory:.0f} GiB")
    parts.append(f"Python {platform.python_version()}")
    if load is not None:
        parts.append(f"load {load:.1f} at start")
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run_all", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes: check that everything runs")
    parser.add_argument("--only", default=",".join(BENCHES), help="comma-separated benchmarks to run")
    options = parser.parse_args(argv)
    chosen = [name.strip() for name in options.only.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in BENCHES]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}: use {', '.join(BENCHES)}")
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {machine()}\n")
    results: list[tuple[str, BenchResult, float]] = []
    for name in chosen:
        print("=" * 100)
        started = time.perf_counter()
        result = BENCHES[name](options.quick)
        results.append((name, result, time.perf_counter() - started))
        print()
    print("=" * 100)
    print("Summary")
    for name, result, seconds in results:
        verdict = "PASS" if result.passed else "MISS"
        print(f"\n{name} ({seconds:.0f} s): {verdict}")
        for check in result.checks:
            print(check.line())
        for key, value in result.figures.items():
            print(f"    {key}: {value}")
    misses = sum(1 for _name, result, _seconds in results for check in result.checks if not check.passed)
    print(f"\n{misses} target(s) missed" if misses else "\nevery target met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
