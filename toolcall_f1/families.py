"""Readers for the tool-call markers of model families (SPEC §2, "Model families' own markers").

Each family is learnt from the model's chat template and the tool parsers of vLLM / SGLang,
and written as one row of :data:`FAMILIES` (a :class:`~toolcall_f1.reading.Family`: its name,
its aliases, the markers by which ``"auto"`` finds it, and its block function); the named reader
of a family is derived from its block function (:func:`~toolcall_f1.reading.read_family`), and
:mod:`toolcall_f1.parsing` adds the rows to the registry. Every reader is one forward pass over the text
(``NextFinder`` remembers where the next tag is, so a missing closing tag is looked for once),
never executes anything, and follows one rule: **a family's marker from which no complete call
can be read is a parse error naming the family and the character offset** — never zero calls.
A call whose closing tag is missing is read when its body is complete (a JSON value closes
itself; an XML-style call needs its closing tag), so a cut-off generation is an error.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from .calls import Call, coerce_structured
from .values import JSON_DECODER, MAX_DEPTH, DuplicateKeyError, ToolCallParseError, put_once
from .reading import (
    Block,
    BlockReader,
    Context,
    Family,
    NextFinder,
    decode_at,
    err_at,
    python_whole,
    read_auto,
    read_plain,
    scan_prose,
    shifted,
)
from .schema import TYPE_ALIASES

__all__ = ["FAMILIES", "declared_types", "xml_value"]

_WS = " \t\r\n"
#: End-of-turn tokens a decoder may leave after the calls.
_END_TOKENS = (
    "</s>", "<|eom_id|>", "<|eot_id|>", "<|end_of_text|>", "<|im_end|>", "<|endoftext|>",
    "<\uff5cend\u2581of\u2581sentence\uff5c>", "<eos>", "<end_of_turn>", "<|END_OF_TURN_TOKEN|>",
)


def _skip(text: str, pos: int, chars: str = _WS) -> int:
    n = len(text)
    while pos < n and text[pos] in chars:
        pos += 1
    return pos


def _skip_fence_open(text: str, pos: int) -> int:
    """Past a Markdown fence opener (```json + newline) at ``pos``, if there is one."""
    if text.startswith("```", pos):
        nl = text.find("\n", pos)
        return len(text) if nl < 0 else _skip(text, nl + 1)
    return pos


def _python_list_start(text: str, pos: int) -> bool:
    """``[`` that opens a list of Python calls, not a JSON list."""
    j = _skip(text, pos + 1)
    return j < len(text) and text[j] not in "{\"]"


# --------------------------------------------------------------------------- block bodies


def _json_run(text: str, pos: int, fmt: str) -> tuple[list[Any], int]:
    """JSON values one after another from ``pos`` (separated by space, ``,`` or ``;``)."""
    values: list[Any] = []
    while True:
        value, pos = decode_at(text, pos, fmt)
        values.append(value)
        j = _skip(text, pos, _WS + ",;")
        if j >= len(text) or text[j] != "{":
            return values, pos
        pos = j


def _calls_of(values: list[Any], fmt: str, text: str, pos: int) -> list[Call]:
    data: Any = values[0] if len(values) == 1 else values
    try:
        return coerce_structured(data, fmt=fmt)
    except ToolCallParseError as err:
        raise err_at(fmt, err.reason, text, pos) from None


def _python_body(body: str, ctx: Context, fmt: str, text: str, pos: int) -> list[Call]:
    """Python call syntax filling a block: a list, one call, or one call per line."""
    body = body.strip().strip("`").strip()
    if body.startswith("python\n"):
        body = body[7:].strip()
    if not body:
        raise err_at(fmt, "an empty tool-call block", text, pos)
    try:
        return python_whole(body, ctx, fmt, lenient=True)
    except ToolCallParseError as whole:
        try:
            calls, tried = scan_prose(body, ctx, fmt, json_calls=False)
        except ToolCallParseError as err:
            raise err_at(fmt, err.reason, text, pos) from None
        if tried:
            return calls
        raise err_at(fmt, whole.reason, text, pos) from None


def _read_body(
    text: str, pos: int, ctx: Context, fmt: str, close: str | None, nxt: NextFinder, opener: str = ""
) -> tuple[list[Call], int]:
    """The calls of one block whose body starts at ``pos``: JSON (one or several values,
    optionally fenced) or Python call syntax. Returns the calls and where the block ends
    (past ``close`` when it follows). A JSON body ends where the JSON ends, so a closing tag
    inside a JSON string is data; a missing closing tag is accepted when the body is complete.
    """
    i = _skip_fence_open(text, _skip(text, pos))
    n = len(text)
    if i < n and (text[i] == "{" or (text[i] == "[" and not _python_list_start(text, i))):
        values, j = _json_run(text, i, fmt)
        calls = _calls_of(values, fmt, text, i)
        j = _skip(text, j, _WS + "`,;")
        if close and text.startswith(close, j):
            j += len(close)
        return calls, j
    end = nxt.find(close, i) if close else -1
    stop = end if end >= 0 else n
    if opener:
        again = nxt.find(opener, i)
        if 0 <= again < stop:
            stop = again
    for tok in _END_TOKENS:
        k = text.find(tok, i, stop)
        if k >= 0:
            stop = k
    if fmt == "llama" and stop < n and not text[i:stop].strip():
        return [], stop  # <|python_tag|><|eom_id|>: the turn ended with no call (as before)
    calls = _python_body(text[i:stop], ctx, fmt, text, i)
    return calls, (stop + len(close) if close and stop == end else stop)


def _blocks(
    text: str,
    ctx: Context,
    fmt: str,
    opener: str,
    close: str | None,
    *,
    body: Any = None,
    lead: Callable[[str, int, str], int] | None = None,
) -> list[Block] | None:
    """Every ``opener … close`` block in order, as ``(start, end, calls)``; None when the
    text has no opener. ``lead(text, pos, fmt)`` checks what must follow the opener (a
    parse error when it is not there) and returns where the body starts; ``body`` reads a
    block instead of :func:`_read_body`."""
    nxt = NextFinder(text)
    read = body or _read_body
    blocks: list[Block] = []
    pos = nxt.find(opener, 0)
    if pos < 0:
        return None
    while pos >= 0:
        start = pos + len(opener)
        if lead is not None:
            start = lead(text, start, fmt)
        got, end = read(text, start, ctx, fmt, close, nxt, opener)
        blocks.append((pos, end, got))
        pos = nxt.find(opener, max(end, pos + len(opener)))
    return blocks


# --------------------------------------------------------------------------- typed XML values


def _json_exact(s: str) -> Any:
    value, end = JSON_DECODER.raw_decode(s)
    if end != len(s):
        raise ValueError("extra data")
    return value


#: A JSON value's kinds by JSON Schema type name (a bool is no integer or number).
_KINDS: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "null": (type(None),), "array": (list,), "object": (dict,),
}


