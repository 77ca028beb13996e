"""Call and gold-call types, and coercion of structured inputs into calls (SPEC §1–§2).

A *call* is a tool name and a mapping of JSON arguments; a *gold call* holds, per argument,
an :class:`AnyOf` of accepted values. Structured inputs (objects, tuples, OpenAI / Anthropic /
BFCL dicts, lists of these) become calls here; model-output *text* is read by :mod:`parsing`,
which hands back whatever JSON it finds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .values import (
    JSON_DECODER,
    MAX_BYTES,
    MAX_DEPTH,
    MAX_INT_DIGITS,
    DuplicateKeyError,
    ToolCallParseError,
    check_text_limits,
    clip,
    load_json,
    plain_json,
    put_once,
    strictly_identical,
)

__all__ = [
    "Call", "AnyOf", "NestedAnswer", "NestedList", "GoldCall", "ToolCallParseError", "DuplicateKeyError",
    "ToolCallWarning", "put_once", "MAX_BYTES", "MAX_DEPTH", "MAX_INT_DIGITS", "JSON_DECODER", "check_text_limits", "load_json", "normalize_value",
    "coerce_structured", "gold_calls", "bfcl_gold", "bfcl_gold_plain",
]

# The limits, the JSON decoder and the parse errors live in :mod:`toolcall_f1.values` (below
# the readers); they are re-exported here, where the readers and users import them from.
_INT_LIMIT = 10**MAX_INT_DIGITS


class ToolCallWarning(UserWarning):
    """A likely mistake in the settings or data that does not change the score (a weight
    naming no declared tool, an unknown schema type name, ...): issued with :mod:`warnings`."""


_set = object.__setattr__


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call: a name and its arguments (a read-only mapping of JSON values).

    Frozen and hashable; equal calls have equal hashes.

    Examples
    --------
    >>> c = Call("search", {"q": "cats"})
    >>> c.name, dict(c.arguments)
    ('search', {'q': 'cats'})
    >>> c == Call("search", {"q": "cats"}), len({c, Call("search", {"q": "cats"})})
    (True, 1)
    >>> Call("", {})
    Traceback (most recent call last):
    ...
    ValueError: Call: name must be a non-empty string, got ''
    """

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"Call: name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.arguments, Mapping):
            raise ValueError(
                f"Call {self.name!r}: arguments must be a mapping, got {type(self.arguments).__name__}"
            )
        if not isinstance(self.arguments, MappingProxyType):
            object.__setattr__(self, "arguments", MappingProxyType(dict(self.arguments)))

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.arguments))))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Call):
            return NotImplemented
        return self.name == other.name and strictly_identical(
            dict(self.arguments), dict(other.arguments)
        )

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        return f"{self.name}({args})"

    @staticmethod
    def _owned(name: str, arguments: dict[str, Any]) -> Call:
        """A call from a reader that has checked ``name`` (a non-empty string) and built
        ``arguments`` itself (a fresh dict nobody else holds): wrapped, not copied."""
        call = Call.__new__(Call)  # (not object.__new__: a compiled Call has its own)
        _set(call, "name", name)
        _set(call, "arguments", MappingProxyType(arguments))
        return call

    def __reduce__(self) -> tuple[Any, ...]:  # pickle the arguments, not their read-only view
        return Call, (self.name, dict(self.arguments))

    def to_dict(self) -> dict[str, Any]:
        """``{"name": ..., "arguments": {...}}`` with plain dicts, JSON-serialisable."""
        return {"name": self.name, "arguments": _plain(self.arguments)}


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class NestedAnswer:
    """A BFCL nested answer for a dict value: each key maps to its accepted values."""

    fields: Mapping[str, AnyOf]

    def __repr__(self) -> str:
        return f"NestedAnswer({dict(self.fields)!r})"

    def __reduce__(self) -> tuple[Any, ...]:  # pickle the fields, not their read-only view
        return _read_only, (NestedAnswer, (), dict(self.fields))


@dataclass(frozen=True, slots=True)
class NestedList:
    """A BFCL accepted list of dicts: matched element by element against nested answers."""

    items: tuple[NestedAnswer, ...]


_NESTED = frozenset({NestedAnswer, NestedList})


