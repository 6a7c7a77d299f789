"""Benchmark: streaming log scan throughput and peak memory, beside `grep -E` on the same file.

Generates realistic training logs on disk (timestamped progress lines, NCCL INFO noise with
addresses, a few caught tracebacks, generic ERROR lines, NCCL watchdog timeouts, Xid lines, and a
final CUDA OOM with torchrun's ChildFailedError) of 100 MB and 1 GB (the 1 GB one only when the
temporary folder has room for it). For each file:

- `scan_stream` runs in a fresh child process that imports only the scanner; its throughput is
  the file size over the scan time measured inside the child (interpreter start-up excluded); its
  peak RSS is `getrusage(RUSAGE_CHILDREN).ru_maxrss` read after it exits (by a small launcher: see
  LAUNCHER); each figure is the best of `--repeat` runs, grep's too (the machine is shared);
- `grep -E -c` with exactly `SCAN_PATTERNS` (one `-e` each, case-sensitive like the scanner) runs
  on the same file; both runs get LC_ALL=C (grep's byte-wise matching; the scanner reads bytes
  whatever the locale), and the file is read once beforehand so that both read from the page cache;
- both count the same candidate lines, which is checked.

Masking is measured on the key lines the scan extracts (every candidate line of the 100 MB log, as
`grep -E` prints them, and the findings' lines and context): lines masked per second against the
rate at which the scan produces candidate lines.

    python -m bench.logscan [--sizes 100,1000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness import BenchResult, Check, project_root
from diagnosis.logs.rules import SCAN_PATTERNS

MB = 1_000_000
DEFAULT_SIZES_MB = (100, 1000)
THROUGHPUT_FLOOR = 0.5  # at least half of grep -E's throughput
RSS_CEILING_MB = 150.0  # on the 1 GB log
FREE_SPACE_MARGIN_MB = 500
SEGMENT_LINES = 100_000

# ---------------------------------------------------------------------------------------------
# Log generation
# ---------------------------------------------------------------------------------------------

CAUGHT_TRACEBACK = """{ts},001 WARNING [loader.py:131] worker {rank} retrying a batch after an error:
Traceback (most recent call last):
  File "/opt/train/data/loader.py", line 126, in __next__
    batch = self._fetch(index)
  File "/opt/train/data/shards.py", line 88, in _fetch
    raw = self.reader.read(offset, length)
  File "/opt/train/data/obs_reader.py", line 41, in read
    raise OSError(f"short read on shard {{shard}}")
