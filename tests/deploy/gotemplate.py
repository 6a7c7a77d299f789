"""A small Go text/template + Sprig renderer: the subset the Helm chart in deploy/helm uses.

Helm is not installable here, so the chart is render-checked with this module instead of
`helm template` / `helm lint`. It follows Helm's semantics where the chart depends on them:

- values from values.yaml are decoded the way Helm decodes them (numbers become float64, so
  `gt .Values.replicaCount 1` fails with "incompatible types for comparison" exactly as in Helm,
  and charts must write `gt (int .Values.replicaCount) 1`);
- a missing map key is the zero value and prints as "" (Helm's missingkey=zero + "<no value>"
  removal), while a field of a missing value is "nil pointer evaluating interface {}.name";
- `toYaml` sorts keys and drops the trailing newline; `indent`/`nindent`/`trunc` want an int
  and a string, as their Go signatures do;
- `{{-` / `-}}` trim all adjacent whitespace, newlines included.

Supported: fields (`.a.b`, `$.a`, `$var.a`), string/raw-string/number/bool/nil literals,
parenthesised pipelines, `|`, variables (`$x := ...`, `$x = ...`), `if`/`else if`/`else`,
`with`/`else`, `range` (lists and maps, with `$i, $v :=`), `define`, `template`, comments, the
Go built-ins `and or not eq ne lt le gt ge len printf print`, the Sprig/Helm functions `include
toYaml nindent indent quote default required fail trunc trimSuffix contains b64enc sha256sum int
list upper replace`.
Anything else is a parse error, so the chart cannot drift outside what is checked.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

import yaml


class TemplateError(Exception):
    """A parse or execution error, worded like Helm's ("execution error at (file:line:col): ...")."""


class _ExecError(Exception):
    """Raised inside execution; wrapped into a TemplateError carrying the position."""


class _UserFailure(_ExecError):
    """`required` / `fail`: Helm reports these as "execution error at (...): <message>"."""


# --------------------------------------------------------------------------------------------
# Go value formatting


def go_float(number: float) -> str:
    """fmt.Sprint of a float64 (%v): shortest digits, exponent form from 1e+06 up or below 1e-4."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "+Inf" if number > 0 else "-Inf"
    if number == 0:
        return "-0" if math.copysign(1.0, number) < 0 else "0"
    sign, digits, exponent = Decimal(repr(number)).normalize().as_tuple()
    assert isinstance(exponent, int)
    text_digits = "".join(str(d) for d in digits)
    decimal_point = len(text_digits) + exponent
    exp10 = decimal_point - 1
    prefix = "-" if sign else ""
    if exp10 < -4 or exp10 >= 6:
        mantissa = text_digits[0] + ("." + text_digits[1:] if len(text_digits) > 1 else "")
        return f"{prefix}{mantissa}e{'-' if exp10 < 0 else '+'}{abs(exp10):02d}"
    if decimal_point <= 0:
        return f"{prefix}0.{'0' * -decimal_point}{text_digits}"
    if decimal_point >= len(text_digits):
        return prefix + text_digits + "0" * (decimal_point - len(text_digits))
    return f"{prefix}{text_digits[:decimal_point]}.{text_digits[decimal_point:]}"


def go_type(value: Any) -> str:
    """The Go type name of a decoded Helm value, for error messages."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, dict):
        return "map[string]interface {}"
    return type(value).__name__


def go_str(value: Any) -> str:
    """fmt.Sprint of a value, with Helm's "<no value>" → "" for missing values."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, int | str):
        return str(value)
    if isinstance(value, list):
        return "[" + " ".join(_go_str_nested(item) for item in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{key}:{_go_str_nested(value[key])}" for key in sorted(value)) + "]"
    return str(value)


def _go_str_nested(value: Any) -> str:
    return "<nil>" if value is None else go_str(value)


def go_quote(text: str) -> str:
    """strconv.Quote: double quotes, Go escapes, printable Unicode kept."""
    escapes = {"\a": r"\a", "\b": r"\b", "\f": r"\f", "\n": r"\n", "\r": r"\r", "\t": r"\t", "\v": r"\v"}
    out = ['"']
    for char in text:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif char in escapes:
            out.append(escapes[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    out.append('"')
    return "".join(out)


def truth(value: Any) -> bool:
    """Go template truth: false, 0, nil, and empty strings/lists/maps are false."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str | list | dict):
        return len(value) > 0
    return True


