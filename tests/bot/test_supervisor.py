"""HTTP mode's process tree: a dead child is started again, one that cannot start stops the tree
with its exit code, and SIGTERM stops every child."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from bot import supervisor
from bot.supervisor import Child, Supervisor


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped) counts as gone.
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split(")")[-1].split()[0] != "Z"


def test_a_child_that_dies_after_running_a_while_is_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(supervisor, "EARLY_EXIT_SECONDS", 0.2)
    starts = tmp_path / "starts"
    flaky = Child(
        name="work-1",
        command=python(
            f"import time; open({str(starts)!r}, 'a').write('x'); time.sleep(0.5); raise SystemExit(9)"
        ),
        first_backoff_seconds=0.1,
    )
    steady = Child(name="web", command=python("import time; time.sleep(60)"))
    tree = Supervisor([flaky, steady])
    threading.Timer(3.0, lambda: setattr(tree, "stopping", True)).start()
    assert tree.run() == 0
    assert len(starts.read_text()) >= 3
    assert flaky.restarts >= 2 and steady.restarts == 0


def test_a_child_that_cannot_start_stops_the_tree_with_its_exit_code(
    tmp_path: Path,
) -> None:
    steady = Child(name="work-1", command=python("import time; time.sleep(60)"))
    broken = Child(name="web", command=python("raise SystemExit(3)"), first_backoff_seconds=0.05)
    started = time.monotonic()
    assert Supervisor([broken, steady]).run() == 3
    assert time.monotonic() - started < 10
    assert broken.early_exits == supervisor.MAX_EARLY_EXITS
    assert steady.process is not None and not alive(steady.process.pid)


def test_sigterm_stops_every_child_and_puts_the_signal_handlers_back() -> None:
    children = [Child(name=f"work-{n}", command=python("import time; time.sleep(60)")) for n in (1, 2)]
    before = signal.getsignal(signal.SIGTERM)
    threading.Timer(1.0, os.kill, args=(os.getpid(), signal.SIGTERM)).start()
    started = time.monotonic()
    assert Supervisor(children).run() == 0
    assert time.monotonic() - started < 10
    for child in children:
        assert child.process is not None and child.process.returncode == -signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == before