@dataclass(frozen=True, slots=True, init=False)
class AnyOf:
    """A gold argument's accepted values; ``optional=True`` lets the prediction omit it.

    Examples
    --------
    >>> AnyOf("celsius", "c")
    AnyOf('celsius', 'c')
    >>> AnyOf("celsius", optional=True)
    AnyOf('celsius', optional=True)
    >>> AnyOf()
    Traceback (most recent call last):
    ...
    ValueError: AnyOf: at least one accepted value is needed
    """

    values: tuple[Any, ...]
    optional: bool
    #: No accepted value is a nested answer (every one is compared as a plain value).
    plain: bool = field(compare=False, repr=False)

    def __init__(self, *values: Any, optional: bool = False) -> None:
        if not values:
            raise ValueError("AnyOf: at least one accepted value is needed")
        _set(self, "values", values)
        _set(self, "optional", bool(optional))
        _set(self, "plain", _NESTED.isdisjoint(map(type, values)))

    @staticmethod
    def _of(values: tuple[Any, ...], optional: bool) -> AnyOf:
        """``AnyOf(*values, optional=optional)`` for a reader that has checked ``optional`` (a
        bool); ``values`` may be empty (BFCL's empty list of accepted values accepts nothing)."""
        accepted = AnyOf("")  # (then filled: a compiled AnyOf's __new__ runs __init__, which needs a value)
        _set(accepted, "values", values)
        _set(accepted, "optional", optional)
        _set(accepted, "plain", _NESTED.isdisjoint(map(type, values)))
        return accepted

    def __repr__(self) -> str:
        inner = ", ".join(repr(v) for v in self.values)
        return f"AnyOf({inner}{', optional=True' if self.optional else ''})"


@dataclass(frozen=True, slots=True)
class GoldCall:
    """A reference call: a name and, per argument, an :class:`AnyOf` of accepted values."""

    name: str
    arguments: Mapping[str, AnyOf]

    def __repr__(self) -> str:
        args = (
            f"{k}={v.values[0]!r}" if len(v.values) == 1 and not v.optional else f"{k}={v!r}"
            for k, v in self.arguments.items()
        )
        return f"{self.name}({', '.join(args)})"

    def __reduce__(self) -> tuple[Any, ...]:  # pickle the arguments, not their read-only view
        return _read_only, (GoldCall, (self.name,), dict(self.arguments))

    @classmethod
    def from_call(cls, call: Call) -> GoldCall:
        """A gold call accepting exactly the call's values (an :class:`AnyOf` kept as given):
        :func:`gold_calls` of one call."""
        return gold_calls((call,))[0]


def gold_calls(calls: Iterable[Call]) -> list[GoldCall]:
    """Gold calls accepting exactly the calls' values (an :class:`AnyOf` kept as given): how a
    reference read as calls becomes gold calls, in one pass.

    Examples
    --------
    >>> gold_calls([Call("f", {"x": 1, "u": AnyOf("c", "celsius")})])
    [f(x=1, u=AnyOf('c', 'celsius'))]
    """
    golds: list[GoldCall] = []
    for call in calls:
        args = {k: v if isinstance(v, AnyOf) else AnyOf(v) for k, v in call.arguments.items()}
        golds.append(GoldCall(call.name, MappingProxyType(args)))
    return golds


def _read_only(cls: type, head: tuple[Any, ...], mapping: dict[str, Any]) -> Any:
    """``cls(*head, <read-only view of mapping>)``: how a gold call or nested answer unpickles."""
    return cls(*head, MappingProxyType(mapping))


# --------------------------------------------------------------------------- structured input

TextParser = Callable[[str], list[Call]]

_ARG_KEYS = ("arguments", "parameters", "input", "args")
#: SPEC §2's ``{"name", "arguments" | "parameters"}``: without a name, a call missing it.
_NAMED_CALL_ARG_KEYS = ("arguments", "parameters")
_NOT_CALL_BLOCKS = ("text", "thinking", "redacted_thinking", "tool_result")
#: The keys of a chat message as chat APIs return it and SDKs' ``model_dump()`` writes it
#: (SPEC §2, "Messages"): a dict holding ``content`` or ``tool_calls`` with no other key is one.
_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "tool_call_id", "function_call", "name", "refusal",
                           "reasoning_content", "reasoning", "audio", "annotations"})
