"""Secrets handed to command-line tools and written to their files, where no key names them.

`wandb login KEY` and `wandb.login(key=…)`; netrc lines (`machine … login … password …`, which
`wandb login` writes); `curl -u user:pw` and `--user user:pw`; `-p PW` of `docker login` (and the
other registry clients) and of `twine upload`; `mysql -pPW` (no blank: with one, mysql prompts and
the next word is a database); `sshpass -p PW`; `redis-cli -a PW`; `obsutil config -k SK -t TOKEN`;
`mc alias set NAME URL AK SK`.

The flag is found first; the tool it belongs to is then looked for a bounded distance back on the
same line (never further: a megabyte of `-p x -p x …` costs one pass).
"""

from __future__ import annotations

import re

from diagnosis.masking.markers import MASK_PREFIX, masked, strip_quotes
from diagnosis.masking.rules import AnyRule, KeyedRule, Replace, Rule, splice

_ARG = r"""(?:"[^"\n]*"|'[^'\n]*'|[^\s"']+)"""
_LOOK_BACK = 300

# The tools a flag means a password for, in the part of its line before the flag.
_REGISTRY_LOGIN = re.compile(
    r"\b(?:docker|podman|nerdctl|buildah|skopeo|helm(?:[ \t]+registry)?|oras|crane|singularity|apptainer)"
    r"[ \t]+login\b|\btwine[ \t]+upload\b"
)
_MYSQL = re.compile(r"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb(?:-dump)?)\b")
_SSHPASS_FLAG = re.compile(r"\bsshpass[ \t]+$")
_OBSUTIL = re.compile(r"\bobsutil[ \t]+config\b")
_WANDB_LOGIN_CALL = re.compile(r"\bwandb\.login\([^)]*$")


def _near(before: str, word: str, pattern: re.Pattern[str]) -> bool:
    """`pattern` matches around one of the `word`s in `before` (found by `str.rfind`, each then
    checked on a few dozen characters: a line of a thousand flags costs no regex over the line)."""
    index = before.rfind(word)
    while index >= 0:
        if pattern.search(before, max(0, index - 40), index + len(word) + 40) is not None:
            return True
        index = before.rfind(word, 0, index)
    return False


def _has_word(before: str, word: str) -> bool:
    """`word` stands alone somewhere in `before` (no letter, digit, `_` or `-` touching it)."""
    index = before.rfind(word)
    while index >= 0:
        end = index + len(word)
        if (index == 0 or not _word_char(before[index - 1])) and (
            end == len(before) or not _word_char(before[end])
        ):
            return True
        index = before.rfind(word, 0, index)
    return False


def _word_char(char: str) -> bool:
    return char.isalnum() or char in "_-"


def _line_before(text: str, position: int) -> str:
    start = max(0, position - _LOOK_BACK)
    newline = text.rfind("\n", start, position)
    return text[(newline + 1 if newline >= 0 else start) : position]


def _usable(value: str) -> bool:
    """A value to mask: not empty, not masked, not a shell variable (`-p "$PASSWORD"`)."""
    inner = strip_quotes(value)[1]
    return bool(inner) and not inner.startswith((MASK_PREFIX, "$"))


def _replace_password(key: re.Match[str], value: re.Match[str], kind: str) -> str:
    quote, _inner = strip_quotes(value.group(0))
    return quote + masked(kind) + quote


def _replace_user_option(match: re.Match[str]) -> str:
    if _user_kind(match, match["userinfo"]) is None:
        return match.group(0)
    return splice(match, "value", masked("password"))


def _user_kind(key: re.Match[str], value: str) -> str | None:
    user, _, password = value.partition(":")
    user = strip_quotes(user)[1] if user[:1] in "\"'" else user.lstrip("\"'")
    if not _usable(password):
        return None
    flag = key["flag"]
    if flag in ("-u", "-U") and not _has_word(_line_before(key.string, key.start()), "curl"):
        return None  # `python -u`, `docker run -u 1000:1000`: not curl's user option
    if user.isdigit() and password.isdigit():
        return None  # `--user 1000:1000` of docker run: a uid and a gid
    return "password"


def _dash_p_kind(key: re.Match[str], value: str) -> str | None:
    if not _usable(value):
        return None
    before = _line_before(key.string, key.start())
    if before.endswith(("sshpass ", "sshpass\t")) and _SSHPASS_FLAG.search(before):
        return "password"
    if _near(before, "login", _REGISTRY_LOGIN) or _near(before, "upload", _REGISTRY_LOGIN):
        return "password"
    if key["glued"] is not None and (_near(before, "mysql", _MYSQL) or _near(before, "mariadb", _MYSQL)):
        return "password"
    return None


