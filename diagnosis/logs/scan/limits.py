"""How much of a log the scanner keeps: the bounds that keep its memory flat whatever the log size."""

from __future__ import annotations

DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024
MAX_FINDINGS = 40  # distinct findings kept (best first); the rest are counted in `findings_dropped`
MAX_LINE_CHARS = 2000  # a kept line longer than this is cut around the match
MAX_CONTEXT_LINES = 6
MAX_FRAMES = 8  # innermost frames kept per traceback
MAX_CONTINUATION_LINES = 40  # lines of a multi-line exception message followed (a few are kept)
MAX_FOREIGN_LINES = 20  # interleaved lines from other processes tolerated inside a traceback
CONSEQUENCE_WINDOW_LINES = 50
_TAIL_LINES = 64  # lines read back from the end of each chunk for the newest timestamp
_PARTIAL_OVERLAP = 4096  # bytes of an unfinished very long line kept to catch matches across reads
_TIMESTAMP_HEAD_CHARS = 120
_CLASS_CACHE_SIZE = 4096  # line shapes remembered (lines equal but for their digits)
_DIGIT_BYTES = b"0123456789"
