"""Model-output text → calls: one reader per format, in a registry (SPEC §2).

Every reader takes the text and a :class:`Context` (which knows the tools, for positional
arguments) and returns a list of :class:`~toolcall_f1.calls.Call` or raises
:class:`~toolcall_f1.calls.ToolCallParseError`. Python call syntax is read with :mod:`ast`
and literal evaluation only — model output is never executed.
"""

from __future__ import annotations

import ast
import json
import keyword
import math
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .calls import (
    MAX_DEPTH,
    Call,
    ToolCallParseError,
    check_text_limits,
    coerce_structured,
    normalize_value,
)
from .schema import compile_tools, merge_tools
from .templates import template_reader
from .values import resolve_name_canonicalizer, strictly_identical

__all__ = ["parse_calls", "FORMATS", "Context", "parse_text"]


@dataclass(frozen=True, slots=True)
class Context:
    """What a reader may need besides the text: the parameter order of each tool."""

    param_order: Callable[[str], Sequence[str] | None] = lambda name: None


Reader = Callable[[str, Context], list[Call]]
FORMATS: dict[str, Reader] = {}


def _register(*names: str) -> Callable[[Reader], Reader]:
    def deco(fn: Reader) -> Reader:
        for name in names:
            FORMATS[name] = fn
        return fn

    return deco


# --------------------------------------------------------------------------- Python syntax


def _err(msg: str, fmt: str, snippet: str | None = None) -> ToolCallParseError:
    return ToolCallParseError(msg, format=fmt, snippet=snippet)


def _literal(node: ast.AST, fmt: str, depth: int = 0, names: bool = True) -> Any:
    """A JSON value from a literal node: constants, lists, tuples, dicts, ±numbers, and (in
    call arguments, as BFCL reads them) bare names as strings."""
    if depth > MAX_DEPTH:
        raise _err(f"nested deeper than {MAX_DEPTH} levels", fmt)
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, (bool, str, int)):
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                raise _err(f"non-finite number {ast.unparse(node)}", fmt)
            return value
        kind = {bytes: "bytes", complex: "a complex number"}.get(type(value), "...")
        if value is Ellipsis:
            kind = "'...'"
        raise _err(f"{kind} is not a JSON value", fmt, ast.unparse(node))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = node.operand
        if (
            isinstance(operand, ast.Constant)
            and isinstance(operand.value, (int, float))
            and not isinstance(operand.value, bool)
        ):
            value = _literal(operand, fmt, depth + 1, names)
            return -value if isinstance(node.op, ast.USub) else value
        raise _err("only a number may carry a sign", fmt, ast.unparse(node))
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e, fmt, depth + 1, names) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, Any] = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise _err("'**' unpacking is not a JSON value", fmt, ast.unparse(node))
            key = _literal(k, fmt, depth + 1, names)
            if not isinstance(key, str):
                raise _err(f"dict keys must be strings, got {ast.unparse(k)}", fmt)
            out[key] = _literal(v, fmt, depth + 1, names)
        return out
    if isinstance(node, ast.Name):
        if names:
            return node.id  # a bare identifier is its name, as BFCL reads it
        raise _err(f"bare name {node.id!r} is not a JSON value", fmt, node.id)
    what = {
        ast.Set: "a set",
        ast.BinOp: "arithmetic",
        ast.BoolOp: "a boolean expression",
        ast.Compare: "a comparison",
        ast.Call: "a call used as a value",
        ast.Attribute: "a dotted value",
        ast.Subscript: "a subscript",
        ast.Starred: "'*' unpacking",
        ast.Lambda: "a lambda",
        ast.JoinedStr: "an f-string",
    }.get(type(node), f"a {type(node).__name__} expression")
    raise _err(f"{what} is not a literal value", fmt, ast.unparse(node))


def _dotted(node: ast.AST, fmt: str) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value, fmt) + "." + node.attr
    raise _err("a call's name must be a (dotted) identifier", fmt, ast.unparse(node))


