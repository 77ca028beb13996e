"""Reading model-output text: the context, the plain readers and the registry of families (SPEC §2).

Every reader takes the text and a :class:`Context` (which knows the tools, for positional
arguments) and returns a list of :class:`~toolcall_f1.calls.Call` or raises
:class:`~toolcall_f1.calls.ToolCallParseError`. Python call syntax is read with :mod:`ast`
and literal evaluation only — model output is never executed.

This module holds what every family's reader shares: the plain readers (Python call syntax,
JSON, calls wherever they stand in prose), the ``"auto"`` reader that hands each family's
blocks to that family and reads the text around them, and :data:`REGISTRY`, the one table of
formats (:class:`Family` rows): the plain formats, then the model families' rows
(:data:`FAMILIES`, the section "model families" below: the block functions of each family's
markers, learnt from its chat template and vLLM / SGLang's tool parsers). :mod:`toolcall_f1.parsing`
is the public face.
Text limits (size, nesting) are checked once, where text enters: :func:`read_any` (and the
readers :meth:`Registry.reader` gives, which enter it), a reference's text, and text decoded out
of a JSON message.
"""

from __future__ import annotations

import ast
import functools
import json
import keyword
import math
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .calls import Call, coerce_structured, normalize_value
from .values import (
    JSON_DECODER,
    MAX_DEPTH,
    DuplicateKeyError,
    ToolCallParseError,
    bracket_depth,
    check_text_limits,
    put_once,
)
from .schema import TYPE_ALIASES
from .templates import TemplateReader, TemplateWarning, template_reader

__all__ = [
    "Block", "BlockReader", "Context", "FAMILIES", "Family", "NextFinder", "REGISTRY", "Reader", "Registry",
    "decode_at", "declared_types", "err_at", "find_marker", "parse_text", "prepare_text", "python_whole",
    "read_any", "read_around", "read_auto", "read_plain", "reader_for", "scan_prose", "shifted",
    "structured_answer", "xml_value",
]  # fmt: skip


def _no_order(name: str) -> Sequence[str] | None:
    return None


def _no_schema(tool: str, param: str) -> Mapping[str, Any] | None:
    return None


def _no_cut_name(name: str) -> bool:
    return False


def _toolset_cut_name(toolset: Any, name: str) -> bool:
    return toolset.lookup(name) is None and any(
        spec.name.startswith(name) and spec.name != name for spec in toolset.by_key.values())


def _toolset_is_tool(toolset: Any, name: str) -> bool:
    return toolset.lookup(name) is not None


def _toolset_param_schema(toolset: Any, tool: str, param: str) -> Mapping[str, Any] | None:
    spec = toolset.lookup(tool)
    if spec is None:
        return None
    p = spec.params.get(param)
    return None if p is None else p.schema


@dataclass(frozen=True, slots=True)
class Context:
    """What a reader may need besides the text: each tool's parameter order (for positional
    arguments), each parameter's JSON schema (to type values written as text in XML-style
    formats), whether a name is a declared tool's name cut short (``get_wea`` for
    ``get_weather``: a generation cut off inside a name), and whether a name is a listed tool's
    (``is_tool``; None when no schema is known: then JSON that names no tool is still read as
    a call). A plain value: :meth:`of` builds one from a compiled tool set. Picklable: the
    defaults are module-level functions.

    Examples
    --------
    >>> import pickle
    >>> ctx = pickle.loads(pickle.dumps(Context()))
    >>> ctx.param_order("f") is None, ctx.param_schema("f", "a") is None, ctx.cut_name("f"), ctx.is_tool
    (True, True, False, None)
    """

    param_order: Callable[[str], Sequence[str] | None] = _no_order
    param_schema: Callable[[str, str], Mapping[str, Any] | None] = _no_schema
    cut_name: Callable[[str], bool] = _no_cut_name
    is_tool: Callable[[str], bool] | None = None

    @classmethod
    def of(cls, toolset: Any) -> Context:
        """The context of a compiled tool set (:class:`~toolcall_f1.schema.ToolSet`): its
        parameter order and its parameters' schemas; the empty context when it has no schema.

        Examples
        --------
        >>> from toolcall_f1.schema import compile_tools, merge_tools
        >>> from toolcall_f1.values import canon_exact
        >>> tools = [{"name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}]
        >>> ctx = Context.of(compile_tools(merge_tools(tools), {}, canon_exact))
        >>> ctx.param_order("f"), ctx.param_schema("f", "x"), ctx.cut_name("f"), ctx.is_tool("f")
        (['x'], {'type': 'string'}, False, True)
        """
        if not toolset.has_schema:
            return cls()
        return cls(toolset.param_order, functools.partial(_toolset_param_schema, toolset),
                   functools.partial(_toolset_cut_name, toolset), functools.partial(_toolset_is_tool, toolset))


Reader = Callable[[str, Context], list[Call]]
#: One stretch of text a family's reader consumed: ``(start, end, calls read there)``.
Block = tuple[int, int, list[Call]]
#: ``blocks(text, context)``: a family's blocks in text order, or None when it finds none.
BlockReader = Callable[[str, Context], "list[Block] | None"]


def read_family(text: str, ctx: Context, blocks_of: BlockReader) -> list[Call]:
    """A family's named reader, derived from its block function: its blocks, and the text
    around them read as plain text (JSON or Python calls; no other family's markers); with no
    block, the whole text as plain text.

    Examples
    --------
    >>> def bang(text, ctx):
    ...     k = text.find("!f")
    ...     return None if k < 0 else [(k, k + 2, [Call("f", {})])]
    >>> read_family("[g(a=1)] !f", Context(), bang), read_family("[g(a=1)]", Context(), bang)
    ([g(a=1), f()], [g(a=1)])
    """
    blocks = blocks_of(text, ctx)
    if blocks is None:
        return read_plain(text, ctx)
    if _REASON_WORD.search(text, blocks[0][1]) is not None:
        text, blocks = _set_aside_reasoning(text, blocks, blocks_of, ctx)
    return read_around(text, blocks, ctx, read_plain)


@dataclass(frozen=True, eq=False)
class Family:
    """One row of the registry: a format, the names it answers to, the markers by which
    ``"auto"`` finds it, and how its calls are read.

    Parameters
    ----------
    name
        The format's name, as given to ``parse_calls(format=...)`` / ``prediction_format``.
    blocks
        ``blocks(text, context) -> [(start, end, calls), ...] | None``: the stretches of text
        the family's calls stand in. With it, ``"auto"`` also reads the text around those
        blocks (calls in other formats, other families' markers), in order, and the named
        reader is derived from it (:func:`read_family`).
    reader
        ``reader(text, context) -> list[Call]``: the named reader, when it is not derived
        from ``blocks``; without ``blocks``, ``"auto"`` hands it the text from the family's
        first marker on.
    aliases
        Other names for the same format.
    markers
        Strings (literal) or compiled patterns that announce this family's calls.
    prepared
        Whether the named reader sees the text through :func:`prepare_text` (no leading BOM,
        no reasoning blocks); ``"bfcl"`` (BFCL's decoder, exactly) does not.

    Attributes
    ----------
    read
        The named reader, ``read(text, context)`` (limits unchecked, text as given).

    Examples
    --------
    >>> Family("demo", reader=lambda text, ctx: []).names
    ('demo',)
    >>> Family("demo")
    Traceback (most recent call last):
    ...
    ValueError: format 'demo': a family needs a reader or a block reader
    """

    name: str
    blocks: BlockReader | None = None
    reader: Reader | None = None
    aliases: tuple[str, ...] = ()
    markers: tuple[str | re.Pattern[str], ...] = ()
    prepared: bool = True
    read: Reader = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("register_format: a format needs a non-empty name")
        read = self.reader
        if read is None:
            if self.blocks is None:
                raise ValueError(f"format {self.name!r}: a family needs a reader or a block reader")
            read = functools.partial(read_family, blocks_of=self.blocks)
        object.__setattr__(self, "read", read)

    @property
    def names(self) -> tuple[str, ...]:
        """The family's name and its aliases."""
        return (self.name, *self.aliases)


