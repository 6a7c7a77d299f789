"""What a user asked for, from `/diagnose` text or an @mention sentence.

The slash grammar is small and forgiving (`key=value` words, a few aliases, one bare identifier);
mention sentences are searched for explicit identifiers only ("job X", "cluster Y", "in Z", a
UUID, a region). Nothing is guessed: what is missing or ambiguous is asked in the thread.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from bot.textpatterns import linear
from diagnosis.models import DiagnoseRequest, Intent, Platform
from diagnosis.timeutil import parse_duration

IDENTIFIER_KEYS = ("job_id", "job_name", "region", "cluster_id", "workload_id", "workload_name", "project")
OPTION_KEYS = ("lookback", "intent")

# The longest text parsed from Slack: a real command or question is a few hundred characters (an
# identifier is at most 200); a longer one gets a one-line answer instead of a parse.
MAX_TEXT_CHARS = 4000

# Every pattern on text from Slack runs in linear time (RE2): any channel member can send the text.
UUID = linear(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
UUID_IN_TEXT = linear(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
REGION = linear(r"[a-z]{2}(?:-[a-z]+)+-\d{1,2}")
REGION_IN_TEXT = linear(r"\b[a-z]{2}(?:-[a-z]+)+-\d{1,2}\b")
# Identifiers as platforms spell them: letters, digits and - _ . : / (no spaces, no markup), at most
# IDENTIFIER_MAX_CHARS long. The length is checked first, so this anchored one-class pattern runs
# on at most 200 characters (Python's `re`: it is called once per word, where RE2's wrapper costs
# microseconds a call).
IDENTIFIER_MAX_CHARS = 200
_IDENTIFIER = re.compile(r"\w[\w.:/\-]*")
_EXIT_CODE = linear(r"-?\d{1,4}")
# Slack's references (`<@U1|name>`, `<#C1|inc-42>`, `<https://x|x>`): a label never holds `<` or `>`
# (Slack escapes them), so each attempt stops at the next `<` or `>` and never backtracks
# (possessive): linear in Python's `re`, which is many times cheaper a match than RE2's wrapper.
_SLACK_REF = re.compile(r"<([^<>|]*+)(?:\|([^<>]*+))?>")
# The lexemes of shell-like words (shlex itself copies the word for each character: quadratic on a
# long word). Each alternative consumes its run in one forward pass (possessive, nothing to backtrack
# into), and the only scan that can fail (a quote never closed) ends the tokenizing: linear. Python's
# `re` here, not RE2: a word per few characters, and RE2's Python wrapper costs microseconds a match.
_LEXEME = re.compile(r"""\s++|"[^"]*+"|'[^']*+'|[^\s"']++|["']""")

PLATFORM_WORDS: dict[str, Platform] = {
    "runai": "runai",
    "run:ai": "runai",
    "run-ai": "runai",
    "run.ai": "runai",
    "modelarts": "modelarts",
    "model-arts": "modelarts",
    "ma": "modelarts",
}

# key (as typed) -> (field, platform it implies or None)
KEY_ALIASES: dict[str, tuple[str, Platform | None]] = {
    "cluster": ("cluster_id", "runai"),
    "cluster_id": ("cluster_id", "runai"),
    "clusterid": ("cluster_id", "runai"),
    "workload": ("workload_name", "runai"),
    "workload_name": ("workload_name", "runai"),
    "workload_id": ("workload_id", "runai"),
    "project": ("project", "runai"),
    "lookback": ("lookback", "runai"),
    "intent": ("intent", "runai"),
    "job": ("job", "modelarts"),
    "job_id": ("job_id", "modelarts"),
    "job_name": ("job_name", "modelarts"),
    "region": ("region", "modelarts"),
    "id": ("id", None),
    "name": ("name", None),
    "lang": ("lang", None),
}

LANGS = ("en", "zh", "fr", "ja")


class RequestDraft(BaseModel):
    """A diagnosis request being assembled: what was given so far; the platform may be unknown."""

    platform: Platform | None = None
    job_id: str | None = None
    job_name: str | None = None
    region: str | None = None
    cluster_id: str | None = None
    workload_id: str | None = None
    workload_name: str | None = None
    project: str | None = None
    lookback: str | None = None
    intent: Intent | None = None

    def missing(self) -> list[str]:
        """Keys still needed before a diagnosis can start, in the order they are asked."""
        if self.platform is None:
            return ["platform"]
        if self.platform == "runai":
            wanted: list[str] = []
            if not self.cluster_id:
                wanted.append("cluster_id")
            if not self.workload_id and not self.workload_name:
                wanted.append("workload_name")
            elif not self.workload_id and not self.project:
                wanted.append("project")
            return wanted
        return [] if self.job_id or self.job_name else ["job"]

    def with_answer(self, key: str, value: str) -> RequestDraft:
        """The draft with one question answered (`job` is an id or a name, as on the command line)."""
        data = self.model_dump()
        if key == "platform":
            data["platform"] = value if value in ("runai", "modelarts") else None
            if value == "modelarts":
                # A platform-less draft keeps its identifier under the workload fields.
                data["job_name"] = data["job_name"] or data.pop("workload_name")
                data["job_id"] = data["job_id"] or data.pop("workload_id")
        elif key == "job":
            data["job_id" if UUID.fullmatch(value) else "job_name"] = value
        elif key in ("past_run", "workload"):
            # Run:ai's "did you mean a past run?" (a running workload with no crash symptom): the
            # answer names that run, by id or by name.
            data["workload_id" if UUID.fullmatch(value) else "workload_name"] = value
        elif key in data:
            data[key] = value
        return RequestDraft.model_validate(data)

    def to_request(self) -> DiagnoseRequest:
        if self.platform is None:
            raise ValueError("platform unknown")
        excluded = {"platform"} if self.platform == "runai" else {"platform", "lookback", "intent"}
        fields = self.model_dump(exclude_none=True, exclude=excluded)
        return DiagnoseRequest(platform=self.platform, **fields)

    def identifiers(self) -> dict[str, str]:
        return {k: v for k, v in self.model_dump(exclude_none=True).items() if k in IDENTIFIER_KEYS}

    def as_command(self) -> str:
        """The `/diagnose` words that ask for this request (`runai cluster=… workload=… project=…`)."""
        names = {
            "cluster_id": "cluster",
            "workload_name": "workload",
            "workload_id": "id",
            "job_id": "job",
            "job_name": "job",
        }
        words: list[str] = [self.platform or ""]
        for key, value in self.model_dump(exclude_none=True, exclude={"platform"}).items():
            words.append(f"{names.get(key, key)}={value}")
        return " ".join(word for word in words if word)

    def describe(self) -> str:
        """`runai workload train-42 (project ml-team, cluster prod-a)`: plain text, for progress lines."""
        if self.platform == "runai":
            main = f"workload {self.workload_id or self.workload_name or '?'}"
            extra = [
                f"project {self.project}" if self.project else "",
                f"cluster {self.cluster_id}" if self.cluster_id else "",
            ]
        elif self.platform == "modelarts":
            main = f"job {self.job_id or self.job_name or '?'}"
            extra = [f"region {self.region}" if self.region else ""]
        else:
            name = self.workload_id or self.workload_name or self.job_id or self.job_name or "?"
            return f"job {name}"
        details = ", ".join(part for part in extra if part)
        platform = "Run:ai" if self.platform == "runai" else "ModelArts"
        return f"{platform} {main}" + (f" ({details})" if details else "")

    def missing_for_scan(self) -> list[str]:
        """What a scan still needs: a Run:ai scan never guesses its cluster; ModelArts needs nothing."""
        return ["cluster_id"] if self.platform == "runai" and not self.cluster_id else []

    def describe_scan(self) -> str:
        """`Run:ai cluster prod-a (project ml-team, last 7d)`: what a scan covers, in plain text."""
        if self.platform == "runai":
            extra = [
                f"project {self.project}" if self.project else "",
                f"last {self.lookback}" if self.lookback else "",
            ]
            details = ", ".join(part for part in extra if part)
            return f"Run:ai cluster {self.cluster_id or '?'}" + (f" ({details})" if details else "")
        return "ModelArts" + (f" region {self.region}" if self.region else "")


class DiagnoseCommand(BaseModel):
    kind: Literal["diagnose"] = "diagnose"
    draft: RequestDraft
    lang: str | None = None


class ScanCommand(BaseModel):
    """`scan modelarts [region=…]` or `scan runai cluster=<id> [project=<p>] [lookback=7d]`."""

    kind: Literal["scan"] = "scan"
    platform: Platform
    region: str | None = None
    cluster_id: str | None = None
    project: str | None = None
    lookback: str | None = None
    lang: str | None = None

    def draft(self) -> RequestDraft:
        """What the scan covers, as a draft (the cluster may still be missing: it is then asked)."""
        return RequestDraft(
            platform=self.platform,
            region=self.region,
            cluster_id=self.cluster_id,
            project=self.project,
            lookback=self.lookback,
        )


class ExplainCommand(BaseModel):
    kind: Literal["explain"] = "explain"
    code: int
    lang: str | None = None


class HelpCommand(BaseModel):
    kind: Literal["help"] = "help"


class UsageProblem(BaseModel):
    """Input the grammar cannot use. `problem` is the English sentence (audit, logs); `code` and
    `values` let the bot say it in the channel's language (label `usage.<code>`)."""

    kind: Literal["usage"] = "usage"
    problem: str
    code: str = "generic"
    values: dict[str, str] = Field(default_factory=dict)


