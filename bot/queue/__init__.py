"""The bot's two task queues, on huey (https://huey.readthedocs.io): `chat` for the short Slack
exchanges a request starts with (placeholder, questions, follow-ups) and `diagnoses` for the
5–60 s workflows, each consumed by its own pool of worker threads so that a burst of diagnoses never
delays a placeholder.

Both live in a SQLite file beside the bot's state by default (one machine: the web or Socket Mode
process and the worker process share it), in Redis when REDIS_URL is set (any number of web and
worker replicas). Queued tasks survive restarts in either; `bot.queue.redelivery` adds what huey
leaves out, running again a task whose worker died.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from huey import Huey

from bot.queue.serializer import DataOnlySerializer
from bot.queue.sqlite import QueueStorage

CHAT = "chat"
DIAGNOSES = "diagnoses"


@dataclass(frozen=True)
class Queues:
    chat: Huey
    diagnoses: Huey
    # Where they live, for log lines and health checks ("sqlite:<path>" or "redis").
    where: str

    def all(self) -> tuple[Huey, Huey]:
        return (self.chat, self.diagnoses)

    def ping(self) -> bool:
        """Both queues readable (the health checks)."""
        try:
            for huey in self.all():
                huey.pending_count()
        except Exception:
            return False
        return True

    def close(self) -> None:
        for huey in self.all():
            huey.storage.close()


def queue_path(state_path: str | Path, name: str = CHAT) -> Path:
    """`…/state.sqlite3` → `…/state.queue.sqlite3` (chat) or `…/state.diagnoses.sqlite3`: each queue
    in a file of its own, beside the state. The web side writes only to the chat queue's file (one
    task per request), so its writes never wait behind the diagnosis workers' bookkeeping."""
    state = Path(state_path)
    kind = "queue" if name == CHAT else name
    return state.with_name(f"{state.stem}.{kind}{state.suffix or '.sqlite3'}")


def open_queues(*, redis_url: str | None, state_path: str | Path, namespace: str = "diagnose-bot") -> Queues:
    if redis_url:
        return _redis_queues(redis_url, namespace=namespace)
    hueys = [
        Huey(
            name,
            storage_class=QueueStorage,  # WAL, synchronous=NORMAL, short retries (bot.queue.sqlite)
            filename=str(_created(queue_path(state_path, name))),
            results=False,
            serializer=DataOnlySerializer(),
            journal_mode="wal",
            timeout=10,
        )
        for name in (CHAT, DIAGNOSES)
    ]
    where = ", ".join(f"sqlite:{queue_path(state_path, name)}" for name in (CHAT, DIAGNOSES))
    return Queues(chat=hueys[0], diagnoses=hueys[1], where=where)


def _created(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _redis_queues(url: str, *, namespace: str) -> Queues:
    from redis import ConnectionPool

    from bot.queue.redis_storage import RedisQueueStorage

    # One pool for both queues; each worker thread holds a connection in a blocking BLMOVE
    # (read_timeout 1 s), so an idle worker sends no polling commands.
    pool = ConnectionPool.from_url(url, socket_connect_timeout=5, socket_timeout=10, health_check_interval=30)
    hueys = [
        Huey(
            f"{namespace}.{name}",
            storage_class=RedisQueueStorage,  # BLMOVE: what a worker takes is kept (bot.queue.taken)
            connection_pool=pool,
            clean_name=False,
            results=False,
            serializer=DataOnlySerializer(),
            blocking=True,
            read_timeout=1,
        )
        for name in (CHAT, DIAGNOSES)
    ]
    return Queues(chat=hueys[0], diagnoses=hueys[1], where="redis")
