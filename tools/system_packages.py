"""The system packages `make test` needs: present, installed now (root with apt-get), or one line.

    python3 tools/system_packages.py            install what is missing, or say how and exit 2
    python3 tools/system_packages.py --check    only say what is missing (exit 2 when something is)

Needed: a real `redis-server` for the shared-state tests, Debian's `chromium` for the Slack
preview screenshots, the Noto CJK fonts so Chinese and Japanese text renders in charts and
screenshots, and Python's venv module (Debian ships it apart as `python3-venv`). Runs with the
system `python3` before the virtualenv exists, so it uses the standard library only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path.home() / ".fonts")


def _has_command(*names: str) -> Callable[[], bool]:
    return lambda: any(shutil.which(name) for name in names)


def _has_cjk_font() -> bool:
    """A Noto CJK font file where fontconfig looks (Debian: fonts-noto-cjk, NotoSansCJK-*.ttc)."""
    return any(folder.is_dir() and any(folder.rglob("NotoSansCJK*")) for folder in FONT_DIRS)


def _has_venv() -> bool:
    """`python3 -m venv` works only with ensurepip, which Debian packages as python3-venv."""
    try:
        import ensurepip  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class Need:
    package: str  # the Debian package that provides it
    present: Callable[[], bool]


NEEDS: tuple[Need, ...] = (
    Need("redis-server", _has_command("redis-server")),
    Need("chromium", _has_command("chromium", "chromium-browser")),
    Need("fonts-noto-cjk", _has_cjk_font),
    Need("python3-venv", _has_venv),
)


def missing(needs: Sequence[Need] = NEEDS) -> list[str]:
    return [need.package for need in needs if not need.present()]


def install_command(packages: Sequence[str]) -> str:
    return f"sudo apt-get update && sudo apt-get install -y {' '.join(packages)}"


def can_install() -> bool:
    return os.geteuid() == 0 and shutil.which("apt-get") is not None


def install(packages: Sequence[str]) -> int:
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    print(f"installing {' '.join(packages)} (apt-get)", file=sys.stderr, flush=True)
    for command in (
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages],
    ):
        code = subprocess.run(command, env=environment, check=False).returncode
        if code != 0:
            print(f"`{' '.join(command)}` failed (exit {code})", file=sys.stderr)
            return code
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/system_packages.py", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only report what is missing")
    options = parser.parse_args(argv)
    needed = missing()
    if not needed:
        return 0
    if options.check or not can_install():
        print(
            f"make test needs {', '.join(needed)}, which this user cannot install: "
            f"run `{install_command(needed)}`, then `make test` again",
            file=sys.stderr,
        )
        return 2
    code = install(needed)
    if code != 0:
        return code
    still = missing()
    if still:
        print(f"still missing after apt-get install: {', '.join(still)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