def _problem(code: str, english: str, **values: str) -> UsageProblem:
    return UsageProblem(problem=english, code=code, values=values)


Command = Annotated[
    DiagnoseCommand | ScanCommand | ExplainCommand | HelpCommand | UsageProblem, Field(discriminator="kind")
]


def is_identifier(value: str) -> bool:
    """Whether `value` can be a job, workload, cluster, project or region identifier."""
    return len(value) <= IDENTIFIER_MAX_CHARS and _IDENTIFIER.fullmatch(value) is not None


def unwrap_slack(text: str) -> str:
    """`<#C1|inc-42>` → `inc-42`, `<https://x|x>` → `x`, `<foo>` → `foo` (escaped commands)."""
    return _SLACK_REF.sub(_shown_part, text)


def _shown_part(reference: re.Match[str]) -> str:
    return reference.group(2) or reference.group(1) or ""


def _words(text: str) -> list[str]:
    """Words split as a shell would (quotes group, and are dropped); with a quote left open, at
    whitespace only."""
    words: list[str] = []
    word: list[str] | None = None
    for lexeme in _LEXEME.finditer(text):
        part = lexeme.group(0)
        if part[0] in "\"'":
            if len(part) == 1:
                return text.split()
            part = part[1:-1]
        elif part.isspace():
            if word is not None:
                words.append("".join(word))
            word = None
            continue
        if word is None:
            word = []
        word.append(part)
    if word is not None:
        words.append("".join(word))
    return words


