"""`diagnose`: the command line face of the engine.

Exit status: 0 whenever a report was produced, whatever the outcome; 3 when the platform could not
be reached or rejected the credentials (outcome `unreachable` or `auth_failed`: nothing was
diagnosed); 2 with a one-line reason for usage errors, unreadable bundles and configuration that is
missing.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from datetime import datetime

    from diagnosis.models import Diagnosis

# Each command imports what it needs when it runs (the engine, a platform's clients, the renderers),
# never at start: `diagnose --help` and the argument checks stay as fast as Python itself.

# The module that adds each command: each has `register(subparsers)`.
SUBCOMMANDS = {
    "runai": "cli.runai",
    "modelarts": "cli.modelarts",
    "replay": "cli.replay",
    "explain": "cli.explain",
    "sim": "cli.sim",
    "try": "cli.try_scenario",
    "bot": "cli.bot",
    "preview": "cli.preview",
    "mcp": "cli.mcp_serve",
    "playground": "cli.playground",
}
SUBCOMMAND_MODULES = tuple(SUBCOMMANDS.values())


class UsageError(Exception):
    """A one-line reason printed as `diagnose: error: …` with exit status 2 (configuration that is
    missing, a file that cannot be read or written)."""


class ArgumentsError(UsageError):
    """The command as typed cannot run (options missing, or that cannot go together): the reason
    is printed under the usage of the subcommand that was typed, as argparse prints its own."""


_QUOTED_VALUE = re.compile(r"'(?:[^'\\\n]|\\.)*'" + r'|"(?:[^"\\\n]|\\.)*"')


def masked_message(message: str) -> str:
    """An error line that quotes what was typed (`invalid region 'X'`), masked.

    Each quoted value is masked as the text it was before `repr` escaped its newlines and put it
    mid-sentence, where a `KEY: value` or a multi-line secret would no longer be recognised; what
    masking took out of a value is then taken out wherever else the line repeats it (a parser's
    error echoes the offending token).
    """
    import ast
    import difflib

    from diagnosis.masking import mask

    removed: set[str] = set()

    def one(match: re.Match[str]) -> str:
        try:
            value = ast.literal_eval(match.group(0))
        except (ValueError, SyntaxError):
            return match.group(0)
        if not isinstance(value, str):
            return match.group(0)
        hidden = mask(value)
        matcher = difflib.SequenceMatcher(None, value, hidden, autojunk=False)
        for tag, start, end, _hidden_start, _hidden_end in matcher.get_opcodes():
            if tag in ("replace", "delete") and end - start >= 4:
                removed.add(value[start:end])
        return repr(hidden)

    text = _QUOTED_VALUE.sub(one, message)
    for secret in sorted(removed, key=len, reverse=True):
        text = text.replace(secret, "[MASKED:secret]")
    return mask(text)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # argparse repeats the rejected value (`invalid choice: '…'`): it may be a pasted secret.
        from cli.messages import say

        self.print_usage(sys.stderr)
        self.exit(2, say("error.line", prog=self.prog, message=masked_message(message)) + "\n")


def add_output_options(parser: argparse.ArgumentParser, *, langs: Sequence[str]) -> None:
    parser.add_argument("--format", choices=("md", "json"), default="md", help="report format (default md)")
    parser.add_argument("--lang", choices=tuple(langs), default=None, help="language of the report")
    parser.add_argument("--query", metavar="EXPR", help="JMESPath expression applied to the JSON output")


def add_time_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--as-of",
        metavar="TIMESTAMP",
        default=None,
        help="the 'now' for lookback windows, metric ranges and stall checks (also DIAGNOSE_NOW)",
    )


def resolve_now(as_of: str | None) -> datetime:
    from datetime import UTC, datetime

    from diagnosis.timeutil import pinned_now

    text = as_of or os.environ.get("DIAGNOSE_NOW")
    if not text:
        return datetime.now(UTC)
    try:
        return pinned_now(text)
    except ValueError as exc:
        raise ArgumentsError(str(exc)) from None


def emit(diagnosis: Diagnosis, args: argparse.Namespace, *, lang: str) -> None:
    """Print the report in the chosen format (after `--query` when given)."""
    import json

    from diagnosis.render import QueryError, apply_query, render_json, render_markdown

    if getattr(args, "query", None):
        data = json.loads(render_json(diagnosis))
        try:
            result = apply_query(data, args.query)
        except QueryError as exc:
            raise ArgumentsError(str(exc)) from None
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return
    if getattr(args, "format", "md") == "json":
        print(render_json(diagnosis))
    else:
        print(render_markdown(diagnosis, lang=lang))


# Exit status of a report whose platform was never properly asked (unreachable, auth_failed).
EXIT_NOT_DIAGNOSED = 3
EXIT_STATUS_HELP = (
    "Exit status: 0 when a report was produced (whatever the outcome); 3 when the platform could not "
    "be reached or rejected the credentials (outcome unreachable or auth_failed: nothing was "
    "diagnosed); 2 for a usage error, an unreadable bundle or missing configuration."
)


def exit_status(diagnosis: Diagnosis) -> int:
    """0 for a report, 3 when the platform was not reached or refused the credentials."""
    from diagnosis.models import FAILURE_OUTCOMES

    return EXIT_NOT_DIAGNOSED if diagnosis.outcome in FAILURE_OUTCOMES else 0


def run_async(coro_factory: Callable[[], Any]) -> Any:
    import asyncio

    return asyncio.run(coro_factory())


# The distribution whose metadata holds the version (pyproject.toml is its one source).
DISTRIBUTION = "diagnose-bot"


def installed_version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "unknown (the package is not installed: pip install -e .)"


class _VersionAction(argparse.Action):
    """`--version` anywhere on the line; the package metadata is read only then."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_args: object, **_kwargs: object) -> None:
        parser.exit(message=f"{parser.prog} {installed_version()}\n")


