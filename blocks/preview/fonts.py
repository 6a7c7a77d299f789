"""Whether the fonts a report's language needs are installed, as Chromium finds them (fontconfig).

Chromium draws a character no installed font has as an empty box (tofu): a Chinese or Japanese
report on a machine without CJK fonts is a screenshot of boxes. `fc-list :lang=<code>` lists the
fonts that cover a language (https://www.freedesktop.org/software/fontconfig/fontconfig-user.html);
an empty list means the screenshot cannot show that language's text.
"""

from __future__ import annotations

import shutil
import subprocess

# The Debian packages that bring the fonts (tools/system_packages.py installs the CJK one).
CJK_LANGUAGES = frozenset({"zh", "ja"})
CJK_FONT_PACKAGE = "fonts-noto-cjk"
LATIN_FONT_PACKAGE = "fonts-dejavu-core"
FC_LIST_SECONDS = 20


def fonts_cover(lang: str) -> bool | None:
    """True when some installed font covers `lang`, False when none does, None when unknown
    (fontconfig's `fc-list` is not installed or did not answer)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return None
    try:
        listed = subprocess.run(
            [fc_list, f":lang={lang}", "family"],
            capture_output=True,
            text=True,
            timeout=FC_LIST_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if listed.returncode != 0:
        return None
    return bool(listed.stdout.strip())


def font_package(lang: str) -> str:
    """The Debian package whose fonts cover `lang`."""
    return CJK_FONT_PACKAGE if lang in CJK_LANGUAGES else LATIN_FONT_PACKAGE
