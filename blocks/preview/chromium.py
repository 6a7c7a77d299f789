"""The preview page photographed with headless Chromium (Debian package `chromium`), with the
browser's own network features turned off and a throw-away profile."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from diagnosis.masking import mask

CHROMIUM_NAMES = ("chromium", "chromium-browser")
SCREENSHOT_TIMEOUT_S = 90
# Tall enough for a full report at 1000 px; the empty space below the message is cropped off.
DEFAULT_WINDOW_HEIGHT = 4000
CROP_MARGIN_PX = 24


class PreviewError(RuntimeError):
    """The screenshot could not be taken (no Chromium, a crash, a timeout): a one-line reason."""


def find_chromium() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise PreviewError(
        "Chromium was not found on PATH (looked for chromium, chromium-browser): "
        "install Debian's `chromium` package to take the screenshot"
    )


def chromium_command(
    binary: str, html_path: Path, png_path: Path, *, width: int, height: int, profile_dir: Path
) -> list[str]:
    """Headless, no GPU, no sandbox (containers), and every background network feature off."""
    return [
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--mute-audio",
        f"--user-data-dir={profile_dir}",
        f"--screenshot={png_path}",
        f"--window-size={width},{height}",
        html_path.resolve().as_uri(),
    ]


def screenshot(
    html_path: str | Path,
    png_path: str | Path,
    *,
    width: int = 1000,
    height: int | None = None,
    timeout_s: float = SCREENSHOT_TIMEOUT_S,
) -> Path:
    """Photograph a local HTML page; without `height`, a tall window cropped to the content."""
    binary = find_chromium()
    source = Path(html_path)
    target = Path(png_path).resolve()
    if not source.is_file():
        raise PreviewError(f"no HTML page at {source}")
    window_height = height or DEFAULT_WINDOW_HEIGHT
    with tempfile.TemporaryDirectory(prefix="diagnose-chromium-") as scratch:
        scratch_dir = Path(scratch)
        profile = scratch_dir / "profile"
        command = chromium_command(
            binary, source, target, width=width, height=window_height, profile_dir=profile
        )
        # A private HOME keeps Chromium's caches and crash reports out of the user's files.
        env = {**os.environ, "HOME": str(scratch_dir), "XDG_CONFIG_HOME": str(scratch_dir / "config")}
        target.unlink(missing_ok=True)
        try:
            finished = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                env=env,
                check=False,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise PreviewError(f"Chromium did not finish the screenshot within {timeout_s:.0f} s") from None
        except OSError as exc:
            raise PreviewError(f"Chromium could not be started: {exc.strerror or exc}") from None
    if not target.is_file() or target.stat().st_size == 0:
        tail = " ".join((finished.stderr or "").strip().splitlines()[-3:])
        raise PreviewError(
            mask(f"Chromium wrote no screenshot (exit status {finished.returncode}): {tail or 'no output'}")
        )
    if height is None:
        _crop_to_content(target)
    return target


def _crop_to_content(png_path: Path) -> None:
    """Cut the empty page below the message (Pillow comes with matplotlib; without it, keep all)."""
    try:
        from PIL import Image, ImageChops
    except ImportError:
        return
    with Image.open(png_path) as image:
        picture = image.convert("RGB")
    background = Image.new("RGB", picture.size, picture.getpixel((picture.width - 1, picture.height - 1)))
    box = ImageChops.difference(picture, background).getbbox()
    if box is None:
        return
    bottom = min(picture.height, box[3] + CROP_MARGIN_PX)
    if bottom < picture.height:
        picture.crop((0, 0, picture.width, bottom)).save(png_path, format="PNG")
