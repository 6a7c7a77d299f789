"""Assignments whose key names a secret: the value goes, the key and its quotes stay.

Shapes: `KEY=value`, `--key=value`, `--key value`, `?key=value` / `&key=value`, JSON / Python
`"key": "value"`, `KEY: value` where KEY begins a line, follows `{`, `,` or `;`, begins an escaped
line inside JSON text (after a literal `\\n`) or begins an exception's message (`RuntimeError:
X-Auth-Token: …`), headers given to curl (`-H "X-Auth-Token: …"`) or printed by http.client and
curl -v (`header: …`, `> …`, `< …`), argv lists (`"--hf-token", "hf_…"`), env pairs in JSON or
YAML in either order (`{"name": "HF_TOKEN", "value": …}`, `- value: …\\n  name: HF_TOKEN`), keys in
Chinese or Japanese and keys before a full-width colon (`密码：…`, `password：…`), and
`configure set KEY VALUE` (the AWS CLI).

A value ends at the closing quote when quoted, else at whitespace for `=` forms and at the end of
the line or the next `,` `;` `}` `]` for `KEY: value`. Prose such as `failed to fetch anonymous
token: unexpected status: 401` is no assignment and stays readable.
"""

from __future__ import annotations

import re

from diagnosis.masking.markers import CONSTANTS, MASKED_PATTERN, mask_value, strip_quotes
from diagnosis.masking.names import (
    CJK_SECRET_WORDS,
    names_a_location,
    secret_kind,
    text_key_kind,
)
from diagnosis.masking.rules import AnyRule, KeyedRule, KindOf, Rule, splice
from diagnosis.masking.urls import SIGNED_QUERY_COMPONENTS

# A quoted value: JSON string (with escapes), single-quoted, or `\"…\"` inside JSON text.
QUOTED = r"""(?:"(?:[^"\\\n]++|\\.)*"|'[^'\n]*'|\\"(?:[^\\\n]++|\\(?!"))*\\")"""
# An unquoted value of an `=` form: ends at whitespace, at a quote, or at an escaped quote/newline.
BARE = r"""(?:[^\s"'`\\]++|\\(?![\\"'nrt]))+"""
KEY = r"[A-Za-z_][\w.\-]{0,100}"

# `token = tokenizer(text)` in a traceback's source line is code, not a secret: with blanks around
# `=`, an unquoted value that calls or indexes stays.
_CODE_VALUE = re.compile(r"[A-Za-z_][\w.]*[(\[]")
# A value that a structured string continues after (`AccountKey=[MASKED:sk];EndpointSuffix=…`).
_MASKED_THEN_SEPARATOR = re.compile(MASKED_PATTERN + r"[;&,]")


def _assignment_kind(key: re.Match[str], value: str) -> str | None:
    """The kind to mask `value` with when the key names a secret, else None."""
    name = key["key"]
    kind = text_key_kind(name)
    if kind is None:
        return None
    inner = strip_quotes(value)[1].strip()
    if not inner or inner in CONSTANTS or names_a_location(name.lstrip("-"), inner):
        return None
    if _MASKED_THEN_SEPARATOR.match(inner):
        return None
    separator = key.groupdict().get("sep") or ""
    if separator.strip() != separator and _CODE_VALUE.match(value):
        return None
    return kind


def _query_kind(key: re.Match[str], value: str) -> str | None:
    if key["key"].lower() in SIGNED_QUERY_COMPONENTS:
        return "token"
    return _assignment_kind(key, value)


def _cjk_kind(key: re.Match[str], value: str) -> str | None:
    inner = strip_quotes(value)[1].strip()
    if not inner or inner in CONSTANTS:
        return None
    return secret_kind(key["key"])


def _replace(key: re.Match[str], value: re.Match[str], kind: str) -> str:
    return mask_value(value.group(0), kind)


def _keyed(
    name: str, key: str, value: str, *, needles: tuple[str, ...], kind_of: KindOf = _assignment_kind
) -> KeyedRule:
    key_kind = _key_names_a_secret if kind_of is _assignment_kind else None
    return KeyedRule(name, key, value, kind_of, _replace, needles=needles, key_kind=key_kind)


def _key_names_a_secret(key: re.Match[str]) -> str | None:
    return text_key_kind(key["key"])