_NOT_CALLER_ROLES = frozenset({"user", "system", "developer", "tool", "ipython", "function"})
_KINDS = {set: "a set", frozenset: "a set", bytes: "bytes", complex: "a complex number"}


def normalize_value(value: Any, *, fmt: str = "structured", gold: bool = False) -> Any:
    """Check that ``value`` is JSON data and return it with tuples turned into lists.

    numpy values become the equal plain values; ``gold=True`` (a reference) allows an
    :class:`AnyOf` as an argument's value.

    Raises
    ------
    ToolCallParseError
        For sets, bytes, non-finite floats, non-string dict keys, other objects, or data
        nested deeper than :data:`MAX_DEPTH` or larger than :data:`MAX_BYTES`.

    Examples
    --------
    >>> normalize_value({"a": (1, 2)})
    {'a': [1, 2]}
    >>> normalize_value({1, 2})
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.ToolCallParseError: structured: a set is not a JSON value
    """
    return _json(value, 0, fmt, gold, [MAX_BYTES])


def coerce_structured(
    obj: Any, *, parse_text: TextParser | None = None, fmt: str = "structured", gold: bool = False
) -> list[Call]:
    """Read any structured call shape of SPEC §2 into a list of calls.

    ``parse_text`` reads strings met on the way (a message's text content, a list element
    that is text); without it a string is an error. ``gold=True`` (references) lets an
    argument's value be an :class:`AnyOf` of accepted values.

    One loop over a stack of the parts still to read (a list's items, a message's calls),
    in order; each part is nothing, a call, text, a ``(name, args)`` pair, a list, or a dict
    or object whose shape :func:`_shape` tells. The whole input is read within one size
    budget (``left``: the characters left to read, :data:`MAX_BYTES`), spent as its values
    are checked (:func:`_json`).

    Raises
    ------
    ToolCallParseError
        For a shape that is not a call or a list of calls.

    Examples
    --------
    >>> coerce_structured([("search", {"q": "cats"}), {"name": "answer", "arguments": '{"a": 1}'}])
    [search(q='cats'), answer(a=1)]
    >>> coerce_structured({"type": "function", "function": {"name": "f", "arguments": "{}"}})
    [f()]
    >>> coerce_structured({"get_weather": {"city": "Paris"}})   # BFCL single-key form
    [get_weather(city='Paris')]
    >>> coerce_structured([42])
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.ToolCallParseError: structured: expected a call, got int 42
    """
    left = [MAX_BYTES]
    out: list[Call] = []
    name: Any  # a name, held calls or text (declared: compiled code keeps a variable's first type)
    raw: Any
    # (part, its depth, the text reader for strings in it, the list holding it or None)
    todo: list[tuple[Any, int, TextParser | None, Sequence[Any] | None]] = [(obj, 0, parse_text, None)]
    while todo:
        obj, depth, parse, within = todo.pop()
        if within is not None and isinstance(obj, str):  # a string in a list is data, never a call
            if len(within) == 2 and obj is within[0] and isinstance(within[1], Mapping):  # JSON's ("f", {...})
                raise ToolCallParseError('a [name, arguments] list is not a call (a (name, arguments) tuple is, in'
                                         ' Python); in JSON write {"name": ..., "arguments": ...}', format=fmt, snippet=obj)
            raise ToolCallParseError("a list of strings is not a list of calls (a string literal is data)",
                                     format=fmt, snippet=obj)
        if type(obj).__module__ == "numpy":
            obj = plain_json(obj)  # a numpy array or scalar (a datasets column): the plain value
        if depth > MAX_DEPTH:
            raise ToolCallParseError(f"nested deeper than {MAX_DEPTH} levels", format=fmt)
        if obj is None:
            continue
        if isinstance(obj, Call):
            out.append(Call._owned(obj.name, _json(obj.arguments, 0, fmt, gold, left)))
            continue
        if isinstance(obj, str):
            if parse is None:
                raise ToolCallParseError("a string is data here, not a call", format=fmt, snippet=obj)
            out.extend(parse(str(obj)))
            continue
        if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str) and (
            isinstance(obj[1], (Mapping, str)) or obj[1] is None
        ):
            kind, name, raw = "call", obj[0], obj[1]
        elif isinstance(obj, (list, tuple)) and not isinstance(obj, Mapping):
            todo.extend((item, depth + 1, parse, obj) for item in reversed(obj))
            continue
        else:
            kind, name, raw = _shape(obj, parse, fmt)
        if kind == "into":  # held calls (a message's): structured, never text
            todo.append((name, depth + 1, None, None))
        elif kind == "text" and parse is not None:
            out.extend(parse(name))
        elif kind == "call":
            if not isinstance(name, str) or not name.strip():
                raise ToolCallParseError(f"a call needs a non-empty string name, got {name!r}", format=fmt)
            if raw is None:
                raw = {}
            elif isinstance(raw, str):
                text = raw.strip()
                raw = load_json(text, fmt) if text else {}
            if not isinstance(raw, Mapping):
                raise ToolCallParseError(f"arguments of {name!r} must be an object, got {type(raw).__name__}", format=fmt)
            out.append(Call._owned(name, _json(raw, 0, fmt, gold, left)))
    return out