class Registry:
    """The table of formats: :class:`Family` rows by name, every name (aliases included) in
    registration order, and one scan for every family's call markers.

    Examples
    --------
    >>> reg = Registry([Family("shout", reader=lambda text, ctx: [], markers=("!CALL",))])
    >>> list(reg.formats), reg.find_marker("ok !CALL ping")
    (['shout'], ('shout', 3))
    """

    __slots__ = ("_rows", "_names", "_named", "_markers", "marks", "formats", "named", "rows")

    def __init__(self, families: Sequence[Family] = ()) -> None:
        self._rows: dict[str, Family] = {}
        self._names: dict[str, Reader] = {}
        self._named: dict[str, Family] = {}
        #: Every format's named reader by name (aliases included), read-only and live.
        self.formats: Mapping[str, Reader] = MappingProxyType(self._names)
        #: Every format's row by name (aliases included), read-only and live.
        self.named: Mapping[str, Family] = MappingProxyType(self._named)
        #: Every row by its family's own name (as :meth:`find_marker` gives it), read-only and live.
        self.rows: Mapping[str, Family] = MappingProxyType(self._rows)
        self._compile()  # (no rows yet: the scan that finds nothing)
        self.add(*families)

    def add(self, *families: Family) -> None:
        """Add (or replace) rows; their names now read with them and ``"auto"`` finds their markers."""
        for family in families:
            self._rows[family.name] = family
            for n in family.names:
                self._names[n] = family.read
                self._named[n] = family
        self._compile()

    def remove(self, name: str) -> None:
        """Remove the row named ``name``: its names and markers (other rows keep theirs)."""
        family = self._rows.pop(name, None)
        for n in family.names if family is not None else ():
            self._names.pop(n, None)
            self._named.pop(n, None)
        self._compile()

    def _compile(self) -> None:
        """One alternation of every family's markers (longest first), :attr:`marks` (a search
        for it that finds nothing means the text has no marker), and each marker alone.

        The alternation has no groups, so ``re`` can skip ahead to the characters a marker may
        start with (groups would make it try every branch at every position: ~200x slower on
        prose); the marker found is then named by matching each one at that offset.
        """
        marks = [(m.pattern if isinstance(m, re.Pattern) else re.escape(m), f.name)
                 for f in self._rows.values() for m in f.markers]
        order = sorted(marks, key=lambda m: -len(m[0]))
        self.marks: re.Pattern[str] = re.compile("|".join(f"(?:{p})" for p, _ in order) or "(?!)")
        self._markers = [(re.compile(p), fam) for p, fam in order]

    def find_marker(self, text: str, pos: int = 0, seen: frozenset[str] = frozenset()) -> tuple[str, int] | None:
        """The family of the earliest call marker at or after ``pos`` (of a family not in
        ``seen``: the scan goes on past theirs), and its offset; or None.

        Examples
        --------
        >>> REGISTRY.find_marker('Sure. <tool_call>{"name": "f"}</tool_call>')
        ('hermes', 6)
        >>> REGISTRY.find_marker('<tool_call>{}</tool_call>', seen=frozenset({"hermes"})) is None
        True
        """
        alternation, markers = self.marks, self._markers
        while True:
            m = alternation.search(text, pos)
            if m is None:
                return None
            start = m.start()
            family = next(fam for pattern, fam in markers if pattern.match(text, start))
            if family not in seen:
                return family, start
            pos = start + 1

    def marker_end(self, text: str, pos: int) -> int:
        """Where the call marker that starts at ``pos`` ends (``pos`` when none starts there)."""
        m = self.marks.match(text, pos)
        return pos if m is None else m.end()

    def reader(self, fmt: Any) -> Reader:
        """The reader of format ``fmt`` as text enters it (:func:`read_any` of the text): the
        text's limits checked, then (except for ``"bfcl"``) seen through :func:`prepare_text`,
        then the named reader. For a response template (a dict, or an object carrying one as
        ``.response_template``): a :class:`~toolcall_f1.templates.TemplateReader`, which reads
        the text as transformers does (its own thinking field).

        Raises
        ------
        ValueError
            For an unknown format name.

        Examples
        --------
        >>> REGISTRY.reader("python")("<think>[g()]</think>[f(a=1)]", Context())
        [f(a=1)]
        >>> REGISTRY.reader("pyhton")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: format: unknown value 'pyhton'; expected one of 'python', 'json', ..., 'xlam'
        """
        return functools.partial(_entry, self.entry(fmt)[0])

    def entry(self, fmt: Any) -> tuple[Any, Family]:
        """The format ``fmt`` as :func:`read_any` reads it: ``(key, row)``, the key being the
        name itself, or a response template's :class:`~toolcall_f1.templates.TemplateReader`
        (its row is not registered: built here, cross-checked against ``"auto"``).

        Raises
        ------
        ValueError
            For an unknown format name.
        """
        if not isinstance(fmt, str):  # a response template: a row of its own, not registered
            template = template_reader(fmt)
            auto = functools.partial(_entry, "auto") if "auto" in self._named else None
            return template, Family(template.name, reader=functools.partial(_cross_checked, template, auto), prepared=False)
        try:
            return fmt, self._named[fmt]
        except KeyError:
            raise ValueError(
                f"format: unknown value {fmt!r}; expected one of " + ", ".join(repr(f) for f in self._names)
            ) from None


def _entry(fmt: Any, text: str, ctx: Context) -> list[Call]:
    """:meth:`Registry.reader`'s reader: ``text`` entering :func:`read_any` under ``fmt``."""
    return read_any(text, fmt, ctx)


def _cross_checked(template: TemplateReader, auto: Reader | None, text: str, ctx: Context) -> list[Call]:
    """A response template's reading of ``text``, cross-checked against ``"auto"`` (SPEC §2).

    The template's calls are the message's ``tool_calls``; when it finds none, the message
    content it returns is read under ``"auto"``. When ``"auto"`` on the whole text reads other
    calls, ``"auto"``'s are used, unless it finds no call or cannot read the text (then the
    template's stand); either way a :class:`~toolcall_f1.templates.TemplateWarning` quotes the text
    and gives both readings. A text the template cannot read is its parse error
    (``tests/unit/test_response_template.py`` has transformers' templates).
    """
    message = template.message(text)
    calls = template.calls_of(message)
    content = message.get("content")
    if not calls and auto is not None and isinstance(content, str) and content.strip():
        calls = auto(content, ctx)
    if auto is None:
        return calls
    try:
        other: list[Call] | None = auto(text, ctx)
    except ToolCallParseError:
        other = None
    if other == calls:
        return calls
    used = calls if not other else other
    said = "no call" if not calls else repr(calls)
    warnings.warn(
        f"{template.name}: the response template read {said} from {text[:80]!r}"
        + (", \"auto\" could not read it" if other is None else f", \"auto\" read {other!r}")
        + ("; used \"auto\"'s calls" if used is other else "; used the template's calls"),
        TemplateWarning,
        stacklevel=2,
    )
    return used


# --------------------------------------------------------------------------- Python syntax


def _err(msg: str, fmt: str, snippet: str | None = None) -> ToolCallParseError:
    return ToolCallParseError(msg, format=fmt, snippet=snippet)


def err_at(fmt: str, msg: str, text: str, pos: int) -> ToolCallParseError:
    """A parse error of family ``fmt`` at character ``pos`` of ``text`` (named in the message)."""
    return ToolCallParseError(f"{msg} at character {pos}", format=fmt, snippet=text[pos : pos + 120])


_AT_CHARACTER = re.compile(r"at character (\d+)")


def shifted(err: ToolCallParseError, lo: int) -> ToolCallParseError:
    """``err`` from reading a piece of a text that starts at offset ``lo``, its ``at character``
    counted in the whole text."""
    if not lo:
        return err
    reason = _AT_CHARACTER.sub(lambda m: f"at character {int(m.group(1)) + lo}", err.reason, count=1)
    return ToolCallParseError(reason, format=err.format, snippet=err.snippet)


_JSON_NAMES = {"true": True, "false": False, "null": None}


def _literal(node: ast.AST, fmt: str, depth: int = 0, names: bool | str = True) -> Any:
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
    if isinstance(node, (ast.List, ast.Tuple)) or (names == "json" and isinstance(node, ast.Set)):
        return [_literal(e, fmt, depth + 1, names) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, Any] = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise _err("'**' unpacking is not a JSON value", fmt, ast.unparse(node))
            key = _literal(k, fmt, depth + 1, names)
            if not isinstance(key, str):
                raise _err(f"dict keys must be strings, got {ast.unparse(k)}", fmt)
            value = _literal(v, fmt, depth + 1, names)
            try:
                put_once(out, key, value, fmt)
            except DuplicateKeyError as err:
                raise _err(err.reason, fmt, ast.unparse(node)) from None
        return out
    if isinstance(node, ast.Name):
        if names == "json" and node.id in _JSON_NAMES:
            return _JSON_NAMES[node.id]  # a model family writing JSON literals in call syntax
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


def _call_from_ast(node: ast.Call, ctx: Context, fmt: str, names: bool | str = True) -> Call:
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
            args[pname] = _literal(value, fmt, names=names)
    for kw in node.keywords:
        if kw.arg is None:
            raise _err("'**kwargs' is not allowed in a call", fmt, ast.unparse(node))
        value = _literal(kw.value, fmt, names=names)
        try:
            put_once(args, kw.arg, value, fmt, "argument")
        except DuplicateKeyError as err:
            raise _err(err.reason, fmt, ast.unparse(node)) from None
    return Call(name, normalize_value(args, fmt=fmt))


def _parse_expr(text: str, fmt: str) -> ast.expr:
    """``text`` parsed as one Python expression (a piece of text whose limits were checked
    where it entered; a piece nested deeper than :data:`MAX_DEPTH` that Python refuses is said
    to be so)."""
    bad = None if text.isascii() else _SURROGATE.search(text)
    if bad is not None:  # Python source cannot hold a lone surrogate (the codec would say why)
        raise _err(f"invalid character U+{ord(bad.group()):04X} (a lone surrogate, offset {bad.start()} in the call)", fmt, text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in model text are not our warnings
            return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError) as err:
        if bracket_depth(text) > MAX_DEPTH:
            raise _err(f"nested deeper than {MAX_DEPTH} levels", fmt) from None
        msg = err.msg if isinstance(err, SyntaxError) else str(err)
        raise _err(f"not valid call syntax: {msg.splitlines()[0] if msg else type(err).__name__}", fmt, text) from None