def helm_values(value: Any) -> Any:
    """Decode values as Helm decodes a values file (JSON numbers: every number is a float64)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [helm_values(item) for item in value]
    if isinstance(value, dict):
        return {str(key): helm_values(item) for key, item in value.items()}
    return value


def to_yaml(value: Any) -> str:
    """Helm's toYaml: sigs.k8s.io/yaml (JSON numbers, sorted keys), trailing newline trimmed."""

    def json_shaped(item: Any) -> Any:
        if isinstance(item, float) and item.is_integer() and abs(item) < 1e21:
            return int(item)
        if isinstance(item, list):
            return [json_shaped(element) for element in item]
        if isinstance(item, dict):
            return {key: json_shaped(element) for key, element in item.items()}
        return item

    text = yaml.safe_dump(
        json_shaped(value), default_flow_style=False, sort_keys=True, allow_unicode=True, width=1 << 30
    )
    if text.endswith("\n...\n"):  # PyYAML's document end marker after a bare scalar
        text = text[: -len("...\n")]
    return text.removesuffix("\n")


# --------------------------------------------------------------------------------------------
# Lexing


@dataclass(frozen=True)
class Token:
    kind: str  # field, var, string, number, bool, nil, ident, lparen, rparen, pipe, declare, assign, comma
    text: str
    value: Any = None


@dataclass
class _Text:
    text: str