#: What :func:`_shape` tells of a part: ``("call", name, arguments)``, ``("into", held, None)``
#: (calls held in it, read as structured input), ``("text", content, None)`` (text to read as
#: model output) or ``("", None, None)`` (no call).
_Shape = tuple[str, Any, Any]
_NO_CALL: _Shape = ("", None, None)


def _shape(obj: Any, parse: TextParser | None, fmt: str) -> _Shape:
    """A dict's shape: an OpenAI tool call or assistant message, an Anthropic content block,
    a chat message whose content holds the calls (:func:`_message`), a call object
    ``{"name", "arguments" | "parameters" | "input" | "args"}`` or a bare ``{"name"}``, or
    BFCL's single-key ``{name: {args}}`` (the arguments may be JSON text); or an object with
    a ``name`` and arguments."""
    if not isinstance(obj, Mapping):
        name = getattr(obj, "name", None)
        if isinstance(name, str):
            for attr in ("arguments", "args", "input"):
                if hasattr(obj, attr):
                    return "call", name, getattr(obj, attr)
        raise ToolCallParseError(f"expected a call, got {type(obj).__name__} {clip(repr(obj), 40)}", format=fmt)
    kind = obj.get("type")
    fn = obj.get("function")
    if isinstance(fn, Mapping) and kind in (None, "function"):
        if "name" in fn:
            return "call", fn.get("name"), fn.get("arguments", fn.get("parameters"))
        if any(key in fn for key in _NAMED_CALL_ARG_KEYS):  # not a call to a tool named "function"
            raise ToolCallParseError('a "function" object with arguments needs a "name"', format=fmt)
    if ("content" in obj or "tool_calls" in obj) and obj.keys() <= _MESSAGE_KEYS and not (
        isinstance(obj.get("content"), Mapping) or isinstance(obj.get("tool_calls"), Mapping)
    ):  # {"content": {args}}: BFCL's call to a tool named "content"
        return _message(obj, parse, fmt)
    if "tool_calls" in obj:  # an assistant message's: a list of structured calls, never text
        held = plain_json(obj["tool_calls"])
        if held is None or isinstance(held, (list, tuple)):
            return "into", held, None
        if "role" in obj:
            raise ToolCallParseError("'tool_calls' must be a list", format=fmt)
    if kind == "tool_use":
        return "call", obj.get("name"), obj.get("input")
    role = obj.get("role")
    if kind in _NOT_CALL_BLOCKS or (isinstance(role, str) and role in _NOT_CALLER_ROLES):
        return _NO_CALL  # text, reasoning, tool results, and every turn but the assistant's
    if "role" in obj and "content" in obj:
        content = obj["content"]
        return ("text", content, None) if isinstance(content, str) else ("into", content, None)
    name = obj.get("name")
    if isinstance(name, str):
        given = [key for key in _ARG_KEYS if key in obj]
        if any(not strictly_identical(obj[key], obj[given[0]]) for key in given[1:]):
            raise ToolCallParseError(f"call {name!r} is given two different argument objects "
                                     f"({given[0]!r} and {given[1]!r})", format=fmt)
        if given:
            return "call", name, obj[given[0]]
        if set(obj) <= {"name", "id", "type"}:
            return "call", name, None
    for key in _NAMED_CALL_ARG_KEYS:  # not BFCL's call to a tool named "arguments": a name is missing
        if key in obj and "name" not in obj:
            raise ToolCallParseError(f'a call object with {key!r} needs a "name"', format=fmt)
    if len(obj) == 1:
        ((name, raw),) = obj.items()
        if isinstance(raw, (Mapping, str)):
            return "call", name, raw
    raise ToolCallParseError(f"unrecognised call object with keys {sorted(map(str, obj))[:6]}", format=fmt)


