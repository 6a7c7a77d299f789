"""`make demo`: the engine's live clients against the built-in simulated platforms, no credentials.

Starts `diagnose sim` on a free loopback port with the bundled example scenarios (one per category
and routing branch), points the real Run:ai, Kubernetes and signed ModelArts clients at it, and
prints each report.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from cli.messages import say
from diagnosis import engine
from diagnosis.bundle import Bundle
from diagnosis.masking import mask_root_logging
from diagnosis.models import Diagnosis
from diagnosis.render import render_markdown
from simulator.environment import (
    BUILTIN_SCENARIOS,
    DEMO_ACCESS_KEY,
    DEMO_SECRET_KEY,
    Scenario,
    modelarts_regions,
    scenario_name,
    simulator_environment,
    write_kubeconfig,
)
from simulator.server import SimServer, load_bundle_pairs

# The scenario bundles shipped with the engine (package data of `diagnosis`).
EXAMPLES = BUILTIN_SCENARIOS
# What the benchmarks point their own simulators with.
__all__ = ["DEMO_ACCESS_KEY", "DEMO_SECRET_KEY", "platform_environment", "write_kubeconfig"]


@contextmanager
def platform_environment(sim: SimServer, folder: Path, *, bundles: Sequence[Bundle] = ()) -> Iterator[None]:
    """Point both platforms' live clients at the simulator (restored afterwards); `bundles` name
    the ModelArts regions whose endpoint it is (default: the default region)."""
    saved = dict(os.environ)
    os.environ.update(simulator_environment(sim.base_url, folder, regions=modelarts_regions(bundles)))
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


async def diagnose_live(scenario: Scenario) -> Diagnosis:
    """The scenario's request through the live client, in the project it was recorded in."""
    bundle = scenario.bundle
    os.environ.update(scenario.own_environment())
    request = engine.request_from_bundle(bundle)
    async with engine.live(request) as (source, _recorder):
        return await engine.diagnose_with(request, source, now=bundle.captured_at)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make demo", description=__doc__)
    parser.add_argument("--examples", default=str(EXAMPLES), help="folder of scenario bundles")
    parser.add_argument("--only", default=None, help="run only scenarios whose file name contains this")
    options = parser.parse_args(argv)
    mask_root_logging()

    pairs = load_bundle_pairs(options.examples)
    bundles = [bundle for _path, bundle in pairs]
    scenarios = [
        (path, bundle) for path, bundle in pairs if options.only is None or options.only in path.name
    ]
    if not scenarios:
        print(say("demo.none", folder=options.examples), file=sys.stderr)
        return 1
    summary: list[tuple[str, str, str, str, int, float]] = []
    with (
        tempfile.TemporaryDirectory(prefix="diagnose-demo-") as folder,
        SimServer(bundles, modelarts_keys=(DEMO_ACCESS_KEY, DEMO_SECRET_KEY)) as sim,
        platform_environment(sim, Path(folder), bundles=bundles),
    ):
        print(say("demo.intro", url=sim.base_url, count=len(bundles)))
        for path, bundle in scenarios:
            started = time.perf_counter()
            diagnosis = asyncio.run(diagnose_live(Scenario(scenario_name(path), bundle)))
            elapsed = time.perf_counter() - started
            lang = engine.resolve_lang(bundle.platform, None)
            print("=" * 100)
            print(say("demo.scenario", path=path.relative_to(options.examples), platform=bundle.platform))
            print("=" * 100)
            print(render_markdown(diagnosis, lang=lang))
            print()
            summary.append(
                (
                    path.stem.replace(".bundle", ""),
                    diagnosis.outcome,
                    diagnosis.category or diagnosis.route or "-",
                    diagnosis.confidence or "-",
                    len(diagnosis.calls),
                    elapsed,
                )
            )
    print(say("demo.summary"))
    scenario_title, outcome_title = say("demo.column.scenario"), say("demo.column.outcome")
    category_title, confidence_title = say("demo.column.category"), say("demo.column.confidence")
    calls_title, time_title = say("demo.column.calls"), say("demo.column.time")
    print(
        f"{scenario_title:<44} {outcome_title:<18} {category_title:<30} "
        f"{confidence_title:<7} {calls_title:>5} {time_title:>7}"
    )
    for name, outcome, category, confidence, calls, elapsed in summary:
        seconds = say("demo.seconds", seconds=elapsed)
        print(f"{name:<44} {outcome:<18} {category:<30} {confidence:<7} {calls:>5} {seconds:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