def declared_types(schema: Any, depth: int = 0) -> frozenset[str] | None:
    """The JSON types a parameter's schema declares for its value (its ``type``, a type list,
    the members of an ``anyOf``/``oneOf``; BFCL's names read as JSON Schema's), or None when it
    declares none. ``"any"`` stands for a type not known here, or a union member declaring none.

    Examples
    --------
    >>> sorted(declared_types({"anyOf": [{"type": "string"}, {"type": "null"}]}))
    ['null', 'string']
    >>> sorted(declared_types({"type": ["float", "null"]})), declared_types({"description": "x"})
    (['null', 'number'], None)
    """
    if not isinstance(schema, Mapping) or depth > MAX_DEPTH:
        return None
    declared = schema.get("type")
    names = [declared] if isinstance(declared, str) else declared if isinstance(declared, (list, tuple)) else ()
    own = frozenset(TYPE_ALIASES.get(n, n) if TYPE_ALIASES.get(n, n) in _KINDS else "any"
                    for n in names if isinstance(n, str)) or None
    members = schema.get("anyOf") or schema.get("oneOf")
    union = None
    if isinstance(members, (list, tuple)) and members:
        union = frozenset().union(*(declared_types(m, depth + 1) or {"any"} for m in members))
    if own is None or union is None:
        return own if union is None else union
    return union if "any" in own else own if "any" in union else own & union


def _allowed(value: Any, types: frozenset[str] | None) -> bool:
    """Is ``value`` of one of ``types`` (None, or one holding ``"any"``: every value is)?"""
    if types is None or "any" in types:
        return True
    return any(isinstance(value, _KINDS[t]) and (type(value) is not bool or t == "boolean") for t in types)


def xml_value(raw: str, schema: Mapping[str, Any] | None) -> Any:
    """A parameter value written as text (XML-style formats), typed by the parameter's schema
    (SPEC §2): when its declared types include ``string``, the text written (the text ``null``
    is None where null is also allowed); when they do not, the text read as JSON if it parses
    as a value of a declared type, else the text; with no type declared (or no schema), JSON
    when it parses as JSON, else the text.

    Parameters
    ----------
    raw
        The text between the parameter's tags (one leading and one trailing newline dropped).
    schema
        The parameter's JSON schema, or None.

    Returns
    -------
    Any
        The value.

    Raises
    ------
    DuplicateKeyError
        For JSON text naming a key twice with different values (read as text, one of its
        values would be lost silently). Text that is not JSON stays text.

    Examples
    --------
    >>> xml_value("42", None), xml_value("42", {"type": "string"}), xml_value("Paris", None)
    (42, '42', 'Paris')
    >>> xml_value("42", {"type": ["string", "null"]}), xml_value("null", {"type": ["string", "null"]})
    ('42', None)
    >>> xml_value("1.5", {"type": "integer"}), xml_value('\\n{"a": [1, true]}\\n', {"type": "object"})
    ('1.5', {'a': [1, True]})
    >>> xml_value('{"a": 1, "a": 2}', None)
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.DuplicateKeyError: json: duplicate key 'a' with different values
    """
    if raw.startswith("\n"):  # Qwen3-Coder writes <parameter=k>\nvalue\n</parameter>
        raw = raw[1:]
        if raw.endswith("\n"):
            raw = raw[:-1]
    types = declared_types(schema)
    s = raw.strip()
    if types is not None and "string" in types:
        return None if s == "null" and "null" in types else raw
    try:
        value = _json_exact(s)
        return value if _allowed(value, types) else raw
    except DuplicateKeyError:
        raise
    except (ValueError, RecursionError):  # not JSON (a ToolCallParseError for NaN is a ValueError)
        pass
    if types and "boolean" in types and s in ("True", "False"):
        return s == "True"
    if s[:1] in "[{" and '\\"' in s:  # JSON written with escaped quotes (as inside a JSON string)
        try:
            value = _json_exact(_json_exact('"' + s + '"'))
            return value if _allowed(value, types) else raw
        except DuplicateKeyError:
            raise
        except (ValueError, RecursionError, TypeError):
            pass
    return raw


def _put(args: dict[str, Any], key: str, value: Any, fmt: str, text: str, pos: int) -> None:
    """``args[key] = value`` by the readers' one rule for a repeated key (:func:`put_once`),
    the error naming the offset of the parameter written again."""
    try:
        put_once(args, key, value, fmt, "parameter")
    except DuplicateKeyError as err:
        raise err_at(fmt, err.reason, text, pos) from None


def _typed(ctx: Context, tool: str, key: str, raw: str, fmt: str, text: str, pos: int) -> Any:
    """:func:`xml_value` of parameter ``key`` of ``tool`` (written at ``pos``), typed by its schema."""
    try:
        return xml_value(raw, ctx.param_schema(tool, key))  # type: ignore[misc]
    except DuplicateKeyError as err:
        raise err_at(fmt, err.reason, text, pos) from None


def _make(name: str, args: dict[str, Any], fmt: str, text: str, pos: int) -> Call:
    name = name.strip()
    if not name or any(c in name for c in "<>\"'{} \t\r\n"):
        raise err_at(fmt, f"a call needs a tool name, got {name[:40]!r}", text, pos)
    try:
        return coerce_structured((name, args), fmt=fmt)[0]
    except ToolCallParseError as err:
        raise err_at(fmt, err.reason, text, pos) from None


# --------------------------------------------------------------------------- <tool_call> family


def _qwen3_function(text: str, pos: int, ctx: Context, fmt: str, nxt: NextFinder) -> tuple[Call, int]:
    """``<function=NAME><parameter=KEY>value</parameter>…</function>`` at ``pos``; also the
    Functionary body ``<function=NAME>{json}</function>``."""
    head_end = text.find(">", pos)
    nl = nxt.find("\n", pos)
    if head_end < 0 or (0 <= nl < head_end):
        raise err_at(fmt, "a <function= tag that is never closed", text, pos)
    name = text[pos + len("<function=") : head_end]
    if text.startswith("<function name=", pos):
        name = name[len(" name=") - 1 :].strip().strip('"')
    args: dict[str, Any] = {}
    i = _skip(text, head_end + 1)
    if text.startswith("{", i):
        value, i = decode_at(text, i, fmt)
        if not isinstance(value, dict):
            raise err_at(fmt, "expected a JSON object of arguments", text, head_end + 1)
        args = value
        i = _skip(text, i)
    while text.startswith("<parameter=", i):
        key_end = text.find(">", i)
        if key_end < 0:
            raise err_at(fmt, "a <parameter= tag that is never closed", text, i)
        key = text[i + len("<parameter=") : key_end].strip()
        ends = [e for e in (nxt.find("</parameter>", key_end), nxt.find("<parameter=", key_end), nxt.find("</function>", key_end)) if e >= 0]
        if not ends:
            raise err_at(fmt, f"parameter {key!r} is cut off (no </parameter>)", text, i)
        stop = min(ends)
        _put(args, key, _typed(ctx, name.strip(), key, text[key_end + 1 : stop], fmt, text, i), fmt, text, i)
        i = _skip(text, stop + len("</parameter>") if text.startswith("</parameter>", stop) else stop)
    if not text.startswith("</function>", i):
        if i >= len(text) or not text.startswith(("</tool_call>", "</seed:tool_call>"), i):
            raise err_at(fmt, f"call {name.strip()!r} is cut off or malformed (expected </function>)", text, i)
        return _make(name, args, fmt, text, pos), i
    return _make(name, args, fmt, text, pos), i + len("</function>")