def _call_from_ast(node: ast.Call, ctx: Context, fmt: str) -> Call:
    name = _dotted(node.func, fmt)
    args: dict[str, Any] = {}
    if node.args:
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise _err("'*args' is not allowed in a call", fmt, ast.unparse(node))
        order = ctx.param_order(name)
        if order is None:
            raise _err(
                f"positional arguments to {name!r} need the tool's schema to be named", fmt,
                ast.unparse(node),
            )
        if len(node.args) > len(order):
            raise _err(
                f"{name!r} takes {len(order)} parameters, {len(node.args)} positional given",
                fmt,
                ast.unparse(node),
            )
        for pname, value in zip(order, node.args):
            args[pname] = _literal(value, fmt)
    for kw in node.keywords:
        if kw.arg is None:
            raise _err("'**kwargs' is not allowed in a call", fmt, ast.unparse(node))
        value = _literal(kw.value, fmt)
        if kw.arg in args:
            if not strictly_identical(args[kw.arg], value):
                raise _err(
                    f"argument {kw.arg!r} of {name!r} given twice with different values", fmt,
                    ast.unparse(node),
                )
            continue
        args[kw.arg] = value
    return Call(name, normalize_value(args, fmt=fmt))


def _parse_expr(text: str, fmt: str) -> ast.expr:
    check_text_limits(text, fmt)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in model text are not our warnings
            return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError) as err:
        msg = err.msg if isinstance(err, SyntaxError) else str(err)
        raise _err(f"not valid call syntax: {msg.splitlines()[0] if msg else type(err).__name__}", fmt, text) from None


def _calls_from_expr(body: ast.expr, ctx: Context, fmt: str, text: str, *, dicts: bool) -> list[Call]:
    if isinstance(body, ast.Call):
        return [_call_from_ast(body, ctx, fmt)]
    if isinstance(body, (ast.List, ast.Tuple)):
        if dicts and body.elts and all(isinstance(e, ast.Dict) for e in body.elts):
            # A Python-literal rendering of JSON calls: [{'name': 'f', 'arguments': {...}}]
            return coerce_structured(_literal(body, fmt, names=False), fmt=fmt)
        calls = []
        for elem in body.elts:
            if not isinstance(elem, ast.Call):
                raise _err("a list that is not a list of calls", fmt, text)
            calls.append(_call_from_ast(elem, ctx, fmt))
        return calls
    if dicts and isinstance(body, ast.Dict):
        return coerce_structured(_literal(body, fmt, names=False), fmt=fmt)
    raise _err("expected a call or a list of calls", fmt, text)


# --------------------------------------------------------------------------- fast path
# Most model output is a plain list of keyword calls with literal values. Reading it with one
# regular-expression scan and a small recursive descent is several times faster than
# building an ``ast`` and walking it; anything unusual is left to the ``ast`` reader.

_FAST_TOKEN = re.compile(
    r"""'[^'\\\n\r\x00]*'|"[^"\\\n\r\x00]*"|(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|0|[1-9][0-9]*|[A-Za-z_][A-Za-z0-9_]*|[^ \t\n\r]"""
)
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_KEYWORDS = frozenset(keyword.kwlist)
_CONSTANTS = {"True": True, "False": False, "None": None}
_DIGITS = frozenset("0123456789.")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_FAST_MAX = 100_000
_FAST_DEPTH = 60


class _Unsure(Exception):
    """The fast reader met something it does not read; the ``ast`` reader decides."""


def _number(tok: str) -> int | float:
    if "." in tok or "e" in tok or "E" in tok:
        v = float(tok)
        if math.isinf(v):
            raise _Unsure
        return v
    return int(tok)


