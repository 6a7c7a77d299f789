"""huey's pickle serializer, reading back only what a queued task of this bot may hold.

huey pickles its task messages (a namedtuple with datetimes) and the bot passes plain data only
(str, int, float, bool, None, lists, tuples, dicts). Unpickling anything else could run code from
whoever can write to the queue (the Redis, the SQLite file), so any other global is refused, as the
Python documentation recommends: https://docs.python.org/3/library/pickle.html#restricting-globals
"""

from __future__ import annotations

import io
import pickle

from huey.serializer import Serializer

ALLOWED_GLOBALS = frozenset(
    {
        ("huey.registry", "Message"),
        ("datetime", "datetime"),
        ("datetime", "timedelta"),
        ("datetime", "timezone"),
    }
)


class _DataOnlyUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> type:
        if (module, name) in ALLOWED_GLOBALS:
            found: type = super().find_class(module, name)
            return found
        raise pickle.UnpicklingError(f"a queued task may not hold {module}.{name}")


class DataOnlySerializer(Serializer):  # type: ignore[misc]
    def _deserialize(self, data: bytes) -> object:
        return _DataOnlyUnpickler(io.BytesIO(data)).load()