def _glm_call(body: str, text: str, pos: int, ctx: Context) -> Call:
    """GLM-4.5/4.6: ``NAME<arg_key>k</arg_key><arg_value>v</arg_value>…`` (the block's body)."""
    k = body.find("<arg_key>")
    name = (body if k < 0 else body[:k]).strip()
    if name.endswith("\\n"):  # the newline after the name written escaped
        name = name[:-2].strip()
    args: dict[str, Any] = {}
    while k >= 0:
        kend = body.find("</arg_key>", k)
        vstart = body.find("<arg_value>", kend)
        vend = body.find("</arg_value>", vstart)
        if kend < 0 or vstart < 0 or vend < 0:
            raise err_at("glm45", "an <arg_key> without its </arg_key><arg_value>…</arg_value>", text, pos + k)
        key = body[k + len("<arg_key>") : kend].strip()
        value = _typed(ctx, name, key, body[vstart + len("<arg_value>") : vend], "glm45", text, pos + k)
        _put(args, key, value, "glm45", text, pos + k)
        k = body.find("<arg_key>", vend)
    return _make(name, args, "glm45", text, pos)


def _tool_call_body(
    text: str, pos: int, ctx: Context, fmt: str, close: str | None, nxt: NextFinder, opener: str = ""
) -> tuple[list[Call], int]:
    """One ``<tool_call>`` block: Hermes JSON, Qwen3-Coder ``<function=…>``, GLM
    ``NAME<arg_key>…``, or Python call syntax."""
    i = _skip(text, pos)
    if text.startswith("<function=", i):
        calls: list[Call] = []
        while text.startswith("<function=", i):
            call, i = _qwen3_function(text, i, ctx, "qwen3_coder", nxt)
            calls.append(call)
            i = _skip(text, i)
        if close and text.startswith(close, i):
            i += len(close)
        return calls, i
    if i < len(text) and text[i] in "{[`":
        return _read_body(text, pos, ctx, fmt, close, nxt, opener)
    end = nxt.find(close, i) if close else -1
    if end < 0:
        family = "glm45" if text.find("<arg_key>", i) >= 0 else fmt
        raise err_at(family, f"a {opener} block that is never closed", text, i)
    body = text[i:end]
    head = body.split("<arg_key>", 1)[0]
    if "<arg_key>" in body or ("(" not in head and head.strip() and "\n" not in head.strip()):
        return [_glm_call(body, text, i, ctx)], end + len(close or "")
    return _read_body(text, pos, ctx, fmt, close, nxt, opener)


def _hermes_blocks(text: str, ctx: Context, fmt: str = "hermes") -> list[Block] | None:
    blocks = _blocks(text, ctx, fmt, "<tool_call>", "</tool_call>", body=_tool_call_body)
    if blocks is None and fmt == "hermes" and _FUNCTION_TAG.search(text):
        return _qwen3_blocks(text, ctx)  # Qwen3-Coder calls without the <tool_call> wrapper
    return blocks


_glm45_blocks = functools.partial(_hermes_blocks, fmt="glm45")


def _qwen3_blocks(text: str, ctx: Context) -> list[Block] | None:
    nxt = NextFinder(text)
    pos, _ = nxt.search(_FUNCTION_TAG, 0)
    if pos < 0:
        wrapped = _hermes_blocks(text, ctx)  # JSON in <tool_call> blocks
        seed = text.find("<seed:tool_call>") if wrapped is None else -1
        if seed >= 0:
            raise err_at("qwen3_coder", "<seed:tool_call> holds no <function=…> call (cut off?)", text, seed)
        return wrapped
    blocks: list[Block] = []
    floor = 0
    while pos >= 0:
        call, end = _qwen3_function(text, pos, ctx, "qwen3_coder", nxt)
        start = _back_past(text, pos, floor, ("<tool_call>", "<seed:tool_call>"))
        floor = _past(text, _past(text, end, "</tool_call>"), "</seed:tool_call>")
        blocks.append((start, floor, [call]))
        pos, _ = nxt.search(_FUNCTION_TAG, floor)
    return blocks


def _back_past(text: str, pos: int, floor: int, tokens: tuple[str, ...]) -> int:
    """The start of one of ``tokens`` ending right before ``pos`` (white space between, not
    before ``floor``); else ``pos``: a wrapper tag belongs to the call it wraps."""
    k = pos
    while k > floor and text[k - 1] in _WS:
        k -= 1
    return next((k - len(t) for t in tokens if k - len(t) >= floor and text.startswith(t, k - len(t))), pos)


_FUNCTION_TAG = re.compile(r'<function(?:=| name=")')


# --------------------------------------------------------------------------- invoke XML (DSML, MiniMax)

_INVOKE = re.compile(r'<(?:\uff5cDSML\uff5c)?invoke\s+name="([^"<>\n]*)"\s*>')
_PARAM = re.compile(r'<(?:\uff5cDSML\uff5c)?parameter\s+name="([^"<>\n]*)"(?:\s+string="(true|false)")?\s*>')
_PARAM_END = re.compile(r"</(?:\uff5cDSML\uff5c)?parameter>")
_INVOKE_END = re.compile(r"</(?:\uff5cDSML\uff5c)?invoke>")
#: The tags around invoke blocks (a wrapper belongs to the calls it wraps).
_INVOKE_SECTIONS = ("<\uff5cDSML\uff5cfunction_calls>", "<minimax:tool_call>", "<function_calls>")