def _dash_a_kind(key: re.Match[str], value: str) -> str | None:
    before = _line_before(key.string, key.start())
    if _usable(value) and _has_word(before, "redis-cli"):
        return "password"
    return None


def _obsutil_kind(key: re.Match[str], value: str) -> str | None:
    before = _line_before(key.string, key.start())
    if _usable(value) and _near(before, "obsutil", _OBSUTIL):
        return "sk"
    return None


def _wandb_call_kind(key: re.Match[str], value: str) -> str | None:
    before = _line_before(key.string, key.start())
    if _usable(value) and "wandb.login(" in before and _WANDB_LOGIN_CALL.search(before):
        return "api_key"
    return None


def _password(kind: str) -> Replace:
    marker = masked(kind)

    def replace(match: re.Match[str]) -> str:
        if not _usable(match["value"]):
            return match.group(0)
        quote, _inner = strip_quotes(match["value"])
        return splice(match, "value", quote + marker + quote)

    return replace


COMMAND_RULES: tuple[AnyRule, ...] = (
    Rule(
        "wandb_login",
        # `wandb login [--relogin] [--host URL] KEY`: the key is the positional argument (40 hex
        # characters on wandb.ai, `local-…` on W&B Server).
        (
            r"\bwandb[ \t]+login\b(?:[ \t]+--?[\w\-]+(?:[ \t]+(?!-)[^\s\"']*[:/.][^\s\"']*)?)*[ \t]+"
            r"[\"']?(?P<value>(?:local-)?[A-Za-z0-9_\-]{20,})"
        ),
        _password("api_key"),
        needles=("wandb",),
    ),
    KeyedRule(
        "wandb_login_call",
        # wandb.login(key="…", relogin=True)
        r"(?<![\w.])key[ \t]*=[ \t]*",
        r"\"[^\"\n]*\"|'[^'\n]*'|[^\s,)]+",
        _wandb_call_kind,
        _replace_password,
        needles=("wandb.login",),
    ),
    Rule(
        "netrc_line",
        # machine api.wandb.ai login user password KEY  (also `default login … password …`)
        r"\b(?:machine[ \t]+\S+|default)(?:[ \t]+(?:login|account)[ \t]+\S+)*[ \t]+password[ \t]+(?P<value>\S+)",
        _password("password"),
        needles=("password",),
    ),
    Rule(
        "netrc_lines",
        # machine api.wandb.ai
        #   login user
        #   password KEY
        r"(?m)^[ \t]*login[ \t]+\S+[ \t]*\r?\n[ \t]*password[ \t]+(?P<value>\S+)",
        _password("password"),
        needles=("password",),
    ),
    Rule(
        "user_password",
        # curl -u user:pw, --user user:pw, --proxy-user user:pw (a flag and its value are one word
        # pair: `sub` takes them in one pass)
        (
            r"(?<![\w\-])(?P<flag>-u|-U|--user|--proxy-user)(?:[ \t]*=[ \t]*|[ \t]+|(?=[\w\"']))"
            r"(?P<userinfo>[\"']?[^\s:\"'=\[]*:(?P<value>[^\s\"']+)[\"']?)"
        ),
        _replace_user_option,
        needles=("-u", "--user", "--proxy-user"),
    ),
    KeyedRule(
        "dash_p_password",
        # docker login -p PW, twine upload -p PW, sshpass -p PW, mysql -pPW
        r"(?<![\w\-])-p(?:[ \t]+|(?P<glued>(?=[^\s-])))",
        _ARG,
        _dash_p_kind,
        _replace_password,
        needles=("-p",),
    ),
    KeyedRule(
        "redis_cli_password",
        r"(?<![\w\-])(?:-a|--pass)[ \t]+",
        _ARG,
        _dash_a_kind,
        _replace_password,
        needles=("redis-cli",),
    ),
    KeyedRule(
        "obsutil_config",
        # obsutil config -i=AK -k=SK [-t=TOKEN] -e=ENDPOINT
        r"(?<![\w\-])-[kt](?:[ \t]*=[ \t]*|[ \t]+)",
        _ARG,
        _obsutil_kind,
        _replace_password,
        needles=("obsutil",),
    ),
    Rule(
        "minio_alias",
        # mc alias set NAME URL ACCESS_KEY SECRET_KEY
        (
            r"\bmc[ \t]+(?:alias[ \t]+set|config[ \t]+host[ \t]+add)[ \t]+\S+[ \t]+\S+[ \t]+\S+[ \t]+"
            r"(?P<value>" + _ARG + r")"
        ),
        _password("sk"),
        needles=("mc ",),
    ),
)