def _fast_value(toks: list[str], i: int, depth: int) -> tuple[Any, int]:
    tok = toks[i]
    c = tok[0]
    if c == "'" or c == '"':
        if len(tok) < 2:  # a lone quote: an unterminated string
            raise _Unsure
        return tok[1:-1], i + 1
    if c in _DIGITS:
        if tok == ".":
            raise _Unsure
        return _number(tok), i + 1
    if c in _NAME_START:
        if tok in _KEYWORDS:
            if tok in _CONSTANTS:
                return _CONSTANTS[tok], i + 1
            raise _Unsure
        return tok, i + 1
    if depth >= _FAST_DEPTH:
        raise _Unsure
    if tok == "[":
        out: list[Any] = []
        i += 1
        if toks[i] == "]":
            return out, i + 1
        while True:
            v, i = _fast_value(toks, i, depth + 1)
            out.append(v)
            p = toks[i]
            if p == "]":
                return out, i + 1
            if p != ",":
                raise _Unsure
            i += 1
            if toks[i] == "]":
                return out, i + 1
    if tok == "{":
        d: dict[str, Any] = {}
        i += 1
        if toks[i] == "}":
            return d, i + 1
        while True:
            k = toks[i]
            if (k[0] != "'" and k[0] != '"') or len(k) < 2 or toks[i + 1] != ":":
                raise _Unsure
            v, i = _fast_value(toks, i + 2, depth + 1)
            d[k[1:-1]] = v
            p = toks[i]
            if p == "}":
                return d, i + 1
            if p != ",":
                raise _Unsure
            i += 1
            if toks[i] == "}":
                return d, i + 1
    if tok == "(":
        i += 1
        if toks[i] == ")":
            return [], i + 1
        first, i = _fast_value(toks, i, depth + 1)
        p = toks[i]
        if p == ")":
            return first, i + 1
        if p != ",":
            raise _Unsure
        out = [first]
        i += 1
        while toks[i] != ")":
            v, i = _fast_value(toks, i, depth + 1)
            out.append(v)
            p = toks[i]
            if p == ")":
                break
            if p != ",":
                raise _Unsure
            i += 1
        return out, i + 1
    if tok == "-" or tok == "+":
        num = toks[i + 1]
        if num[0] not in _DIGITS or num == ".":
            raise _Unsure
        v = _number(num)
        return (-v if tok == "-" else v), i + 2
    raise _Unsure


def _fast_call(toks: list[str], i: int) -> tuple[str, dict[str, Any], int]:
    name = toks[i]
    if name[0] not in _NAME_START or name in _KEYWORDS:
        raise _Unsure
    i += 1
    while toks[i] == ".":
        part = toks[i + 1]
        if part[0] not in _NAME_START or part in _KEYWORDS:
            raise _Unsure
        name = name + "." + part
        i += 2
    if toks[i] != "(":
        raise _Unsure
    i += 1
    args: dict[str, Any] = {}
    if toks[i] == ")":
        return name, args, i + 1
    while True:
        key = toks[i]
        if key[0] not in _NAME_START or key in _KEYWORDS or toks[i + 1] != "=" or key in args:
            raise _Unsure
        args[key], i = _fast_value(toks, i + 2, 2)
        p = toks[i]
        if p == ")":
            return name, args, i + 1
        if p != ",":
            raise _Unsure
        i += 1
        if toks[i] == ")":
            return name, args, i + 1


def _fast_python_calls(text: str) -> list[Call] | None:
    """Python call syntax in its everyday shape, read without :mod:`ast`; None when unsure.

    ``[f(a=1, b='x'), g.h(c=[1, -2.5, {'k': None}])]`` or one call ``f(a=1)``: keyword
    arguments whose values are plain literals (strings without backslashes, decimal numbers,
    True/False/None, bare names, lists, tuples, dicts with string keys). For every text it
    accepts, the result is exactly what the ``ast`` reader gives (``tests/property`` checks
    the two against each other); anything else — escapes, positional arguments, repeated
    keywords, non-ASCII outside strings, odd numbers, syntax errors — returns None and goes
    the ``ast`` way, which also words every parse error. Texts of at most 100k characters
    nested at most 60 deep stay inside the size and depth limits by construction.
    """
    if len(text) > _FAST_MAX or "\\" in text or "\x00" in text:
        return None
    if not text.isascii() and _SURROGATE.search(text):
        return None
    first, last = text[:1], text[-1:]
    if first == "[":
        if last != "]":
            return None
    elif last != ")" or first not in _NAME_START:
        return None
    else:
        head = text[: text.find("(")]
        if "\n" in head or "\r" in head:
            return None
    toks: list[str] = _FAST_TOKEN.findall(text)
    calls: list[Call] = []
    try:
        if first == "[":
            i = 1
            if toks[1] == "]":
                i = 2
            else:
                while True:
                    name, args, i = _fast_call(toks, i)
                    calls.append(Call._owned(name, args))
                    p = toks[i]
                    if p == "]":
                        i += 1
                        break
                    if p != ",":
                        return None
                    i += 1
                    if toks[i] == "]":
                        i += 1
                        break
        else:
            name, args, i = _fast_call(toks, 0)
            calls = [Call._owned(name, args)]
    except (_Unsure, IndexError, ValueError):
        return None
    if i != len(toks):
        return None
    return calls