def _invoke_blocks(text: str, ctx: Context, fmt: str) -> list[Block] | None:
    """``<invoke name="f"><parameter name="k" [string="true"]>v</parameter></invoke>`` blocks
    (DeepSeek V3.2 DSML with or without the ``｜DSML｜`` prefix, MiniMax-M2); a body may also
    be one JSON object of arguments. None when there is no invoke tag."""
    nxt = NextFinder(text)
    start, head_end = nxt.search(_INVOKE, 0)
    if start < 0:
        return None
    blocks: list[Block] = []
    floor = 0
    while start >= 0:
        m = _INVOKE.match(text, start)
        assert m is not None
        name = m.group(1)
        end_start, end_end = nxt.search(_INVOKE_END, head_end)
        if end_start < 0:
            raise err_at(fmt, f"call {name!r} is cut off (no </invoke>)", text, start)
        args = _invoke_args(text, head_end, end_start, name, ctx, fmt, nxt)
        try:
            args = _unwrapped(args, name, ctx)
        except DuplicateKeyError as err:
            raise err_at(fmt, err.reason, text, start) from None
        call = _make(name, args, fmt, text, start)
        begin = _back_past(text, start, floor, _INVOKE_SECTIONS)
        floor = end_end
        for close in _INVOKE_SECTIONS:
            floor = _past(text, floor, "</" + close[1:])
        blocks.append((begin, floor, [call]))
        start, head_end = nxt.search(_INVOKE, floor)
    return blocks


def _invoke_args(
    text: str, i: int, stop: int, name: str, ctx: Context, fmt: str, nxt: NextFinder
) -> dict[str, Any]:
    """The arguments of one invoke whose body runs from ``i`` to ``stop``: a JSON object,
    and/or ``<parameter name="k">`` tags."""
    args: dict[str, Any] = {}
    i = _skip(text, i)
    if text.startswith("{", i):
        value, i = decode_at(text, i, fmt)
        if not isinstance(value, dict):
            raise err_at(fmt, "expected a JSON object of arguments", text, i)
        args = value
    while True:
        ps, pe = nxt.search(_PARAM, i)
        if ps < 0 or ps > stop:
            return args
        pm = _PARAM.match(text, ps)
        assert pm is not None
        key, string = pm.group(1), pm.group(2)
        vs, ve = nxt.search(_PARAM_END, pe)
        if vs < 0 or vs > stop:
            raise err_at(fmt, f"parameter {key!r} is cut off (no </parameter>)", text, ps)
        _put(args, key, _invoke_value(text[pe:vs], string, name, key, ctx, fmt, text, ps), fmt, text, ps)
        i = ve


def _invoke_value(
    raw: str, string: str | None, tool: str, key: str, ctx: Context, fmt: str, text: str, pos: int
) -> Any:
    """The value of parameter ``key`` (written at ``pos``): typed by the tool's schema, else by
    its ``string="true" | "false"`` mark, else as :func:`xml_value` reads text."""
    schema = ctx.param_schema(tool, key)  # type: ignore[misc]
    try:
        if schema is not None:
            return xml_value(raw, schema)
        if string == "true":
            return raw
        if string == "false":
            return _json_exact(raw.strip())
        return xml_value(raw.strip("\n") if fmt == "minimax_m2" else raw, None)
    except DuplicateKeyError as err:
        raise err_at(fmt, err.reason, text, pos) from None
    except (ValueError, RecursionError):  # only string="false" text can fail here
        raise err_at(fmt, f"parameter {key!r} is marked string=\"false\" but is not JSON", text, pos) from None


def _unwrapped(args: dict[str, Any], name: str, ctx: Context) -> dict[str, Any]:
    """A sole ``arguments`` / ``input`` parameter holding the whole argument object, when the
    tool's schema has no such parameter."""
    if len(args) != 1:
        return args
    ((key, value),) = args.items()
    if key not in ("arguments", "input", "parameters") or ctx.param_order(name) is None or key in (ctx.param_order(name) or ()):
        return args
    if isinstance(value, str):
        try:
            value = _json_exact(value.strip())
        except DuplicateKeyError:
            raise
        except (ValueError, RecursionError):
            return args
    return value if isinstance(value, dict) else args


def _invoke_family(fmt: str, section: str) -> BlockReader:
    def blocks_of(text: str, ctx: Context) -> list[Block] | None:
        blocks = _invoke_blocks(text, ctx, fmt)
        k = text.find(section) if blocks is None else -1
        if k >= 0:
            raise err_at(fmt, f"{section} holds no <invoke name=…> call", text, k)
        return blocks

    return blocks_of


_deepseek_v32_blocks = _invoke_family("deepseek_v32", "<\uff5cDSML\uff5cfunction_calls>")
_minimax_m2_blocks = _invoke_family("minimax_m2", "<minimax:tool_call>")


def _olmo3_blocks(text: str, ctx: Context) -> list[Block] | None:
    k = text.find("<function_calls>")
    if k >= 0 and text.startswith("<invoke", _skip(text, k + len("<function_calls>"))):
        return _invoke_blocks(text, ctx, "deepseek_v32")  # DeepSeek's plain-tag form
    return _blocks(text, ctx, "olmo3", "<function_calls>", "</function_calls>")


# --------------------------------------------------------------------------- Harmony (gpt-oss)

_RECIPIENT = re.compile(r"to=([^\s<]*)")
_HARMONY_STOPS = ("<|end|>", "<|call|>", "<|return|>", "<|start|>")
_HARMONY_HEADS = ("<|start|>", "<|channel|>")


def _harmony_blocks(text: str, ctx: Context) -> list[Block] | None:
    """One block per Harmony message (header, body and its stop token); the calls are the
    messages whose header names a ``functions.`` recipient. Text between messages that no
    header token opens is left to the reader of the text around the blocks."""
    nxt = NextFinder(text)
    if nxt.find("<|message|>", 0) < 0 and all(nxt.find(t, 0) < 0 for t in _HARMONY_HEADS):
        return None
    blocks: list[Block] = []
    head, n = 0, len(text)
    while head < n:
        msg = nxt.find("<|message|>", head)
        heads = [k for k in (nxt.find(t, head) for t in _HARMONY_HEADS) if 0 <= k and (msg < 0 or k < msg)]
        start = min(heads) if heads else head
        if "to=" in text[head:start]:  # the recipient before the channel: " to=functions.f<|channel|>…"
            start = head
        if msg < 0:  # no message left: a header cut off, or text after the last message
            if heads or "to=functions" in text[head:]:
                _harmony_cut_header(text, start)
                blocks.append((start, n, []))
            break
        body = msg + len("<|message|>")
        stops = [k for k in (nxt.find(t, body) for t in _HARMONY_STOPS) if k >= 0]
        end = min(stops) if stops else n
        stop = next((t for t in _HARMONY_STOPS if text.startswith(t, end)), "")
        call = _harmony_call(text, start, msg, end, stop)
        head = end if stop in ("", "<|start|>") else end + len(stop)
        if call is None and "<|channel|>final" in text[start:msg]:
            # the answer to the user: calls written there as text (BFCL-style prompting) are read
            blocks.append((start, head, read_plain(text[body:end], ctx)))
        else:
            blocks.append((start, head, [] if call is None else [call]))
    return blocks