def _message(obj: Mapping[str, Any], parse: TextParser | None, fmt: str) -> _Shape:
    """A chat message (SPEC §2, "Messages"): its ``tool_calls`` when that list holds any;
    otherwise a legacy ``function_call``, or its content — a content list holding call blocks
    gives those, text (a string, or the text blocks of a list without call blocks, joined
    with newlines) is read as model output, so calls a serving stack's parser left in the
    content are still read. A message of another role than the assistant's holds no call."""
    role = obj.get("role")
    if isinstance(role, str) and role in _NOT_CALLER_ROLES:
        return _NO_CALL
    held = plain_json(obj.get("tool_calls"))
    if held is not None and not isinstance(held, (list, tuple)):
        raise ToolCallParseError("'tool_calls' must be a list", format=fmt)
    if held:
        return "into", held, None
    legacy = obj.get("function_call")
    if legacy is not None:
        if not isinstance(legacy, Mapping):
            raise ToolCallParseError("'function_call' must be an object with a name and arguments", format=fmt)
        return "call", legacy.get("name"), legacy.get("arguments")
    content = plain_json(obj.get("content"))
    if isinstance(content, (list, tuple)) and all(
        isinstance(b, Mapping) and b.get("type") in _NOT_CALL_BLOCKS for b in content
    ):
        content = "\n".join(b["text"] for b in content if b.get("type") == "text" and isinstance(b.get("text"), str))
    if isinstance(content, str):
        return ("text", content, None) if content else _NO_CALL
    return "into", content, None


def _too_large(fmt: str) -> ToolCallParseError:
    return ToolCallParseError(f"input larger than {MAX_BYTES} bytes", format=fmt)


#: The fewest bytes of the budget one element of a numpy array of each dtype kind spends once
#: plain (an int or float 8, a bool 4, a string at least its quotes). Any other kind (dates,
#: durations, complex, void, records) is charged 2: its elements become numbers or values that
#: are no JSON. An object array's element may spend nothing (an empty dict): 1 each, as a JSON
#: text of its values spends at least a character for each (so a copy of ten million of them is
#: refused before it is made).
_LEAST_BYTES = {"i": 8, "u": 8, "f": 8, "b": 4, "U": 2, "S": 2, "O": 1}

#: The types of the values :func:`_other` returns finished (every other one is a mapping to walk).
_FINISHED = frozenset({type(None), bool, int, float, AnyOf})


def _json(value: Any, depth: int, fmt: str, gold: bool, left: list[int]) -> Any:
    """``value`` (at ``depth``) checked as JSON data: tuples become lists, numpy values plain
    ones; ``left``: the characters the input may still spend (:data:`MAX_BYTES`), shared with
    the rest of it. One loop over a stack of the containers being copied (each with the
    iterator of its items left and their depth), in document order: a string, ``dict`` or
    ``list`` is handled here, any other value by :func:`_other`."""
    if depth > MAX_DEPTH:
        raise ToolCallParseError(f"nested deeper than {MAX_DEPTH} levels", format=fmt)
    top: Any = {} if type(value) is dict else []  # (a dict is the value's own copy; else it holds it)
    stack: list[tuple[Any, Iterator[Any], int]] = [
        (top, iter(value.items()), depth + 1) if type(value) is dict else (top, iter((value,)), depth)]
    while stack:
        out, items, at = stack[-1]
        keyed = type(out) is dict
        for v in items:
            if keyed:
                k, v = v
                if not isinstance(k, str):
                    raise ToolCallParseError(f"object keys must be strings, got {type(k).__name__} {k!r}", format=fmt)
                left[0] -= len(k) + 2
                if left[0] < 0:
                    raise _too_large(fmt)
            if at > MAX_DEPTH:
                raise ToolCallParseError(f"nested deeper than {MAX_DEPTH} levels", format=fmt)
            t = type(v)
            if t is not str and t is not dict and t is not list:
                v = _other(v, at, fmt, gold, left)
                t = type(v)
            children: Iterator[Any] | None = None
            if t is str:
                left[0] -= len(v) + 2
                if left[0] < 0:
                    raise _too_large(fmt)
            elif t is list:
                left[0] -= 2
                if left[0] < 0:
                    raise _too_large(fmt)
                children, v = iter(v), []
            elif t is dict or t not in _FINISHED:  # (a mapping _other hands back as it is)
                children, v = iter(v.items()), {}
            if keyed:
                out[k] = v
            else:
                out.append(v)
            if children is not None:
                stack.append((v, children, at + 1))
                break  # its items first; this container's go on after them
        else:
            stack.pop()
    return top if type(value) is dict else top[0]