def _python_whole(text: str, ctx: Context, fmt: str = "python") -> list[Call]:
    """The whole text as Python call syntax: ``[f(a=1), g()]``, ``f(a=1)``, ``f(), g()``."""
    fast = _fast_python_calls(text)
    if fast is not None:
        return fast
    try:
        body = _parse_expr(text, fmt)
    except ToolCallParseError as first:
        if text.startswith("["):
            raise
        try:
            body = _parse_expr("[" + text + "]", fmt)
        except ToolCallParseError:
            raise first from None
    return _calls_from_expr(body, ctx, fmt, text, dicts=True)


_BULLET_LABEL = re.compile(
    r"^\s*(?:[-*+>]\s+|\d+[.)]\s+)?(?:(?:\*\*|__)?[A-Za-z][\w ]{0,40}(?:\*\*|__)?\s*:(?:\*\*)?\s*)?"
)
_LABEL_END = re.compile(r":(?:\*\*|__)?[ \t]*")
_ATTEMPT = re.compile(r"`*[ \t]*(?:\[[ \t]*)?[A-Za-z_][\w.]*\(")
# a "[" that opens a list of calls or values (not "[Note]" in prose)
_LIST_ATTEMPT = re.compile(r"\[\s*(?:[\[{\"'(\]]|[A-Za-z_][\w.]*\s*\(|-?\d)")


def _balanced_end(text: str, start: int, fmt: str) -> int:
    """Index just past the bracket expression that opens at or after ``start``."""
    depth = 0
    in_str: str | None = None
    escaped = False
    opened = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == in_str:
                in_str = None
            continue
        if ch in "\"'":
            in_str = ch
        elif ch in "([{":
            depth += 1
            opened = True
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                raise _err("unbalanced brackets", fmt, text[start : start + 200])
            if depth == 0 and opened:
                return i + 1
    raise _err("unbalanced brackets", fmt, text[start : start + 200])


def _python_lines(text: str, ctx: Context, fmt: str = "python") -> tuple[list[Call], bool]:
    """Calls found line by line in prose: ``Call: [f(a=1)]``, one call per line, ...

    Returns ``(calls, attempted)``: ``attempted`` is whether any line began a call.
    """
    calls: list[Call] = []
    attempted = False
    pos = 0
    n = len(text)
    while pos < n:
        line_end = text.find("\n", pos)
        if line_end == -1:
            line_end = n
        line = text[pos:line_end]
        label = _BULLET_LABEL.match(line)
        starts = [pos + (label.end() if label else 0)]
        starts.extend(pos + m.end() for m in _LABEL_END.finditer(line))
        start = next((i for i in starts if _ATTEMPT.match(text, i)), -1)
        if start < 0:
            pos = line_end + 1
            continue
        attempted = True
        # skip leading backticks
        while start < n and text[start] in "` \t":
            start += 1
        while True:
            end = _balanced_end(text, start, fmt)
            expr = text[start:end]
            body = _parse_expr(expr, fmt)
            calls.extend(_calls_from_expr(body, ctx, fmt, expr, dicts=False))
            # another call on the same line, after a comma or semicolon?
            j = end
            while j < n and text[j] in " \t,;`":
                j += 1
            if j < n and text[j] != "\n" and _ATTEMPT.match(text, j):
                start = j
                continue
            break
        next_nl = text.find("\n", end)
        pos = n if next_nl == -1 else next_nl + 1
    return calls, attempted


