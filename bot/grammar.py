"""What a user asked for, from `/diagnose` text.

The slash grammar is small and forgiving (`key=value` words, a few aliases, one bare identifier).
Nothing is guessed: what is missing or ambiguous is asked in the thread. Mention sentences are read
by `bot.mentions`."""

from __future__ import annotations

from bot.commands import (
    LANGS,
    Command,
    DiagnoseCommand,
    ExplainCommand,
    HelpCommand,
    RequestDraft,
    ScanCommand,
    UsageProblem,
    usage_problem,
)
from bot.textpatterns import linear
from bot.words import MAX_TEXT_CHARS, REGION, UUID, is_identifier, shell_words, unwrap_slack
from diagnosis.models import Platform
from diagnosis.timeutil import parse_duration

# What `explain` takes, as `diagnose explain` does: an exit code or signal (137, -9), a Kubernetes
# or Run:ai reason (ImagePullBackOff, OOMKilled), an API error code (APIGW.0301, ModelArts.2775),
# an Ascend or torch_npu code (EL0004, ERR99999). One word of at most 64 characters.
EXPLAIN_CODE = linear(r"-?\d{1,4}|[A-Za-z][A-Za-z0-9_.:\-]{0,63}")

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


def too_long(text: str, *, max_chars: int | None) -> UsageProblem | None:
    """The answer to a text longer than `max_chars` (None: no cap), before anything parses it."""
    if max_chars is None or len(text) <= max_chars:
        return None
    return usage_problem(
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
    words = shell_words(unwrap_slack(text.replace("\u00a0", " ")).strip())
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


def explain_code(word: str) -> str | None:
    """`word` as a code `explain` can look up (quotes and backticks around it dropped), else None."""
    code = word.strip().strip("`'\"“”‘’").strip()
    return code if len(code) <= 64 and EXPLAIN_CODE.fullmatch(code) else None


def _explain(words: list[str]) -> Command:
    """`explain CODE [lang=xx]`, in any order."""
    lang: str | None = None
    codes: list[str] = []
    for word in words:
        key, equals, value = word.partition("=")
        if equals and key.strip().lower() == "lang":
            if value not in LANGS:
                return usage_problem(
                    "lang", f"lang must be one of {', '.join(LANGS)}", langs=", ".join(LANGS)
                )
            lang = value
        else:
            codes.append(word)
    code = explain_code(codes[0]) if len(codes) == 1 else None
    if code is None:
        return usage_problem(
            "explain", "explain takes one code, e.g. `explain 137` or `explain ImagePullBackOff`"
        )
    return ExplainCommand(code=code, lang=lang)


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
        return usage_problem("scan_platform", f"scan needs a platform: {SCAN_USAGE}", usage=SCAN_USAGE)
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
            return usage_problem(
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
        return usage_problem("unknown_key", f"unknown key {key!r}", key=key)
    field, implies = KEY_ALIASES[key]
    if not value:
        return usage_problem("needs_value", f"{key}= needs a value", key=key)
    if field == "lang":
        if value not in LANGS:
            return usage_problem("lang", f"lang must be one of {', '.join(LANGS)}", langs=", ".join(LANGS))
    elif not is_identifier(value):
        return usage_problem(
            "bad_identifier", f"{key}={value!r} is not a valid identifier", value=f"{key}={value}"
        )
    return field, value, implies


def _bare_word(bare: list[str], values: dict[str, str]) -> UsageProblem | None:
    """At most one word without a key: the workload or job, by id or by name."""
    if len(bare) > 1:
        return usage_problem(
            "bare_words", f"I do not understand {' '.join(bare)!r}: use key=value words", words=" ".join(bare)
        )
    if bare:
        if not is_identifier(bare[0]):
            return usage_problem("bad_identifier", f"{bare[0]!r} is not a valid identifier", value=bare[0])
        values.setdefault("id" if UUID.fullmatch(bare[0]) else "name", bare[0])
    return None


def _platform_of(
    platform: Platform | None, implied: set[Platform], values: dict[str, str]
) -> Platform | UsageProblem | None:
    """The platform named first, else the one the keys imply; a problem when they disagree."""
    if platform is None and len(implied) == 1:
        platform = next(iter(implied))
    elif platform is None and len(implied) > 1:
        return usage_problem(
            "mixed_platforms", "these keys mix Run:ai and ModelArts: name the platform first"
        )
    if platform is not None and implied - {platform}:
        return usage_problem(
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
            return usage_problem("lookback", str(exc), value=values["lookback"])
    if "intent" in values and values["intent"] not in ("failure", "active"):
        return usage_problem("intent", "intent must be failure or active")
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
