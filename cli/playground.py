"""`diagnose playground`: the bot in a local Slack in the browser (nothing reaches Slack).

    diagnose playground [--port N]      # then open the printed http://127.0.0.1:N/

Starts the real bot (`diagnose bot --http`) with a local Web API stand-in, the simulator with the
example scenarios, and a page on 127.0.0.1 that behaves like a Slack channel.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from cli.main import UsageError
from cli.messages import say


def register(subparsers: Any) -> None:
    from cli.bot import BUILTIN_BUNDLES

    parser = subparsers.add_parser(
        "playground",
        help="try the Slack bot in a local Slack in the browser (loopback only, no Slack)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument(
        "--port", type=int, default=8780, help="the page's port on 127.0.0.1 (default 8780, 0 = any)"
    )
    parser.add_argument(
        "--bundles",
        default=str(BUILTIN_BUNDLES),
        metavar="DIR",
        help="the scenarios the bot and the simulator answer from (default: the built-in examples)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from playground.launch import PlaygroundError, running_playground

    bundles = Path(args.bundles)
    if not bundles.is_dir():
        raise UsageError(say("error.bundles_not_directory", folder=bundles))
    try:
        with running_playground(bundles=bundles, port=args.port) as playground:
            print(say("playground.open", url=playground.page.url), flush=True)
            print(say("playground.bot", url=playground.bot_url, log=playground.bot_log), flush=True)
            print(say("playground.sim", url=playground.sim.base_url), flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
    except PlaygroundError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(say("error.playground_start", reason=exc.strerror or exc)) from None
    return 0
