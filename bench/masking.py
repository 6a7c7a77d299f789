"""Benchmark: masking and log reading throughput, and masking time on adversarial input.

1. Ordinary training logs (generated: a job's start-up env dump and pip/NCCL set-up with a few
   credentials and addresses, then Hugging Face Trainer / DeepSpeed progress, tqdm bars, metrics
   dicts, warnings, a caught traceback now and then, NCCL INFO lines with addresses, a final CUDA
   OOM), 1 MB and 100 MB: MB/s of `mask` over the whole text (as a pod log or a ModelArts preview
   is masked when it arrives) and of log reading (`mask` then `scan_text`, what the engine does
   with a log), each the least CPU time of `--repeat` runs, masking's caches emptied before each.
   Target: at least 50 MB/s for both. Every
   planted credential is checked gone and every address hashed, so a fast but blind masking fails.
2. Adversarial shapes (a private-key BEGIN line repeated, `step=1,loss=0.12,task=cls,` repeated,
   runs of `a=`, an unterminated `"key": "`, `%3A` runs, a deeply %-encoded URL, BEGIN lines with
   a base64 body and no END, one 1 MiB line of base64, secret-named keys repeated without
   blanks, wrapped lines, …): seconds per MiB at 256 KiB, 1 MiB and 4 MiB, and the growth from 1 to
   4 MiB (linear time gives about 4x). Target: at most 2 s per MiB, growth at most 6x.

    python -m bench.masking [--sizes 1,100] [--repeat 3] [--no-adversarial]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench.harness import BenchResult, Check

MB = 1_000_000
KIB = 1024
MIB = 1024 * 1024
DEFAULT_SIZES_MB = (1, 100)
THROUGHPUT_TARGET = 50.0  # MB/s, masking and log reading
SECONDS_PER_MIB_CEILING = 2.0
GROWTH_CEILING = 6.0  # 4x the input: linear time gives ~4x the time
GROWTH_FLOOR_SECONDS = 0.05
ADVERSARIAL_SIZES = (256 * KIB, MIB, 4 * MIB)

# ---------------------------------------------------------------------------------------------
# Ordinary training logs
# ---------------------------------------------------------------------------------------------

# Set-up lines printed once per job start, some holding what masking must remove.
STARTUP = """+ export HF_HOME=/cache/hf WANDB_PROJECT=llm-sft NCCL_DEBUG=INFO
+ export HF_TOKEN=hf_QpLmZxRt8yVb2NcWd4EfGh6JkSa9UoIw
+ wandb login 0f3c1e7a2b5d4f8e6a0c3b7d1e9f2a4c6b8d0e1f
wandb: Appending key for api.wandb.ai to your netrc file: /root/.netrc
Collecting transformers==4.44.2
  Downloading transformers-4.44.2-py3-none-any.whl (9.5 MB)
