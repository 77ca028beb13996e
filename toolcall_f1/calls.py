"""Call and gold-call types, and coercion of structured inputs into calls (SPEC §1–§2).

A *call* is a tool name and a mapping of JSON arguments. A *gold call* is the same, except
that each argument is an :class:`AnyOf`: a set of accepted values, possibly optional.
Structured inputs (objects, tuples, OpenAI / Anthropic / BFCL dicts, lists of these) become
calls here; model-output *text* is read by :mod:`parsing`, which calls back into this module
for whatever JSON it finds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .values import plain_json, strictly_identical

__all__ = [
    "Call",
    "AnyOf",
    "NestedAnswer",
    "NestedList",
    "GoldCall",
    "ToolCallParseError",
    "ToolCallWarning",
    "MAX_BYTES",
    "MAX_DEPTH",
    "load_json",
    "normalize_value",
    "coerce_structured",
    "plain_json",
]

#: Inputs larger than this (per example) are parse errors, never a hang.
MAX_BYTES = 1_000_000
#: Inputs nested deeper than this are parse errors, never a RecursionError.
MAX_DEPTH = 64
#: Integers of more decimal digits than this are parse errors everywhere: JSON text cannot
#: carry them (Python's default limit on int-string conversion, which ``json.loads`` and
#: ``ast`` apply), so a structured input may not either.
MAX_INT_DIGITS = 4300
_INT_LIMIT = 10**MAX_INT_DIGITS


class ToolCallWarning(UserWarning):
    """A likely mistake in the settings or data that does not change the score (a weight
    naming no declared tool, an unknown schema type name, ...): issued with :mod:`warnings`."""


class ToolCallParseError(ValueError):
    """A prediction or reference that cannot be read as tool calls.

    Carries ``format`` (the reader that failed), ``snippet`` (the start of the offending
    text) and ``index`` (the example, when known).

    Examples
    --------
    >>> err = ToolCallParseError("unbalanced brackets", format="python", snippet="[f(a=1")
    >>> str(err)
    "python: unbalanced brackets (in '[f(a=1')"
    >>> isinstance(err, ValueError)
    True
    """

    def __init__(
        self,
        message: str,
        *,
        format: str = "auto",
        snippet: str | None = None,
        index: int | None = None,
        where: str | None = None,
    ) -> None:
        self.reason = message
        self.format = format
        self.snippet = snippet
        self.index = index
        self.where = where
        super().__init__(self._render())

    def _render(self) -> str:
        text = f"{self.format}: {self.reason}"
        if self.snippet is not None:
            text += f" (in {_clip(self.snippet)!r})"
        if self.where is not None:
            text = f"{self.where}: {text}"
        return text

    def located(self, where: str, index: int | None = None) -> ToolCallParseError:
        """The same error, named after the input it came from (``predictions[3]``)."""
        return ToolCallParseError(
            self.reason, format=self.format, snippet=self.snippet, index=index, where=where
        )


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


_new = object.__new__
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

    @classmethod
    def _owned(cls, name: str, arguments: dict[str, Any]) -> Call:
        """A call from a reader that has checked ``name`` (a non-empty string) and built
        ``arguments`` itself (a fresh dict nobody else holds): wrapped, not copied."""
        call = _new(cls)
        _set(call, "name", name)
        _set(call, "arguments", MappingProxyType(arguments))
        return call

    @property
    def args(self) -> Mapping[str, Any]:
        """Alias of :attr:`arguments` (the seed's name)."""
        return self.arguments

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


@dataclass(frozen=True, slots=True)
class NestedList:
    """A BFCL accepted list of dicts: matched element by element against nested answers."""

    items: tuple[NestedAnswer, ...]


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
        self._fill(values, bool(optional))

    @classmethod
    def _of(cls, values: tuple[Any, ...], optional: bool) -> AnyOf:
        """``AnyOf(*values, optional=optional)`` for a reader that has checked ``values``
        (a non-empty tuple) and ``optional`` (a bool)."""
        accepted = _new(cls)
        accepted._fill(values, optional)
        return accepted

    def _fill(self, values: tuple[Any, ...], optional: bool) -> None:
        _set(self, "values", values)
        _set(self, "optional", optional)
        _set(self, "plain", not any(isinstance(v, (NestedAnswer, NestedList)) for v in values))

    def __repr__(self) -> str:
        inner = ", ".join(repr(v) for v in self.values)
        return f"AnyOf({inner}{', optional=True' if self.optional else ''})"


@dataclass(frozen=True, slots=True)
class GoldCall:
    """A reference call: a name and, per argument, an :class:`AnyOf` of accepted values."""

    name: str
    arguments: Mapping[str, AnyOf]

    def __repr__(self) -> str:
        parts = []
        for k, v in self.arguments.items():
            if len(v.values) == 1 and not v.optional:
                parts.append(f"{k}={v.values[0]!r}")
            else:
                parts.append(f"{k}={v!r}")
        return f"{self.name}({', '.join(parts)})"

    @classmethod
    def from_call(cls, call: Call) -> GoldCall:
        """A gold call accepting exactly the call's values (an :class:`AnyOf` kept as given)."""
        args = {
            k: v if isinstance(v, AnyOf) else AnyOf._of((v,), False) for k, v in call.arguments.items()
        }
        return cls(call.name, MappingProxyType(args))


# --------------------------------------------------------------------------- JSON values


class _Budget:
    """Counts characters seen while walking a value, to bound its size."""

    __slots__ = ("left",)

    def __init__(self, limit: int = MAX_BYTES) -> None:
        self.left = limit

    def spend(self, n: int, fmt: str) -> None:
        self.left -= n
        if self.left < 0:
            raise ToolCallParseError(f"input larger than {MAX_BYTES} bytes", format=fmt)


def normalize_value(
    value: Any,
    *,
    fmt: str = "structured",
    depth: int = 0,
    budget: _Budget | None = None,
    gold: bool = False,
) -> Any:
    """Check that ``value`` is JSON data and return it with tuples turned into lists.

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
    if budget is None:
        budget = _Budget()
    if depth > MAX_DEPTH:
        raise ToolCallParseError(f"nested deeper than {MAX_DEPTH} levels", format=fmt)
    # exact JSON types first (what parsers produce): the same checks and costs as below
    t = type(value)
    if t is str:
        budget.left -= len(value) + 2
        if budget.left < 0:
            budget.spend(0, fmt)
        return value
    if t is int:
        budget.left -= 8
        if budget.left < 0:
            budget.spend(0, fmt)
        if not -_INT_LIMIT < value < _INT_LIMIT:
            raise _big_int(value, fmt)
        return value
    if t is dict:
        return _normalize_object(value, fmt, depth, budget, gold)
    if t is list:
        return _normalize_array(value, fmt, depth, budget)
    if value is None or isinstance(value, bool):
        budget.spend(4, fmt)
        return None if value is None else bool(value)
    if isinstance(value, int):
        budget.spend(8, fmt)
        if not -_INT_LIMIT < value < _INT_LIMIT:
            raise _big_int(value, fmt)
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ToolCallParseError(f"non-finite number {value!r}", format=fmt)
        budget.spend(8, fmt)
        return float(value)
    if isinstance(value, str):
        budget.spend(len(value) + 2, fmt)
        return str(value)
    if isinstance(value, AnyOf):
        if gold and depth == 1:  # an argument's accepted values, in a reference
            return AnyOf._of(
                tuple(
                    v if isinstance(v, (NestedAnswer, NestedList))
                    else normalize_value(v, fmt=fmt, depth=depth + 1, budget=budget)
                    for v in value.values
                ),
                value.optional,
            )
        raise ToolCallParseError(
            "AnyOf (accepted values) belongs in a reference argument, not here", format=fmt
        )
    if isinstance(value, Mapping):
        return _normalize_object(value, fmt, depth, budget, gold)
    if isinstance(value, (list, tuple)):
        return _normalize_array(value, fmt, depth, budget)
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        # a numpy scalar or array: the equal plain value (an array's size is checked first)
        budget.spend(8 * getattr(value, "size", 1), fmt)
        return normalize_value(plain_json(value), fmt=fmt, depth=depth, budget=budget, gold=gold)
    kind = {set: "a set", frozenset: "a set", bytes: "bytes", complex: "a complex number"}.get(
        type(value), f"a {type(value).__name__}"
    )
    raise ToolCallParseError(f"{kind} is not a JSON value", format=fmt)


def _big_int(value: int, fmt: str) -> ToolCallParseError:
    return ToolCallParseError(
        f"an integer of more than {MAX_INT_DIGITS} digits ({value.bit_length()} bits) is not read", format=fmt
    )


def _normalize_object(value: Mapping[Any, Any], fmt: str, depth: int, budget: _Budget, gold: bool) -> dict[str, Any]:
    out = {}
    for k, v in value.items():
        if type(k) is not str and not isinstance(k, str):
            raise ToolCallParseError(f"object keys must be strings, got {type(k).__name__} {k!r}", format=fmt)
        budget.spend(len(k) + 2, fmt)
        out[k] = normalize_value(v, fmt=fmt, depth=depth + 1, budget=budget, gold=gold)
    return out


def _normalize_array(value: Sequence[Any], fmt: str, depth: int, budget: _Budget) -> list[Any]:
    budget.spend(2, fmt)
    return [normalize_value(v, fmt=fmt, depth=depth + 1, budget=budget) for v in value]


def _reject_constant(name: str) -> Any:
    raise ToolCallParseError(f"{name} is not valid JSON", format="json")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ToolCallParseError(f"number {text[:20]!r} is out of range", format="json")
    return value


def bracket_depth(text: str) -> int:
    """The deepest nesting of ``[ { (`` in ``text``, ignoring quoted strings."""
    depth = best = 0
    in_str: str | None = None
    escaped = False
    for ch in text:
        if in_str is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == in_str:
                in_str = None
        elif ch in "\"'":
            in_str = ch
        elif ch in "[{(":
            depth += 1
            if depth > best:
                best = depth
        elif ch in "]})":
            depth -= 1
    return best


def check_text_limits(text: str, fmt: str) -> None:
    """Raise a parse error for text over :data:`MAX_BYTES` or nested over :data:`MAX_DEPTH`."""
    size = len(text)
    if size * 4 > MAX_BYTES and size <= MAX_BYTES:  # only long text can exceed it in UTF-8
        size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise ToolCallParseError(
            f"input is over the {MAX_BYTES}-byte limit ({size} {'bytes' if size != len(text) else 'characters or more'})",
            format=fmt,
        )
    if text.count("[") + text.count("{") + text.count("(") > MAX_DEPTH:
        if bracket_depth(text) > MAX_DEPTH:
            raise ToolCallParseError(f"nested deeper than {MAX_DEPTH} levels", format=fmt)


def load_json(text: str, fmt: str = "json") -> Any:
    """``json.loads`` within the limits: no NaN/Infinity, bounded size and depth.

    Raises
    ------
    ToolCallParseError
        For invalid JSON, non-finite numbers, integers over 4300 digits, or limits exceeded.

    Examples
    --------
    >>> load_json('{"a": [1, 2.5, "x"]}')
    {'a': [1, 2.5, 'x']}
    >>> load_json('{"a": NaN}')
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.ToolCallParseError: json: NaN is not valid JSON (in '{"a": NaN}')
    """
    check_text_limits(text, fmt)
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except ToolCallParseError as err:
        raise ToolCallParseError(err.reason, format=fmt, snippet=text) from None
    except (ValueError, RecursionError) as err:  # JSONDecodeError, huge ints
        raise ToolCallParseError(
            f"invalid JSON: {str(err).splitlines()[0]}", format=fmt, snippet=text
        ) from None


# --------------------------------------------------------------------------- structured input

TextParser = Callable[[str], list[Call]]
PositionalMapper = Callable[[str], Sequence[str] | None]

_ARG_KEYS = ("arguments", "parameters", "input", "args")
_NOT_CALLER_ROLES = frozenset({"user", "system", "developer", "tool", "ipython", "function"})


def _arguments_from(raw: Any, name: str, fmt: str) -> Mapping[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, str):
        raw = raw.strip()
        if not raw:
            return {}
        raw = load_json(raw, fmt)
    if not isinstance(raw, Mapping):
        raise ToolCallParseError(
            f"arguments of {name!r} must be an object, got {type(raw).__name__}", format=fmt
        )
    return raw


def _make_call(name: Any, raw_args: Any, fmt: str, budget: _Budget, gold: bool = False) -> Call:
    if not isinstance(name, str) or not name.strip():
        raise ToolCallParseError(f"a call needs a non-empty string name, got {name!r}", format=fmt)
    args = _arguments_from(raw_args, name, fmt)
    norm = normalize_value(args, fmt=fmt, budget=budget, gold=gold)  # a new dict
    return Call._owned(name, norm)


def coerce_structured(
    obj: Any,
    *,
    parse_text: TextParser | None = None,
    fmt: str = "structured",
    gold: bool = False,
    _depth: int = 0,
    _budget: _Budget | None = None,
) -> list[Call]:
    """Read any structured call shape of SPEC §2 into a list of calls.

    ``parse_text`` reads strings met on the way (a message's text content, a list element
    that is text); without it a string is an error. ``gold=True`` (references) lets an
    argument's value be an :class:`AnyOf` of accepted values.

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
    budget = _budget if _budget is not None else _Budget()
    if type(obj).__module__ == "numpy":
        obj = plain_json(obj)  # a numpy array or scalar (a datasets column): the plain value
    if _depth > MAX_DEPTH:
        raise ToolCallParseError(f"nested deeper than {MAX_DEPTH} levels", format=fmt)
    if obj is None:
        return []
    if isinstance(obj, Call):
        return [Call._owned(obj.name, normalize_value(obj.arguments, fmt=fmt, budget=budget, gold=gold))]
    if isinstance(obj, str):
        if parse_text is None:
            raise ToolCallParseError(
                "a string is data here, not a call", format=fmt, snippet=obj
            )
        return parse_text(str(obj))
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str) and (
        isinstance(obj[1], (Mapping, str)) or obj[1] is None
    ):
        return [_make_call(obj[0], obj[1], fmt, budget, gold)]
    if isinstance(obj, Mapping):
        return _coerce_mapping(obj, parse_text, fmt, _depth, budget, gold)
    if isinstance(obj, (list, tuple)):
        out: list[Call] = []
        for item in obj:
            if isinstance(item, str):
                raise ToolCallParseError(
                    "a list of strings is not a list of calls (a string literal is data)",
                    format=fmt,
                    snippet=item,
                )
            out.extend(
                coerce_structured(
                    item, parse_text=parse_text, fmt=fmt, gold=gold, _depth=_depth + 1, _budget=budget
                )
            )
        return out
    name = getattr(obj, "name", None)
    if isinstance(name, str):
        for attr in ("arguments", "args", "input"):
            if hasattr(obj, attr):
                return [_make_call(name, getattr(obj, attr), fmt, budget, gold)]
    raise ToolCallParseError(
        f"expected a call, got {type(obj).__name__} {_clip(repr(obj), 40)}", format=fmt
    )


def _coerce_mapping(
    obj: Mapping[str, Any],
    parse_text: TextParser | None,
    fmt: str,
    depth: int,
    budget: _Budget,
    gold: bool = False,
) -> list[Call]:
    kind = obj.get("type")
    # OpenAI tool call: {"type": "function", "function": {"name", "arguments"}}
    if (
        "function" in obj
        and isinstance(obj["function"], Mapping)
        and "name" in obj["function"]
        and kind in (None, "function")
    ):
        fn = obj["function"]
        return [_make_call(fn.get("name"), fn.get("arguments", fn.get("parameters")), fmt, budget, gold)]
    # OpenAI assistant message: {"role": ..., "tool_calls": [...]}
    if "tool_calls" in obj and (
        obj["tool_calls"] is None or isinstance(obj["tool_calls"], (list, tuple)) or "role" in obj
        or type(obj["tool_calls"]).__module__ == "numpy"
    ):
        calls = plain_json(obj["tool_calls"])
        if calls is None:
            return []
        if not isinstance(calls, (list, tuple)):
            raise ToolCallParseError("'tool_calls' must be a list", format=fmt)
        return coerce_structured(calls, parse_text=None, fmt=fmt, gold=gold, _depth=depth + 1, _budget=budget)
    # Anthropic content blocks
    if kind == "tool_use":
        return [_make_call(obj.get("name"), obj.get("input"), fmt, budget, gold)]
    if kind in ("text", "thinking", "redacted_thinking", "tool_result"):
        return []
    # Only an assistant turn holds predicted calls: in a chat trace, user and system text
    # and tool results are never calls.
    role = obj.get("role")
    if isinstance(role, str) and role in _NOT_CALLER_ROLES:
        return []
    # A chat message whose content holds the calls (a block list or text)
    if "role" in obj and "content" in obj:
        content = obj["content"]
        if isinstance(content, str):
            return parse_text(content) if parse_text is not None else []
        return coerce_structured(
            content, parse_text=None, fmt=fmt, gold=gold, _depth=depth + 1, _budget=budget
        )
    # {"name", "arguments" | "parameters" | "input" | "args"} or a bare {"name"}
    if "name" in obj and isinstance(obj["name"], str):
        for key in _ARG_KEYS:
            if key in obj:
                return [_make_call(obj["name"], obj[key], fmt, budget, gold)]
        if set(obj) <= {"name", "id", "type"}:
            return [_make_call(obj["name"], None, fmt, budget, gold)]
    # BFCL single-key form {name: {args}} (args may be a JSON string)
    if len(obj) == 1:
        ((name, raw),) = obj.items()
        if isinstance(raw, (Mapping, str)):
            return [_make_call(name, raw, fmt, budget, gold)]
    raise ToolCallParseError(
        f"unrecognised call object with keys {sorted(map(str, obj))[:6]}", format=fmt
    )


# --------------------------------------------------------------------------- BFCL answers


def _bfcl_accepted(values: Any, where: str, *, nested: bool) -> AnyOf:
    if not isinstance(values, list):
        if nested:  # inside a nested answer a bare value is one accepted value
            return AnyOf(normalize_value(values, fmt="bfcl"))
        raise ValueError(
            f"{where}: expected a list of accepted values, got {type(values).__name__} {_clip(repr(values), 40)}"
        )
    if not values:  # BFCL's "no value accepted": never agrees, and omitting it is missing
        return AnyOf._of((), False)
    optional = False
    accepted: list[Any] = []
    for v in values:
        t = type(v)
        # plain scalars are what normalize_value would return them as (the checks it makes
        # on them — a finite float, a string within the size limit — are made here)
        if t is str:
            if not v:
                optional = True
                continue
            if len(v) < _LONG_STRING:
                accepted.append(v)
                continue
        elif (t is int and -_INT_LIMIT < v < _INT_LIMIT) or t is bool or v is None or (t is float and math.isfinite(v)):
            accepted.append(v)
            continue
        if isinstance(v, str) and v == "":
            optional = True
            continue
        if not nested and isinstance(v, Mapping):
            accepted.append(
                NestedAnswer(
                    MappingProxyType(
                        {
                            str(k): _bfcl_accepted(sub, f"{where}.{k}", nested=True)
                            for k, sub in v.items()
                        }
                    )
                )
            )
        elif not nested and isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v):
            accepted.append(
                NestedList(
                    tuple(
                        NestedAnswer(
                            MappingProxyType(
                                {
                                    str(k): _bfcl_accepted(sub, f"{where}[{i}].{k}", nested=True)
                                    for k, sub in d.items()
                                }
                            )
                        )
                        for i, d in enumerate(v)
                    )
                )
            )
        else:
            accepted.append(normalize_value(v, fmt="bfcl"))
    if not accepted:
        accepted = [""]
    return AnyOf._of(tuple(accepted), optional)


#: Strings shorter than this are within the size limit whatever else the value holds.
_LONG_STRING = MAX_BYTES // 2


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
    if isinstance(answer, str):
        answer = load_json(answer, "bfcl")
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
        raise ValueError(f"{where}: expected a list of {{name: {{param: [accepted]}}}}, got {type(answer).__name__}")
    gold: list[GoldCall] = []
    for i, entry in enumerate(answer):
        if not isinstance(entry, Mapping) or len(entry) != 1:
            raise ValueError(f"{where}[{i}]: expected a single-key object {{name: {{param: [accepted]}}}}")
        ((name, params),) = entry.items()
        if isinstance(params, str):
            params = load_json(params, "bfcl")
        if not isinstance(params, Mapping):
            raise ValueError(f"{where}[{i}].{name}: expected an object of parameters")
        args = {
            str(p): _bfcl_accepted(v, f"{where}[{i}].{name}.{p}", nested=False)
            for p, v in params.items()
        }
        gold.append(GoldCall(str(name), MappingProxyType(args)))
    return gold