def _harmony_call(text: str, start: int, msg: int, end: int, stop: str) -> Call | None:
    """The call a message makes (its header from ``start`` to ``msg``, body to ``end``), or
    None for a message to no function (analysis, final, a preamble, a built-in tool)."""
    header = text[start:msg]
    body_start = msg + len("<|message|>")
    body = text[body_start:end].strip()
    r = _RECIPIENT.search(header)
    recipient = r.group(1) if r else ""
    if not recipient.startswith("functions"):
        if not recipient and stop == "<|call|>":
            raise err_at("harmony", "a message ending in <|call|> names no recipient (to=functions.NAME)", text, start)
        if not recipient and "commentary" in header and body.startswith("{"):
            raise err_at("harmony", "JSON arguments in the commentary channel name no recipient (to=functions.NAME)", text, start)
        return None  # no call: analysis, final, a preamble; built-in tools (to=python) are not function calls
    name = recipient[len("functions.") :] if recipient.startswith("functions.") else ""
    if not name:
        raise err_at("harmony", f"a message to {recipient!r} names no function", text, start + header.find("to="))
    if not body:
        raise err_at("harmony", f"call {name!r} has no arguments message", text, body_start)
    try:
        args, after = decode_at(body, 0, "harmony")
    except ToolCallParseError as err:  # counted in the whole text
        raise shifted(err, _skip(text, body_start)) from None
    if body[after:].strip() or not isinstance(args, dict):
        raise err_at("harmony", f"the arguments of {name!r} are not one JSON object", text, body_start)
    return _make(name, args, "harmony", text, start + header.find("to="))


def _harmony_cut_header(text: str, start: int) -> None:
    """A header with no ``<|message|>`` after it: an error when it began a call (a recipient,
    or the commentary channel with more than its name)."""
    rest = text[start:]
    if "to=" in rest or "{" in rest:
        raise err_at("harmony", "a message to a tool is cut off (no <|message|>)", text, start)


# --------------------------------------------------------------------------- DeepSeek V3 / V3.1 / R1

_DS_CALL = "<\uff5ctool\u2581call\u2581begin\uff5c>"
_DS_SEP = "<\uff5ctool\u2581sep\uff5c>"
_DS_CALL_END = "<\uff5ctool\u2581call\u2581end\uff5c>"
_DS_CALLS = "<\uff5ctool\u2581calls\u2581begin\uff5c>"
_DS_OPEN = re.compile("<\uff5ctool\u2581call\u2581begin\uff5c>|<\uff5ctool\u2581calls\uff5c>")


def _deepseek_blocks(text: str, ctx: Context) -> list[Block] | None:
    nxt = NextFinder(text)
    pos, start = nxt.search(_DS_OPEN, 0)
    if pos < 0:
        k = text.find(_DS_CALLS)
        if k >= 0:
            raise err_at("deepseek", "<｜tool▁calls▁begin｜> holds no <｜tool▁call▁begin｜> call", text, k)
        return None
    blocks: list[Block] = []
    while pos >= 0:
        sep = nxt.find(_DS_SEP, start)
        nxt_call, _ = nxt.search(_DS_OPEN, start)
        if sep < 0 or 0 <= nxt_call < sep:
            raise err_at("deepseek", "a call without <｜tool▁sep｜> (cut off?)", text, pos)
        kind = text[start:sep].strip()
        i = sep + len(_DS_SEP)
        if kind in ("function", ""):
            nl = text.find("\n", i)
            brace = text.find("{", i)
            cut = min(x for x in (nl, brace, len(text)) if x >= 0)
            name, i = text[i:cut], cut
        else:
            name = kind
        j = _skip_fence_open(text, _skip(text, i))
        if not text.startswith("{", j):
            raise err_at("deepseek", f"call {name.strip()!r} has no JSON arguments (cut off?)", text, i)
        args, j = decode_at(text, j, "deepseek")
        if not isinstance(args, dict):
            raise err_at("deepseek", "expected a JSON object of arguments", text, i)
        j = _past(text, _past(text, j, "```"), _DS_CALL_END)
        blocks.append((pos, j, [_make(name, args, "deepseek", text, pos)]))
        pos, start = nxt.search(_DS_OPEN, j)
    return blocks


def _past(text: str, pos: int, token: str) -> int:
    """Past ``token`` when it follows ``pos`` (after white space); else ``pos``."""
    j = _skip(text, pos)
    return j + len(token) if text.startswith(token, j) else pos


# --------------------------------------------------------------------------- Kimi K2

_KIMI_CALL = "<|tool_call_begin|>"
_KIMI_ARGS = "<|tool_call_argument_begin|>"
_KIMI_ID = re.compile(r"^(?:functions\.)?(.+?)(?::\d+)?$")


def _kimi_k2_blocks(text: str, ctx: Context) -> list[Block] | None:
    nxt = NextFinder(text)
    pos = nxt.find(_KIMI_CALL, 0)
    stray = nxt.find(_KIMI_ARGS, 0)
    if 0 <= stray and (pos < 0 or stray < pos):
        raise err_at("kimi_k2", "<|tool_call_argument_begin|> without <|tool_call_begin|> before it", text, stray)
    if pos < 0:
        k = text.find("<|tool_calls_section_begin|>")
        if k >= 0:
            raise err_at("kimi_k2", "<|tool_calls_section_begin|> holds no <|tool_call_begin|> call", text, k)
        return None
    blocks: list[Block] = []
    while pos >= 0:
        start = pos + len(_KIMI_CALL)
        arg = nxt.find(_KIMI_ARGS, start)
        again = nxt.find(_KIMI_CALL, start)
        if arg < 0 or 0 <= again < arg:
            raise err_at("kimi_k2", "a call without <|tool_call_argument_begin|> (cut off?)", text, pos)
        m = _KIMI_ID.match(text[start:arg].strip())
        name = m.group(1) if m else ""
        args, j = decode_at(text, _skip(text, arg + len(_KIMI_ARGS)), "kimi_k2")
        if not isinstance(args, dict):
            raise err_at("kimi_k2", "expected a JSON object of arguments", text, arg)
        j = _past(text, j, "<|tool_call_end|>")
        blocks.append((pos, j, [_make(name, args, "kimi_k2", text, pos)]))
        pos = nxt.find(_KIMI_CALL, j)
    return blocks


# --------------------------------------------------------------------------- Mistral

_MISTRAL_NAME = re.compile(r"([A-Za-z_][\w.\-]*)[ \t]*(\[ARGS\]|\[CALL_ID\]|\{|$|\n|</s>|(?=\[TOOL_CALLS\]))")