OSError: short read on shard {shard}
"""
FINAL_FAILURE = """{ts},512 INFO [trainer.py:412] epoch 3 step {step}/50000000 allocating activation buffers
[rank3]: Traceback (most recent call last):
[rank3]:   File "/opt/train/train.py", line 301, in <module>
[rank3]:     main()
[rank3]:   File "/opt/train/train.py", line 287, in main
[rank3]:     loss = model(batch).loss
[rank3]:   File "/usr/local/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1511, in _wrapped_call_impl
[rank3]:     return self._call_impl(*args, **kwargs)
[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB of which 1.19 GiB is free. Process 4012 has 77.95 GiB memory in use.
[rank0]:[E512 {hms}.120000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88213, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for 600071 milliseconds before timing out.
W0512 {hms}.300000 140213 torch/distributed/elastic/multiprocessing/api.py:858] Sending process 4013 closing signal SIGTERM
E0512 {hms}.400000 140213 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1) local_rank: 3 (pid: 4012) of binary: /usr/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
"""
# (period in lines, template) planted after every period-th line of a segment.
SPRINKLED: tuple[tuple[int, str], ...] = (
    (5_000, "{ts},250 WARNING [loader.py:88] batch {step} took 1520 ms (slow storage read)\n"),
    (
        20_000,
        "{ts},300 ERROR [checkpoint.py:77] upload of shard {shard} to obs://ckpt-bucket/run-7/ failed, retrying (1/5)\n",
    ),
    (25_000, "node-2:4002:4100 [2] NCCL INFO NET/Socket : Using [0]eth0:10.0.3.{shard}<0>\n"),
    (50_000, CAUGHT_TRACEBACK),
    (
        90_000,
        "torch.distributed.DistNetworkError: Connection reset by peer (10.0.3.17, 29500) while rank {rank} waited\n",
    ),
    (
        200_000,
        "[rank{rank}]:[E512 {hms}.000000 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum={step}, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.\n",
    ),
    (300_000, "[{ts}] kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=4012, GPU has fallen off the bus.\n"),
)


@dataclass
class GeneratedLog:
    path: Path
    size_bytes: int
    lines: int
    planted: int  # lines planted for the scanner (sprinkled lines and the final failure)


class _Pools:
    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        self.losses = [f"{rng.random() * 3:.4f}" for _ in range(997)]
        self.grads = [f"{rng.random() * 2:.3f}" for _ in range(991)]
        self.throughputs = [f"{900 + rng.random() * 200:.1f}" for _ in range(983)]


def _clock(line: int) -> tuple[str, str]:
    """(`2026-05-12 HH:MM:SS`, `HH:MM:SS`) for a line; the log advances one second per 16 lines."""
    second = line // 16
    hms = f"{(second // 3600) % 24:02d}:{(second // 60) % 60:02d}:{second % 60:02d}"
    return f"2026-05-12 {hms}", hms


def _segment(first_line: int, pools: _Pools) -> tuple[str, int]:
    """SEGMENT_LINES lines of training output starting at `first_line`, and how many were planted."""
    out: list[str] = []
    add = out.append
    stamp = ""
    losses, grads, throughputs = pools.losses, pools.grads, pools.throughputs
    for line in range(first_line, first_line + SEGMENT_LINES):
        if line % 16 == 0:
            stamp = _clock(line)[0]
        if line % 9 < 5:
            add(
                f"{stamp},{line % 1000:03d} INFO [trainer.py:412] epoch 3 step {line}/50000000 "
                f"loss={losses[line % 997]} lr=3.00e-04 grad_norm={grads[line % 991]} "
                f"throughput={throughputs[line % 983]} samples/s\n"
            )
        else:
            rank = line % 8
            add(
                f"node-{rank}:{4000 + line % 61}:{4100 + line % 17} [{rank}] NCCL INFO Channel {line % 32:02d}/0 : "
                f"{rank}[{rank}] -> {(rank + 1) % 8}[{(rank + 1) % 8}] via P2P/IPC/read\n"
            )
    planted = 0
    for period, template in SPRINKLED:
        # After global line numbers period/2, period/2 + period, ... whatever the segment.
        for index in range((period // 2 - first_line) % period, SEGMENT_LINES, period):
            line = first_line + index
            ts, hms = _clock(line)
            out[index] += template.format(ts=ts, hms=hms, step=line, rank=line % 8, shard=line % 250)
            planted += 1
    return "".join(out), planted


def generate_log(path: Path, size_bytes: int, *, seed: int = 7) -> GeneratedLog:
    """Write about `size_bytes` of training log, ending with the failure that stopped the job."""
    pools = _Pools(seed)
    written = lines = planted = progress_lines = 0
    with path.open("wb") as stream:
        while written < size_bytes:
            text, count = _segment(progress_lines, pools)
            data = text.encode("ascii")
            stream.write(data)
            written += len(data)
            lines += data.count(b"\n")
            progress_lines += SEGMENT_LINES
            planted += count
        ts, hms = _clock(progress_lines)
        tail = FINAL_FAILURE.format(ts=ts, hms=hms, step=progress_lines).encode("ascii")
        stream.write(tail)
        written += len(tail)
        lines += tail.count(b"\n")
        planted += 1
    return GeneratedLog(path=path, size_bytes=written, lines=lines, planted=planted)


# ---------------------------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------------------------


# The measured child imports the scanner only, as a worker scanning a log would.
SCAN_CHILD = """
import json, resource, sys, time
from diagnosis.logs.scan import LogScanner, scan_stream

chosen = sys.argv[2] if len(sys.argv) > 2 else "auto"
engine = LogScanner(engine=chosen).engine_name
started = time.perf_counter()
with open(sys.argv[1], "rb", buffering=0) as stream:
    found = scan_stream(stream, engine=chosen)
