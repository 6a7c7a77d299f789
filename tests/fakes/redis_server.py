"""A real Redis for the shared-state tests: `TEST_REDIS_URL` (as `.ci/run` sets), else a
`redis-server` binary started on a free loopback port. Neither → the test fails with the reason."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest
import redis


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_ready(url: str, *, deadline_seconds: float = 10.0) -> None:
    client = redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)
    deadline = time.monotonic() + deadline_seconds
    while True:
        try:
            if client.ping():
                client.close()
                return
        except redis.RedisError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.05)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    configured = os.environ.get("TEST_REDIS_URL")
    if configured:
        _wait_ready(configured)
        yield configured
        return
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("no Redis: set TEST_REDIS_URL or install redis-server (.ci/run does both)")
    port = _free_port()
    workdir = tempfile.mkdtemp(prefix="redis-test-")
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
            workdir,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        _wait_ready(url)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(workdir, ignore_errors=True)