Successfully installed accelerate-0.33.0 tokenizers-0.19.1 transformers-4.44.2
[2026-05-12 08:00:01,112] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)
train-0:412:412 [0] NCCL INFO Bootstrap : Using eth0:10.42.{rank}.17<0>
train-0:412:412 [0] NCCL INFO NET/Socket : Using [0]eth0:10.42.{rank}.17<0>
train-0:412:412 [0] NCCL INFO cudaDriverVersion 12020
Loading checkpoint shards: 100%|██████████| 4/4 [00:09<00:00,  2.31s/it]
[2026-05-12 08:00:14,551] [INFO] [config.py:1000:print] bfloat16_enabled ............. True
"""
PROGRESS = (
    "{{'loss': {loss}, 'grad_norm': {grad}, 'learning_rate': 1.9e-05, 'epoch': {epoch}}}\n",
    " {pct}%|███▍      | {step}/50000 [{hms}<13:41:02,  1.02s/it]\n",
    "[2026-05-12 {hms},{ms:03d}] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped=0, "
    "lr=[1.9e-05], mom=[(0.9, 0.95)]\n",
    "[2026-05-12 {hms},{ms:03d}] [INFO] [timer.py:260:stop] epoch=0/micro_step={step}/global_step={step}, "
    "RunningAvgSamplesPerSec=41.7, CurrSamplesPerSec=42.0, MemAllocated=31.2GB, MaxMemAllocated=61.9GB\n",
    "{step:>7} | loss {loss} | tokens/s 11873.2 | max_new_tokens 256 | tokenizer llama | grad_norm {grad}\n",
)
SPRINKLED = (
    "/usr/local/lib/python3.10/site-packages/torch/utils/checkpoint.py:464: UserWarning: "
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.\n",
    "train-{rank}:412:530 [{rank}] NCCL INFO Channel 01/0 : {rank}[{rank}] -> 1[1] via P2P/IPC/read\n",
    "Traceback (most recent call last):\n"
    '  File "/opt/train/data/loader.py", line 126, in __next__\n'
    "    batch = self._fetch(index)\n"
    "OSError: short read on shard {step}\n",
    "W0512 {hms}.300000 140213 torch/distributed/elastic/agent/server/api.py:723] peer 10.42.{rank}.9 "
    "slow to answer (sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08)\n",
)
FINAL = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity "
    "of 79.15 GiB of which 1.19 GiB is free.\n"
)
PLANTED_SECRETS = ("hf_QpLmZxRt8yVb2NcWd4EfGh6JkSa9UoIw", "0f3c1e7a2b5d4f8e6a0c3b7d1e9f2a4c6b8d0e1f")


def training_log(size_bytes: int, *, seed: int = 11) -> str:
    """About `size_bytes` of a training log: a start-up every ~5 MB, progress, a final OOM."""
    rng = random.Random(seed)
    losses = [f"{rng.random() * 3:.4f}" for _ in range(97)]
    grads = [f"{rng.random() * 2:.3f}" for _ in range(89)]
    parts: list[str] = []
    written = 0
    step = 0
    while written < size_bytes:
        if step % 40_000 == 0:
            block = STARTUP.format(rank=step % 8)
        else:
            second = step // 4
            values = {
                "loss": losses[step % 97],
                "grad": grads[step % 89],
                "epoch": f"{step / 50000:.2f}",
                "pct": step * 100 // 50000 % 100,
                "step": step,
                "hms": f"{(second // 3600) % 24:02d}:{(second // 60) % 60:02d}:{second % 60:02d}",
                "ms": step % 1000,
                "rank": step % 8,
            }
            block = PROGRESS[step % len(PROGRESS)].format(**values)
            if step % 997 == 0:
                block += SPRINKLED[(step // 997) % len(SPRINKLED)].format(**values)
        parts.append(block)
        written += len(block)
        step += 1
    parts.append(FINAL)
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Adversarial inputs
# ---------------------------------------------------------------------------------------------


def _repeat(unit: str) -> Callable[[int], str]:
    """`unit` repeated to about `size` characters (whole units: a cut unit would be another shape)."""

    def make(size: int) -> str:
        return unit * max(1, size // len(unit))

    return make


def _deep_encoding(size: int) -> str:
    url = "https://user:pass@host.example.com/p?token=abc"
    for _ in range(6):
        url = url.replace("%", "%25").replace(":", "%3A").replace("/", "%2F").replace("@", "%40")
        url = url.replace("?", "%3F").replace("=", "%3D")
    return _repeat(f"next={url} ")(size)


def _begin_without_end(size: int) -> str:
    body = "\n".join("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2" for _ in range(6))
    return _repeat(f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n")(size)


def _long_base64_line(size: int) -> str:
    rng = random.Random(5)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    return "token: " + "".join(rng.choice(alphabet) for _ in range(size - 7))


def _wrapped_lines(size: int) -> str:
    line = "HF_TOKEN=hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789" * 2
    return _repeat(line + "\n")(size)


ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "-----BEGIN RSA PRIVATE KEY-----\\n repeated": _repeat("-----BEGIN RSA PRIVATE KEY-----\n"),
    "step=1,loss=0.12,task=cls, repeated": _repeat("step=1,loss=0.12,task=cls,"),
    "a= repeated": _repeat("a="),
    '"key": " unterminated, repeated': _repeat('"key": "'),
    "%3A repeated": _repeat("%3A"),
    "deep %-encoding (6 levels)": _deep_encoding,
    "BEGIN + base64 body, no END": _begin_without_end,
    "one line of base64 after token:": _long_base64_line,
    "password=token=secret= repeated": _repeat("password=token=secret="),
    "max_new_tokens=1, repeated": _repeat("max_new_tokens=1,"),
    "Authorization: repeated": _repeat("Authorization: "),
    "curl -u a:b repeated": _repeat("curl -u a:b "),
    "docker login -p x repeated": _repeat("docker login -p x "),
    "-----BEGIN  repeated": _repeat("-----BEGIN "),
    "10.0.0.1: repeated": _repeat("10.0.0.1:"),
    "a:a:a: repeated": _repeat("a:a:"),
    "wrapped HF_TOKEN lines": _wrapped_lines,
    "密码： repeated": _repeat("密码："),
    "step=…,hf_token=x, repeated (a secret key in each)": _repeat("step=1,loss=0.12,task=cls,hf_token=x,"),
    "X-Auth-Token: repeated": _repeat("X-Auth-Token: "),
    '"name": "HF_TOKEN", "value": " repeated': _repeat('{"name": "HF_TOKEN", "value": "'),
    "zero-width inside tokens": _repeat("hf_ab\u200bcd "),
}


@dataclass
class Timing:
    name: str
    seconds: dict[int, float]

    def per_mib(self, size: int) -> float:
        return self.seconds[size] / (size / MIB)

    @property
    def growth(self) -> float:
        """Time at the largest size over time at the one before (4x the input); 4.0 when both are
        too short to compare (under 50 ms: timer and scheduler noise)."""
        sizes = sorted(self.seconds)
        large, small = self.seconds[sizes[-1]], self.seconds[sizes[-2]]
        if large < GROWTH_FLOOR_SECONDS:
            return 4.0
        return large / max(small, 1e-9)


def _best(function: Callable[[], object], repeat: int) -> float:
    """The least CPU time of `repeat` runs, each with masking's caches emptied first (a text masked
    again would otherwise be answered from them). CPU time of this process: masking runs in one
    thread, and the machine the benchmarks run on is shared, so wall time would also count the
    other work on it."""
    from diagnosis.masking import forget_cached

    best = float("inf")
    for _ in range(repeat):
        forget_cached()
        started = time.process_time()
        function()
        best = min(best, time.process_time() - started)
    return best


def adversarial_timings(*, repeat: int = 1, sizes: tuple[int, ...] = ADVERSARIAL_SIZES) -> list[Timing]:
    from diagnosis.masking import mask

    timings = []
    for name, make in ADVERSARIAL.items():
        seconds: dict[int, float] = {}
        for size in sizes:
            text = make(size)
            seconds[size] = _best(lambda text=text: mask(text), repeat)  # type: ignore[misc]
        timings.append(Timing(name, seconds))
    return timings


def run(
    *,
    sizes_mb: tuple[int, ...] = DEFAULT_SIZES_MB,
    repeat: int = 3,
    adversarial_sizes: tuple[int, ...] = ADVERSARIAL_SIZES,
) -> BenchResult:
    from diagnosis.logs.scan import scan_text
    from diagnosis.masking import mask

    result = BenchResult(title="masking")
    print(
        "Masking and log reading on generated training logs (least CPU time of runs), then adversarial input"
    )
    print(f"{'log':>8} {'mask s':>8} {'mask MB/s':>10} {'read s':>8} {'read MB/s':>10}  check")
    for size_mb in sizes_mb:
        text = training_log(size_mb * MB)
        megabytes = len(text.encode("utf-8")) / MB
        masked_text = mask(text)
        leaks = [secret for secret in PLANTED_SECRETS if secret in masked_text]
        addresses_left = "10.42." in masked_text
        mask_seconds = _best(lambda text=text: mask(text), repeat)  # type: ignore[misc]
        read_seconds = _best(lambda text=text: scan_text(mask(text)), repeat)  # type: ignore[misc]
        mask_rate = megabytes / mask_seconds
        read_rate = megabytes / read_seconds
        verdict = "ok" if not leaks and not addresses_left else f"LEAK {len(leaks)} secret(s)"
        print(
            f"{size_mb:>6}MB {mask_seconds:>8.3f} {mask_rate:>10.1f} {read_seconds:>8.3f} {read_rate:>10.1f}  {verdict}"
        )
        result.checks.append(
            Check(
                f"{size_mb} MB log: masking throughput", mask_rate, THROUGHPUT_TARGET, "MB/s", at_least=True
            )
        )
        result.checks.append(
            Check(
                f"{size_mb} MB log: log reading (mask + scan) throughput",
                read_rate,
                THROUGHPUT_TARGET,
                "MB/s",
                at_least=True,
            )
        )
        result.checks.append(
            Check(f"{size_mb} MB log: planted secrets or addresses left", len(leaks) + addresses_left, 0)
        )
        result.figures[f"{size_mb} MB log"] = (
            f"masking {mask_rate:.0f} MB/s, log reading {read_rate:.0f} MB/s"
        )
    if adversarial_sizes:
        print()
        labels = " ".join(f"{size // KIB:>7}KiB" for size in adversarial_sizes)
        print(f"{'adversarial input (s per MiB at)':<52} {labels}  growth per 4x")
        worst_rate = worst_growth = 0.0
        for timing in adversarial_timings(repeat=1, sizes=adversarial_sizes):
            rates = " ".join(f"{timing.per_mib(size):>10.3f}" for size in adversarial_sizes)
            print(f"{timing.name:<52} {rates}  {timing.growth:>5.1f}x")
            worst_rate = max(worst_rate, *(timing.per_mib(size) for size in adversarial_sizes))
            worst_growth = max(worst_growth, timing.growth)
        result.checks.append(
            Check("adversarial input: worst seconds per MiB", worst_rate, SECONDS_PER_MIB_CEILING, "s")
        )
        result.checks.append(
            Check("adversarial input: worst growth per 4x the input", worst_growth, GROWTH_CEILING, "x")
        )
        result.figures["adversarial"] = (
            f"worst {worst_rate:.2f} s/MiB, worst growth {worst_growth:.1f}x per 4x"
        )
    result.print_checks()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.masking", description=__doc__)
    parser.add_argument(
        "--sizes", default=",".join(str(size) for size in DEFAULT_SIZES_MB), help="log sizes in MB"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement (the best is kept)")
    parser.add_argument("--no-adversarial", action="store_true", help="only the training logs")
    options = parser.parse_args(argv)
    sizes = tuple(int(part) for part in options.sizes.split(",") if part.strip())
    run(
        sizes_mb=sizes,
        repeat=max(1, options.repeat),
        adversarial_sizes=() if options.no_adversarial else ADVERSARIAL_SIZES,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
