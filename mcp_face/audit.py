"""Audit lines: one JSON object per line per tool call (who, what, how it ended), masked.

Written to the file named by `DIAGNOSE_MCP_AUDIT` (or `--audit`), appended, else to standard error
(never to standard output, which carries the protocol over stdio).
"""

from __future__ import annotations

import json
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from diagnosis.masking import mask, mask_obj


class AuditLog:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: Path | None) -> AuditLog:
        if path is None:
            return cls(sys.stderr)
        return cls(path.open("a", encoding="utf-8"))

    def write(self, record: dict[str, Any]) -> None:
        stamped = {"ts": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), **record}
        line = json.dumps(mask_obj(stamped), ensure_ascii=False, separators=(",", ":"))
        # JSON escapes a newline inside a value as `\n`: the line stays one line. Masked once more
        # as the text a reader's tools will search.
        with self._lock:
            self.stream.write(mask(line) + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.stream is not sys.stderr:
            self.stream.close()