@_register("python")
def read_python(text: str, ctx: Context) -> list[Call]:
    """Python call syntax as BFCL prompts elicit, leniently: brackets optional, one call per
    line, calls on a line inside prose (after an optional label), wrapped in backticks.

    Examples
    --------
    >>> read_python("[get_weather(city='Paris', days=3), math.factorial(number=5)]", Context())
    [get_weather(city='Paris', days=3), math.factorial(number=5)]
    >>> read_python("Sure!\\n**Call**: [f(a=1)]\\ng(b=[1, 2])", Context())
    [f(a=1), g(b=[1, 2])]
    >>> read_python("[f(a=1+2)]", Context())
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.ToolCallParseError: python: arithmetic is not a literal value (in '1 + 2')
    """
    text = text.strip().strip("`").strip()
    if not text or text == "[]":
        return []
    try:
        return _python_whole(text, ctx)
    except ToolCallParseError as whole_err:
        calls, attempted = _python_lines(text, ctx)
        if attempted:
            return calls
        if _ATTEMPT.match(text) or _LIST_ATTEMPT.match(text):
            raise whole_err from None
        return []


# --------------------------------------------------------------------------- JSON


class _StrictDecoder(json.JSONDecoder):
    def __init__(self) -> None:
        def reject(name: str) -> Any:
            raise ToolCallParseError(f"{name} is not valid JSON", format="json")

        def finite(text: str) -> float:
            value = float(text)
            if not math.isfinite(value):
                raise ToolCallParseError(f"number {text[:20]!r} is out of range", format="json")
            return value

        super().__init__(parse_constant=reject, parse_float=finite)


_DECODER = _StrictDecoder()


def _json_values(text: str, fmt: str, separators: str = " \t\r\n,;") -> list[Any]:
    """One or more JSON values written one after another (JSON lines, ``;``-separated)."""
    check_text_limits(text, fmt)
    values = []
    pos = 0
    n = len(text)
    while pos < n:
        while pos < n and text[pos] in separators:
            pos += 1
        if pos >= n:
            break
        try:
            value, pos = _DECODER.raw_decode(text, pos)
        except ToolCallParseError as err:
            raise _err(err.reason, fmt, text) from None
        except (ValueError, RecursionError) as err:
            raise _err(f"invalid JSON: {str(err).splitlines()[0]}", fmt, text[pos : pos + 200]) from None
        values.append(value)
    return values


def _calls_from_json(text: str, fmt: str) -> list[Call]:
    values = _json_values(text, fmt)
    if len(values) == 1:
        return coerce_structured(values[0], fmt=fmt)
    return coerce_structured(values, fmt=fmt)


@_register("json")
def read_json(text: str, ctx: Context) -> list[Call]:
    """JSON text in any structured shape: ``{"name", "arguments"}``, OpenAI, Anthropic, BFCL.

    Examples
    --------
    >>> read_json('[{"name": "f", "arguments": "{\\\\"a\\\\": 1}"}, {"g": {"b": 2}}]', Context())
    [f(a=1), g(b=2)]
    >>> read_json('["f(a=1)"]', Context())
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.ToolCallParseError: json: a list of strings is not a list of calls (a string literal is data) (in 'f(a=1)')
    """
    text = text.strip()
    if not text or text == "[]":
        return []
    return _calls_from_json(text, "json")


def _shape_check(calls_data: Any, fmt: str, ok: Callable[[Any], bool], expected: str) -> None:
    items = calls_data if isinstance(calls_data, list) else [calls_data]
    for item in items:
        if not ok(item):
            raise _err(f"expected {expected}", fmt, json.dumps(item)[:200] if _jsonable(item) else None)


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


