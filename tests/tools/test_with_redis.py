"""`tools/with_redis.py`: a real redis-server on a free loopback port for the command, stopped after."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tools.with_redis import answers_ping

SCRIPT = ROOT / "tools" / "with_redis.py"
# The command under test: pings the Redis it was given, prints its URL, exits with status 3.
PROBE = (
    "import os, redis; url = os.environ['TEST_REDIS_URL']; "
    "client = redis.Redis.from_url(url); client.set('probe', 'x'); assert client.get('probe') == b'x'; "
    "print(url); raise SystemExit(3)"
)


def _run(tmp_path: Path, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--", sys.executable, "-c", PROBE],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )


def test_the_command_gets_a_private_redis_that_stops_with_it(tmp_path: Path) -> None:
    environment = {key: value for key, value in os.environ.items() if key != "TEST_REDIS_URL"}
    result = _run(tmp_path, environment)
    assert result.returncode == 3, result.stderr  # the command's own status
    url = result.stdout.strip()
    assert url.startswith("redis://127.0.0.1:") and url.endswith("/0")
    assert f"Redis for the tests at {url}" in result.stderr
    port = int(url.removeprefix("redis://127.0.0.1:").removesuffix("/0"))
    assert not answers_ping(port), "the Redis was left running"


def test_a_configured_redis_is_used_as_it_is(tmp_path: Path, redis_url: str) -> None:
    result = _run(tmp_path, {**os.environ, "TEST_REDIS_URL": redis_url})
    assert result.returncode == 3, result.stderr
    assert result.stdout.strip() == redis_url
    assert "Redis for the tests" not in result.stderr


def test_without_redis_server_it_says_how_to_get_it(tmp_path: Path) -> None:
    environment = {key: value for key, value in os.environ.items() if key != "TEST_REDIS_URL"}
    environment["PATH"] = str(tmp_path)
    result = _run(tmp_path, environment)
    assert result.returncode == 2
    assert result.stderr.strip() == "redis-server is not installed: run `python3 tools/system_packages.py`"


def test_no_command_is_a_usage_error() -> None:
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and result.stderr.startswith("usage: python3 tools/with_redis.py --")
