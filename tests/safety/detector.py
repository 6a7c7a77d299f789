"""An oracle that does not come from our own list: Yelp's detect-secrets over every output.

detect-secrets (https://github.com/Yelp/detect-secrets) is an independently maintained secret
scanner: regex plugins for AWS, Azure storage, JWT, private keys, basic auth in URLs, Slack,
GitHub, GitLab, OpenAI, PyPI, Stripe, Twilio, …, a keyword plugin (`password = …`, `api_key: …`
in many syntaxes) and high-entropy base64/hex string plugins, with its own heuristic filters. Every
plugin runs with its default settings on what a reader sees of each output (Markdown reports,
diagnosis JSON, Slack blocks, captured bundles, bot messages and uploads, log lines, exception
messages), one line at a time, as `detect-secrets scan` runs on a file of that type.

The one allow-list: a finding whose value is nothing but our own markers (`[MASKED:token]`) or
address tokens (`ip-1a2b3c4d`) is not a secret by construction and is not counted. No plugin is
turned off.

`detector_recall` runs the same scan over the raw carriers of the corpus: it shows how much of the
planted material the oracle would see if masking did nothing (it cannot see what it has no plugin
for, which is why the suite's own leak search stays).
"""

from __future__ import annotations

import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from detect_secrets.core.scan import scan_file
from detect_secrets.settings import default_settings

from tests.masking_corpus import PlantedSecret

# What `detect-secrets scan` would be told the file is, per output format.
FILE_SUFFIX = {
    "markdown": ".md",
    "json": ".json",
    "slack": ".json",
    "bundle": ".json",
    "bot messages": ".txt",
    "bot logs": ".log",
    "exceptions": ".log",
    "carrier": ".log",
}
_NOT_A_SECRET = re.compile(r"(?:\[MASKED:[a-z_]+\]|ip-[0-9a-f]{8}|[\s\"':=,;])+")


@dataclass
class DetectorResult:
    lines_by_format: Counter[str] = field(default_factory=Counter)
    findings_by_format: Counter[str] = field(default_factory=Counter)
    findings_by_plugin: Counter[str] = field(default_factory=Counter)
    allowed: int = 0
    # `format: plugin: the line, cut` (lines of our own outputs, to fix the masking by)
    examples: list[str] = field(default_factory=list)
    plugins: tuple[str, ...] = ()

    @property
    def findings(self) -> int:
        return sum(self.findings_by_format.values())

    @property
    def lines(self) -> int:
        return sum(self.lines_by_format.values())


def plugin_names() -> tuple[str, ...]:
    from detect_secrets.settings import get_plugins

    with default_settings():
        return tuple(sorted(type(plugin).__name__ for plugin in get_plugins()))


def scan(lines_by_format: Mapping[str, Iterable[str]]) -> DetectorResult:
    """Every plugin, default settings, over each format's distinct lines."""
    result = DetectorResult(plugins=plugin_names())
    with default_settings(), tempfile.TemporaryDirectory(prefix="safety-detector-") as folder:
        for format_name, lines in lines_by_format.items():
            distinct = sorted({line.rstrip() for line in lines if line.strip()})
            result.lines_by_format[format_name] += len(distinct)
            if not distinct:
                continue
            path = Path(folder) / f"output{len(result.lines_by_format)}{FILE_SUFFIX.get(format_name, '.txt')}"
            path.write_text("\n".join(distinct) + "\n", encoding="utf-8", errors="surrogatepass")
            for secret in scan_file(str(path)):
                value = secret.secret_value or ""
                if value and _NOT_A_SECRET.fullmatch(value):
                    result.allowed += 1
                    continue
                result.findings_by_format[format_name] += 1
                result.findings_by_plugin[secret.type] += 1
                if len(result.examples) < 40:
                    line = distinct[secret.line_number - 1] if 0 < secret.line_number <= len(distinct) else ""
                    result.examples.append(f"{format_name}: {secret.type}: {line[:160]}")
    return result


def detector_recall(cases: Sequence[PlantedSecret]) -> tuple[int, int]:
    """(carriers the detector flags before masking, carriers) over the corpus."""
    flagged = 0
    with default_settings(), tempfile.TemporaryDirectory(prefix="safety-detector-") as folder:
        for number, case in enumerate(cases):
            path = Path(folder) / f"carrier{number}.log"
            path.write_text(case.carrier + "\n", encoding="utf-8", errors="surrogatepass")
            flagged += any(True for _ in scan_file(str(path)))
    return flagged, len(cases)