@_register("openai")
def read_openai(text: str, ctx: Context) -> list[Call]:
    """OpenAI tool calls as JSON text: a message with ``tool_calls``, or a list of tool calls.

    Examples
    --------
    >>> read_openai('{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]}', Context())
    [f()]
    """
    text = text.strip()
    if not text or text == "[]":
        return []
    values = _json_values(text, "openai")
    data = values[0] if len(values) == 1 else values
    _shape_check(
        data,
        "openai",
        lambda d: isinstance(d, Mapping) and ("tool_calls" in d or "function" in d),
        "an OpenAI message with 'tool_calls' or {'type': 'function', 'function': {...}}",
    )
    return coerce_structured(data, fmt="openai")


@_register("anthropic")
def read_anthropic(text: str, ctx: Context) -> list[Call]:
    """Anthropic content blocks as JSON text: ``tool_use`` blocks (``text`` blocks skipped).

    Examples
    --------
    >>> read_anthropic('[{"type": "text", "text": "Let me look."}, {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}]', Context())
    [f(a=1)]
    """
    text = text.strip()
    if not text or text == "[]":
        return []
    values = _json_values(text, "anthropic")
    data = values[0] if len(values) == 1 else values
    if isinstance(data, Mapping) and "content" in data:
        data = data["content"]
    _shape_check(
        data,
        "anthropic",
        lambda d: isinstance(d, Mapping) and isinstance(d.get("type"), str),
        "Anthropic content blocks ({'type': 'tool_use', 'name', 'input'})",
    )
    return coerce_structured(data, fmt="anthropic")


# --------------------------------------------------------------------------- tagged formats

_HERMES = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)


def _block_calls(body: str, ctx: Context, fmt: str) -> list[Call]:
    body = body.strip()
    fence = _FENCE.search(body)
    if fence:
        body = fence.group(2).strip()
    if not body:
        raise _err("empty tool-call block", fmt)
    if body[0] in "{[":
        try:
            return _calls_from_json(body, fmt)
        except ToolCallParseError:
            if body[0] == "{":
                raise
    try:
        return _python_whole(body, ctx, fmt)
    except ToolCallParseError as err:
        raise _err(err.reason, fmt, body) from None


@_register("hermes", "qwen")
def read_hermes(text: str, ctx: Context) -> list[Call]:
    """Hermes / Qwen ``<tool_call>{json}</tool_call>`` blocks (several allowed).

    Examples
    --------
    >>> read_hermes('<tool_call>\\n{"name": "f", "arguments": {"a": 1}}\\n</tool_call>\\n<tool_call>{"name": "g", "arguments": {}}</tool_call>', Context())
    [f(a=1), g()]
    >>> read_hermes('<tool_call>{"name": "f", "arguments": {"a": 1}</tool_call>', Context())
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.ToolCallParseError: hermes: invalid JSON: Expecting ',' delimiter: line 1 column 36 (char 35) (in '{"name": "f", "arguments": {"a": 1}')
    """
    check_text_limits(text, "hermes")
    blocks = _HERMES.findall(text)
    if not blocks:
        if text.strip():
            raise _err("no <tool_call> block", "hermes", text)
        return []
    calls: list[Call] = []
    for body in blocks:
        calls.extend(_block_calls(body, ctx, "hermes"))
    return calls


_MISTRAL_END = re.compile(r"</s>\s*$")


@_register("mistral")
def read_mistral(text: str, ctx: Context) -> list[Call]:
    """Mistral ``[TOOL_CALLS]`` followed by a JSON list, or ``[TOOL_CALLS]name[ARGS]{json}``.

    Examples
    --------
    >>> read_mistral('[TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}}]</s>', Context())
    [f(a=1)]
    >>> read_mistral('[TOOL_CALLS]f[ARGS]{"a": 1}[TOOL_CALLS]g[ARGS]{}', Context())
    [f(a=1), g()]
    """
    check_text_limits(text, "mistral")
    _, sep, rest = text.partition("[TOOL_CALLS]")
    if not sep:
        if text.strip():
            raise _err("no [TOOL_CALLS] marker", "mistral", text)
        return []
    calls: list[Call] = []
    for chunk in rest.split("[TOOL_CALLS]"):
        chunk = _MISTRAL_END.sub("", chunk).strip()
        if not chunk:
            continue
        if "[ARGS]" in chunk:
            name, _, raw = chunk.partition("[ARGS]")
            name = name.strip()
            if not re.fullmatch(r"[A-Za-z_][\w.\-]*", name):
                raise _err(f"bad tool name {name[:40]!r} before [ARGS]", "mistral", chunk)
            values = _json_values(raw.strip(), "mistral")
            if len(values) != 1:
                raise _err("expected one JSON object after [ARGS]", "mistral", chunk)
            calls.extend(coerce_structured((name, values[0]), fmt="mistral"))
        else:
            calls.extend(_calls_from_json(chunk, "mistral"))
    return calls


