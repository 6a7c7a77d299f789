"""Parsing Slack text in linear time: `/diagnose` and @mention text built to make regexes backtrack.

    python -m bench.parsing [--sizes 65536,262144,1048576]

Any channel member can send these texts. For each adversarial shape and size, the time to take a
mention the way the bot does (strip the bot's mention, try a follow-up word, parse the sentence)
and to parse it as a command, with the length cap lifted so that the parsers themselves are
measured; then the same 1 MiB text through the capped entry points, which refuse it unread.

The reference is the linear model: time per MiB must stay flat as the size grows (a quadratic
parser's time per MiB grows with the size: 4x from 1 MiB to 4 MiB), and stay under 2 s per MiB at
1 MiB. The growth is read between the two largest sizes: below about 1 MiB the text still fits the
CPU's caches, and time per MiB steps up once it no longer does (then stays flat: measured up to
16 MiB), which is the memory, not the parser.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench.harness import BenchResult, Check
from bot.grammar import parse_command
from bot.mentions import parse_follow_up, parse_mention, strip_mentions

MIB = 1024 * 1024
DEFAULT_SIZES = (256 * 1024, MIB, 4 * MIB)
QUICK_SIZES = (16 * 1024, 64 * 1024)
SECONDS_PER_MIB_CEILING = 2.0
# Time per MiB at the largest size over time per MiB at the one before: 1 for linear code; a
# quadratic parser gives the size ratio (4 from 1 MiB to 4 MiB).
GROWTH_CEILING = 2.0
BOT_USER_ID = "U0DIAGBOT"

# Each shape is one unit repeated to the size.
SHAPES: dict[str, str] = {
    '"ab-" runs': "ab-",
    "= runs": "=",
    "quotes": '"',
    "<@U…> runs": "<@U0ALICE01> ",
    "unclosed <@BOT| runs": f"<@{BOT_USER_ID}|",
    "key=value runs": "step=1,loss=0.12,task=cls,",
    "key=value words": "cluster=a ",
    "region-shaped runs": "cn-north-",
    "keyword runs": "cluster in project job ",
}


def shaped(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def as_mention(text: str) -> None:
    """What a mention goes through, cap lifted: bot mention stripped, follow-up word, sentence."""
    stripped = strip_mentions(text, BOT_USER_ID, max_chars=None)
    parse_follow_up(stripped, max_chars=None)
    parse_mention(stripped, max_chars=None)


def as_command(text: str) -> None:
    parse_command(text, max_chars=None)


def capped(text: str) -> None:
    """The bot's entry points as they run: a text over the cap is refused before any parse."""
    parse_command(text)
    parse_mention(strip_mentions(text, BOT_USER_ID))


# Each measurement runs at least `repeat` times and for at least this long, and keeps the fastest
# run: a small input then gets many tries, so a moment of load on a shared machine does not read as
# growth.
MIN_SECONDS_PER_MEASUREMENT = 0.3


def best_seconds(
    run: Callable[[str], None], text: str, *, repeat: int, min_seconds: float = MIN_SECONDS_PER_MEASUREMENT
) -> float:
    timings: list[float] = []
    spent = 0.0
    while len(timings) < repeat or spent < min_seconds:
        started = time.perf_counter()
        run(text)
        timings.append(time.perf_counter() - started)
        spent += timings[-1]
    return min(timings)


@dataclass(frozen=True)
class ShapeTiming:
    """Seconds per MiB of one shape at each size (cap lifted), and the growth smallest → largest."""

    shape: str
    sizes: tuple[int, ...]
    seconds_per_mib: tuple[float, ...]

    @property
    def growth(self) -> float:
        """Time per MiB at the largest size over the size before (1 with a single size)."""
        before, last = self.seconds_per_mib[-2:] if len(self.seconds_per_mib) > 1 else (1.0, 1.0)
        return last / before if before > 0 else float("inf")

    def at(self, size: int) -> float:
        return self.seconds_per_mib[self.sizes.index(size)]