seconds = time.perf_counter() - started
primary = found.primary()
print(json.dumps({
    "seconds": seconds,
    "bytes": found.bytes_scanned,
    "lines": found.lines_scanned,
    "candidate_lines": found.candidate_lines,
    "findings": [f"{finding.kind}: {finding.line}" for finding in found.findings[:3]],
    "engine": engine,
    "key_lines": [text for finding in found.findings for text in (finding.line, *finding.context)],
}))
"""
# Linux hands a child the peak RSS of the process that forked it (the high-water mark of the
# memory image exec replaced): spawned from this big benchmark process, the scanner would report
# our peak, not its own. A small launcher runs it instead and reports
# getrusage(RUSAGE_CHILDREN).ru_maxrss once it has exited.
LAUNCHER = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE)
sys.stdout.write(done.stdout.decode())
print(json.dumps({"returncode": done.returncode,
                  "children_maxrss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


@dataclass
class ScanFigures:
    seconds: float
    peak_rss_mb: float
    report: dict[str, Any]


def _env() -> dict[str, str]:
    return {**os.environ, "LC_ALL": "C", "PYTHONPATH": str(project_root())}


def measure_scan(path: Path, *, engine: str = "auto") -> ScanFigures:
    """One scan in a fresh child: its own scan time and its peak RSS (KiB on Linux)."""
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, sys.executable, "-c", SCAN_CHILD, str(path), engine],
        cwd=project_root(),
        env=_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    usage = json.loads(lines[-1]) if lines else {"returncode": done.returncode}
    if done.returncode != 0 or usage["returncode"] != 0 or len(lines) < 2:
        raise RuntimeError(f"the scan child failed: {done.stderr[-2000:]}")
    report = json.loads(lines[-2])
    return ScanFigures(
        seconds=float(report["seconds"]), peak_rss_mb=usage["children_maxrss_kb"] * 1024 / MB, report=report
    )


def grep_command(path: Path, *, count: bool = True) -> list[str]:
    command = ["grep", "-E"] + (["-c"] if count else [])
    for pattern in SCAN_PATTERNS:
        command += ["-e", pattern]
    return [*command, str(path)]


def measure_grep(path: Path) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(grep_command(path), capture_output=True, text=True, env=_env(), check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise RuntimeError(f"grep failed: {done.stderr.strip()}")
    return seconds, int(done.stdout.strip() or 0)


def warm_page_cache(path: Path) -> None:
    with path.open("rb", buffering=0) as stream:
        while stream.read(8 * 1024 * 1024):
            pass


@dataclass
class MaskFigures:
    lines: int
    megabytes: float
    seconds: float

    @property
    def lines_per_second(self) -> float:
        return self.lines / self.seconds if self.seconds else float("inf")


def measure_masking(lines: list[str]) -> MaskFigures:
    from diagnosis.masking import mask

    started = time.perf_counter()
    for text in lines:
        mask(text)
    seconds = time.perf_counter() - started
    return MaskFigures(lines=len(lines), megabytes=sum(len(text) for text in lines) / MB, seconds=seconds)


def candidate_lines(path: Path) -> list[str]:
    done = subprocess.run(grep_command(path, count=False), capture_output=True, env=_env(), check=False)
    return done.stdout.decode("utf-8", errors="replace").splitlines()


def run(
    *, sizes_mb: tuple[int, ...] = DEFAULT_SIZES_MB, folder: str | None = None, repeat: int = 3
) -> BenchResult:
    result = BenchResult(title="log scan")
    print(
        "Log scan: scan_stream (child process) vs grep -E -c with the same patterns, LC_ALL=C for both; "
        f"best of {repeat} runs each, peak RSS the highest of them"
    )
    if shutil.which("grep") is None:
        result.notes.append("grep is not installed: no reference throughput")
    with tempfile.TemporaryDirectory(prefix="bench-logscan-", dir=folder) as directory:
        header = (
            f"{'log':>8} {'lines':>11} {'scan s':>7} {'scan MB/s':>9} {'grep s':>7} {'grep MB/s':>9} "
            f"{'ratio':>6} {'peak RSS':>9} {'candidates':>10}  engine"
        )
        rows: list[str] = []
        largest: int = max(sizes_mb)
        for size_mb in sizes_mb:
            free_mb = shutil.disk_usage(directory).free / MB
            if free_mb < size_mb + FREE_SPACE_MARGIN_MB:
                note = f"{size_mb} MB log skipped: {free_mb:.0f} MB free in {directory}"
                print(note)
                result.notes.append(note)
                continue
            path = Path(directory) / f"train-{size_mb}mb.log"
            started = time.perf_counter()
            log = generate_log(path, size_mb * MB)
            print(
                f"generated {log.size_bytes / MB:.0f} MB, {log.lines} lines, {log.planted} planted "
                f"in {time.perf_counter() - started:.1f} s"
            )
            warm_page_cache(path)
            grep_runs = [measure_grep(path) for _ in range(repeat)]
            grep_seconds, grep_count = min(grep_runs)
            scans = [measure_scan(path) for _ in range(repeat)]
            scan = min(scans, key=lambda figures: figures.seconds)
            scan.peak_rss_mb = max(figures.peak_rss_mb for figures in scans)
            scan_rate = log.size_bytes / MB / scan.seconds
            grep_rate = log.size_bytes / MB / grep_seconds
            ratio = scan_rate / grep_rate
            rows.append(
                f"{size_mb:>6}MB {log.lines:>11} {scan.seconds:>7.2f} {scan_rate:>9.0f} {grep_seconds:>7.2f} "
                f"{grep_rate:>9.0f} {ratio:>6.2f} {scan.peak_rss_mb:>7.0f}MB "
                f"{scan.report['candidate_lines']:>10}  {scan.report['engine']}"
            )
            result.checks.append(
                Check(f"{size_mb} MB: scan / grep -E throughput", ratio, THROUGHPUT_FLOOR, at_least=True)
            )
            result.checks.append(
                Check(
                    f"{size_mb} MB: candidate lines differ from grep -c",
                    abs(scan.report["candidate_lines"] - grep_count),
                    0,
                )
            )
            if size_mb == largest:
                result.checks.append(Check(f"{size_mb} MB: peak RSS", scan.peak_rss_mb, RSS_CEILING_MB, "MB"))
            result.figures[f"{size_mb} MB"] = (
                f"scan {scan_rate:.0f} MB/s, grep -E {grep_rate:.0f} MB/s (ratio {ratio:.2f}), "
                f"peak RSS {scan.peak_rss_mb:.0f} MB"
            )
            print("  first findings: " + " | ".join(text[:90] for text in scan.report["findings"]))
            if size_mb == min(sizes_mb):
                fallback = min(
                    (measure_scan(path, engine="re2") for _ in range(repeat)), key=lambda f: f.seconds
                )
                fallback_rate = log.size_bytes / MB / fallback.seconds
                print(
                    f"  without Hyperscan (RE2 engine): {fallback_rate:.0f} MB/s, "
                    f"{fallback_rate / grep_rate:.2f} x grep -E, peak RSS {fallback.peak_rss_mb:.0f} MB"
                )
                result.figures["re2 engine"] = (
                    f"{fallback_rate:.0f} MB/s ({fallback_rate / grep_rate:.2f} x grep)"
                )
                key_lines = candidate_lines(path)
                masking = measure_masking(key_lines + list(scan.report["key_lines"]))
                produced = scan.report["candidate_lines"] / scan.seconds
                print(
                    f"  masking: {masking.lines} key lines ({masking.megabytes:.2f} MB) in {masking.seconds:.3f} s = "
                    f"{masking.lines_per_second:,.0f} lines/s; the scan yields {produced:,.0f} candidate lines/s"
                )
                result.checks.append(
                    Check(
                        "masking lines/s / scan candidate lines/s",
                        masking.lines_per_second / produced if produced else float("inf"),
                        1.0,
                        at_least=True,
                    )
                )
                result.figures["masking"] = f"{masking.lines_per_second:,.0f} key lines/s"
            path.unlink()
        print()
        print(header)
        print("-" * len(header))
        for row in rows:
            print(row)
    result.print_checks()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.logscan", description=__doc__)
    parser.add_argument(
        "--sizes", default=",".join(str(size) for size in DEFAULT_SIZES_MB), help="log sizes in MB"
    )
    parser.add_argument(
        "--tmp", default=None, help="folder for the generated logs (default: the system temp)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement (the best is kept)")
    options = parser.parse_args(argv)
    sizes = tuple(int(part) for part in options.sizes.split(",") if part.strip())
    run(sizes_mb=sizes, folder=options.tmp, repeat=max(1, options.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