_LLAMA_END = re.compile(r"<\|(?:eom_id|eot_id|end_of_text)\|>")


@_register("llama")
def read_llama(text: str, ctx: Context) -> list[Call]:
    """Llama ``<|python_tag|>`` followed by JSON calls (``;``-separated) or call syntax.

    Examples
    --------
    >>> read_llama('<|python_tag|>{"name": "f", "parameters": {"a": 1}}; {"name": "g", "parameters": {}}<|eom_id|>', Context())
    [f(a=1), g()]
    """
    check_text_limits(text, "llama")
    _, sep, rest = text.partition("<|python_tag|>")
    if not sep:
        if text.strip():
            raise _err("no <|python_tag|> marker", "llama", text)
        return []
    calls: list[Call] = []
    for chunk in rest.split("<|python_tag|>"):
        chunk = _LLAMA_END.sub("", chunk).strip()
        if chunk:
            calls.extend(_block_calls(chunk, ctx, "llama"))
    return calls


# --------------------------------------------------------------------------- BFCL, auto


@_register("bfcl")
def read_bfcl(text: str, ctx: Context) -> list[Call]:
    """Exactly as strict as BFCL's prompt decoder: strip backticks, newlines and spaces at both
    ends, add ``[`` ``]`` if missing; the whole text must then be a list of calls.

    Examples
    --------
    >>> read_bfcl("`f(a=1)`", Context())
    [f(a=1)]
    >>> read_bfcl("```python\\n[f(a=1)]\\n```", Context())
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.ToolCallParseError: bfcl: not valid call syntax: '[' was never closed (in '[python\\n[f(a=1)]')
    """
    text = text.strip("`\n ")
    if not text or text == "[]":
        return []
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    fast = _fast_python_calls(text)
    if fast is not None:
        return fast
    body = _parse_expr(text, "bfcl")
    if not isinstance(body, ast.List):
        raise _err("expected a list of calls", "bfcl", text)
    return _calls_from_expr(body, ctx, "bfcl", text, dicts=False)


_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)


def _auto_plain(text: str, ctx: Context) -> list[Call]:
    text = text.strip()
    if not text:
        return []
    if text.startswith("`") and text.endswith("`"):
        text = text.strip("`").strip()
    if not text or text == "[]":
        return []
    if text[0] == "[":
        # a list of Python calls is never JSON: read it directly rather than fail as JSON first
        fast = _fast_python_calls(text)
        if fast is not None:
            return fast
    if text[0] in "{[":
        try:
            return _calls_from_json(text, "json")
        except ToolCallParseError as json_err:
            looks_json = text[0] == "{" or re.match(r"\[\s*[{\"]", text) is not None
            try:
                return _python_whole(text, ctx) if looks_json else read_python(text, ctx)
            except ToolCallParseError:
                if looks_json:
                    raise json_err from None
                raise
    return read_python(text, ctx)


@_register("auto")
def read_auto(text: str, ctx: Context) -> list[Call]:
    """Detect the format: tagged blocks, Markdown fences (prose around them ignored), JSON,
    Python call syntax; prose with no call in it is zero calls.

    Examples
    --------
    >>> read_auto('Here you go:\\n```json\\n[{"name": "f", "arguments": {"a": 1}}]\\n```\\nAnything else?', Context())
    [f(a=1)]
    >>> read_auto("I am sorry, I cannot help with that.", Context())
    []
    """
    check_text_limits(text, "auto")
    if "```" in text:
        fences = _FENCE.findall(text)
        if fences:
            calls: list[Call] = []
            for _lang, body in fences:
                calls.extend(_auto_unfenced(body, ctx))
            return calls
    return _auto_unfenced(text, ctx)


