"""What every chart shares: the result (a PNG, or a one-line reason), the values read back from the
figure, and matplotlib drawn with the Agg backend, one figure at a time."""

from __future__ import annotations

import io
import threading
import warnings
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from diagnosis.locale import LOCALE_DIR
from diagnosis.masking import mask
from diagnosis.models import Diagnosis
from diagnosis.render.i18n import Catalogue, Translator

GIB = 1024**3

# The charts' titles, axes, legends and table headings: the gettext domain `charts`.
CATALOGUE = Catalogue("charts", LOCALE_DIR)

NO_MATPLOTLIB = "matplotlib is not installed"

CJK_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK KR")
USAGE_COLOUR = "#1d6fb8"
LIMIT_COLOUR = "#c0392b"
REQUEST_COLOUR = "#7f8c8d"
KILL_COLOUR = "#8e0000"
BAR_COLOUR = "#4a6fa5"
BAR_HIGHLIGHT = "#c0392b"


@dataclass
class FigureData:
    """What the figure plots, read back from its artists (axis units: GiB, UTC datetimes, counts)."""

    title: str = ""
    x_label: str = ""
    y_label: str = ""
    # label → (x values, y values) of each plotted line
    lines: dict[str, tuple[list[datetime], list[float]]] = field(default_factory=dict)
    # label → y of each horizontal line (limit, request)
    levels: dict[str, float] = field(default_factory=dict)
    # label → x of each vertical marker (kills)
    markers: dict[str, list[datetime]] = field(default_factory=dict)
    # bar label → height
    bars: dict[str, float] = field(default_factory=dict)
    # the legend's entries, as drawn
    legend: list[str] = field(default_factory=list)
    table: list[list[str]] = field(default_factory=list)

    def plotted_max(self) -> float:
        """The highest value plotted by any line or bar."""
        values = [y for _, ys in self.lines.values() for y in ys] + list(self.bars.values())
        return max(values) if values else 0.0

    def plotted_max_bytes(self) -> int:
        return round(self.plotted_max() * GIB)


@dataclass(frozen=True)
class ChartResult:
    png: bytes | None
    reason: str | None = None
    figure_data: FigureData | None = None
    width_px: int | None = None
    height_px: int | None = None

    @property
    def made(self) -> bool:
        return self.png is not None


class NoMatplotlib(Exception):
    pass


def load_matplotlib() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.dates
        import matplotlib.figure
        from matplotlib.backends import backend_agg  # noqa: F401
    except ImportError:
        raise NoMatplotlib from None
    return matplotlib


def _font_families(mpl: Any) -> list[str]:
    """DejaVu Sans, then a CJK font when installed (job names may be Chinese or Japanese)."""
    available = {font.name for font in mpl.font_manager.fontManager.ttflist}
    return ["DejaVu Sans", *[name for name in CJK_FONTS if name in available]]


def new_figure(mpl: Any, width_px: int, height_px: int) -> tuple[Any, Any]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    dpi = 100
    figure = Figure(figsize=(width_px / dpi, height_px / dpi), dpi=dpi, layout="constrained")
    canvas = FigureCanvasAgg(figure)
    return figure, canvas


def png_bytes(canvas: Any) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # A glyph missing from every installed font is drawn as a box; say nothing.
        warnings.simplefilter("ignore", UserWarning)
        canvas.print_png(buffer)
    return buffer.getvalue()


# rcParams are process-wide: one drawing at a time (the bot draws from a pool of threads).
DRAWING = threading.Lock()


def rc_context(mpl: Any) -> Any:
    return mpl.rc_context(
        {
            # A list of families lets matplotlib fall back glyph by glyph (CJK job names).
            "font.family": _font_families(mpl),
            "axes.titlesize": 14,
            "axes.labelsize": 11,
            "savefig.dpi": 100,
        }
    )


def in_gib(value: int) -> float:
    return value / GIB


def job_name(diagnosis: Diagnosis, t: Translator) -> str:
    target = diagnosis.target
    return mask(target.name or target.workload_id or target.job_id or t("chart.unnamed_job"))


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
