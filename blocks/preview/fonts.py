"""Whether the fonts a report's language needs are installed, as Chromium finds them (fontconfig).

Chromium draws a character no installed font has as an empty box (tofu): a Chinese or Japanese
report on a machine without CJK fonts is a screenshot of boxes. `fc-list :lang=<code>` lists the
fonts that cover a language (https://www.freedesktop.org/software/fontconfig/fontconfig-user.html);
an empty list means the screenshot cannot show that language's text.
"""

from __future__ import annotations

import shutil
import subprocess

# The languages' English names, for the note (which is English, as everything on stderr is).
ENGLISH_NAMES = (("en", "English"), ("fr", "French"), ("zh", "Chinese"), ("ja", "Japanese"))
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


def missing_fonts_note(lang: str) -> str | None:
    """One line for stderr when the screenshot cannot show `lang`'s text (or it was not checked)."""
    name = dict(ENGLISH_NAMES).get(lang, lang)
    covered = fonts_cover(lang)
    if covered is None:
        return (
            f"fonts: fc-list (fontconfig) is not installed, so whether report.png can show {name} text "
            "was not checked"
        )
    if covered:
        return None
    return (
        f"fonts: no installed font covers {name}: its text in report.png shows as empty boxes "
        f"(Debian: apt-get install {CJK_FONT_PACKAGE if lang in CJK_LANGUAGES else LATIN_FONT_PACKAGE})"
    )