def _replace_env_pair(match: re.Match[str]) -> str:
    kind = secret_kind(match["name"])
    if kind is None:
        return match.group(0)
    return splice(match, "value", mask_value(match["value"], kind))


# Just after `SomeError: ` (one fixed-width look-behind per suffix the exception names use).
_AFTER_EXCEPTION_NAME = "|".join(
    rf"(?<={suffix}: )" for suffix in ("Error", "Exception", "Warning", "Failure", "Exit", "Interrupt")
)
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_WORDS = "|".join(word for word, _kind in CJK_SECRET_WORDS)
_COLON_VALUE = r"(?:" + QUOTED + r"|(?:[^\r\n,;}\]\[]++|" + MASKED_PATTERN + r"|\[)+)"

ASSIGNMENT_RULES: tuple[AnyRule, ...] = (
    Rule(
        "env_pair_json",
        # {"name": "HF_TOKEN", "value": "…"}
        (
            r"(?P<q>\\?[\"'])(?i:name)(?P=q)\s*:\s*(?P=q)(?P<name>[^\"'\\\s]{1,200})(?P=q)"
            r"\s*,\s*(?P=q)(?i:value)(?P=q)\s*:\s*(?P<value>" + QUOTED + r")"
        ),
        _replace_env_pair,
        needles=("name",),
    ),
    Rule(
        "env_pair_json_value_first",
        # {"value": "…", "name": "HF_TOKEN"}
        (
            r"(?P<q>\\?[\"'])(?i:value)(?P=q)\s*:\s*(?P<value>" + QUOTED + r")"
            r"\s*,\s*(?P=q)(?i:name)(?P=q)\s*:\s*(?P=q)(?P<name>[^\"'\\\s]{1,200})(?P=q)"
        ),
        _replace_env_pair,
        needles=("name",),
    ),
    Rule(
        "env_pair_yaml",
        # - name: HF_TOKEN
        #   value: …
        (
            r"(?m)^[ \t]*(?:-[ \t]+)?name:[ \t]*[\"']?(?P<name>[\w.\-]{1,200})[\"']?[ \t]*\r?\n"
            r"[ \t]*value:[ \t]*(?P<value>" + QUOTED + r"|[^\r\n]+)"
        ),
        _replace_env_pair,
        needles=("name",),
    ),
    Rule(
        "env_pair_yaml_value_first",
        # - value: …
        #   name: HF_TOKEN
        (
            r"(?m)^[ \t]*(?:-[ \t]+)?value:[ \t]*(?P<value>" + QUOTED + r"|[^\r\n]+)\r?\n"
            r"[ \t]*name:[ \t]*[\"']?(?P<name>[\w.\-]{1,200})[\"']?[ \t]*$"
        ),
        _replace_env_pair,
        needles=("name",),
    ),
    # JSON `"key": "value"`, Python `{'key': 'value'}`, and `\"key\": \"value\"` inside JSON text.
    _keyed(
        "quoted_key",
        r"(?P<q>\\?[\"'])(?P<key>" + KEY + r")(?P=q)[ \t]*[:：][ \t]*",
        QUOTED,
        needles=('"', "'"),
    ),
    # JSON `"key": 12345`. The colon must touch the key: in `volume "hf-token" : secret "x" not
    # found` (kubelet's FailedMount) the quoted word is a volume name, not a key.
    _keyed(
        "quoted_key_scalar",
        r"(?P<q>\\?[\"'])(?P<key>" + KEY + r")(?P=q):[ \t]*",
        r"(?![\[{]|null\b|true\b|false\b|None\b|True\b|False\b)[^\s,}\]\"'\\]+",
        needles=('"', "'"),
    ),
    # os.environ["HF_TOKEN"] = "…"
    _keyed(
        "subscript",
        r"\[(?P<q>[\"'])(?P<key>" + KEY + r")(?P=q)\][ \t]*=(?!=)[ \t]*",
        QUOTED + "|" + BARE,
        needles=("[",),
    ),
    # ?key=value / &key=value (outside a full URL, e.g. a logged request path or a SAS token)
    _keyed(
        "query_param",
        r"(?<=[?&])(?P<key>" + KEY + r")=",
        r"[^&#\s\"'`<>\\]+",
        needles=("?", "&"),
        kind_of=_query_kind,
    ),
    # KEY=value, --key=value, export KEY="…", INI `sk = …`; the value ends at whitespace
    _keyed(
        "equals",
        r"(?<![\w.\-?&])(?P<key>-{0,2}" + KEY + r")(?P<sep>[ \t]*[=＝](?!=)[ \t]*)",
        QUOTED + "|" + BARE,
        needles=("=", "＝"),
    ),
    # --key value (the next word, unless it is another --flag)
    _keyed(
        "flag_value",
        r"(?P<key>--(?<![\w\-]--)" + KEY + r")[ \t]+",
        QUOTED + r"|(?!--)" + BARE,
        needles=("--",),
    ),
    # ["--hf-token", "hf_…"] in JSON or a Python repr of argv
    _keyed(
        "argv_list",
        r"(?P<q>\\?[\"'])(?P<key>--" + KEY + r")(?P=q)[ \t]*,[ \t]*",
        QUOTED,
        needles=("--",),
    ),
    # aws configure set aws_secret_access_key VALUE
    _keyed(
        "configure_set",
        r"\bconfigure[ \t]+set[ \t]+(?P<key>" + KEY + r")[ \t]+",
        QUOTED + "|" + BARE,
        needles=("configure",),
    ),
    # KEY: value only where KEY begins a line (YAML, headers, env dumps), follows `{` `,` `;`, or
    # begins the message of an exception line (`RuntimeError: X-Auth-Token: …`); the value ends at
    # the closing quote, else at the line end or the next `,` `;` `}` `]`.
    _keyed(
        "colon",
        r"(?m)(?:^|(?<=[{,;])|" + _AFTER_EXCEPTION_NAME + r")[ \t]*(?:-[ \t]+)?(?P<key>" + KEY + r")"
        r"[ \t]*[:：](?!//)[ \t]*",
        _COLON_VALUE,
        needles=(":", "："),
    ),
    # Headers given to curl (`-H "X-Auth-Token: …"`) or printed by http.client (`header: …`) and
    # curl -v (`> …` sent, `< …` received); the value runs to the quote or the line end.
    _keyed(
        "header",
        r"(?m)(?:(?:(?<![\w\-])-H|--header)[ \t=]*[\"']?|^(?:header:|[<>])[ \t]+)"
        r"(?P<key>[A-Za-z][A-Za-z0-9_\-]{0,80})[ \t]*:[ \t]*",
        r"[^\r\n\"'\\]+",
        needles=("-h", "header", "> ", "< "),
    ),
    # `…\npassword: X\n…` inside JSON-escaped text (a log or config quoted in an API answer): KEY
    # begins an escaped line (after a literal \n, \r or \t); the value ends at the next escape
    # (\n, \") or the closing quote, or as the colon rule's value does.
    _keyed(
        "colon_escaped_line",
        r"(?:(?<=\\n)|(?<=\\r)|(?<=\\t))[ \t]*(?:-[ \t]+)?(?P<key>" + KEY + r")[ \t]*[:：](?!//)[ \t]*",
        r"(?:[^\r\n,;}\]\[\\\"]++|\\(?![nrt\"])|" + MASKED_PATTERN + r")+",
        needles=("\\n", "\\r", "\\t"),
    ),
    # `password：…` after other text: a full-width colon is as clear a separator as `=`.
    _keyed(
        "fullwidth_colon",
        r"(?<![\w.\-])(?P<key>-{0,2}" + KEY + r")[ \t]*：[ \t]*",
        MASKED_PATTERN + "|" + QUOTED + r"|[^\s,，;；。、)）\]】」\"'\\]+",
        needles=("：",),
    ),
    # 密码：…, 数据库密码=…, パスワード: … (a key in Chinese or Japanese ending with a secret word)
    _keyed(
        "cjk_key",
        r"(?P<key>[" + _CJK + r"]{0,20}?(?:" + _CJK_WORDS + r")(?:ID|Id|id|值)?)[ \t]*[:：=＝][ \t]*",
        MASKED_PATTERN + "|" + QUOTED + r"|[^\s,，;；。、)）\]】」\"'\\]+",
        needles=tuple(word for word, _kind in CJK_SECRET_WORDS),
        kind_of=_cjk_kind,
    ),
)
