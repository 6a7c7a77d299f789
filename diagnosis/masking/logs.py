"""The product's own log lines: every record masked before any handler writes it.

`MaskingFilter` renders a record's message (`msg % args`), masks it and stores it back with the
args cleared; exception and stack text are formatted and masked too (formatters reuse
`record.exc_text`). It goes on handlers: a logger's own filters do not see records propagated from
child loggers. `mask_root_logging` puts one on every handler of the root logger, and gives the root
logger a masked stderr handler when it has none, so that a library logging through the root logger
(the Kubernetes client logs an exec plugin's failure, stderr included, with `logging.error`) is
masked in every face that runs the engine, instead of reaching Python's last-resort handler raw.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

MaskText = Callable[[str], str]


class MaskingFilter(logging.Filter):
    """Masks each log record so the product's own log lines never carry a secret."""

    _formatter = logging.Formatter()

    def __init__(self, mask_text: MaskText | None = None) -> None:
        super().__init__()
        self._mask_text = mask_text

    def _mask(self, text: str) -> str:
        if self._mask_text is not None:
            return self._mask_text(text)
        from diagnosis.masking import mask

        return mask(text)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not lose the line, nor let args through unmasked
            message = f"{record.msg} {record.args!r}" if record.args else str(record.msg)
        record.msg = self._mask(message)
        record.args = ()
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._mask(record.exc_text)
        if record.stack_info:
            record.stack_info = self._mask(record.stack_info)
        return True


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever `sys.stderr` is when a record comes (as Python's last-resort handler)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, _value: object) -> None:
        pass


def mask_root_logging(*, level: int = logging.WARNING) -> None:
    """Every handler of the root logger masks; when it has none, a masked stderr handler that
    prints what `logging.error(…)` would have set up (`logging.basicConfig`'s format, WARNING and
    above)."""
    root = logging.getLogger()
    if not root.handlers:
        stderr = _StderrHandler()
        stderr.setLevel(level)
        stderr.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
        root.addHandler(stderr)
    for handler in root.handlers:
        if not any(isinstance(existing, MaskingFilter) for existing in handler.filters):
            handler.addFilter(MaskingFilter())