def _mistral_blocks(text: str, ctx: Context) -> list[Block] | None:
    """One block per run of calls after a ``[TOOL_CALLS]`` (a run ends at prose or an
    end-of-turn token; a later ``[TOOL_CALLS]`` starts another)."""
    nxt = NextFinder(text)
    pos = nxt.find("[TOOL_CALLS]", 0)
    if pos < 0:
        return None
    blocks: list[Block] = []
    while pos >= 0:
        calls, end = _mistral_run(text, pos + len("[TOOL_CALLS]"), nxt, ctx)
        if not calls and not text.startswith("[]", _skip(text, pos + len("[TOOL_CALLS]"))):
            raise err_at("mistral", "[TOOL_CALLS] without a call after it (cut off?)", text, pos)
        blocks.append((pos, end, calls))
        pos = nxt.find("[TOOL_CALLS]", end)
    return blocks


def _mistral_run(text: str, i: int, nxt: NextFinder, ctx: Context) -> tuple[list[Call], int]:
    """The calls from ``i`` on (a JSON list, ``NAME[ARGS]{…}``, ``NAME{…}``, more
    ``[TOOL_CALLS]``), and where they end. Right after a ``[TOOL_CALLS]`` a call must follow
    (a bare name is a call without arguments, unless it ends the text and is a declared tool's
    name cut short); after a call, a word is prose."""
    calls: list[Call] = []
    n = len(text)
    fresh = True  # right after a [TOOL_CALLS] marker
    while True:
        i = _skip(text, i)
        if i >= n or any(text.startswith(t, i) for t in _END_TOKENS):
            if fresh and calls:
                raise err_at("mistral", "[TOOL_CALLS] without a call after it (cut off?)", text, i)
            return calls, i
        if text.startswith("[TOOL_CALLS]", i):
            i += len("[TOOL_CALLS]")
            fresh = True
            continue
        if text[i] in "[{":
            if calls and text[i] == "[" and _python_list_start(text, i):
                return calls, i  # a list of Python calls after the run is not Mistral's
            values, i = _json_run(text, i, "mistral")
            calls.extend(_calls_of(values, "mistral", text, i))
            fresh = False
            continue
        m = _MISTRAL_NAME.match(text, i)
        if m is None:
            if calls and not fresh:
                return calls, i  # prose after the calls
            nl = nxt.find("\n", i)
            j = text.find("[{", i, nl if nl >= 0 else n)
            if j < 0:
                raise err_at("mistral", "[TOOL_CALLS] without a call after it (cut off?)", text, i)
            i = j  # words before the JSON list
            continue
        name, j = m.group(1), m.start(2)
        if m.group(2) in ("", "\n", "</s>"):
            if calls and not fresh:
                return calls, i  # a word after the calls is prose
            if _skip(text, m.end(1)) >= n and ctx.cut_name(name):
                raise err_at("mistral", f"call {name!r} is cut off (a declared tool's name cut short)", text, i)
            calls.append(_make(name, {}, "mistral", text, i))  # a call without arguments
            i, fresh = m.end(1), False
            continue
        if text.startswith("[CALL_ID]", j):
            j = text.find("[ARGS]", j)
            if j < 0:
                raise err_at("mistral", "[CALL_ID] without [ARGS] (cut off?)", text, m.start(2))
        if text.startswith("[ARGS]", j):
            j += len("[ARGS]")
        args, i = decode_at(text, _skip(text, j), "mistral")
        if not isinstance(args, dict):
            raise err_at("mistral", "expected a JSON object of arguments", text, j)
        calls.append(_make(name, args, "mistral", text, m.start(1)))
        fresh = False


# --------------------------------------------------------------------------- Llama 3 / 4

_BUILTIN_CALL = ".call"


def _builtin(calls: list[Call]) -> list[Call]:
    """Llama's built-in tools: ``brave_search.call(query=…)`` is a call to ``brave_search``."""
    return [Call._owned(c.name[: -len(_BUILTIN_CALL)], dict(c.arguments)) if c.name.endswith(_BUILTIN_CALL) else c for c in calls]


def _llama_blocks(text: str, ctx: Context) -> list[Block] | None:
    blocks = _blocks(text, ctx, "llama", "<|python_tag|>", None)
    return None if blocks is None else [(start, end, _builtin(calls)) for start, end, calls in blocks]


# --------------------------------------------------------------------------- Gemma 4

_GQ = '<|"|>'
_GEMMA_BARE_END = ",}]"


def _gemma_value(text: str, i: int, fmt: str, depth: int) -> tuple[Any, int]:
    if depth > MAX_DEPTH:
        raise err_at(fmt, f"nested deeper than {MAX_DEPTH} levels", text, i)
    i = _skip(text, i)
    if text.startswith(_GQ, i):
        end = text.find(_GQ, i + len(_GQ))
        if end < 0:
            raise err_at(fmt, "a string that is never closed (cut off?)", text, i)
        return text[i + len(_GQ) : end], end + len(_GQ)
    if text.startswith("{", i):
        return _gemma_object(text, i, fmt, depth + 1)
    if text.startswith("[", i):
        out: list[Any] = []
        i = _skip(text, i + 1)
        while not text.startswith("]", i):
            if i >= len(text):
                raise err_at(fmt, "a list that is never closed (cut off?)", text, i)
            v, i = _gemma_value(text, i, fmt, depth + 1)
            out.append(v)
            i = _skip(text, i)
            if text.startswith(",", i):
                i = _skip(text, i + 1)
        return out, i + 1
    j = i
    n = len(text)
    while j < n and text[j] not in _GEMMA_BARE_END and not text.startswith("<", j):
        j += 1
    raw = text[i:j].strip()
    if not raw:
        raise err_at(fmt, "a missing value", text, i)
    lit = {"true": True, "false": False, "null": None}
    if raw in lit:
        return lit[raw], j
    try:
        num = float(raw) if any(c in raw for c in ".eE") else int(raw)
    except ValueError:
        return raw, j
    if isinstance(num, float) and not math.isfinite(num):
        raise err_at(fmt, f"number {raw[:20]!r} is out of range", text, i)
    return num, j


def _gemma_object(text: str, i: int, fmt: str, depth: int) -> tuple[dict[str, Any], int]:
    """``{key:value,…}`` at ``i`` (keys bare, strings between ``<|"|>`` marks)."""
    out: dict[str, Any] = {}
    i = _skip(text, i + 1)
    while not text.startswith("}", i):
        colon = text.find(":", i)
        if i >= len(text) or colon < 0:
            raise err_at(fmt, "an object that is never closed (cut off?)", text, i)
        key = text[i:colon].strip()
        if text.startswith(_GQ, i):
            key = key.replace(_GQ, "")
        if not key or any(c in key for c in "{}[],<>"):
            raise err_at(fmt, f"expected key:value, got {text[i:i + 20]!r}", text, i)
        value, after = _gemma_value(text, colon + 1, fmt, depth)
        _put(out, key, value, fmt, text, i)
        i = after
        i = _skip(text, i)
        if text.startswith(",", i):
            i = _skip(text, i + 1)
    return out, i + 1