def too_long(text: str, *, max_chars: int | None) -> UsageProblem | None:
    """The answer to a text longer than `max_chars` (None: no cap), before anything parses it."""
    if max_chars is None or len(text) <= max_chars:
        return None
    return _problem(
        "too_long",
        f"that text is {len(text)} characters long; I read at most {max_chars}",
        length=str(len(text)),
        limit=str(max_chars),
    )


def parse_command(text: str, *, max_chars: int | None = MAX_TEXT_CHARS) -> Command:
    """Parse `/diagnose` text. Never raises: bad input gives `UsageProblem` with the reason.
    `max_chars`: longer text is refused unread (None lifts the cap, for measurements)."""
    refused = too_long(text, max_chars=max_chars)
    if refused is not None:
        return refused
    words = _words(unwrap_slack(text.replace("\u00a0", " ")).strip())
    if not words:
        return HelpCommand()
    head = words[0].lower()
    if head in ("help", "?", "-h", "--help", "usage"):
        return HelpCommand()
    if head == "explain":
        return _explain(words[1:])
    if head == "scan":
        return _scan(words[1:])
    platform: Platform | None = PLATFORM_WORDS.get(head)
    rest = words[1:] if platform else words
    return _diagnose(rest, platform)


def _explain(words: list[str]) -> Command:
    if len(words) != 1 or not _EXIT_CODE.fullmatch(words[0]):
        return _problem("explain", "explain takes one exit code, e.g. `explain 137`")
    return ExplainCommand(code=int(words[0]))


SCAN_USAGE = "`scan modelarts [region=…]` or `scan runai cluster=<id> [project=<p>] [lookback=7d]`"
# key (as typed) -> field, per platform a scan covers.
SCAN_KEYS: dict[Platform, dict[str, str]] = {
    "modelarts": {"region": "region"},
    "runai": {
        "cluster": "cluster_id",
        "cluster_id": "cluster_id",
        "clusterid": "cluster_id",
        "project": "project",
        "lookback": "lookback",
    },
}


def _scan(words: list[str]) -> Command:
    if not words or PLATFORM_WORDS.get(words[0].lower()) is None:
        return _problem("scan_platform", f"scan needs a platform: {SCAN_USAGE}", usage=SCAN_USAGE)
    platform = PLATFORM_WORDS[words[0].lower()]
    values: dict[str, str] = {}
    lang: str | None = None
    for word in words[1:]:
        key, equals, value = word.partition("=")
        key = key.strip().lower().replace("-", "_")
        value = value.strip().strip("<>")
        field = SCAN_KEYS[platform].get(key) if equals else None
        if key == "lang" and equals and value in LANGS:
            lang = value
        elif field is not None and value and is_identifier(value):
            values[field] = value
        elif platform == "modelarts" and REGION.fullmatch(word):
            values["region"] = word
        else:
            return _problem(
                "scan_word",
                f"scan does not understand {word!r}: use {SCAN_USAGE}",
                word=word,
                usage=SCAN_USAGE,
            )
    problem = _check_options(values)
    if problem:
        return problem
    return ScanCommand(platform=platform, lang=lang, **values)