def _calls_from_expr(
    body: ast.expr, ctx: Context, fmt: str, text: str, *, dicts: bool, names: bool | str = True
) -> list[Call]:
    if isinstance(body, ast.Call):
        return [_call_from_ast(body, ctx, fmt, names)]
    if isinstance(body, (ast.List, ast.Tuple)):
        if dicts and body.elts and all(isinstance(e, ast.Dict) for e in body.elts):
            # A Python-literal rendering of JSON calls: [{'name': 'f', 'arguments': {...}}]
            return coerce_structured(_literal(body, fmt, names=False), fmt=fmt)
        calls = []
        for elem in body.elts:
            if not isinstance(elem, ast.Call):
                raise _err("a list that is not a list of calls", fmt, text)
            calls.append(_call_from_ast(elem, ctx, fmt, names))
        return calls
    if dicts and isinstance(body, ast.Dict):
        return coerce_structured(_literal(body, fmt, names=False), fmt=fmt)
    raise _err("expected a call or a list of calls", fmt, text)


# --------------------------------------------------------------------------- fast path
# Most model output is a plain list of keyword calls with literal values. Reading it with one
# regular-expression scan and a small recursive descent is several times faster than
# building an ``ast`` and walking it; anything unusual is left to the ``ast`` reader.

# Names first, the commonest token: the branches start with distinct characters (so their order
# changes no token) but ``re`` tries them in order; the catch-all must stay last.
_FAST_TOKEN = re.compile(
    r"""[A-Za-z_][A-Za-z0-9_]*|'[^'\\\n\r\x00]*'|"[^"\\\n\r\x00]*"|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[^ \t\n\r]"""
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
    if tok[0] == "0" and len(tok) > 1 and tok.isdigit():
        raise _Unsure  # leading zeros: the ``ast`` reader decides (``00`` is valid, ``01`` not)
    if "." in tok or "e" in tok or "E" in tok:
        v = float(tok)
        if math.isinf(v):
            raise _Unsure
        return v
    return int(tok)


def _fast_value(toks: list[str], i: int, depth: int) -> tuple[Any, int]:
    """The literal value starting at token ``i``, and the index after it."""
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
        return _fast_items(toks, i + 1, depth, "]")
    if tok == "{":
        return _fast_dict(toks, i + 1, depth)
    if tok == "(":
        return _fast_parens(toks, i + 1, depth)
    if tok == "-" or tok == "+":
        num = toks[i + 1]
        if num[0] not in _DIGITS or num == ".":
            raise _Unsure
        v = _number(num)
        return (-v if tok == "-" else v), i + 2
    raise _Unsure


def _fast_items(toks: list[str], i: int, depth: int, close: str) -> tuple[list[Any], int]:
    """Comma-separated values from token ``i`` up to ``close`` (a trailing comma allowed)."""
    out: list[Any] = []
    while toks[i] != close:
        v, i = _fast_value(toks, i, depth + 1)
        out.append(v)
        if toks[i] == ",":
            i += 1
        elif toks[i] != close:
            raise _Unsure
    return out, i + 1


def _fast_dict(toks: list[str], i: int, depth: int) -> tuple[dict[str, Any], int]:
    """``'key': value`` pairs from token ``i`` up to ``}`` (string keys only)."""
    out: dict[str, Any] = {}
    while toks[i] != "}":
        k = toks[i]
        if (k[0] != "'" and k[0] != '"') or len(k) < 2 or toks[i + 1] != ":" or k[1:-1] in out:
            raise _Unsure  # (a repeated key: the ``ast`` reader names it)
        out[k[1:-1]], i = _fast_value(toks, i + 2, depth + 1)
        if toks[i] == ",":
            i += 1
        elif toks[i] != "}":
            raise _Unsure
    return out, i + 1


def _fast_parens(toks: list[str], i: int, depth: int) -> tuple[Any, int]:
    """After ``(``: ``()`` and tuples become lists; ``(value)`` is the value itself."""
    if toks[i] == ")":
        return [], i + 1
    first, i = _fast_value(toks, i, depth + 1)
    if toks[i] == ")":
        return first, i + 1
    if toks[i] != ",":
        raise _Unsure
    rest, i = _fast_items(toks, i + 1, depth, ")")
    return [first, *rest], i


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
    if len(text) > _FAST_MAX or "\\" in text or "\x00" in text or (not text.isascii() and _SURROGATE.search(text)):
        return None
    first, last = text[:1], text[-1:]
    if first == "[":
        if last != "]":
            return None
    elif last != ")" or first not in _NAME_START or "\n" in (head := text[: text.find("(")]) or "\r" in head:
        return None  # (one call's name must stand on one line)
    toks: list[str] = _FAST_TOKEN.findall(text)
    listed = first == "["
    calls: list[Call] = []
    i = int(listed)
    try:
        if listed and toks[1] == "]":
            return [] if len(toks) == 2 else None
        while True:  # one call: a dotted name, "(", keyword=value pairs, ")"
            name = toks[i]
            while True:
                part = toks[i]
                if part[0] not in _NAME_START or part in _KEYWORDS:
                    return None
                i += 1
                if toks[i] != ".":
                    break
                i += 1
                name = name + "." + toks[i]
            if toks[i] != "(":
                return None
            i += 1
            args: dict[str, Any] = {}
            while toks[i] != ")":
                key = toks[i]
                if key[0] not in _NAME_START or key in _KEYWORDS or toks[i + 1] != "=" or key in args:
                    return None
                c = (value := toks[i + 2])[0]
                # strings and plain integers, the commonest values, read here: no call per value
                if (c == "'" or c == '"') and len(value) > 1:
                    args[key], i = value[1:-1], i + 3
                elif c in _DIGITS and value.isdigit() and (c != "0" or len(value) == 1):  # (as _number)
                    args[key], i = int(value), i + 3
                else:
                    args[key], i = _fast_value(toks, i + 2, 2)
                if toks[i] == ",":
                    i += 1
                elif toks[i] != ")":
                    return None
            calls.append(Call._owned(name, args))
            i += 1
            if not listed:
                break
            if toks[i] == ",":
                i += 1
            elif toks[i] != "]":
                return None
            if toks[i] == "]":
                i += 1
                break
    except (_Unsure, IndexError, ValueError):
        return None
    return calls if i == len(toks) else None


_JSON_WORDS = re.compile(r"\b(?:true|false|null)\b")


def python_whole(
    text: str, ctx: Context, fmt: str = "python", *, lenient: bool = False, plain: bool = False
) -> list[Call]:
    """The whole text as Python call syntax: ``[f(a=1), g()]``, ``f(a=1)``, ``f(), g()``.

    ``lenient`` (model families whose templates write calls in Python syntax with JSON
    values, e.g. LFM2, OLMo 3): ``true``/``false``/``null`` are JSON literals and a set is a list.
    ``plain`` (stripped text with no family marker, :func:`read_plain`, a fence's body): the
    whole text as one JSON or Python call form — a JSON object or list of objects is read as
    JSON first (an object that is an answer, no call's key, is no call), then as a Python
    rendering of JSON calls (``[{'name': 'f', ...}]``), the JSON error kept when both fail.
    """
    # (a "[" and then a name, the usual Python call list, cannot open JSON: no pattern asked)
    if plain and (text[0] == "{" or (text[1:2] not in _NAME_START and _JSON_LIST_START.match(text))):
        try:
            if text[0] == "{" and _json_answer(text):
                return []
            return _calls_from_json(text, "json", ctx)
        except ToolCallParseError as json_err:
            try:
                return python_whole(text, ctx)
            except ToolCallParseError:
                raise json_err from None
    names: bool | str = "json" if lenient else True
    if not (lenient and _JSON_WORDS.search(text)):
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
    return _calls_from_expr(body, ctx, fmt, text, dicts=True, names=names)


_BULLET_LABEL = re.compile(
    r"^\s*(?:[-*+>]\s+|\d+[.)]\s+)?(?:(?:\*\*|__)?[A-Za-z][\w ]{0,40}(?:\*\*|__)?\s*:(?:\*\*)?\s*)?"
)
_LABEL_END = re.compile(r":(?:\*\*|__)?[ \t]*")
_ATTEMPT = re.compile(r"`*[ \t]*(?:\[[ \t]*)?[A-Za-z_][\w.]*[\u200b-\u200d\u2060\ufeff]*\(")
# a "[" that opens a list of calls or values (not "[Note]" in prose)
_LIST_ATTEMPT = re.compile(r"\[\s*(?:[\[{\"'(\]]|[A-Za-z_][\w.]*[\s\u200b-\u200d\u2060\ufeff]*\(|-?\d)")


def _balanced_end(text: str, start: int, fmt: str, stop: int | None = None) -> int:
    """Index just past the bracket expression that opens at or after ``start`` (and closes
    before ``stop``, the text's end by default)."""
    depth = 0
    in_str: str | None = None
    escaped = False
    opened = False
    for i in range(start, len(text) if stop is None else stop):
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


class NextFinder:
    """``str.find`` and ``pattern.search`` with memory, for scans whose position only grows.

    A scan that asks "where is the next ``</tag>``?" at every step re-reads the same text
    each time (quadratic when the tag is missing). Remembering the last answer, and asking
    again only once the position has passed it, reads the text once per token: linear.
    """

    __slots__ = ("text", "_cache")

    def __init__(self, text: str) -> None:
        self.text = text
        self._cache: dict[Any, tuple[int, int]] = {}

    def find(self, token: str, pos: int) -> int:
        """``text.find(token, pos)``."""
        hit = self._cache.get(token)
        if hit is None or (hit[0] != -1 and hit[0] < pos):
            hit = (self.text.find(token, pos), 0)
            self._cache[token] = hit
        return hit[0]

    def search(self, pattern: re.Pattern[str], pos: int) -> tuple[int, int]:
        """``(start, end)`` of ``pattern.search(text, pos)``, or ``(-1, -1)``."""
        hit = self._cache.get(pattern)
        if hit is None or (hit[0] != -1 and hit[0] < pos):
            m = pattern.search(self.text, pos)
            hit = (m.start(), m.end()) if m else (-1, -1)
            self._cache[pattern] = hit
        return hit


# a JSON call object (or a list of them) where it stands in prose
_JSON_CALL = re.compile(
    r'(?:\[[ \t\r\n]*)?\{[ \t\r\n]*"(?:name|function|type|tool_name|tool_calls|role(?="[ \t\r\n]*:[ \t\r\n]*"assistant"))"[ \t\r\n]*:'
)  # a call object, or an assistant message (its tool_calls, even an empty list, are the calls)
# a bracketed list of calls in the middle of a line: "I will call [f(a=1)]"
_MID_LIST = re.compile(r"\[[ \t]*[A-Za-z_][\w.]*[ \t]*\(")
# such a list written with a space before "(" ("[ f ( x = 1 ) ]"), where no other hint stands
_SPACED_LIST = re.compile(r"\[[ \t]*[A-Za-z_][\w.]*[ \t]+\(")
_FENCE_CLOSE = re.compile(r"\n[ \t]*```")
# where a call can begin: a name and "(", a "{", a fence (nothing else starts one)


def _next_hint(text: str, pos: int, nxt: NextFinder) -> int:
    """Where a call could begin in prose at or after ``pos`` — a ``{``, a fence, or a ``(``
    right after a name (``f(``; in prose a call is written with no space before ``(``) — or
    -1. Nothing else starts a call, so prose between hints is skipped. ``str.find`` per token,
    each ``(`` looked at once: linear, and cheap on prose. (:func:`read_plain` asks the same of
    a whole text, spaces before ``(`` allowed, as one search: ``_NAME_PAREN``.)"""
    best = -1
    for tok in ("{", "```"):
        k = nxt.find(tok, pos)
        if k >= 0 and (best < 0 or k < best):
            best = k
    p = nxt.find("(", pos)
    while p >= 0 and (best < 0 or p < best):
        q = p - 1
        while q >= pos and text[q] in _INVISIBLE:
            q -= 1  # (an invisible character before "(" is a call attempt, to be named in the error)
        if q >= 0 and (text[q].isalnum() or text[q] in "_."):
            return p
        p = text.find("(", p + 1)
    return best


def _fence_at(text: str, pos: int, line_end: int) -> bool:
    i = pos
    while i < line_end and text[i] in " \t":
        i += 1
    return text.startswith("```", i)


def _label_start(text: str, pos: int, line_end: int) -> int:
    """Where a call begins on a line read from its start (after a bullet or label), or -1."""
    line = text[pos:line_end]
    label = _BULLET_LABEL.match(line)
    starts = [label.end() if label else 0]
    starts.extend(m.end() for m in _LABEL_END.finditer(line))
    return next((pos + i for i in starts if _ATTEMPT.match(line, i)), -1)


def _next_start(text: str, pos: int, line_end: int, nxt: NextFinder, json_calls: bool) -> tuple[int, str]:
    """The earliest call start on the line from ``pos``: ``(offset, "python" | "json")``."""
    best, kind = -1, ""
    if pos == 0 or text[pos - 1] == "\n":
        best = _label_start(text, pos, line_end)
    else:  # after a call: another one after a comma, semicolon, space or "and"?
        j = pos
        while j < line_end and text[j] in " \t,;`":
            j += 1
        if text.startswith("and", j) and j + 3 < line_end and text[j + 3] in " \t`":
            j += 3
            while j < line_end and text[j] in " \t`":
                j += 1
        if _ATTEMPT.match(text, j, line_end):
            best = j
    if best < 0 and nxt.find("[", pos) < line_end:
        j, _ = nxt.search(_MID_LIST, pos)  # remembered: the pattern never crosses a newline
        if 0 <= j < line_end:
            best = j
    if best >= 0:
        kind = "python"
    if json_calls and 0 <= nxt.find("{", pos) < line_end:
        j, _ = nxt.search(_JSON_CALL, pos)
        if 0 <= j < line_end and (best < 0 or j < best):
            best, kind = j, "json"
    return best, kind


def scan_prose(text: str, ctx: Context, fmt: str, *, json_calls: bool = True) -> tuple[list[Call], bool]:
    """Calls wherever they stand in prose, in order: Markdown fences (their bodies read as a
    whole), JSON call objects, Python calls on a line (after an optional bullet or label)
    and bracketed lists of calls inside a line. One pass, linear in the text.

    Returns ``(calls, attempted)``: ``attempted`` is whether anything began a call.
    """
    calls: list[Call] = []
    attempted = False
    nxt = NextFinder(text)
    pos, n = 0, len(text)
    hint = -2  # not looked for yet; then remembered while ahead (the lines of spaced lists stand before it)
    while pos < n:
        if hint == -2 or 0 <= hint < pos:
            hint = _next_hint(text, pos, nxt)
        spaced, _ = nxt.search(_SPACED_LIST, pos)  # "[ f ( x = 1 ) ]": read if it is calls, else prose
        loose = spaced >= 0 and (hint < 0 or spaced < hint)
        at = spaced if loose else hint
        if at < 0:
            break  # no "name(", "{", fence or spaced list of calls left: the rest is prose
        nl = nxt.find("\n", pos)
        if 0 <= nl < at:  # skip the lines before the next hint
            pos = text.rfind("\n", pos, at) + 1
            nl = nxt.find("\n", pos)
        line_end = n if nl < 0 else nl
        loose = loose and not 0 <= hint < line_end  # a line with another hint is read as before
        if (pos == 0 or text[pos - 1] == "\n") and _fence_at(text, pos, line_end):
            close, close_end = nxt.search(_FENCE_CLOSE, line_end) if line_end < n else (-1, -1)
            body = text[line_end + 1 : close] if close >= 0 else text[line_end + 1 :]
            try:
                found, tried = _read_block_plain(body, ctx, fmt, json_calls)
            except ToolCallParseError as err:  # counted from the body's first character, as stripped
                raise shifted(err, line_end + 1 + len(body) - len(body.lstrip())) from None
            calls.extend(found)
            attempted = attempted or tried
            if close < 0:
                break
            after = nxt.find("\n", close_end)
            pos = n if after < 0 else after + 1
            continue
        start, kind = _next_start(text, pos, line_end, nxt, json_calls)
        if start < 0:
            pos = line_end + 1
            continue
        if kind == "json":  # a JSON call object: its errors are the JSON reader's
            value, end = decode_at(text, start, "json")  # a message's text content read as the whole-JSON route reads it
            if not structured_answer(value, ctx):
                calls.extend(coerce_structured(value, fmt="json", parse_text=lambda t: read_content(t, ctx)))
        else:
            try:  # (a spaced list must close on its line: one attempt per line, linear)
                found, end = _python_at(text, start, ctx, fmt, line_end if loose else None)
            except ToolCallParseError:
                if not loose:
                    raise
                pos = line_end + 1  # "[Note (see below)]": prose
                continue
            calls.extend(found)
        attempted = True
        pos = end
    return calls, attempted


def _python_at(text: str, start: int, ctx: Context, fmt: str, stop: int | None = None) -> tuple[list[Call], int]:
    """The Python call or list of calls that begins at ``start`` (after backticks and spaces)
    and closes before ``stop``, and where it ends."""
    while start < len(text) and text[start] in "` \t":
        start += 1
    end = _balanced_end(text, start, fmt, stop)
    expr = text[start:end]
    return _calls_from_expr(_parse_expr(expr, fmt), ctx, fmt, expr, dicts=False), end


def _read_block_plain(body: str, ctx: Context, fmt: str, json_calls: bool) -> tuple[list[Call], bool]:
    """A fence's body: the whole of it as calls, else calls found in it line by line."""
    t = body.strip()
    if not t or t == "[]":
        return [], False
    try:
        return python_whole(t, ctx, plain=True), True
    except ToolCallParseError as err:
        calls, tried = scan_prose(t, ctx, fmt, json_calls=json_calls)
        if tried:
            return calls, True
        if t[0] in "{[" or _ATTEMPT.match(t):
            raise err from None
        return [], False


def read_python(text: str, ctx: Context) -> list[Call]:
    """Python call syntax as BFCL prompts elicit, leniently: brackets optional, one call per
    line, calls on a line inside prose (after an optional label), several lists on a line,
    wrapped in backticks or a Markdown fence.

    Examples
    --------
    >>> read_python("[get_weather(city='Paris', days=3), math.factorial(number=5)]", Context())
    [get_weather(city='Paris', days=3), math.factorial(number=5)]
    >>> read_python("Sure!\\n**Call**: [f(a=1)]\\ng(b=[1, 2])", Context())
    [f(a=1), g(b=[1, 2])]
    >>> read_python("[a(x=1)] and [b(y=2)]", Context())
    [a(x=1), b(y=2)]
    >>> read_python("[f(a=1+2)]", Context())
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.ToolCallParseError: python: arithmetic is not a literal value (in '1 + 2')
    """
    text = text.strip()
    if not text.startswith("```"):
        text = text.strip("`").strip()
    if not text or text == "[]":
        return []
    try:
        return python_whole(text, ctx)
    except ToolCallParseError as whole_err:
        calls, attempted = scan_prose(text, ctx, "python", json_calls=False)
        if attempted:
            return calls
        if _ATTEMPT.match(text) or _LIST_ATTEMPT.match(text):
            raise whole_err from None
        return []


# --------------------------------------------------------------------------- JSON


def _json_values(text: str, fmt: str, separators: str = " \t\r\n,;") -> list[Any]:
    """One or more JSON values written one after another (JSON lines, ``;``-separated)."""
    values = []
    pos = 0
    n = len(text)
    while pos < n:
        while pos < n and text[pos] in separators:
            pos += 1
        if pos >= n:
            break
        try:
            value, pos = JSON_DECODER.raw_decode(text, pos)
        except ToolCallParseError as err:
            raise _err(err.reason, fmt, text) from None
        except (ValueError, RecursionError) as bad:  # a name apart from ``err``: compiled code types each
            raise _err(f"invalid JSON: {str(bad).splitlines()[0]}", fmt, text[pos : pos + 200]) from None
        values.append(value)
    return values


def _calls_from_json(text: str, fmt: str, ctx: Context) -> list[Call]:
    """Calls from JSON text, read as the decoded value would be (a message's text ``content``
    through the auto reader, as :func:`read_any` reads it)."""
    values = _json_values(text, fmt)
    value = values[0] if len(values) == 1 else values
    if structured_answer(value, ctx):
        return []
    return coerce_structured(value, fmt=fmt, parse_text=lambda t: read_content(t, ctx))


#: Keys by which a JSON object is a call, a message or a tool call's wrapper, never an answer.
_CALL_SHAPE_KEYS = frozenset({"arguments", "parameters", "input", "args", "function", "tool_calls",
                              "function_call", "content", "role"})


def structured_answer(value: Any, ctx: Context) -> bool:
    """Is ``value`` (JSON decoded out of model output) a structured answer, not a call (SPEC §2)?
    Only when schemas are known (``ctx.is_tool``): an object with no arguments key (nor a
    message's or tool call's) whose name — its ``"name"``, or a sole key for BFCL's
    ``{name: {args}}`` — is no listed tool, or a non-empty list of such objects.

    Examples
    --------
    >>> ctx = Context(is_tool=lambda name: name == "get_weather")
    >>> structured_answer({"name": "Marie Curie"}, ctx), structured_answer({"capital": "Lima"}, ctx)
    (True, True)
    >>> structured_answer({"name": "get_weather"}, ctx), structured_answer({"name": "x", "arguments": {}}, ctx)
    (False, False)
    >>> structured_answer({"name": "Marie Curie"}, Context())  # no schema known: read as a call
    False
    """
    is_tool = ctx.is_tool
    if is_tool is None:
        return False
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(_answer_object(item, is_tool) for item in items)


def _answer_object(obj: Any, is_tool: Callable[[str], bool]) -> bool:
    if not isinstance(obj, dict) or not obj or not _CALL_SHAPE_KEYS.isdisjoint(obj):
        return False
    if "name" in obj:
        name = obj["name"]
        return not (isinstance(name, str) and is_tool(name))
    return len(obj) > 1 or not is_tool(next(iter(obj)))


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
    return _calls_from_json(text, "json", ctx)


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


# --------------------------------------------------------------------------- BFCL, auto


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


_JSON_LIST_START = re.compile(r"\[\s*[{\"]")


def decode_at(text: str, pos: int, fmt: str) -> tuple[Any, int]:
    """One JSON value starting at ``pos``: ``(value, end)``; a parse error naming the offset."""
    try:
        return JSON_DECODER.raw_decode(text, pos)
    except ToolCallParseError as err:
        raise err_at(fmt, err.reason, text, pos) from None
    except json.JSONDecodeError as bad:  # names apart from ``err``: compiled code types each
        raise ToolCallParseError(
            f"invalid JSON at character {bad.pos}: {bad.msg}", format=fmt, snippet=text[pos : pos + 120]
        ) from None
    except (ValueError, RecursionError) as other:
        raise err_at(fmt, f"invalid JSON ({str(other).splitlines()[0]})", text, pos) from None


_CALL_KEYS = frozenset({"name", "function", "tool_calls", "type", "role", "content", "tool_name", "arguments", "parameters"})


def _json_answer(text: str) -> bool:
    """A JSON object that is an answer, not a call: several keys, none a call's key
    (``{"amount": 12.5, "date": "2025-12-03"}`` — structured output)."""
    try:
        value = JSON_DECODER.decode(text)
    except (ValueError, RecursionError, ToolCallParseError):
        return False
    return isinstance(value, dict) and len(value) > 1 and not (value.keys() & _CALL_KEYS)  # a set, as typed


def read_plain(text: str, ctx: Context) -> list[Call]:
    """Text with no family marker: JSON or Python calls, as the whole text or wherever they
    stand in prose (fences, labels, several lists); prose with no call is zero calls. An error's
    ``at character`` counts in ``text`` as given."""
    t = text.lstrip()
    lead = len(text) - len(t)
    if t.startswith("`") and not t.startswith("```") and t.rstrip().endswith("`"):
        unticked = t.lstrip("`").lstrip()
        lead += len(t) - len(unticked)
        t = unticked.rstrip().rstrip("`")
    t = t.rstrip()
    if not t or t == "[]" or ("{" not in t and "```" not in t and (
            "(" not in t or (_NAME_PAREN_TIGHT.search(t) is None and _NAME_PAREN.search(t) is None))):
        return []  # every call, Python or JSON, has a "name(" or a "{": this is prose
    try:
        if t[0] == "`":  # a fence: never a call form as a whole (Python and JSON have no backticks)
            calls, attempted = scan_prose(t, ctx, "python")
            if attempted:
                return calls
        try:
            return python_whole(t, ctx, plain=True)
        except ToolCallParseError as whole_err:
            if _json_with_a_bad_value(t):  # a whole JSON document: its strings are data, not prose
                raise whole_err from None
            calls, attempted = scan_prose(t, ctx, whole_err.format)
            if attempted:
                return calls
            if t[0] == "{" or _JSON_LIST_START.match(t) or _ATTEMPT.match(t) or _LIST_ATTEMPT.match(t):
                if not _EMPTY_LIST_LINE.match(t):  # "[]" on its own line, then prose: no call
                    raise whole_err from None
            return []
    except ToolCallParseError as err:
        raise shifted(err, lead) from None


#: A "(" after a name (``f(``, ``f (``: a space or an invisible character between): where a
#: Python call could begin (``_next_hint``'s test of a "(", as one search); ``_NAME_PAREN_TIGHT``
#: finds the usual ``f(`` first (a search that starts with a literal "(" skips ahead to it).
_NAME_PAREN = re.compile(r"[\w.][ \t\ufeff\u200b\u200c\u200d\u2060]*\(")
_NAME_PAREN_TIGHT = re.compile(r"\((?<=[\w.]\()")
_EMPTY_LIST_LINE = re.compile(r"\[\][ \t]*\r?\n")


def _json_with_a_bad_value(text: str) -> bool:
    """One well-formed JSON document that the strict decoder refuses (a key given two values,
    NaN, a number out of range)."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    try:
        JSON_DECODER.decode(text)
    except (ValueError, RecursionError):  # ToolCallParseError is a ValueError
        return True
    return False


def read_auto(text: str, ctx: Context, seen: frozenset[str] = frozenset()) -> list[Call]:
    """Detect the format: the earliest call marker of any family (one scan) hands the text to
    that family's reader; the text around that family's blocks is read the same way (calls
    without markers, another family's markers), so every call is read, in order. With no
    marker, JSON or Python calls are read wherever they stand (the whole text, Markdown
    fences, prose around them); prose with no call is zero calls.

    ``seen``: the families that have already read their blocks (their markers left in the
    text are data). Each level of the recursion adds one family to ``seen``, so it is at most
    one level per family, and each level reads disjoint pieces: linear.

    Examples
    --------
    >>> read_auto('Here you go:\\n```json\\n[{"name": "f", "arguments": {"a": 1}}]\\n```\\nAnything else?', Context())
    [f(a=1)]
    >>> read_auto('Here is the result: {"name": "f", "parameters": {"a": 1}} Anything else?', Context())
    [f(a=1)]
    >>> read_auto('<tool_call>{"name": "g", "arguments": {}}</tool_call>\\n[f(a=1)]', Context())
    [g(), f(a=1)]
    >>> read_auto("I am sorry, I cannot help with that.", Context())
    []
    """
    # The first marker (of a family not in ``seen``) that does not stand inside a JSON value or a
    # Python call begun before it (``{"name": "f", "arguments": {"code": "<tool_call>"}}``), and
    # ``split``, where the text before it that holds such values ends (0 when none does). One
    # pass: each value is measured once, and the scan resumes past it.
    split = 0
    first = REGISTRY.marks.search(text)  # (no marker at all: no family to ask)
    hit = None if first is None else REGISTRY.find_marker(text, first.start(), seen)
    while hit is not None:
        m = _VALUE_START.search(text, split, hit[1])
        end = None if m is None else _value_around(text, m, hit[1])
        if end is None:
            if split:  # a fence closed before the marker's line stays whole
                split = max(split, text.rfind("\n", split, hit[1]) + 1)
            break
        split = end
        hit = REGISTRY.find_marker(text, end, seen)
    if hit is None:
        return read_plain(text, ctx)
    head: list[Call] = []
    if split:  # the markers before ``split`` stand inside calls written as JSON or Python: data
        head = read_plain(text[:split], ctx)
        text = " " * split + text[split:]  # blanked, so that offsets stay those of the whole text
    name, start = hit
    family = REGISTRY.rows[name]
    if family.blocks is None:  # a reader registered without blocks reads the rest itself
        return head + _calls_before(text[:start], ctx) + family.read(text, ctx)
    blocks = family.blocks(text, ctx)
    inner = seen | {name}
    if blocks is None:  # the marker announced no call of this family: read on
        return head + read_auto(text, ctx, inner)
    if blocks and _REASON_WORD.search(text, blocks[0][1]) is not None:
        text, blocks = _set_aside_reasoning(text, blocks, family.blocks, ctx)
    return head + read_around(text, blocks, ctx, functools.partial(read_auto, seen=inner))


def read_content(text: str, ctx: Context) -> list[Call]:
    """The text content of a message decoded out of JSON, read as ``"auto"`` reads text: text
    entering here, its limits checked (an escape may write a bracket)."""
    check_text_limits(text, "auto")
    return read_auto(text, ctx)


# where a call written without markers may begin: a JSON object or list of objects, or "name("
# (a name is matched from its first character only: inside a long word the search moves on at once)
_VALUE_START = re.compile(r'\{[ \t\r\n]*"|\[[ \t\r\n]*\{|(?<![\w.])[A-Za-z_][\w.]*\(')
_SPAN_DECODER = json.JSONDecoder()  # only where a JSON value ends: its content is read later


def _value_around(text: str, m: re.Match[str], at: int) -> int | None:
    """The end of the JSON value or Python call begun before ``at`` (the first one found by
    ``m``, a match of ``_VALUE_START``, or one after it) that runs past ``at``; None when none
    does (the first one that cannot be measured ends the search). A Python span counts only if it
    parses as one call: prose such as ``get_weather(Paris's forecast) ... :)`` has balanced
    brackets around the marker but is no call, and the marker is live."""
    while True:
        try:
            if m.group()[-1] == "(":
                end = _balanced_end(text, m.end() - 1, "python")
                if end > at and not isinstance(_parse_expr(text[m.start():end], "python"), ast.Call):
                    return None
            else:
                _, end = _SPAN_DECODER.raw_decode(text, m.start())
        except (ValueError, RecursionError):  # ToolCallParseError (unbalanced, not Python) is a ValueError
            return None
        if end > at:
            return end
        found = _VALUE_START.search(text, end, at)
        if found is None:
            return None
        m = found


def read_around(
    text: str, blocks: Sequence[Block], ctx: Context, read_gap: Callable[[str, Context], list[Call]]
) -> list[Call]:
    """The calls of a family's ``blocks`` and of the text around them (read with
    ``read_gap``), in text order: no call is dropped because it stands outside the blocks.

    Text before the first block that holds no family marker and cannot be read as calls is
    left alone (prose before the calls, as before); anywhere else, a call attempt that cannot
    be read is a parse error (its offset counted in the whole text).

    Examples
    --------
    >>> read_around("[a(x=1)] <B> [c(z=3)]", [(9, 12, [Call("b", {})])], Context(), read_plain)
    [a(x=1), b(), c(z=3)]
    """
    calls: list[Call] = []
    pos = 0
    n = len(text)
    for start, end, got in (*blocks, (n, n, [])):  # (the text after the last block: a last gap)
        if start > pos and not (piece := text[pos:start]).isspace():
            if pos > 0 and (piece[:1] in _INVISIBLE or _REASON_WORD.search(piece) is not None):
                piece = prepare_text(piece)  # reasoning between calls (interleaved thinking) is never a call
            try:
                calls.extend(read_gap(piece, ctx))
            except ToolCallParseError as err:
                if pos > 0 or REGISTRY.find_marker(piece) is not None:
                    raise shifted(err, pos) from None
                # (prose before the first block, with no marker: left alone, as before)
        calls.extend(got)
        pos = max(pos, end)
    return calls


def _calls_before(prefix: str, ctx: Context) -> list[Call]:
    """Calls written without markers before a family's first marker (``[f(a=1)]`` and then a
    ``<tool_call>`` block): read, so that neither is dropped. Prose there that cannot be read
    as calls is left to the family's reader, as before."""
    try:
        return read_plain(prefix, ctx)
    except ToolCallParseError:
        return []


# --------------------------------------------------------------------------- reasoning, BOM

#: Reasoning blocks (opening, closing): their text is never a call.
REASONING_TAGS: tuple[tuple[str, str], ...] = (
    ("<think>", "</think>"),
    ("<seed:think>", "</seed:think>"),
    ("<thinking>", "</thinking>"),
    ("<|START_THINKING|>", "<|END_THINKING|>"),
    ("<|inner_prefix|>", "<|inner_suffix|>"),
    ("\u25c1think\u25b7", "\u25c1/think\u25b7"),
    ("<|channel>thought", "<channel|>"),
    ("[THINK]", "[/THINK]"),
)
_CLOSERS = {close: open_ for open_, close in REASONING_TAGS}
_OPENERS = dict(REASONING_TAGS)
_REASON_SCAN = re.compile(
    "|".join(f"(?P<o{i}>{re.escape(o)})|(?P<c{i}>{re.escape(c)})" for i, (o, c) in enumerate(REASONING_TAGS))
)
_INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060"
#: A word every reasoning tag holds (text without one has no reasoning block; read_any tests
#: for these four words with substring searches, cheaper than a scan).
_REASON_WORD = re.compile("think|THINK|inner_|thought")


class _Outside:
    """Whether a position of ``text`` stands outside every bracket and quoted string begun
    after ``start`` (a quote ends at a line's end: prose apostrophes do not carry over). One
    forward scan for positions asked in increasing order: linear."""

    __slots__ = ("text", "pos", "depth", "quote", "escaped")

    def __init__(self, text: str, start: int = 0) -> None:
        self.text, self.pos, self.depth, self.quote, self.escaped = text, start, 0, "", False

    def at(self, end: int) -> bool:
        text, depth, quote, escaped = self.text, self.depth, self.quote, self.escaped
        for i in range(self.pos, end):
            ch = text[i]
            if ch == "\n":
                quote, escaped = "", False
            elif quote:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch in "([{":
                depth += 1
            elif ch in ")]}" and depth:
                depth -= 1
        self.pos, self.depth, self.quote, self.escaped = max(end, self.pos), depth, quote, escaped
        return not depth and not quote


def _implicit_reasoning_end(text: str) -> int:
    """End of the reasoning whose opening tag was in the prompt: the first tag met is a
    closing one, and the text does not start with a call (then the tag is data). Else 0."""
    m = _REASON_SCAN.search(text)
    if m is None or m.group() not in _CLOSERS:
        return 0
    before = text[: m.start()].rstrip(" \t")
    after = text[m.end() :].lstrip(" \t")
    if not (before.endswith("\n") or after.startswith("\n") or not after) and not _Outside(text).at(m.start()):
        return 0  # a closing tag on its own line or outside brackets and strings, never inside a value
    head = text[: m.start()].lstrip()
    first = REGISTRY.find_marker(head[:40]) if head else None
    if head[:1] in ("{", "[") or (first is not None and first[1] == 0):
        return 0
    return m.end()


def _at_line_start(text: str, pos: int) -> bool:
    i = pos
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return i == 0 or text[i - 1] == "\n" or text[i - 1] == ">"


def prepare_text(text: str, fmt: str = "auto") -> str:
    """Text as readers see it: a leading byte-order mark or zero-width space blanked, and
    reasoning blocks (``<think>…</think>``, ``<seed:think>``, ``[THINK]``, ...) blanked —
    offsets stay those of the original text. A closing tag with no opening one (templates
    often put ``<think>`` in the prompt) makes everything before it reasoning, unless the text
    starts with a call. An opening tag is reasoning at the start of a line, or inline outside
    brackets and quoted strings (``Okay. <think>…``); here it is recognised before the first
    call marker only, so a tag inside a call's arguments stays data (reasoning after a family's
    first block is set aside by :func:`_set_aside_reasoning`). An unclosed reasoning block runs
    to the end, or to the first call marker in it (models such as Kimi-K2-Thinking call without
    closing it).

    Examples
    --------
    >>> prepare_text("<think>maybe [f(a=1)]?</think>[g(b=2)]").strip()
    '[g(b=2)]'
    >>> prepare_text("\\ufeff[f(a=1)]").strip()
    '[f(a=1)]'
    """
    lead = len(text) - len(text.lstrip(_INVISIBLE))
    if lead:
        text = " " * lead + text[lead:]
    if _REASON_WORD.search(text) is None:
        return text
    spans: list[tuple[int, int]] = []
    pos = _implicit_reasoning_end(text)
    outside = _Outside(text, pos)
    if pos:
        spans.append((0, pos))
    hit = REGISTRY.find_marker(text, pos)
    limit = len(text) if hit is None else hit[1]
    while True:
        m = _REASON_SCAN.search(text, pos, limit)
        if m is None:
            break
        tag = m.group()
        if tag in _CLOSERS:  # a stray closing tag
            pos = m.end()
            continue
        if not _at_line_start(text, m.start()) and not outside.at(m.start()):
            pos = m.end()
            continue
        close = text.find(_OPENERS[tag], m.end())
        if close < 0:  # never closed: reasoning to the end, or up to a call the model began
            inner = REGISTRY.find_marker(text, m.end())
            spans.append((m.start(), len(text) if inner is None else inner[1]))
            break
        pos = close + len(_OPENERS[tag])
        spans.append((m.start(), pos))
        outside = _Outside(text, pos)
        if hit is not None and hit[1] < pos:  # the first marker was inside the reasoning
            hit = REGISTRY.find_marker(text, pos)
            limit = len(text) if hit is None else hit[1]
    return _blanked(text, spans)


def _blanked(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with each of ``spans`` (in order, disjoint) written as spaces: offsets kept."""
    if not spans:
        return text
    parts, last = [], 0
    for start, end in spans:
        parts.append(text[last:start])
        parts.append(" " * (end - start))
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _set_aside_reasoning(text: str, blocks: list[Block], blocks_of: BlockReader, ctx: Context) -> tuple[str, list[Block]]:
    """A family's blocks once the reasoning after its first block is set aside: a reasoning
    block that opens between blocks (at a line's start, or inline outside brackets and strings)
    and closes later hides the blocks within it, so they are read again from the text with it
    blanked. A tag inside a block is data; an unclosed one runs up to the next block (as
    :func:`prepare_text` reads it). Returns the text and blocks to read (unchanged when no
    reasoning block holds a block). Linear: one scan, at most one second reading."""
    spans: list[tuple[int, int]] = []
    k = 0
    pos = blocks[0][1]
    outside = _Outside(text, pos)
    while (m := _REASON_SCAN.search(text, pos)) is not None:
        start = m.start()
        while k < len(blocks) and blocks[k][1] <= start:
            k += 1
            outside = _Outside(text, blocks[k - 1][1])
        if k < len(blocks) and blocks[k][0] <= start:  # inside a block: data
            pos = blocks[k][1]
            continue
        tag = m.group()
        if tag in _CLOSERS or not (_at_line_start(text, start) or outside.at(start)):
            pos = m.end()
            continue
        close = text.find(_OPENERS[tag], m.end())
        if close < 0:
            break  # unclosed: reasoning up to the next block, which the gap's reading sets aside
        pos = close + len(_OPENERS[tag])
        if k < len(blocks) and blocks[k][0] < pos:
            spans.append((start, pos))
        outside = _Outside(text, pos)
    if not spans:
        return text, blocks
    text = _blanked(text, spans)
    return text, blocks_of(text, ctx) or []


# --------------------------------------------------------------------------- public


def parse_text(text: str, fmt: Any, ctx: Context) -> list[Call]:
    """Read model-output text with the reader registered as ``fmt`` (or a response template).

    Examples
    --------
    >>> parse_text("<think>[g()]</think>[f(a=1)]", "python", Context())
    [f(a=1)]
    """
    return REGISTRY.reader(fmt)(text, ctx)


def read_any(output: Any, fmt: Any, ctx: Context, *, gold: bool = False) -> list[Call]:
    """Text through the ``fmt`` reader; structured input the same way in every mode.

    ``gold=True`` (references) allows :class:`~toolcall_f1.calls.AnyOf` argument values, and
    reads a reference text by :func:`_reference_text`'s stricter rule.

    Examples
    --------
    >>> read_any("[f(a=1)]", "auto", Context()), read_any({"name": "f", "arguments": {}}, "json", Context())
    ([f(a=1)], [f()])
    """
    family = REGISTRY.named.get(fmt) if isinstance(fmt, str) else None
    key: Any = fmt
    if family is None:  # a response template, or the error naming an unknown format
        key, family = REGISTRY.entry(fmt)
    if not isinstance(output, str):
        return coerce_structured(output, parse_text=lambda t: read_any(t, key, ctx), gold=gold)
    if gold:
        return _reference_text(output, functools.partial(_entry, key), ctx, fmt)
    check_text_limits(output, fmt if isinstance(fmt, str) else family.name)  # text entering: checked once
    if family.prepared and (output[:1] in _INVISIBLE or "think" in output or "THINK" in output
                            or "inner_" in output or "thought" in output):  # (_REASON_WORD's words)
        output = prepare_text(output)  # (nothing to prepare without a leading BOM or a reasoning word)
    return family.read(output, ctx)


_NOT_JSON = object()


def _reference_text(text: str, reader: Reader, ctx: Context, fmt: Any) -> list[Call]:
    """A reference given as text. A reference is data and must be readable (SPEC §2, "a
    reference that cannot be read always raises"):

    - a JSON document (bare or alone in a Markdown fence) is the value it holds, read exactly
      as that value given decoded (a call list, a message, ``[]``; ``null`` is zero calls),
      so a JSON shape that is not a call is an error, never zero calls;
    - other text goes through the ``fmt`` reader; blank text is zero calls, and so is text
      that writes an empty list of calls (:func:`_says_no_call`: ``<think>…</think>[]``,
      ``[TOOL_CALLS][]``, ``[]  # no call``). Text in which no call can be read raises: prose
      there is most likely a call format the reader does not know (or, with a format named,
      text in another format), and zero expected calls would be a silently wrong score.

    For a prediction, by contrast, prose is the model choosing not to call.
    """
    body = text.strip().lstrip("\ufeff")
    if body.startswith("```") and body.endswith("```") and "\n" in body:
        body = body[body.index("\n") + 1 : -3]  # a fence's body, without its info string
    check_text_limits(body, "json")
    try:
        value = JSON_DECODER.decode(body)
    except ToolCallParseError as err:  # JSON, but a key given two values, NaN, a huge number
        raise _err(err.reason, "json", text) from None
    except (ValueError, RecursionError):
        value = _NOT_JSON
    if value is None:
        return []
    if value is not _NOT_JSON and not isinstance(value, str):
        return coerce_structured(value, parse_text=lambda t: reader(t, ctx), gold=True)
    if isinstance(value, str):  # a JSON string holds the text
        text = value
    calls = reader(text, ctx)
    if not calls and body.strip() and value != "" and not _says_no_call(text, fmt):
        named = fmt != "auto"
        raise ToolCallParseError(
            "no call can be read from this reference text ("
            + ("the format named found no call: is the text in another format?" if named
               else "a format the reader does not know?")
            + "); write [] for an example where no call is expected",
            format=fmt if isinstance(fmt, str) else str(fmt),
            snippet=text,
        )
    return calls


# "[]" and then nothing on its line but a comment or a closing tag or token ("[](url)", "[][" are not it)
_EMPTY_LIST = re.compile(r"\[\s*\][ \t]*(?:$|\r?\n|#|<)")
# a Markdown fence (its opening line, any info string) whose body is "[]" and nothing else
_FENCED_EMPTY_LIST = re.compile(r"^[ \t]*```[^`\n]*\n[ \t\r\n]*\[[ \t\r\n]*\][ \t\r\n]*```", re.MULTILINE)


def _says_no_call(text: str, fmt: Any) -> bool:
    """Does reference text read as zero calls because it writes an empty list of calls?

    After its reasoning, ``[]`` comes first and ends its line — alone, before prose on later
    lines, a comment or a closing tag or token (``<think>…</think>\\n[]``, ``[]  # no call``;
    not ``[](url)``) — or right after a call marker of the format
    read (``[TOOL_CALLS][]``, ``<tool_call>[]</tool_call>``, ``functools[]``; for Harmony, the
    final channel's message: ``<|channel|>final<|message|>[]``), or a Markdown fence holds
    ``[]`` and nothing else, wherever it stands (``Sure!\\n```json\\n[]\\n````). Anything else
    that reads as no call (prose, reasoning alone, a Harmony answer in words) is not read as
    "no call": it may be calls in a format the reader does not know.
    """
    t = prepare_text(text).lstrip()
    if "```" in t and _FENCED_EMPTY_LIST.search(t) is not None:
        return True
    hit = REGISTRY.find_marker(t)
    if hit is not None and hit[1] == 0 and (fmt == "auto" or fmt in REGISTRY.rows[hit[0]].names):
        if hit[0] == "harmony":
            final = t.rfind("<|channel|>final")
            if final < 0:
                return False
            body = t.find("<|message|>", final)
            return body >= 0 and _EMPTY_LIST.match(t[body + len("<|message|>"):].lstrip()) is not None
        end = REGISTRY.marker_end(t, 0)
        end = end - 1 if t[end - 1] == "[" else end  # functools[ holds the "["
        t = t[end:].lstrip()
    return _EMPTY_LIST.match(t) is not None



# =========================================================================== model families
# Readers for the tool-call markers of model families (SPEC §2, "Model families' own markers").
# Each family is learnt from the model's chat template and the tool parsers of vLLM / SGLang,
# and written as one row of FAMILIES (a Family: its name, aliases, markers and block function);
# the named reader of a family is derived from its block function (read_family). Every reader is
# one forward pass over the text (NextFinder remembers where the next tag is, so a missing closing
# tag is looked for once), never executes anything, and follows one rule: a family's marker from
# which no complete call can be read is a parse error naming the family and the character offset,
# never zero calls. A call whose closing tag is missing is read when its body is complete (a JSON
# value closes itself; an XML-style call needs its closing tag), so a cut-off generation is an error.

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


#: White space, and a Markdown fence's opening line (```json + newline) with the white space after it.
_BODY_START = re.compile(r"[ \t\r\n]*(?:```[^\n]*(?:\n[ \t\r\n]*)?)?")
_WS_RUN = re.compile(r"[ \t\r\n]*")
#: ``[`` that opens a list of Python calls, not a JSON list (``[{``, ``["``, ``[]``).
_PYTHON_LIST = re.compile(r"\[[ \t\r\n]*[^{\"\] \t\r\n]")
_VALUE_SEP = re.compile(r"[ \t\r\n,;]*")
_BODY_END = re.compile(r"[ \t\r\n`,;]*")


# --------------------------------------------------------------------------- block bodies


def _json_run(text: str, pos: int, fmt: str) -> tuple[list[Any], int]:
    """JSON values one after another from ``pos`` (separated by space, ``,`` or ``;``)."""
    values: list[Any] = []
    while True:
        value, pos = decode_at(text, pos, fmt)
        values.append(value)
        j = _VALUE_SEP.match(text, pos).end()  # type: ignore[union-attr]  # (matches everywhere)
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
    text: str, pos: int, ctx: Context, fmt: str, close: str | None, nxt: NextFinder, opener: str = "",
    *, tagged: bool = False,
) -> tuple[list[Call], int]:
    """The calls of one block whose body starts at ``pos``: JSON (one or several values,
    optionally fenced) or Python call syntax; ``tagged`` (a ``<tool_call>`` block) also
    Qwen3-Coder ``<function=…>`` and GLM ``NAME<arg_key>…`` calls. Returns the calls and where
    the block ends (past ``close`` when it follows). A JSON body ends where the JSON ends, so a
    closing tag inside a JSON string is data; a missing closing tag is accepted when the body is
    complete.
    """
    if tagged:
        i = _WS_RUN.match(text, pos).end()  # type: ignore[union-attr]  # (matches everywhere)
        if not text.startswith(("{", "[", "`"), i):
            return _tagged_body(text, i, ctx, fmt, close, nxt, opener)
    i = _BODY_START.match(text, pos).end()  # type: ignore[union-attr]
    if text.startswith("{", i) or (text.startswith("[", i) and _PYTHON_LIST.match(text, i) is None):
        values, j = _json_run(text, i, fmt)
        try:
            calls = coerce_structured(values[0] if len(values) == 1 else values, fmt=fmt)
        except ToolCallParseError as err:
            raise err_at(fmt, err.reason, text, i) from None
        j = _BODY_END.match(text, j).end()  # type: ignore[union-attr]
        if close and text.startswith(close, j):
            j += len(close)
        return calls, j
    return _python_block(text, i, ctx, fmt, close, nxt, opener)


def _python_block(
    text: str, i: int, ctx: Context, fmt: str, close: str | None, nxt: NextFinder, opener: str
) -> tuple[list[Call], int]:
    """A block's body from ``i`` read as Python call syntax (:func:`_read_body`): up to ``close``,
    the next ``opener`` or an end-of-turn token."""
    n = len(text)
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
    lead: Callable[[str, int, str], int] | None = None,
    tagged: bool = False,
    bare: BlockReader | None = None,
) -> list[Block] | None:
    """Every ``opener … close`` block in order, as ``(start, end, calls)``; None when the
    text has no opener (or ``bare``'s blocks: the family's calls written without the opener).
    ``lead(text, pos, fmt)`` checks what must follow the opener (a parse error when it is not
    there) and returns where the body starts; each body is read by :func:`_read_body`
    (``tagged``: a ``<tool_call>`` block, with its XML-style forms)."""
    pos = text.find(opener)
    if pos < 0:
        return None if bare is None else bare(text, ctx)
    nxt = NextFinder(text)
    blocks: list[Block] = []
    while pos >= 0:
        start = pos + len(opener)
        if lead is not None:
            start = lead(text, start, fmt)
        got, end = _read_body(text, start, ctx, fmt, close, nxt, opener, tagged=tagged)
        blocks.append((pos, end, got))
        pos = text.find(opener, max(end, pos + len(opener)))
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


def _tagged_body(
    text: str, i: int, ctx: Context, fmt: str, close: str | None, nxt: NextFinder, opener: str
) -> tuple[list[Call], int]:
    """A ``<tool_call>`` block's body from ``i`` (after white space) that is no JSON and no
    fence: Qwen3-Coder ``<function=…>`` calls, GLM ``NAME<arg_key>…``, or Python call syntax."""
    if text.startswith("<function=", i):
        calls: list[Call] = []
        while text.startswith("<function=", i):
            call, i = _qwen3_function(text, i, ctx, "qwen3_coder", nxt)
            calls.append(call)
            i = _skip(text, i)
        if close and text.startswith(close, i):
            i += len(close)
        return calls, i
    end = nxt.find(close, i) if close else -1
    if end < 0:
        family = "glm45" if text.find("<arg_key>", i) >= 0 else fmt
        raise err_at(family, f"a {opener} block that is never closed", text, i)
    body = text[i:end]
    head = body.split("<arg_key>", 1)[0]
    if "<arg_key>" in body or ("(" not in head and head.strip() and "\n" not in head.strip()):
        return [_glm_call(body, text, i, ctx)], end + len(close or "")
    return _python_block(text, i, ctx, fmt, close, nxt, opener)


def _unwrapped_qwen3(text: str, ctx: Context) -> list[Block] | None:
    """Hermes text without ``<tool_call>``: Qwen3-Coder calls written without the wrapper."""
    return _qwen3_blocks(text, ctx) if _FUNCTION_TAG.search(text) else None


_hermes_blocks = functools.partial(
    _blocks, fmt="hermes", opener="<tool_call>", close="</tool_call>", tagged=True, bare=_unwrapped_qwen3
)
_glm45_blocks = functools.partial(_blocks, fmt="glm45", opener="<tool_call>", close="</tool_call>", tagged=True)


def _qwen3_blocks(text: str, ctx: Context) -> list[Block] | None:
    nxt = NextFinder(text)
    pos, _ = nxt.search(_FUNCTION_TAG, 0)
    if pos < 0:
        wrapped = _blocks(text, ctx, "hermes", "<tool_call>", "</tool_call>", tagged=True)  # JSON in <tool_call> blocks
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
        j = _BODY_START.match(text, i).end()  # type: ignore[union-attr]  # (matches everywhere)
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
            if calls and _PYTHON_LIST.match(text, i) is not None:
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
        i = _BODY_START.match(text, k + len("<|START_ACTION|>")).end()  # type: ignore[union-attr]
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


# =========================================================================== the registry

#: The one table of formats: the plain formats first, then the model families' rows
#: (:data:`FAMILIES`), in registration order.
REGISTRY = Registry([
    Family("python", reader=read_python),
    Family("json", reader=read_json),
    Family("openai", reader=read_openai),
    Family("anthropic", reader=read_anthropic),
    Family("bfcl", reader=read_bfcl, prepared=False),
    Family("auto", reader=read_auto),
    *FAMILIES,
])
find_marker = REGISTRY.find_marker
reader_for = REGISTRY.reader