def _gemma4_blocks(text: str, ctx: Context) -> list[Block] | None:
    nxt = NextFinder(text)
    pos = nxt.find("<|tool_call>", 0)
    if pos < 0:
        return None
    blocks: list[Block] = []
    while pos >= 0:
        i = _skip(text, pos + len("<|tool_call>"))
        if not text.startswith(("call:", ":"), i):
            raise err_at("gemma4", "expected call:NAME{…} after <|tool_call>", text, i)
        brace = text.find("{", i)
        stop = nxt.find("<tool_call|>", i)
        if brace < 0 or (0 <= stop < brace):
            raise err_at("gemma4", "a call without its {arguments} (cut off?)", text, i)
        name = text[i + (len("call:") if text.startswith("call:", i) else 1) : brace]
        args, j = _gemma_object(text, brace, "gemma4", 1)
        j = _past(text, j, "<tool_call|>")
        blocks.append((pos, j, [_make(name, args, "gemma4", text, pos)]))
        pos = nxt.find("<|tool_call>", j)
    return blocks


# --------------------------------------------------------------------------- JSON-bodied tags


def _renamed(values: Any, key: str) -> Any:
    """Command R's ``{"tool_name": …, "parameters": …}`` as ``{"name": …, "parameters": …}``."""
    if isinstance(values, list):
        return [_renamed(v, key) for v in values]
    if isinstance(values, dict) and key in values and "name" not in values:
        return {("name" if k == key else k): v for k, v in values.items() if k != "tool_call_id"}
    return values


_ACTION = re.compile(r"Action:[ \t]*\r?\n?[ \t]*```(?:json)?[ \t]*\r?\n")
#: Where an ``Action:`` block begins (the family's marker, too).
_ACTION_MARKER = re.compile(r"Action:[ \t]*\r?\n?[ \t]*```")


def _action_blocks(text: str) -> list[Block] | None:
    """Command R's ``Action:`` + a fenced JSON list of actions (line ends ``\\n`` or ``\\r\\n``),
    every such block in order; an ``Action:`` fence without JSON is a parse error."""
    blocks: list[Block] = []
    for marker in _ACTION_MARKER.finditer(text):
        if blocks and marker.start() < blocks[-1][1]:
            continue
        m = _ACTION.match(text, marker.start())
        if m is None:
            raise err_at("command_r", "Action: without a fenced JSON action (cut off?)", text, marker.start())
        values, j = _json_run(text, m.end(), "command_r")
        calls = _calls_of([_renamed(v, "tool_name") for v in values], "command_r", text, m.end())
        blocks.append((m.start(), _past(text, _past(text, j, "```"), "<|END_ACTION|>"), calls))
    return blocks or None


def _command_r_blocks(text: str, ctx: Context) -> list[Block] | None:
    nxt = NextFinder(text)
    k = nxt.find("<|START_ACTION|>", 0)
    if k < 0:
        return _action_blocks(text)
    blocks: list[Block] = []
    while k >= 0:
        i = _skip_fence_open(text, _skip(text, k + len("<|START_ACTION|>")))
        if i >= len(text) or text[i] not in "[{":
            raise err_at("command_r", "<|START_ACTION|> without a JSON action (cut off?)", text, k)
        values, j = _json_run(text, i, "command_r")
        calls = _calls_of([_renamed(v, "tool_name") for v in values], "command_r", text, i)
        j = _past(text, _past(text, j, "```"), "<|END_ACTION|>")
        blocks.append((k, j, calls))
        k = nxt.find("<|START_ACTION|>", j)
    return blocks


def _functools_lead(text: str, pos: int, fmt: str) -> int:
    i = _skip(text, pos)
    if not text.startswith("[", i):
        raise err_at(fmt, "expected a JSON list after functools", text, pos)
    return i


_phi4_mini_blocks = functools.partial(_blocks, fmt="phi4_mini", opener="functools", close=None, lead=_functools_lead)


def _plugin_lead(text: str, pos: int, fmt: str) -> int:
    i = _skip(text, pos)
    if not text.startswith("<|plugin|>", i):
        raise err_at(fmt, "expected <|plugin|> after <|action_start|> (other actions are not tool calls we read)", text, i)
    return i + len("<|plugin|>")


_internlm2_blocks = functools.partial(
    _blocks, fmt="internlm2", opener="<|action_start|>", close="<|action_end|>", lead=_plugin_lead
)


def _functionary_blocks(text: str, ctx: Context) -> list[Block] | None:
    nxt = NextFinder(text)
    pos = nxt.find(">>>", 0)
    tag, _ = nxt.search(_FUNCTION_TAG, 0)
    if tag >= 0 and (pos < 0 or tag < pos):
        return _qwen3_blocks(text, ctx)  # v3.1 <function=NAME>{json}</function>
    if pos < 0:
        return None
    blocks: list[Block] = []
    while pos >= 0:
        nl = nxt.find("\n", pos)
        if nl < 0:
            raise err_at("functionary", "a >>> header without its body (cut off?)", text, pos)
        name = text[pos + 3 : nl].strip()
        j = nl + 1
        calls: list[Call] = []
        if name == "python" and not text.startswith("{", _skip(text, j)):
            end = nxt.find(">>>", j)
            j = end if end >= 0 else len(text)
            calls.append(_make("python", {"code": text[nl + 1 : j]}, "functionary", text, pos))
        elif name != "all":
            i = _skip(text, j)
            if not text.startswith("{", i):
                raise err_at("functionary", f"call {name!r} has no JSON arguments", text, j)
            args, j = decode_at(text, i, "functionary")
            if not isinstance(args, dict):
                raise err_at("functionary", "expected a JSON object of arguments", text, i)
            calls.append(_make(name, args, "functionary", text, pos))
        else:  # >>>all: text to the user, up to the next header
            end = nxt.find(">>>", j)
            j = end if end >= 0 else len(text)
        blocks.append((pos, j, calls))
        pos = nxt.find(">>>", j)
    return blocks


def _gigachat_lead(text: str, pos: int, fmt: str) -> int:
    i = _skip(text, pos)
    if text.startswith("<|role_sep|>", i):
        i += len("<|role_sep|>")
    i = _skip(text, i)
    if not text.startswith("{", i):
        raise err_at(fmt, "expected a JSON call after 'function call'", text, pos)
    value, _ = decode_at(text, i, fmt)
    if not (isinstance(value, dict) and isinstance(value.get("name"), str)):
        raise err_at(fmt, "expected {\"name\": …, \"arguments\": …} after 'function call'", text, i)
    return i


_gigachat3_blocks = functools.partial(
    _blocks, fmt="gigachat3", opener="function call", close="<|message_sep|>", lead=_gigachat_lead
)


# --------------------------------------------------------------------------- the registry


def _tag_blocks(fmt: str, opener: str, close: str | None) -> BlockReader:
    """The block function of family ``fmt``, whose calls are JSON or Python call syntax
    between ``opener`` and ``close``."""
    return functools.partial(_blocks, fmt=fmt, opener=opener, close=close)


