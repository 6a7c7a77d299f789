"""Run a command beside a private Redis: `python3 tools/with_redis.py -- make unit safety`.

Starts `redis-server` on a free loopback port (no persistence, its own temporary folder),
exports `TEST_REDIS_URL=redis://127.0.0.1:<port>/0` to the command, and stops the server when
the command ends, whatever its exit status (which this script returns). When `TEST_REDIS_URL`
is already set, that Redis is used and none is started. Standard library only.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

READY_SECONDS = 10.0


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def private_redis(binary: str) -> Iterator[str]:
    """A `redis-server` on a free loopback port for the duration of the block; yields its URL."""
    with tempfile.TemporaryDirectory(prefix="make-test-redis-") as folder:
        port = free_loopback_port()
        process = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                folder,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + READY_SECONDS
            while not answers_ping(port):
                if process.poll() is not None:
                    raise RuntimeError(f"redis-server exited at start (status {process.returncode})")
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"redis-server did not answer on 127.0.0.1:{port} within {READY_SECONDS:.0f} s"
                    )
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def run(command: Sequence[str]) -> int:
    if os.environ.get("TEST_REDIS_URL"):
        return subprocess.run(list(command), check=False).returncode
    binary = shutil.which("redis-server")
    if binary is None:
        print("redis-server is not installed: run `python3 tools/system_packages.py`", file=sys.stderr)
        return 2
    try:
        with private_redis(binary) as url:
            print(f"Redis for the tests at {url}", file=sys.stderr, flush=True)
            environment = {**os.environ, "TEST_REDIS_URL": url}
            return subprocess.run(list(command), env=environment, check=False).returncode
    except RuntimeError as exc:
        print(str(exc), file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["--"]:
        arguments = arguments[1:]
    if not arguments:
        print("usage: python3 tools/with_redis.py -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    return run(arguments)


if __name__ == "__main__":
    sys.exit(main())