def _auto_unfenced(text: str, ctx: Context) -> list[Call]:
    if "<tool_call>" in text:
        return read_hermes(text, ctx)
    if "[TOOL_CALLS]" in text:
        return read_mistral(text, ctx)
    if "<|python_tag|>" in text:
        return read_llama(text, ctx)
    return _auto_plain(text, ctx)


# --------------------------------------------------------------------------- public


def reader_for(fmt: Any) -> Reader:
    """The reader registered as ``fmt``, or, for a response template (a dict, or an object
    carrying one as ``.response_template``), a :class:`~toolcall_f1.templates.TemplateReader`."""
    if not isinstance(fmt, str):
        return template_reader(fmt)
    try:
        return FORMATS[fmt]
    except KeyError:
        raise ValueError(
            f"format: unknown value {fmt!r}; expected one of " + ", ".join(repr(f) for f in FORMATS)
        ) from None


def parse_text(text: str, fmt: Any, ctx: Context) -> list[Call]:
    """Read model-output text with the reader registered as ``fmt`` (or a response template)."""
    return reader_for(fmt)(text, ctx)


def read_any(output: Any, fmt: Any, ctx: Context, *, gold: bool = False) -> list[Call]:
    """Text through the ``fmt`` reader; structured input the same way in every mode.

    ``gold=True`` (references) allows :class:`~toolcall_f1.calls.AnyOf` argument values.
    """
    reader = reader_for(fmt)
    if isinstance(output, str):
        return reader(output, ctx)
    return coerce_structured(output, parse_text=lambda t: reader(t, ctx), gold=gold)


def parse_calls(
    output: Any,
    format: Any = "auto",
    tools: Sequence[Mapping[str, Any]] | None = None,
    *,
    name_canonicalizer: str | Callable[[str], str] | None = None,
) -> list[Call]:
    """Read the tool calls in a model's output.

    Parameters
    ----------
    output
        Model-output text, or any structured call shape (a message dict, a list of calls).
    format
        ``"auto"`` (detect), or one of ``"python"``, ``"json"``, ``"openai"``, ``"anthropic"``,
        ``"hermes"`` (``"qwen"``), ``"mistral"``, ``"llama"``, ``"bfcl"``; or the model's own
        response template (a dict, or a tokenizer carrying ``.response_template``), read with
        transformers' parser (needs transformers >= 5.13). Applies to text; structured input
        is read the same way in every mode.
    tools
        Tool schemas; needed to name positional arguments.
    name_canonicalizer
        How tool names are looked up in ``tools`` (``"exact"``, ``"underscore"``, callable).

    Returns
    -------
    list[Call]
        The calls, in the order written. Prose without a call gives ``[]``.

    Raises
    ------
    ToolCallParseError
        When the output attempts a call that cannot be read (broken JSON, unbalanced brackets,
        arithmetic, a list of strings, over 1 MB or 64 levels deep).
    ValueError
        For an unknown format.

    Examples
    --------
    >>> parse_calls("[get_weather(city='Paris')]")
    [get_weather(city='Paris')]
    >>> parse_calls('<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>')
    [f(x=1)]
    >>> tools = [{"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}}}]
    >>> parse_calls("f(5)", tools=tools)
    [f(x=5)]
    >>> parse_calls("[f(x=__import__('os').system('ls'))]")
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.ToolCallParseError: python: a call used as a value is not a literal value (in "__import__('os').system('ls')")
    """
    name_fn = resolve_name_canonicalizer(name_canonicalizer)
    ctx = Context(compile_tools(merge_tools(tools), {}, name_fn).param_order) if tools else Context()
    return read_any(output, format, ctx)