#: Every model family, in registration order (``"auto"`` prefers the longest marker, then the
#: earlier row). Each row's named reader is derived from its block function; the comment above
#: a row says what the family writes.
FAMILIES: tuple[Family, ...] = (
    # Hermes / Qwen 2.5 <tool_call>{json}</tool_call> blocks (several allowed); a block may also
    # hold Qwen3-Coder <function=…> or GLM NAME<arg_key>… calls.
    Family("hermes", _hermes_blocks, aliases=("qwen", "qwen2.5"), markers=("<tool_call>",)),
    # Qwen3-Coder / Qwen3.5 / Seed-OSS XML function blocks, with or without the <tool_call> /
    # <seed:tool_call> wrapper; values typed by the tool's schema.
    Family("qwen3_coder", _qwen3_blocks, aliases=("qwen3.5", "seed_oss"),
           markers=("<function=", '<function name="', "<seed:tool_call>")),
    # GLM-4.5 / 4.6 <tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>.
    Family("glm45", _glm45_blocks, aliases=("glm", "glm4.5", "glm4.6")),
    # gpt-oss Harmony: a message whose header names a recipient is a call
    # (<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{json}<|call|>, the
    # recipient also before the channel); analysis text is never a call, and the final channel's
    # text is read as plain text (calls written there, as BFCL-style prompts ask). A header cut
    # off before its message, a recipient with no function name, and a call message with no
    # recipient are parse errors.
    Family("harmony", _harmony_blocks, aliases=("gpt-oss",), markers=("<|channel|>", "<|start|>", "<|message|>")),
    # DeepSeek V3 / R1 (<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME + fenced JSON) and V3.1
    # (<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}), inside <｜tool▁calls▁begin｜>.
    Family("deepseek", _deepseek_blocks, aliases=("deepseek_v3", "deepseek_v31", "deepseek_r1"),
           markers=(_DS_CALLS, _DS_CALL, "<\uff5ctool\u2581calls\uff5c>")),
    # DeepSeek V3.2 DSML: <｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter
    # name="k" string="true">v</｜DSML｜parameter></｜DSML｜invoke>… (string="false" values are JSON).
    Family("deepseek_v32", _deepseek_v32_blocks, aliases=("DSML",),
           markers=("<\uff5cDSML\uff5cfunction_calls>", "<\uff5cDSML\uff5cinvoke")),
    # Kimi K2 <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX
    # <|tool_call_argument_begin|>{json}<|tool_call_end|>…<|tool_calls_section_end|>.
    Family("kimi_k2", _kimi_k2_blocks, markers=("<|tool_calls_section_begin|>", _KIMI_CALL, _KIMI_ARGS)),
    # Llama 3.x: <|python_tag|> + JSON calls (;-separated) or Python call syntax
    # (brave_search.call(query=…) is a call to brave_search); plain JSON {"name", "parameters"}
    # without the tag.
    Family("llama", _llama_blocks, aliases=("llama3",), markers=("<|python_tag|>",)),
    # Llama 4 <|python_start|> JSON or Python calls <|python_end|>.
    Family("llama4", _tag_blocks("llama4", "<|python_start|>", "<|python_end|>"), markers=("<|python_start|>",)),
    # Mistral [TOOL_CALLS] + a JSON list, [TOOL_CALLS]NAME[ARGS]{json} (also with [CALL_ID]id
    # before [ARGS]) and [TOOL_CALLS]NAME{json}.
    Family("mistral", _mistral_blocks, markers=("[TOOL_CALLS]",)),
    # Granite <|tool_call|> JSON or Python calls.
    Family("granite", _tag_blocks("granite", "<|tool_call|>", None), markers=("<|tool_call|>",)),
    # LFM2 <|tool_call_start|> Python calls (JSON values allowed) <|tool_call_end|>.
    Family("lfm2", _tag_blocks("lfm2", "<|tool_call_start|>", "<|tool_call_end|>"), markers=("<|tool_call_start|>",)),
    # Phi-4-mini and FireFunction functools[{"name", "arguments"}, …].
    Family("phi4_mini", _phi4_mini_blocks, aliases=("functools", "firefunction"),
           markers=(re.compile(r"functools[ \t]*\["),)),
    # InternLM2 <|action_start|><|plugin|>{"name", "parameters"}<|action_end|>.
    Family("internlm2", _internlm2_blocks, markers=("<|action_start|>",)),
    # Jamba / Apriel <tool_calls> JSON or Python calls </tool_calls>.
    Family("jamba", _tag_blocks("jamba", "<tool_calls>", "</tool_calls>"), aliases=("apriel",), markers=("<tool_calls>",)),
    # Nemotron <TOOLCALL> JSON or Python calls </TOOLCALL>.
    Family("nemotron", _tag_blocks("nemotron", "<TOOLCALL>", "</TOOLCALL>"), markers=("<TOOLCALL>",)),
    # Gemma 4 <|tool_call>call:NAME{key:<|"|>text<|"|>,n:5}<tool_call|>.
    Family("gemma4", _gemma4_blocks, markers=("<|tool_call>",)),
    # MiniMax-M2: <minimax:tool_call><invoke name="f"><parameter name="k">v</parameter></invoke>
    # </minimax:tool_call>; values typed by the schema, else JSON, else text.
    Family("minimax_m2", _minimax_m2_blocks, markers=("<minimax:tool_call>",)),
    # Command R / R7B / A <|START_ACTION|>[{"tool_call_id", "tool_name", "parameters"}]<|END_ACTION|>.
    Family("command_r", _command_r_blocks, markers=("<|START_ACTION|>", _ACTION_MARKER)),
    # OLMo 3 <function_calls> with one Python call per line (an <invoke> body is read as
    # DeepSeek's plain-tag form).
    Family("olmo3", _olmo3_blocks, markers=("<function_calls>",)),
    # Functionary v3.1 <function=NAME>{json}</function> and v3.2 >>>NAME\n{json} (>>>all is text).
    Family("functionary", _functionary_blocks, markers=(re.compile(r">>>(?=[A-Za-z_])"),)),
    # GigaChat 3 function call<|role_sep|>\n{"name", "arguments"}.
    Family("gigachat3", _gigachat3_blocks, markers=(re.compile(r"function call(?=<\|role_sep\|>|[ \t\r\n]*\{)"),)),
    # Apertus <|tools_prefix|> JSON calls <|tools_suffix|>.
    Family("apertus", _tag_blocks("apertus", "<|tools_prefix|>", "<|tools_suffix|>"), markers=("<|tools_prefix|>",)),
    # xLAM: a JSON list of {"name", "arguments"} (fenced, after reasoning or prose, or in another
    # family's markers — read as "auto" reads it).
    Family("xlam", reader=read_auto),
)