def _other(value: Any, depth: int, fmt: str, gold: bool, left: list[int]) -> Any:
    """A value met by :func:`_json` that is no exact ``str``, ``dict`` or ``list``: a scalar
    checked (and spent), an :class:`AnyOf` read, or the plain ``str``, ``list`` or mapping
    for :func:`_json` to go on with."""
    if value is None or isinstance(value, bool):
        left[0] -= 4
        if left[0] < 0:
            raise _too_large(fmt)
        return None if value is None else bool(value)
    if isinstance(value, int):
        left[0] -= 8
        if left[0] < 0:
            raise _too_large(fmt)
        if not -_INT_LIMIT < value < _INT_LIMIT:
            digits = f"more than {MAX_INT_DIGITS} digits ({value.bit_length()} bits)"
            raise ToolCallParseError(f"an integer of {digits} is not read", format=fmt)
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ToolCallParseError(f"non-finite number {value!r}", format=fmt)
        left[0] -= 8
        if left[0] < 0:
            raise _too_large(fmt)
        return float(value)
    if isinstance(value, str):  # a subclass, such as numpy's str_
        return str(value)
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, Mapping):
        return value
    if isinstance(value, AnyOf):  # allowed only as an argument's value (depth 1) in a reference
        if not (gold and depth == 1):
            raise ToolCallParseError("AnyOf (accepted values) belongs in a reference argument, not here", format=fmt)
        values = (v if type(v) in _NESTED else _json(v, depth + 1, fmt, gold, left) for v in value.values)
        return AnyOf._of(tuple(values), value.optional)
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        # an array too large is refused before its copy is made; the copy then spends what the
        # equal plain value spends (each element at least the bytes of its kind, as walked)
        least = _LEAST_BYTES.get(getattr(getattr(value, "dtype", None), "kind", ""), 2)
        if least * getattr(value, "size", 1) > left[0]:
            raise _too_large(fmt)
        plain = plain_json(value)
        if type(plain).__module__ == "numpy":  # an object array holding itself (plain_json stops at its depth)
            raise ToolCallParseError(f"nested deeper than {MAX_DEPTH} levels", format=fmt)
        return plain if type(plain) in (str, list, dict) else _other(plain, depth, fmt, gold, left)
    kind = _KINDS.get(type(value), f"a {type(value).__name__}")
    raise ToolCallParseError(f"{kind} is not a JSON value", format=fmt)


# --------------------------------------------------------------------------- BFCL answers


def bfcl_gold(answer: Any, where: str = "reference") -> list[GoldCall]:
    """Read a BFCL possible answer ``[{name: {param: [accepted, ...]}}]`` into gold calls.

    ``""`` among a parameter's accepted values marks it optional; a dict among them is a
    nested answer (each key's value a list of accepted values); a list of dicts is an
    accepted list of dicts; any other list is one whole value. An empty list of accepted
    values accepts nothing: no value agrees, and omitting the parameter is missing it.

    Raises
    ------
    ValueError
        Naming the place, for anything that is not in that format.

    Examples
    --------
    >>> bfcl_gold([{"area": {"base": [10], "unit": ["units", ""]}}])
    [area(base=10, unit=AnyOf('units', optional=True))]
    >>> bfcl_gold([{"route": {"start": []}}])
    [route(start=AnyOf())]
    >>> bfcl_gold([{"area": {"base": 10}}])
    Traceback (most recent call last):
    ...
    ValueError: reference[0].area.base: expected a list of accepted values, got int 10
    """
    return bfcl_gold_plain(plain_json(answer), where)  # numpy arrays (a datasets column) as lists