def _key_value(word: str) -> tuple[str, str, Platform | None] | UsageProblem:
    """`key=value`: the field it sets, its value and the platform the key implies, or the problem."""
    key, _, value = word.partition("=")
    key = key.strip().lower().replace("-", "_")
    value = value.strip().strip("<>")
    if key not in KEY_ALIASES:
        return _problem("unknown_key", f"unknown key {key!r}", key=key)
    field, implies = KEY_ALIASES[key]
    if not value:
        return _problem("needs_value", f"{key}= needs a value", key=key)
    if field == "lang":
        if value not in LANGS:
            return _problem("lang", f"lang must be one of {', '.join(LANGS)}", langs=", ".join(LANGS))
    elif not is_identifier(value):
        return _problem(
            "bad_identifier", f"{key}={value!r} is not a valid identifier", value=f"{key}={value}"
        )
    return field, value, implies


def _bare_word(bare: list[str], values: dict[str, str]) -> UsageProblem | None:
    """At most one word without a key: the workload or job, by id or by name."""
    if len(bare) > 1:
        return _problem(
            "bare_words", f"I do not understand {' '.join(bare)!r}: use key=value words", words=" ".join(bare)
        )
    if bare:
        if not is_identifier(bare[0]):
            return _problem("bad_identifier", f"{bare[0]!r} is not a valid identifier", value=bare[0])
        values.setdefault("id" if UUID.fullmatch(bare[0]) else "name", bare[0])
    return None


def _platform_of(
    platform: Platform | None, implied: set[Platform], values: dict[str, str]
) -> Platform | UsageProblem | None:
    """The platform named first, else the one the keys imply; a problem when they disagree."""
    if platform is None and len(implied) == 1:
        platform = next(iter(implied))
    elif platform is None and len(implied) > 1:
        return _problem("mixed_platforms", "these keys mix Run:ai and ModelArts: name the platform first")
    if platform is not None and implied - {platform}:
        return _problem(
            "wrong_platform",
            f"{', '.join(sorted(values))} do not all apply to {platform}",
            keys=", ".join(sorted(values)),
            platform=platform,
        )
    return platform


def _diagnose(words: list[str], platform: Platform | None) -> Command:
    values: dict[str, str] = {}
    bare: list[str] = []
    lang: str | None = None
    implied: set[Platform] = set()
    for word in words:
        if "=" not in word:
            bare.append(word.strip("<>"))
            continue
        keyed = _key_value(word)
        if isinstance(keyed, UsageProblem):
            return keyed
        field, value, implies = keyed
        if field == "lang":
            lang = value
            continue
        if implies:
            implied.add(implies)
        values[field] = value
    problem = _bare_word(bare, values)
    if problem:
        return problem
    chosen = _platform_of(platform, implied, values)
    if isinstance(chosen, UsageProblem):
        return chosen
    if not values and chosen is None:
        return HelpCommand()
    problem = _check_options(values)
    if problem:
        return problem
    return DiagnoseCommand(draft=_draft(values, chosen), lang=lang)


def _check_options(values: dict[str, str]) -> UsageProblem | None:
    if "lookback" in values:
        try:
            parse_duration(values["lookback"])
        except ValueError as exc:
            return _problem("lookback", str(exc), value=values["lookback"])
    if "intent" in values and values["intent"] not in ("failure", "active"):
        return _problem("intent", "intent must be failure or active")
    return None


def _draft(values: dict[str, str], platform: Platform | None) -> RequestDraft:
    """Map typed keys onto request fields; `id`/`name`/`job` depend on the platform."""
    data: dict[str, str | None] = {"platform": platform}
    for field, value in values.items():
        if field == "id":
            data["job_id" if platform == "modelarts" else "workload_id"] = value
        elif field == "name":
            data["job_name" if platform == "modelarts" else "workload_name"] = value
        elif field == "job":
            data["job_id" if UUID.fullmatch(value) else "job_name"] = value
        else:
            data[field] = value
    if platform is None:
        # The identifier is kept; which platform holds it is asked, never guessed.
        name = data.pop("workload_name", None) or data.pop("job_name", None)
        ident = data.pop("workload_id", None) or data.pop("job_id", None)
        data["workload_name"], data["workload_id"] = name, ident
    return RequestDraft.model_validate(data)
