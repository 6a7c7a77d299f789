"""The older Run:ai planes' generated clients, each in its own folder: `python tools/runai_planes.py`.

`requirements/runai-planes.txt` lists one `runapy==X` per control-plane release the product
supports besides the current one (whose client is a dev dependency). Every release imports as
`runai`, so each is installed without its dependencies (the current client brings the same ones)
into `.venv/runai-planes/<X>/`, and the tests run one Python per release with that folder first on
its path. An installed folder is kept; a missing one is installed with the virtualenv's pip.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLANES_FILE = ROOT / "requirements" / "runai-planes.txt"
PLANES_DIR = ROOT / ".venv" / "runai-planes"


def pinned_versions(text: str) -> list[str]:
    """The versions of the `runapy==X` lines, in file order."""
    versions: list[str] = []
    for line in text.splitlines():
        pin = line.split("#", 1)[0].strip()
        if not pin:
            continue
        name, _, version = pin.partition("==")
        if name.strip() != "runapy" or not version.strip():
            raise ValueError(f"{PLANES_FILE.name}: expected `runapy==<version>`, got {pin!r}")
        versions.append(version.strip())
    return versions


def plane_folder(version: str) -> Path:
    return PLANES_DIR / version


def install(python: str = sys.executable) -> list[Path]:
    folders: list[Path] = []
    for version in pinned_versions(PLANES_FILE.read_text(encoding="utf-8")):
        folder = plane_folder(version)
        if not (folder / "runai" / "__init__.py").exists():
            subprocess.run(
                [
                    python,
                    "-m",
                    "pip",
                    "install",
                    "-q",
                    "--no-deps",
                    "--target",
                    str(folder),
                    f"runapy=={version}",
                ],
                check=True,
            )
        folders.append(folder)
    return folders


if __name__ == "__main__":
    for installed in install():
        print(installed.relative_to(ROOT))