def measure(
    *, sizes: tuple[int, ...], repeat: int, min_seconds: float = MIN_SECONDS_PER_MEASUREMENT
) -> tuple[list[ShapeTiming], float]:
    """Every shape at every size (cap lifted), and the slowest refusal of a text of the largest size
    through the capped entry points, in seconds."""
    sizes = tuple(sorted(sizes))
    timings = []
    for name, unit in SHAPES.items():
        rates = []
        for size in sizes:
            text = shaped(unit, size)
            seconds = best_seconds(as_mention, text, repeat=repeat, min_seconds=min_seconds) + best_seconds(
                as_command, text, repeat=repeat, min_seconds=min_seconds
            )
            rates.append(seconds / (size / MIB))
        timings.append(ShapeTiming(shape=name, sizes=sizes, seconds_per_mib=tuple(rates)))
    refused = max(
        best_seconds(capped, shaped(unit, sizes[-1]), repeat=repeat, min_seconds=min_seconds)
        for unit in SHAPES.values()
    )
    return timings, refused


def run(
    *,
    sizes: tuple[int, ...] = DEFAULT_SIZES,
    repeat: int = 3,
    min_seconds: float = MIN_SECONDS_PER_MEASUREMENT,
) -> BenchResult:
    result = BenchResult(title="parsing Slack text")
    sizes = tuple(sorted(sizes))
    before, largest = _size_label(sizes[-2] if len(sizes) > 1 else sizes[0]), _size_label(sizes[-1])
    # The 2 s per MiB target is read at 1 MiB (the size of the adversarial inputs), else the largest.
    target_size = MIB if MIB in sizes else sizes[-1]
    target = _size_label(target_size)
    print(f"Parsing adversarial Slack text, cap lifted (best of {repeat}); seconds per MiB at each size")
    header = f"{'shape':<22}" + "".join(f"{_size_label(size):>12}" for size in sizes) + f"{'growth':>9}"
    print(header)
    print("-" * len(header))
    timings, refused = measure(sizes=sizes, repeat=repeat, min_seconds=min_seconds)
    for timing in timings:
        rates = "".join(f"{rate:>11.3f}s" for rate in timing.seconds_per_mib)
        print(f"{timing.shape:<22}{rates}{timing.growth:>8.2f}x")
        result.checks.append(
            Check(
                f"{timing.shape}: s per MiB at {target}", timing.at(target_size), SECONDS_PER_MIB_CEILING, "s"
            )
        )
        result.checks.append(
            Check(
                f"{timing.shape}: growth of s per MiB, {before} to {largest}",
                timing.growth,
                GROWTH_CEILING,
                "x",
            )
        )
    print(
        f"\nThrough the capped entry points, the slowest {largest} text is refused in {refused * 1000:.3f} ms"
    )
    slowest = max(timings, key=lambda timing: timing.at(target_size))
    result.figures["worst s per MiB"] = (
        f"{slowest.at(target_size):.3f} s at {target} ({slowest.shape}, cap lifted)"
    )
    result.figures["worst growth"] = f"{max(t.growth for t in timings):.2f}x from {before} to {largest}"
    result.figures["capped entry"] = f"{largest} refused in {refused * 1000:.3f} ms"
    result.print_checks()
    return result


def _size_label(size: int) -> str:
    return f"{size // MIB} MiB" if size >= MIB and size % MIB == 0 else f"{size // 1024} KiB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.parsing", description=__doc__)
    parser.add_argument(
        "--sizes", default=",".join(str(size) for size in DEFAULT_SIZES), help="text sizes in bytes"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement (the best is kept)")
    options = parser.parse_args(argv)
    sizes = tuple(int(part) for part in options.sizes.split(",") if part.strip())
    run(sizes=sizes, repeat=max(1, options.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