def build_parser(*, command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or with `command` (a command's name) the parser of that command alone: a
    command typed parses as it would with every command registered, without importing the others."""
    parser = _Parser(
        prog="diagnose",
        description="Read-only diagnosis of failed ModelArts and Run:ai training jobs.",
        epilog=EXIT_STATUS_HELP,
    )
    parser.add_argument("--version", action=_VersionAction, help="show the version and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    modules = (SUBCOMMANDS[command],) if command in SUBCOMMANDS else SUBCOMMAND_MODULES
    for module_name in modules:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and module_name.startswith(exc.name):
                continue
            raise
        module.register(subparsers)
    _remember_parsers(parser)
    return parser


def _remember_parsers(parser: argparse.ArgumentParser) -> None:
    """Each (sub)subcommand's parser as `usage_parser` of what it parses: usage errors show it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                child.set_defaults(usage_parser=child)
                _remember_parsers(child)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments == ["--version"]:
        # Answered before the subcommands are imported: a version check stays instant.
        print(f"diagnose {installed_version()}")
        return 0
    parser = build_parser(command=arguments[0] if arguments else None)
    args, extras = parser.parse_known_args(arguments)
    typed: argparse.ArgumentParser = getattr(args, "usage_parser", parser)
    from cli.messages import speaking

    # The command's own words in its --lang (argparse checked it is one of the languages).
    with speaking(getattr(args, "lang", None)):
        return _run(args, typed, extras)


def _run(args: argparse.Namespace, typed: argparse.ArgumentParser, extras: list[str]) -> int:
    from cli.messages import say

    if extras:
        # argparse would report these at the top level; the subcommand typed is the one to show.
        typed.error(say("error.unrecognized", arguments=" ".join(extras)))
    handler = getattr(args, "handler", None)
    if handler is None:
        typed.print_help(sys.stderr)
        return 2
    # Libraries log through the root logger (the Kubernetes client logs an exec plugin's failure
    # with its stderr): those lines are masked like everything else the CLI prints. (Nothing logs
    # while the arguments are parsed; masking is loaded only for a command that runs.)
    from diagnosis.masking import mask_root_logging

    mask_root_logging()
    try:
        code = handler(args)
    except UsageError as exc:
        if isinstance(exc, ArgumentsError):
            typed.print_usage(sys.stderr)
        prog = typed.prog if isinstance(exc, ArgumentsError) else "diagnose"
        print(say("error.line", prog=prog, message=masked_message(str(exc))), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of the diagnosis.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