@dataclass
class _RawAction:
    tokens: list[Token]
    line: int
    column: int


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\", '"': '"'}
_NUMBER = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FIELD_CHAIN = re.compile(r"(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_VARIABLE = re.compile(r"\$[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def _position(source: str, index: int) -> tuple[int, int]:
    line = source.count("\n", 0, index) + 1
    column = index - (source.rfind("\n", 0, index) + 1) + 1
    return line, column


def _decode_string(body: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        marker = body[index + 1]
        if marker in _ESCAPES:
            out.append(_ESCAPES[marker])
            index += 2
        elif marker in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[marker]
            out.append(chr(int(body[index + 2 : index + 2 + width], 16)))
            index += 2 + width
        else:
            raise TemplateError(f"unknown escape sequence \\{marker}")
    return "".join(out)


def _lex_action(source: str, start: int, name: str) -> tuple[list[Token], int, bool]:
    """Tokens of one action from `start`; returns (tokens, index after "}}", right_trim)."""
    tokens: list[Token] = []
    index = start
    while True:
        if index >= len(source):
            line, column = _position(source, start)
            raise TemplateError(f"parse error at ({name}:{line}:{column}): unclosed action")
        char = source[index]
        if source.startswith("}}", index):
            return tokens, index + 2, False
        if char in " \t\r\n":
            if source.startswith("-}}", index + 1):
                return tokens, index + 4, True
            index += 1
            continue
        if char == '"':
            end = index + 1
            while end < len(source) and source[end] != '"':
                end += 2 if source[end] == "\\" else 1
            if end >= len(source):
                raise TemplateError(f"parse error in {name}: unterminated quoted string")
            tokens.append(Token("string", source[index : end + 1], _decode_string(source[index + 1 : end])))
            index = end + 1
            continue
        if char == "`":
            end = source.index("`", index + 1)
            tokens.append(Token("string", source[index : end + 1], source[index + 1 : end]))
            index = end + 1
            continue
        if char == "(":
            tokens.append(Token("lparen", char))
            index += 1
            continue
        if char == ")":
            tokens.append(Token("rparen", char))
            index += 1
            continue
        if char == "|":
            tokens.append(Token("pipe", char))
            index += 1
            continue
        if char == ",":
            tokens.append(Token("comma", char))
            index += 1
            continue
        if source.startswith(":=", index):
            tokens.append(Token("declare", ":="))
            index += 2
            continue
        if char == "=":
            tokens.append(Token("assign", "="))
            index += 1
            continue
        if char == "$":
            match = _VARIABLE.match(source, index)
            assert match is not None
            tokens.append(Token("var", match.group()))
            index = match.end()
            continue
        if char == ".":
            match = _FIELD_CHAIN.match(source, index)
            if match is None:
                tokens.append(Token("field", "."))
                index += 1
            else:
                tokens.append(Token("field", match.group()))
                index = match.end()
            continue
        number = _NUMBER.match(source, index)
        if number is not None and (char.isdigit() or char == "-"):
            text = number.group()
            if text.lower().lstrip("-").startswith("0x"):
                value: int | float = int(text, 16)
            elif any(mark in text for mark in ".eE"):
                value = float(text)
            else:
                value = int(text)
            tokens.append(Token("number", text, value))
            index = number.end()
            continue
        ident = _IDENT.match(source, index)
        if ident is not None:
            word = ident.group()
            if word in ("true", "false"):
                tokens.append(Token("bool", word, word == "true"))
            elif word == "nil":
                tokens.append(Token("nil", word))
            else:
                tokens.append(Token("ident", word))
            index = ident.end()
            continue
        line, column = _position(source, index)
        raise TemplateError(f"parse error at ({name}:{line}:{column}): unexpected {char!r} in action")


def _lex(source: str, name: str) -> list[_Text | _RawAction]:
    """Split a template into text and actions, applying the {{- and -}} whitespace trims."""
    items: list[_Text | _RawAction] = []
    index = 0
    trim_next_text = False
    while True:
        opening = source.find("{{", index)
        text = source[index:] if opening < 0 else source[index:opening]
        if trim_next_text:
            text = text.lstrip(" \t\r\n")
        if opening < 0:
            items.append(_Text(text))
            return items
        body_start = opening + 2
        if source[body_start : body_start + 1] == "-" and source[body_start + 1 : body_start + 2] in (
            " ",
            "\t",
            "\r",
            "\n",
        ):
            text = text.rstrip(" \t\r\n")
            body_start += 2
        items.append(_Text(text))
        line, column = _position(source, opening)
        comment_start = body_start
        while comment_start < len(source) and source[comment_start] in " \t\r\n":
            comment_start += 1
        if source.startswith("/*", comment_start):
            comment_end = source.find("*/", comment_start)
            if comment_end < 0:
                raise TemplateError(f"parse error at ({name}:{line}:{column}): unclosed comment")
            after = comment_end + 2
            if source.startswith(" -}}", after):
                index, trim_next_text = after + 4, True
            elif source.startswith("}}", after):
                index, trim_next_text = after + 2, False
            else:
                raise TemplateError(
                    f"parse error at ({name}:{line}:{column}): comment ends before closing delimiter"
                )
            continue
        tokens, index, trim_next_text = _lex_action(source, body_start, name)
        items.append(_RawAction(tokens, line, column))


# --------------------------------------------------------------------------------------------
# Parsing


@dataclass
class Operand:
    kind: str  # field, var, literal, ident, pipeline
    text: str = ""
    value: Any = None
    pipeline: Pipeline | None = None


@dataclass
class Command:
    operands: list[Operand]


@dataclass
class Pipeline:
    commands: list[Command]
    declare: list[str] = field(default_factory=list)
    assign: bool = False  # `$x = ...` rather than `$x := ...`


@dataclass
class Position:
    template: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.template}:{self.line}:{self.column}"


@dataclass
class TextNode:
    text: str


@dataclass
class ActionNode:
    pipeline: Pipeline
    position: Position


@dataclass
class IfNode:
    keyword: str  # "if" or "with"
    pipeline: Pipeline
    body: list[Node]
    otherwise: list[Node]
    position: Position


@dataclass
class RangeNode:
    pipeline: Pipeline
    body: list[Node]
    otherwise: list[Node]
    position: Position


@dataclass
class TemplateNode:
    name: str
    pipeline: Pipeline | None
    position: Position


Node = TextNode | ActionNode | IfNode | RangeNode | TemplateNode


class _TokenStream:
    def __init__(self, tokens: list[Token], position: Position) -> None:
        self.tokens = tokens
        self.index = 0
        self.position = position

    def peek(self, offset: int = 0) -> Token | None:
        at = self.index + offset
        return self.tokens[at] if at < len(self.tokens) else None

    def take(self) -> Token:
        token = self.peek()
        if token is None:
            self.fail("unexpected end of action")
        self.index += 1
        assert token is not None
        return token

    def done(self) -> bool:
        return self.index >= len(self.tokens)

    def fail(self, message: str) -> None:
        raise TemplateError(f"parse error at ({self.position}): {message}")


def _parse_pipeline(stream: _TokenStream, *, allow_declare: bool, in_range: bool = False) -> Pipeline:
    declare: list[str] = []
    assign = False
    first, second = stream.peek(), stream.peek(1)
    if allow_declare and first is not None and first.kind == "var" and "." not in first.text:
        if second is not None and second.kind in ("declare", "assign"):
            declare, assign = [first.text], second.kind == "assign"
            stream.index += 2
        elif in_range and second is not None and second.kind == "comma":
            third, fourth = stream.peek(2), stream.peek(3)
            if third is None or third.kind != "var" or fourth is None or fourth.kind != "declare":
                stream.fail("range can only declare `$key, $value :=`")
            assert third is not None
            declare = [first.text, third.text]
            stream.index += 4
    commands: list[Command] = []
    while True:
        commands.append(_parse_command(stream))
        token = stream.peek()
        if token is None or token.kind == "rparen":
            break
        if token.kind != "pipe":
            stream.fail(f"unexpected {token.text!r} in pipeline")
        stream.take()
    return Pipeline(commands, declare, assign)


def _parse_command(stream: _TokenStream) -> Command:
    operands: list[Operand] = []
    while True:
        token = stream.peek()
        if token is None or token.kind in ("pipe", "rparen"):
            break
        stream.take()
        if token.kind == "lparen":
            inner = _parse_pipeline(stream, allow_declare=False)
            closing = stream.take()
            if closing.kind != "rparen":
                stream.fail("unclosed left paren")
            operands.append(Operand("pipeline", pipeline=inner))
        elif token.kind in ("string", "number", "bool"):
            operands.append(Operand("literal", token.text, token.value))
        elif token.kind == "nil":
            operands.append(Operand("literal", "nil", None))
        elif token.kind in ("field", "var", "ident"):
            if token.kind == "ident" and token.text not in FUNCTIONS:
                stream.fail(f'function "{token.text}" not defined')
            operands.append(Operand(token.kind, token.text))
        else:
            stream.fail(f"unexpected {token.text!r} in operand")
    if not operands:
        stream.fail("missing value for command")
    return Command(operands)


_KEYWORDS = ("if", "else", "end", "range", "with", "define", "template", "block", "break", "continue")


def _parse(source: str, name: str, defines: dict[str, list[Node]]) -> list[Node]:
    items = _lex(source, name)
    index = 0

    def parse_list(*, top_level: bool) -> tuple[list[Node], str, _RawAction | None]:
        """Nodes up to an `else` or `end`; returns (nodes, stopper, stopping action)."""
        nonlocal index
        nodes: list[Node] = []
        while index < len(items):
            item = items[index]
            index += 1
            if isinstance(item, _Text):
                if item.text:
                    nodes.append(TextNode(item.text))
                continue
            position = Position(name, item.line, item.column)
            stream = _TokenStream(item.tokens, position)
            head = stream.peek()
            if head is None:
                stream.fail("missing value for command")
            assert head is not None
            keyword = head.text if head.kind == "ident" and head.text in _KEYWORDS else None
            if keyword in ("end", "else"):
                if top_level:
                    stream.fail(f"unexpected {{{{{keyword}}}}}")
                return nodes, keyword or "", item
            if keyword in ("if", "with", "range"):
                stream.take()
                nodes.append(parse_control(keyword or "", stream, position))
            elif keyword == "define":
                stream.take()
                template_name = stream.take()
                if template_name.kind != "string" or not stream.done() or not top_level:
                    stream.fail("define takes one quoted name, at top level")
                body, stopper, _ = parse_list(top_level=False)
                if stopper != "end":
                    stream.fail("define ends with {{end}}")
                defines[template_name.value] = body
            elif keyword == "template":
                stream.take()
                template_name = stream.take()
                if template_name.kind != "string":
                    stream.fail("template takes a quoted name")
                argument = None if stream.done() else _parse_pipeline(stream, allow_declare=False)
                nodes.append(TemplateNode(template_name.value, argument, position))
            elif keyword is not None:
                stream.fail(f"{keyword} is outside the supported subset")
            else:
                pipeline = _parse_pipeline(stream, allow_declare=True)
                if not stream.done():
                    stream.fail("unexpected right paren")
                nodes.append(ActionNode(pipeline, position))
        if not top_level:
            raise TemplateError(f"parse error in {name}: unexpected EOF (missing {{{{end}}}})")
        return nodes, "", None

    def parse_control(keyword: str, stream: _TokenStream, position: Position) -> Node:
        pipeline = _parse_pipeline(stream, allow_declare=True, in_range=keyword == "range")
        if not stream.done():
            stream.fail("unexpected right paren")
        body, stopper, stop_item = parse_list(top_level=False)
        otherwise: list[Node] = []
        if stopper == "else":
            assert stop_item is not None
            else_stream = _TokenStream(stop_item.tokens, Position(name, stop_item.line, stop_item.column))
            else_stream.take()
            chained = else_stream.peek()
            if chained is not None and chained.kind == "ident" and chained.text in ("if", "with"):
                # `else if` / `else with`: the chained block shares the outer `end`.
                else_stream.take()
                otherwise = [parse_control(chained.text, else_stream, else_stream.position)]
                stopper = "end"
            else:
                otherwise, stopper, _ = parse_list(top_level=False)
        if stopper != "end":
            raise TemplateError(f"parse error at ({position}): expected {{{{end}}}}")
        if keyword == "range":
            return RangeNode(pipeline, body, otherwise, position)
        return IfNode(keyword, pipeline, body, otherwise, position)

    nodes, _, _ = parse_list(top_level=True)
    return nodes


# --------------------------------------------------------------------------------------------
# Functions


def _want_int(function: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _ExecError(
            f"error calling {function}: wrong type for value; expected int; got {go_type(value)}"
        )
    return value


def _want_str(function: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _ExecError(
            f"error calling {function}: wrong type for value; expected string; got {go_type(value)}"
        )
    return value


def _basic_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "invalid"
    raise _ExecError("invalid type for comparison")


def _go_eq(first: Any, *others: Any) -> bool:
    if not others:
        raise _ExecError("error calling eq: missing argument for comparison")
    first_kind = _basic_kind(first)
    for other in others:
        other_kind = _basic_kind(other)
        if first_kind != other_kind:
            if first is not None and other is not None:
                raise _ExecError("error calling eq: incompatible types for comparison")
            continue
        if first == other:
            return True
    return False


def _go_less(function: str, first: Any, second: Any) -> bool:
    first_kind, second_kind = _basic_kind(first), _basic_kind(second)
    if "invalid" in (first_kind, second_kind) or first_kind == "bool":
        raise _ExecError(f"error calling {function}: invalid type for comparison")
    if first_kind != second_kind:
        raise _ExecError(f"error calling {function}: incompatible types for comparison")
    return bool(first < second)


def _empty(value: Any) -> bool:
    """Sprig's `empty`, which `default` uses."""
    return not truth(value)


def _sprig_int(value: Any) -> int:
    """Sprig `int` (cast.ToInt): floats truncate, numeric strings parse, anything else is 0."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value, 0)
        except ValueError:
            return 0
    return 0


def _printf(format_text: str, *args: Any) -> str:
    out: list[str] = []
    arg_index = 0
    index = 0
    while index < len(format_text):
        char = format_text[index]
        if char != "%":
            out.append(char)
            index += 1
            continue
        verb = format_text[index + 1] if index + 1 < len(format_text) else ""
        index += 2
        if verb == "%":
            out.append("%")
            continue
        if not verb or verb not in "svdq":
            raise _ExecError(f"printf verb %{verb} is outside the supported subset")
        if arg_index >= len(args):
            out.append(f"%!{verb}(MISSING)")
            continue
        arg = args[arg_index]
        arg_index += 1
        wrong = f"%!{verb}({go_type(arg)}={go_str(arg)})" if arg is not None else f"%!{verb}(<nil>)"
        if verb == "v":
            out.append(_go_str_nested(arg))
        elif verb == "s":
            out.append(arg if isinstance(arg, str) else wrong)
        elif verb == "q":
            out.append(go_quote(arg) if isinstance(arg, str) else wrong)
        else:
            is_int = isinstance(arg, int) and not isinstance(arg, bool)
            out.append(str(arg) if is_int else wrong)
    if arg_index < len(args):
        extra = ", ".join(f"{go_type(arg)}={go_str(arg)}" for arg in args[arg_index:])
        out.append(f"%!(EXTRA {extra})")
    return "".join(out)


def _indent(spaces: Any, text: Any, *, function: str = "indent") -> str:
    pad = " " * _want_int(function, spaces)
    return pad + _want_str(function, text).replace("\n", "\n" + pad)


def _required(message: Any, value: Any = None) -> Any:
    if value is None or (isinstance(value, str) and value == ""):
        raise _UserFailure(go_str(message))
    return value


def _fail(message: Any) -> Any:
    raise _UserFailure(go_str(message))


def _trunc(count: Any, text: Any) -> str:
    length = _want_int("trunc", count)
    value = _want_str("trunc", text)
    if length < 0 and len(value) + length > 0:
        return value[len(value) + length :]
    if length >= 0 and len(value) > length:
        return value[:length]
    return value


def _go_len(value: Any) -> int:
    if isinstance(value, str | list | dict):
        return len(value)
    raise _ExecError(f"error calling len: len of type {go_type(value)}")


# Functions receive evaluated arguments; `include`, `and`, `or` are handled by the executor.
FUNCTIONS: dict[str, Callable[..., Any] | None] = {
    "include": None,
    "and": None,
    "or": None,
    "not": lambda value: not truth(value),
    "eq": _go_eq,
    "ne": lambda first, second: not _go_eq(first, second),
    "lt": lambda first, second: _go_less("lt", first, second),
    "le": lambda first, second: _go_less("le", first, second) or _go_eq(first, second),
    "gt": lambda first, second: _go_less("gt", second, first),
    "ge": lambda first, second: _go_less("ge", second, first) or _go_eq(first, second),
    "len": _go_len,
    "print": lambda *args: "".join(go_str(arg) for arg in args),
    "printf": lambda format_text, *args: _printf(_want_str("printf", format_text), *args),
    "toYaml": to_yaml,
    "indent": _indent,
    "nindent": lambda spaces, text: "\n" + _indent(spaces, text, function="nindent"),
    "quote": lambda *args: " ".join(go_quote(go_str(arg)) for arg in args if arg is not None),
    "default": lambda fallback, *given: fallback if not given or _empty(given[0]) else given[0],
    "required": _required,
    "fail": _fail,
    "trunc": _trunc,
    "trimSuffix": lambda suffix, text: _want_str("trimSuffix", text).removesuffix(
        _want_str("trimSuffix", suffix)
    ),
    "contains": lambda needle, haystack: _want_str("contains", needle) in _want_str("contains", haystack),
    "b64enc": lambda text: base64.b64encode(_want_str("b64enc", text).encode()).decode(),
    "sha256sum": lambda text: hashlib.sha256(_want_str("sha256sum", text).encode()).hexdigest(),
    "int": _sprig_int,
    # Sprig: `list a b c`, `upper s`, `replace old new s`.
    "list": lambda *items: list(items),
    "upper": lambda text: _want_str("upper", text).upper(),
    "replace": lambda old, new, text: _want_str("replace", text).replace(
        _want_str("replace", old), _want_str("replace", new)
    ),
}


# --------------------------------------------------------------------------------------------
# Execution


class GoStruct(dict[str, Any]):
    """A Go struct (Release, Chart, the top-level object): an unknown field is an error, not "" ."""

    def __init__(self, type_name: str, fields: dict[str, Any]) -> None:
        super().__init__(fields)
        self.type_name = type_name


@dataclass
class _Scope:
    root: Any
    variables: list[tuple[str, Any]]

    def lookup(self, name: str) -> Any:
        if name == "$":
            return self.root
        for variable, value in reversed(self.variables):
            if variable == name:
                return value
        raise _ExecError(f"undefined variable: {name}")

    def assign(self, name: str, value: Any) -> None:
        for index in range(len(self.variables) - 1, -1, -1):
            if self.variables[index][0] == name:
                self.variables[index] = (name, value)
                return
        raise _ExecError(f"undefined variable: {name}")


def _field(receiver: Any, name: str) -> Any:
    if isinstance(receiver, GoStruct):
        if name not in receiver:
            raise _ExecError(f"can't evaluate field {name} in type {receiver.type_name}")
        return receiver[name]
    if isinstance(receiver, dict):
        return receiver.get(name)  # missingkey=zero
    if receiver is None:
        raise _ExecError(f"nil pointer evaluating interface {{}}.{name}")
    raise _ExecError(f"can't evaluate field {name} in type {go_type(receiver)}")


def _field_chain(receiver: Any, chain: str) -> Any:
    value = receiver
    for name in chain.split(".")[1:]:
        value = _field(value, name)
    return value


class TemplateSet:
    """Parsed templates sharing one namespace of `define`d names, as Helm's engine has."""

    def __init__(self) -> None:
        self.templates: dict[str, list[Node]] = {}
        self.defines: dict[str, list[Node]] = {}

    def add(self, name: str, source: str) -> None:
        self.templates[name] = _parse(source, name, self.defines)

    def render(self, name: str, data: Any) -> str:
        if name not in self.templates:
            raise TemplateError(f'no template "{name}"')
        return self._execute(self.templates[name], data)

    def render_define(self, name: str, data: Any) -> str:
        if name not in self.defines:
            raise TemplateError(f'no template "{name}" associated with template')
        return self._execute(self.defines[name], data)

    # -- execution

    def _execute(self, nodes: list[Node], data: Any) -> str:
        out: list[str] = []
        self._walk(nodes, data, _Scope(data, []), out)
        return "".join(out)

    def _walk(self, nodes: list[Node], dot: Any, scope: _Scope, out: list[str]) -> None:
        for node in nodes:
            if isinstance(node, TextNode):
                out.append(node.text)
                continue
            try:
                self._walk_node(node, dot, scope, out)
            except _UserFailure as failure:
                raise TemplateError(f"execution error at ({node.position}): {failure}") from None
            except _ExecError as error:
                raise TemplateError(f"template: {node.position}: executing: {error}") from None

    def _walk_node(self, node: Node, dot: Any, scope: _Scope, out: list[str]) -> None:
        if isinstance(node, ActionNode):
            value = self._pipeline(node.pipeline, dot, scope)
            if not node.pipeline.declare:
                out.append(go_str(value))
        elif isinstance(node, IfNode):
            mark = len(scope.variables)
            value = self._pipeline(node.pipeline, dot, scope)
            if truth(value):
                self._walk(node.body, value if node.keyword == "with" else dot, scope, out)
            else:
                self._walk(node.otherwise, dot, scope, out)
            del scope.variables[mark:]
        elif isinstance(node, RangeNode):
            self._range(node, dot, scope, out)
        elif isinstance(node, TemplateNode):
            argument = None if node.pipeline is None else self._pipeline(node.pipeline, dot, scope)
            if node.name not in self.defines:
                raise _ExecError(f'no such template "{node.name}"')
            self._walk(self.defines[node.name], argument, _Scope(argument, []), out)

    def _range(self, node: RangeNode, dot: Any, scope: _Scope, out: list[str]) -> None:
        mark = len(scope.variables)
        declared = node.pipeline.declare  # the range variables take each element, not the collection
        collection = self._pipeline(node.pipeline, dot, scope, bind=False)
        pairs: Iterator[tuple[Any, Any]]
        if collection is None:
            pairs = iter(())
        elif isinstance(collection, dict):
            pairs = ((key, collection[key]) for key in sorted(collection))
        elif isinstance(collection, list):
            pairs = iter(enumerate(collection))
        else:
            raise _ExecError(f"range can't iterate over {go_str(collection)}")
        iterated = False
        for key, element in pairs:
            iterated = True
            del scope.variables[mark:]
            if len(declared) == 2:
                scope.variables.extend([(declared[0], key), (declared[1], element)])
            elif len(declared) == 1:
                scope.variables.append((declared[0], element))
            self._walk(node.body, element, scope, out)
        del scope.variables[mark:]
        if not iterated:
            self._walk(node.otherwise, dot, scope, out)

    def _pipeline(self, pipeline: Pipeline, dot: Any, scope: _Scope, *, bind: bool = True) -> Any:
        value: Any = None
        piped = False
        for command in pipeline.commands:
            value = self._command(command, dot, scope, value if piped else _NO_PIPE)
            piped = True
        for name in pipeline.declare if bind else []:
            if pipeline.assign:
                scope.assign(name, value)
            else:
                scope.variables.append((name, value))
        return value

    def _command(self, command: Command, dot: Any, scope: _Scope, piped: Any) -> Any:
        head, *rest = command.operands
        if head.kind != "ident":
            if rest or piped is not _NO_PIPE:
                raise _ExecError(f"can't give argument to non-function {head.text or 'value'}")
            return self._operand(head, dot, scope)
        thunks: list[Callable[[], Any]] = [partial(self._operand, operand, dot, scope) for operand in rest]
        if piped is not _NO_PIPE:
            thunks.append(lambda: piped)
        if head.text in ("and", "or"):
            # Go evaluates and/or lazily: the first falsy (and) / truthy (or) argument, else the last.
            if not thunks:
                raise _ExecError(f"wrong number of args for {head.text}: want at least 1 got 0")
            result: Any = None
            for thunk in thunks:
                result = thunk()
                if truth(result) == (head.text == "or"):
                    return result
            return result
        args = [thunk() for thunk in thunks]
        if head.text == "include":
            if len(args) != 2:
                raise _ExecError(f"wrong number of args for include: want 2 got {len(args)}")
            name = _want_str("include", args[0])
            if name not in self.defines:
                raise _ExecError(
                    f'error calling include: template: no template "{name}" associated with template'
                )
            return self._execute(self.defines[name], args[1])
        function = FUNCTIONS[head.text]
        assert function is not None
        try:
            return function(*args)
        except TypeError as error:
            raise _ExecError(f"wrong number of args for {head.text}: {error}") from None

    def _operand(self, operand: Operand, dot: Any, scope: _Scope) -> Any:
        if operand.kind == "literal":
            return operand.value
        if operand.kind == "field":
            return dot if operand.text == "." else _field_chain(dot, operand.text)
        if operand.kind == "var":
            name, _, chain = operand.text.partition(".")
            value = scope.lookup(name)
            return _field_chain(value, "." + chain) if chain else value
        if operand.kind == "pipeline":
            assert operand.pipeline is not None
            return self._pipeline(operand.pipeline, dot, scope)
        # a bare function name with no arguments, e.g. {{ print }}
        return self._command(Command([operand]), dot, scope, _NO_PIPE)


_NO_PIPE = object()


# --------------------------------------------------------------------------------------------
# Helm: charts, values, releases


def merge_values(base: Any, overrides: Any) -> Any:
    """Helm's coalescing of user values over chart defaults: maps merge key by key, and a null
    removes a key the defaults have (a null for a key they lack stays null)."""
    if not isinstance(base, dict) or not isinstance(overrides, dict):
        return copy.deepcopy(overrides)
    merged = copy.deepcopy(base)
    for key, value in overrides.items():
        if value is None and key in merged:
            del merged[key]
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_values(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


@dataclass
class RenderedChart:
    manifests: dict[str, str]  # template path (e.g. "diagnose-bot/templates/service.yaml") → text
    notes: str

    def documents(self) -> list[dict[str, Any]]:
        """Every non-empty YAML document of every manifest, in template order."""
        documents: list[dict[str, Any]] = []
        for text in self.manifests.values():
            documents.extend(doc for doc in yaml.safe_load_all(text) if doc is not None)
        return documents


def render_chart(
    chart_dir: Path,
    *,
    values: dict[str, Any] | None = None,
    release_name: str = "diagnose-bot",
    namespace: str = "default",
) -> RenderedChart:
    """`helm template`: every templates/ file rendered with the merged values (partials skipped)."""
    chart_meta = yaml.safe_load((chart_dir / "Chart.yaml").read_text(encoding="utf-8"))
    chart_name = chart_meta["name"]
    defaults = yaml.safe_load((chart_dir / "values.yaml").read_text(encoding="utf-8")) or {}
    merged = helm_values(merge_values(defaults, values or {}))
    # Chart.yaml keys become Go struct fields: name → .Chart.Name, apiVersion → .Chart.APIVersion.
    chart = GoStruct(
        "*chart.Metadata",
        {
            ("APIVersion" if key == "apiVersion" else key[0].upper() + key[1:]): value
            for key, value in chart_meta.items()
        },
    )
    release = GoStruct(
        "chartutil.ReleaseOptions",
        {
            "Name": release_name,
            "Namespace": namespace,
            "Service": "Helm",
            "IsInstall": True,
            "IsUpgrade": False,
            "Revision": 1,
        },
    )
    templates = TemplateSet()
    paths = sorted(path for path in (chart_dir / "templates").rglob("*") if path.is_file())
    names = {path: f"{chart_name}/{path.relative_to(chart_dir).as_posix()}" for path in paths}
    for path in paths:
        templates.add(names[path], path.read_text(encoding="utf-8"))
    manifests: dict[str, str] = {}
    notes = ""
    for path in paths:
        if path.name.startswith("_"):
            continue
        template_info = GoStruct(
            "chartutil.Values", {"Name": names[path], "BasePath": f"{chart_name}/templates"}
        )
        top = GoStruct(
            "chartutil.Values",
            {"Values": merged, "Release": release, "Chart": chart, "Template": template_info},
        )
        text = templates.render(names[path], top)
        if path.name == "NOTES.txt":
            notes = text
        elif text.strip():
            manifests[names[path]] = text
    return RenderedChart(manifests, notes)