def bfcl_gold_plain(answer: Any, where: str = "reference") -> list[GoldCall]:
    """:func:`bfcl_gold` of an answer known to hold no numpy values (a walk saved).

    Examples
    --------
    >>> bfcl_gold_plain([{"f": {"x": [1, 2]}}])
    [f(x=AnyOf(1, 2))]
    """
    if isinstance(answer, str):
        answer = load_json(answer, "bfcl")
    if isinstance(answer, Mapping):
        answer = [answer]
    if not isinstance(answer, list):
        raise ValueError(
            f"{where}: expected a list of {{name: {{param: [accepted]}}}}, got {type(answer).__name__}"
        )
    golds: list[GoldCall] = []
    for i, entry in enumerate(answer):  # the i-th call: {name: {param: [accepted, ...]}}
        if not isinstance(entry, Mapping) or len(entry) != 1:
            raise ValueError(f"{where}[{i}]: expected a single-key object {{name: {{param: [accepted]}}}}")
        ((name, params),) = entry.items()
        if isinstance(params, str):
            params = load_json(params, "bfcl")
        if not isinstance(params, Mapping):
            raise ValueError(f"{where}[{i}].{name}: expected an object of parameters")
        at = f"{where}[{i}].{name}"
        args = {str(p): _bfcl_accepted(v, at, p) for p, v in params.items()}
        golds.append(GoldCall(str(name), MappingProxyType(args)))
    return golds


def _bfcl_accepted(values: Any, where: str, key: Any, nested: bool = False) -> AnyOf:
    """Parameter ``key``'s accepted values (``where`` names its call or nested answer).

    Most accepted values are values :func:`normalize_value` would return as they are (an exact
    ``str`` within a fresh budget, ``bool``, ``None``, a bounded ``int``, a finite ``float``):
    kept without the walk, a new BFCL answer reads in about half the time."""
    if not isinstance(values, list):
        if nested:  # inside a nested answer a bare value is one accepted value
            return AnyOf(normalize_value(values, fmt="bfcl"))
        raise ValueError(
            f"{where}.{key}: expected a list of accepted values, "
            f"got {type(values).__name__} {clip(repr(values), 40)}"
        )
    if not values:  # BFCL's "no value accepted": never agrees, and omitting it is missing
        return AnyOf._of((), False)
    optional = False
    accepted: list[Any] = []
    for v in values:
        t = type(v)
        if t is str:
            if v == "":
                optional = True
            elif len(v) + 2 <= MAX_BYTES:
                accepted.append(v)
            else:
                accepted.append(_bfcl_value(v, f"{where}.{key}", nested))
        elif t is bool or v is None or (t is int and -_INT_LIMIT < v < _INT_LIMIT) or (t is float and math.isfinite(v)):
            accepted.append(v)
        elif isinstance(v, str) and v == "":
            optional = True
        else:
            accepted.append(_bfcl_value(v, f"{where}.{key}", nested))
    return AnyOf(*accepted, optional=optional) if accepted else AnyOf("", optional=optional)


def _bfcl_value(value: Any, where: str, nested: bool) -> Any:
    """An accepted value: at the top level a dict is a nested answer and a list of dicts an
    accepted list of them; anything else is one JSON value."""
    if not nested and isinstance(value, Mapping):
        return _nested_answer(value, where)
    if not nested and isinstance(value, list) and value and all(isinstance(x, Mapping) for x in value):
        return NestedList(tuple(_nested_answer(d, f"{where}[{i}]") for i, d in enumerate(value)))
    return normalize_value(value, fmt="bfcl")


def _nested_answer(answer: Mapping[Any, Any], where: str) -> NestedAnswer:
    return NestedAnswer(
        MappingProxyType({str(k): _bfcl_accepted(sub, where, k, nested=True) for k, sub in answer.items()})
    )
