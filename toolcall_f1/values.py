"""JSON values: the one table of limits, the strict decoder and :class:`DuplicateKeyError`,
the one walker (numpy/plain conversion, content keys), the memo, canonicalizers and equality.

Everything the package decodes as JSON goes through one rule for a key written twice in one
object (SPEC §2): the same value again is one key; a different value is a
:class:`DuplicateKeyError` — a parse error in model output, a ``ValueError`` in a reference,
tools or a data file — where ``json.loads`` (and BFCL) silently keep the last value.

- :data:`JSON_DECODER` reads JSON in model output, JSON text references and ``arguments``
  strings (no NaN/Infinity either); :func:`loads_strict` reads data (the command line's
  lines and files, the demo's boxes, reward columns) and names where the key comes again;
  :func:`held_json` reads JSON text given where a value is expected (a reference, ``tools``).
- :func:`plain_json` turns numpy values into the equal plain values and :func:`is_plain_json`
  tells plain data from anything else, by one walk (:func:`_walk`) within one table of limits;
  :func:`content_key` keys plain data for a :class:`Memo`, the one cache policy: a bounded
  memo owned by a metric (never a module global). When full it is emptied and starts over;
  each operation is one dict operation, so threads sharing a metric cannot break it, and
  metrics in different threads share nothing.
- Canonicalizers and value equality (SPEC §4): a canonicalizer maps a string to the form in
  which two strings are compared. Equality is then structural: booleans never equal numbers,
  numbers compare numerically, lists compare in order, dicts by exact keys and equal values,
  and the canonicalizer is applied to strings at every depth.

This module imports nothing from the package; the error types are defined here, below the
readers that raise them, and are shown under :mod:`toolcall_f1.calls`, which re-exports them
(tracebacks and doctests name them there).
"""

from __future__ import annotations

import hashlib
import io
import json
import marshal
import math
import pickle
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "MAX_BYTES", "MAX_DEPTH", "MAX_INT_DIGITS", "MAX_INT_BITS", "WALK_DEPTH", "WALK_NODES",
    "ToolCallParseError", "DuplicateKeyError", "put_once", "JSON_DECODER", "loads_strict", "held_json",
    "load_json", "check_text_limits", "bracket_depth", "clip", "plain_json", "is_plain_json", "array_plain",
    "content_key", "Memo",
    "Canonicalizer", "CANONICALIZERS", "canon_default", "canon_bfcl", "canon_exact", "resolve_canonicalizer",
    "canonicalizer_name", "values_equal", "value_key", "strictly_identical", "is_empty_value",
    "CheckedCanonicalizer",
]

# --------------------------------------------------------------------------- the limits
# One table for every reader and walker of JSON values:
#
#   MAX_BYTES       1,000,000  text of one input (and what its structured values may spend)
#   MAX_DEPTH              64  nesting of a prediction or reference; deeper is a parse error
#   MAX_INT_DIGITS      4,300  an integer's digits: JSON text cannot carry more (Python's limit)
#   MAX_INT_BITS       14,000  plain JSON data holds integers of fewer bits (a cheap bound below 4,300 digits)
#   WALK_DEPTH            200  how deep the walker goes: past MAX_DEPTH, so the readers report it
#   WALK_NODES      1,000,000  how many containers the walker visits at most (a value holding itself)

#: Inputs larger than this (per example) are parse errors, never a hang.
MAX_BYTES = 1_000_000
#: Inputs nested deeper than this are parse errors, never a RecursionError.
MAX_DEPTH = 64
#: Integers of more decimal digits than this are parse errors everywhere: JSON text cannot
#: carry them (Python's limit on int-string conversion), so a structured input may not either.
MAX_INT_DIGITS = 4300
#: Integers of this many bits or more are not plain JSON data (``json`` writes those of fewer).
MAX_INT_BITS = 14_000
#: How many levels :func:`plain_json` and :func:`is_plain_json` walk.
WALK_DEPTH = 200
#: How many containers :func:`plain_json` and :func:`is_plain_json` visit at most.
WALK_NODES = 1_000_000


# --------------------------------------------------------------------------- errors


def clip(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters, ending in ``...`` when cut.

    Examples
    --------
    >>> clip("abc"), clip("x" * 100, 10)
    ('abc', 'xxxxxxx...')
    """
    return text if len(text) <= limit else text[: limit - 3] + "..."


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

    __module__ = "toolcall_f1.calls"  # its public home (re-exported there), as tracebacks name it

    def __init__(
        self, message: str, *, format: str = "auto", snippet: str | None = None,
        index: int | None = None, where: str | None = None,
    ) -> None:
        self.reason, self.format, self.snippet = message, format, snippet
        self.index, self.where = index, where
        text = f"{format}: {message}" + ("" if snippet is None else f" (in {clip(snippet)!r})")
        super().__init__(text if where is None else f"{where}: {text}")

    def located(self, where: str, index: int | None = None) -> ToolCallParseError:
        """The same error, named after the input it came from (``predictions[3]``)."""
        return ToolCallParseError(
            self.reason, format=self.format, snippet=self.snippet, index=index, where=where
        )


#: Why a key given two values in data is an input error rather than a value.
_DUPLICATE_WHY = "a JSON object names it twice, and only one of its values would be read"


class DuplicateKeyError(ToolCallParseError):
    """A key (JSON key, keyword argument, XML parameter) given two different values in one
    object or call: the one rule every reader follows (:func:`put_once`).

    ``key`` is the key and ``what`` what the format calls it; in data (:func:`loads_strict`,
    ``data=True``) ``line`` and ``column`` (1-based) say where it comes again when that could
    be found, and the message says so; from a reader it is that reader's parse error.

    Examples
    --------
    >>> str(DuplicateKeyError("a", "parameter", "glm45"))
    "glm45: duplicate parameter 'a' with different values"
    >>> err = DuplicateKeyError("city", line=2, column=9, data=True)
    >>> str(err)
    "duplicate key 'city' (column 9): a JSON object names it twice, and only one of its values would be read"
    >>> err.describe("tools")
    "duplicate key 'city' in tools (column 9): a JSON object names it twice, and only one of its values would be read"
    """

    __module__ = "toolcall_f1.calls"  # its public home (re-exported there), as tracebacks name it

    def __init__(
        self, key: str, what: str = "key", format: str = "json", line: int | None = None,
        column: int | None = None, data: bool = False,
    ) -> None:
        self.key, self.what, self.line, self.column, self.data = key, what, line, column, data
        super().__init__(f"duplicate {what} {key!r} with different values", format=format)
        if data:
            self.args = (self.describe(),)

    def describe(self, what: str = "") -> str:
        """The message in data, naming what the JSON is (``"tools"``) when given."""
        in_what = f" in {what}" if what else ""
        at = "" if self.column is None else f" (column {self.column})"
        return f"duplicate key {self.key!r}{in_what}{at}: {_DUPLICATE_WHY}"

    def __reduce__(self) -> tuple[Any, ...]:
        return DuplicateKeyError, (self.key, self.what, self.format, self.line, self.column, self.data)


# --------------------------------------------------------------------------- the decoder


def put_once(obj: dict[str, Any], key: str, value: Any, fmt: str = "json", what: str = "key") -> None:
    """``obj[key] = value`` by the one rule for a key written twice (SPEC §2): the same value
    again is one key; a different value (``1`` and ``1.0`` differ) is a parse error, where a
    plain ``dict`` (and ``json.loads``, and BFCL) would silently keep the last.

    Parameters
    ----------
    obj
        The object or arguments being built.
    key, value
        The key just read and its value.
    fmt
        The reader, named in the error.
    what
        What a key is called in that format (``"key"``, ``"argument"``, ``"parameter"``).

    Raises
    ------
    DuplicateKeyError
        When ``obj`` already holds ``key`` with a value not strictly identical to ``value``.

    Examples
    --------
    >>> args = {"a": 1}
    >>> put_once(args, "a", 1); args
    {'a': 1}
    >>> put_once(args, "a", 1.0, "glm45", "parameter")
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.DuplicateKeyError: glm45: duplicate parameter 'a' with different values
    """
    if key in obj and not strictly_identical(obj[key], value):
        raise DuplicateKeyError(key, what, fmt)
    obj[key] = value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict by :func:`put_once`'s rule (``json.loads`` keeps the last)."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        first: dict[str, Any] = {}
        for key, value in pairs:  # only when a key repeats: linear time
            put_once(first, key, value)
    return obj


def _reject_constant(name: str) -> Any:
    raise ToolCallParseError(f"{name} is not valid JSON", format="json")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ToolCallParseError(f"number {text[:20]!r} is out of range", format="json")
    return value


#: The JSON decoder of every reader: no NaN/Infinity, no key given two values in one object.
JSON_DECODER = json.JSONDecoder(
    parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=_unique_keys
)
#: The same rule for data (:func:`loads_strict`): NaN and Infinity are read as ``json.loads``
#: reads them, and reported where the value is used (a structured call's "non-finite number").
_DATA_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)


def loads_strict(text: str) -> Any:
    r"""``json.loads(text)``, except that an object giving a key two different values is an
    error naming the key and where it comes again (the same value twice is one key).

    The command line reads every JSONL line and JSON file with it, the demo its JSON boxes,
    and the rewards their JSON tools columns, so that ``{"city": "Paris", "city": "Rome"}``
    is never read as ``Rome`` unseen.

    Parameters
    ----------
    text
        JSON text.

    Returns
    -------
    Any
        The JSON value, as ``json.loads`` gives it.

    Raises
    ------
    DuplicateKeyError
        For the first key (in the text) that its object gives another value, with its line
        and column (a ``ValueError``).
    json.JSONDecodeError
        For text that is not JSON (and ``ValueError``, ``RecursionError`` as ``json.loads``).

    Examples
    --------
    >>> loads_strict('{"city": "Paris", "n": [1, 2], "n": [1, 2]}')
    {'city': 'Paris', 'n': [1, 2]}
    >>> loads_strict('[{"a": 1},\n {"a": 1, "b": 2, "a": 3}]')
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.DuplicateKeyError: duplicate key 'a' (column 19): a JSON object names it twice, and only one of its values would be read
    """
    try:
        return _DATA_DECODER.decode(text)
    except DuplicateKeyError as err:
        located = _first_repeat(text)
        raise (DuplicateKeyError(err.key, data=True) if located is None else located) from None


def held_json(value: Any) -> Any:
    """The value JSON text holds, when it holds an object or an array (SPEC §2, "JSON text":
    a reference, ``tools``, a per-example ``{"calls", "tools"}`` object); anything else
    (other text, text that is no JSON, or over :data:`MAX_BYTES`) as it is, to be read as text.

    Decoded by :func:`loads_strict`: the one rule for a key given two values.

    Parameters
    ----------
    value
        Any value; only text (``str``, numpy's ``str_`` too) is decoded.

    Returns
    -------
    Any
        The decoded dict or list, or ``value`` itself.

    Raises
    ------
    DuplicateKeyError
        For JSON text whose object gives a key two different values (a ``ValueError``).

    Examples
    --------
    >>> held_json('[{"name": "f"}]'), held_json(' {"a": 1, "a": 1}'), held_json("[f(a=1)]"), held_json('"[]"')
    ([{'name': 'f'}], {'a': 1}, '[f(a=1)]', '"[]"')
    >>> held_json('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.DuplicateKeyError: duplicate key 'a' (column 10): a JSON object names it twice, and only one of its values would be read
    """
    if not isinstance(value, str):
        return value
    text = value.strip().lstrip("\ufeff")
    if not text or text[0] not in "{[" or len(text) > MAX_BYTES:
        return value
    try:
        held = loads_strict(str(text))
    except DuplicateKeyError:
        raise
    except (ValueError, RecursionError):  # not JSON: text (its reader reports what is wrong)
        return value
    return held if isinstance(held, (dict, list)) else value


# Locating a repeated key: run only once one was found, so it may be slow (but stays linear).
_WS = re.compile(r"[ \t\n\r]*")
_RAW = json.JSONDecoder()


def _ws(s: str, pos: int) -> int:
    """The first index at or after ``pos`` that is not JSON whitespace."""
    m = _WS.match(s, pos)
    return m.end() if m else pos


def _first_repeat(text: str) -> DuplicateKeyError | None:
    """The first key in ``text`` that its object gives a second, different value, with its
    line and column; None when the walk fails (the text has other errors too)."""
    try:
        _value_at(text, _ws(text, 0))
    except DuplicateKeyError as found:
        return found
    except (ValueError, IndexError, RecursionError):
        pass
    return None


def _value_at(s: str, pos: int) -> tuple[Any, int]:
    """The JSON value at ``pos`` and where it ends; :class:`DuplicateKeyError` (with its line
    and column) at the first key in the text whose object gives it a different value — or a
    value holding such a key itself, as the key comes first."""
    opener = s[pos]
    if opener not in "{[":
        return _RAW.raw_decode(s, pos)
    closer = "}" if opener == "{" else "]"
    obj: dict[str, Any] = {}
    items: list[Any] = []
    pos = _ws(s, pos + 1)
    while s[pos] != closer:
        if opener == "[":
            value, pos = _value_at(s, pos)
            items.append(value)
        else:
            if s[pos] != '"':
                raise ValueError("expected a key")
            key, end = _RAW.raw_decode(s, pos)
            at, pos = pos, _ws(s, _ws(s, end) + 1)  # past the ':'
            try:
                value, pos = _value_at(s, pos)
            except DuplicateKeyError:
                if key not in obj:
                    raise
                value = _REPEATED  # differs from any value: this key comes first in the text
            if key in obj and not strictly_identical(obj[key], value):
                line_start = s.rfind("\n", 0, at) + 1
                raise DuplicateKeyError(key, line=s.count("\n", 0, at) + 1, column=at - line_start + 1, data=True)
            obj[key] = value
        pos = _ws(s, pos)
        if s[pos] == ",":
            pos = _ws(s, pos + 1)
    return (obj if opener == "{" else items), pos + 1


_REPEATED = object()  # the value of a key whose value holds a key given two values


def bracket_depth(text: str) -> int:
    """The deepest nesting of ``[ { (`` in ``text``, ignoring quoted strings.

    Examples
    --------
    >>> bracket_depth('[{"a": "[[["}, (1,)]')
    2
    """
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
    """Raise a parse error for text over :data:`MAX_BYTES` or nested over :data:`MAX_DEPTH`.

    Examples
    --------
    >>> check_text_limits("[1, [2]]", "json")
    >>> check_text_limits("[" * 65, "python")
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.ToolCallParseError: python: nested deeper than 64 levels
    """
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
    """``json.loads`` within the limits: no NaN/Infinity, no key given two values, bounded size and depth.

    Raises
    ------
    ToolCallParseError
        For invalid JSON, non-finite numbers, a key given two values in one object, integers
        over 4300 digits, or limits exceeded.

    Examples
    --------
    >>> load_json('{"a": [1, 2.5, "x"], "a": [1, 2.5, "x"]}')
    {'a': [1, 2.5, 'x']}
    >>> load_json('{"a": NaN}')
    Traceback (most recent call last):
    ...
    toolcall_f1.calls.ToolCallParseError: json: NaN is not valid JSON (in '{"a": NaN}')
    """
    check_text_limits(text, fmt)
    try:
        return JSON_DECODER.decode(text)
    except ToolCallParseError as err:
        raise ToolCallParseError(err.reason, format=fmt, snippet=text) from None
    except (ValueError, RecursionError) as failed:  # JSONDecodeError, huge ints
        raise ToolCallParseError(
            f"invalid JSON: {str(failed).splitlines()[0]}", format=fmt, snippet=text
        ) from None


# --------------------------------------------------------------------------- the walker

_SCALARS = frozenset({str, int, float, bool, type(None)})
_LEAVES = frozenset({str, float, bool, type(None)})  # plain as they are (an int is checked for its size)
_LISTS = frozenset({list, tuple})
_CHECK_TUPLES = frozenset({dict, list, tuple})  # the containers plain data may hold
_CHECK_LISTS = frozenset({dict, list})  # ... when it is to be written as JSON as it is


class _NotPlain(Exception):
    """Raised inside :func:`_walk`'s check at the first part that is not plain data."""


def _is_numpy(value: Any) -> bool:
    """A numpy object (scalar or array), told by its type's module: numpy is never imported."""
    return type(value).__module__ == "numpy" and hasattr(value, "tolist")


def _walk(value: Any, depth: int, left: list[int], check: frozenset[type] | None) -> Any:
    """The one walk of a JSON-like value that is not a plain scalar, within :data:`WALK_DEPTH`
    levels and :data:`WALK_NODES` containers (``left`` counts those still allowed).

    ``check`` None (:func:`plain_json`): the value with numpy objects replaced by plain ones,
    containers rebuilt only when something inside changed; past the limits, and anything that
    is not a container or numpy, as it is. ``check`` a set of container types
    (:func:`is_plain_json`): the value itself when it is plain data made of those containers,
    else :class:`_NotPlain` (another type, a key that is no ``str``, an int of
    :data:`MAX_INT_BITS` bits or more, past the limits).
    """
    t = type(value)
    if check is not None and t is int:
        if value.bit_length() >= MAX_INT_BITS:
            raise _NotPlain
        return value
    if depth > WALK_DEPTH or left[0] <= 0:
        if check is None:
            return value
        raise _NotPlain
    left[0] -= 1
    if check is not None:
        if t not in check:
            raise _NotPlain
        if t is dict:
            for k, v in value.items():
                if type(k) is not str:
                    raise _NotPlain
                if type(v) not in _LEAVES and (type(v) is not int or v.bit_length() >= MAX_INT_BITS):
                    _walk(v, depth + 1, left, check)
        else:
            for v in value:
                if type(v) not in _LEAVES and (type(v) is not int or v.bit_length() >= MAX_INT_BITS):
                    _walk(v, depth + 1, left, check)
        return value
    if t in _LISTS:
        items = [v if type(v) in _SCALARS else _walk(v, depth + 1, left, None) for v in value]
        if all(new is old for new, old in zip(items, value)):
            return value
        return items if t is list else tuple(items)
    if t is dict or isinstance(value, Mapping):
        changed = False
        out = {}
        for k, v in value.items():
            pk = k if type(k) in _SCALARS else _walk(k, depth + 1, left, None)
            pv = v if type(v) in _SCALARS else _walk(v, depth + 1, left, None)
            changed = changed or pk is not k or pv is not v
            out[pk] = pv
        return out if changed else value
    if _is_numpy(value):
        plain = array_plain(value)
        return plain if type(plain) in _SCALARS else _walk(plain, depth + 1, left, None)
    return value


def plain_json(value: Any) -> Any:
    """``value`` with every numpy object replaced by the equal plain Python value.

    numpy scalars and 0-d arrays become ``str``, ``bool``, ``int`` or ``float`` (``.item()``),
    n-d arrays become lists (``.tolist()``); dicts, lists and tuples are rebuilt of the same
    kind (a tuple stays a tuple: ``(name, args)`` is a call shape) only when something inside
    them changed — otherwise the very same object is returned. Anything else (strings, numbers,
    ``Call``, ``AnyOf``, ...) is returned as it is. numpy is never imported. Below
    :data:`WALK_DEPTH` levels, or after :data:`WALK_NODES` containers, values are left as they
    are (the readers reject them).

    Parameters
    ----------
    value
        Any value; typically a structured input, perhaps a ``datasets`` row of numpy values.

    Returns
    -------
    Any
        The plain value (``value`` itself when nothing changed).

    Examples
    --------
    >>> import numpy as np
    >>> plain_json({"a": np.int64(1), "b": np.array([[1.5, 2.0]]), "c": (np.str_("x"), np.bool_(True))})
    {'a': 1, 'b': [[1.5, 2.0]], 'c': ('x', True)}
    >>> data = [{"a": 1}]
    >>> plain_json(data) is data
    True
    """
    return value if type(value) in _SCALARS else _walk(value, 0, [WALK_NODES], None)


def is_plain_json(value: Any, *, tuples: bool = True) -> bool:
    """Is ``value`` made only of exact ``dict`` (string keys), ``list``, ``tuple``, ``str``,
    ``int``, ``float``, ``bool`` and ``None`` (no subclasses, numpy or other objects), within
    :data:`WALK_DEPTH` levels and :data:`WALK_NODES` containers, its integers under
    :data:`MAX_INT_BITS` bits?

    Parameters
    ----------
    value
        Any value.
    tuples
        False: a tuple is not plain data either (``json`` would write it as a list).

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> is_plain_json({"a": [1, 2.5, None, ("x", True)]}), is_plain_json({"a": np.int64(1)})
    (True, False)
    >>> is_plain_json([("x", 1)], tuples=False), is_plain_json(2**14_000)
    (False, False)
    """
    if type(value) in _LEAVES:
        return True
    try:
        _walk(value, 0, [WALK_NODES], _CHECK_TUPLES if tuples else _CHECK_LISTS)
    except _NotPlain:
        return False
    return True


def array_plain(value: Any) -> Any:
    """A numpy array or scalar (or anything with ``tolist``) as plain Python values.

    ``tolist()`` (a scalar's is its ``item()``), except that float16 and float32 values become
    the shortest decimal that is the same number in their own precision: a ``datasets`` float32
    column holding ``0.1`` reads as ``0.1``, not ``0.10000000149011612``.

    Parameters
    ----------
    value
        A numpy array or scalar, or another array-like with ``tolist`` (and ``dtype``).

    Returns
    -------
    Any
        Its plain value: a scalar, or nested lists of scalars.

    Examples
    --------
    >>> import numpy as np
    >>> array_plain(np.array([0.1, 2.5], dtype=np.float32)), array_plain(np.float32(0.1)), array_plain(np.int8(3))
    ([0.1, 2.5], 0.1, 3)
    """
    dtype = getattr(value, "dtype", None)
    if getattr(dtype, "kind", "") == "f" and getattr(dtype, "itemsize", 8) < 8:
        return _short_floats(value)
    return value.tolist()


def _short_floats(value: Any) -> Any:
    if getattr(value, "ndim", 0) == 0:
        return float(str(value))  # numpy prints the shortest decimal that round-trips in its precision
    return [_short_floats(v) for v in value]


def _not_plain(obj: Any) -> Any:
    raise pickle.PicklingError(f"not plain data: {type(obj).__name__}")


#: Plain data only: the C pickler writes exact dict, list, tuple, str, int, float, bool, None
#: (bytes, sets) itself and asks ``reducer_override`` about any other object: refused. Made by
#: ``type()``, not a class statement: mypyc would compile one as a native class on the C
#: pickler's base, which it cannot lay out (the compiled build crashed in ``dump``).
_PlainPickler: Any = type("_PlainPickler", (pickle.Pickler,), {"reducer_override": staticmethod(_not_plain)})


def content_key(value: Any, max_bytes: int | None = None) -> bytes | None:
    """The ``pickle`` bytes of plain data (exact dict, list, tuple, str, int, float, bool,
    None), from one C pass that also checks it is plain data: two values that could read
    differently never share them (``1``, ``1.0`` and ``True`` differ, as do tuples and lists,
    and key orders), and equal bytes load back as equal data (``pickle.loads(key)`` is a
    private copy of the value: what a metric compiles and keeps is built from it).

    Not ``marshal``: its newer formats mark objects by reference count (the same object gets
    other bytes once something else holds it), its older ones copy a shared object for each
    parent (40 doubling unions: 2**40 copies). pickle writes a shared object once; the same
    data shared differently (built in code, not read from JSON) may get other bytes: read again.

    Parameters
    ----------
    value
        Any value.
    max_bytes
        No key for data whose bytes are more than this.

    Returns
    -------
    bytes or None
        None (not remembered) for anything else (a numpy value, a mapping: what it pickles as
        need not be what it reads as), data nested too deeply, or bytes over ``max_bytes``.

    Examples
    --------
    >>> content_key([{"x": 1}]) == content_key([{"x": 1.0}]), content_key([{"x": 1}]) == content_key([{"x": 1}])
    (False, True)
    >>> content_key([lambda: 1]) is None, content_key("x" * 100, max_bytes=10) is None
    (True, True)
    """
    out = io.BytesIO()
    try:
        _PlainPickler(out, protocol=5).dump(value)
    except (pickle.PicklingError, RecursionError):  # not plain data, or too deep
        return None
    key = out.getvalue()
    return key if max_bytes is None or len(key) <= max_bytes else None


class Memo(dict):  # type: ignore[type-arg]
    """A dict of at most ``size`` entries, emptied when full: ``get`` is the dict's own, and
    :meth:`put` remembers.

    Examples
    --------
    >>> memo = Memo(2)
    >>> memo.put("a", 1); memo.put("b", 2); memo.get("a")
    1
    >>> memo.put("c", 3); memo.get("a") is None, memo.get("c")   # full: emptied first
    (True, 3)
    """

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: Any, value: Any) -> None:
        """Remember ``value`` for ``key`` (emptying the memo first when it is full)."""
        if len(self) >= self.size:
            self.clear()
        self[key] = value


# --------------------------------------------------------------------------- canonicalizers and equality

Canonicalizer = Callable[[str], str]

_WHITESPACE = re.compile(r"\s+")
# BFCL's standardize_string: re.sub(r"[ \,\.\/\-\_\*\^]", "", s).lower().replace("'", '"')
_BFCL_DROP = str.maketrans("", "", " ,./-_*^")


def canon_default(text: str) -> str:
    """Casefold, fold runs of whitespace to one space, strip the ends.

    Examples
    --------
    >>> canon_default("  New   YORK ")
    'new york'
    >>> canon_default("Straße")
    'strasse'
    """
    return _WHITESPACE.sub(" ", text.casefold()).strip()


def canon_bfcl(text: str) -> str:
    """BFCL's string standardisation, exactly: drop spaces and ``, . / - _ * ^``, lower, ``'``→``"``.

    Examples
    --------
    >>> canon_bfcl("Jan.28, 2021")
    'jan282021'
    >>> canon_bfcl("it's")
    'it"s'
    >>> canon_bfcl("a\\tb")  # tabs are kept, as in BFCL
    'a\\tb'
    """
    return text.translate(_BFCL_DROP).lower().replace("'", '"')


def canon_exact(text: str) -> str:
    """Identity: strings must match exactly.

    Examples
    --------
    >>> canon_exact("New York")
    'New York'
    """
    return text


CANONICALIZERS: dict[str, Canonicalizer] = {
    "default": canon_default,
    "bfcl": canon_bfcl,
    "exact": canon_exact,
}


def resolve_canonicalizer(canon: str | Canonicalizer | None) -> Canonicalizer:
    """Turn a canonicalizer name (or callable, or None for ``"default"``) into a function.

    Raises
    ------
    ValueError
        For an unknown name or something that is neither a name nor a callable.

    Examples
    --------
    >>> resolve_canonicalizer("bfcl")("A-B")
    'ab'
    >>> resolve_canonicalizer("fuzzy")
    Traceback (most recent call last):
    ...
    ValueError: canonicalizer: unknown name 'fuzzy'; expected one of 'default', 'bfcl', 'exact' or a callable str -> str
    """
    return _resolve("canonicalizer", canon, CANONICALIZERS, canon_default)


def _resolve(
    setting: str, canon: Any, table: Mapping[str, Canonicalizer], default: Canonicalizer
) -> Canonicalizer:
    if canon is None:
        return default
    if isinstance(canon, str):
        try:
            return table[canon]
        except KeyError:
            names = ", ".join(repr(n) for n in table)
            raise ValueError(
                f"{setting}: unknown name {canon!r}; expected one of {names} or a callable str -> str"
            ) from None
    if callable(canon):
        if any(canon is fn for fn in table.values()) or canon is default:
            return canon  # type: ignore[no-any-return]  # (the package's own: always a str)
        return CheckedCanonicalizer(canon, setting)
    raise ValueError(f"{setting}: expected a name or a callable str -> str, got {type(canon).__name__}")


class CheckedCanonicalizer:
    """A canonicalizer supplied by the user, whose every result is checked to be a ``str``
    (SPEC §4): ``lambda s: None`` would make every pair of strings equal, and a list as a
    tool name's form fails far from its cause. Picklable when the function is.

    Raises
    ------
    TypeError
        When the function returns anything but a ``str``, naming the setting and the function.

    Examples
    --------
    >>> CheckedCanonicalizer(str.upper, "canonicalizer")("paris")
    'PARIS'
    >>> CheckedCanonicalizer(lambda s: None, "canonicalizer")("Paris")
    Traceback (most recent call last):
    ...
    TypeError: canonicalizer <lambda> returned NoneType None for 'Paris'; a canonicalizer must return a str for every string
    """

    __slots__ = ("fn", "setting")

    def __init__(self, fn: Callable[[str], Any], setting: str) -> None:
        self.fn = fn
        self.setting = setting

    def __call__(self, text: str) -> str:
        out = self.fn(text)
        if type(out) is not str and not isinstance(out, str):
            name = getattr(self.fn, "__qualname__", None) or repr(self.fn)
            raise TypeError(f"{self.setting} {name} returned {type(out).__name__} {_short(out)} for {_short(text)}; "
                            f"a {self.setting.replace('_', ' ')} must return a str for every string")
        return out

    def __repr__(self) -> str:
        return f"CheckedCanonicalizer({self.fn!r}, {self.setting!r})"

    def __reduce__(self) -> tuple[Any, ...]:  # its arguments (a compiled build rebuilds it with them)
        return CheckedCanonicalizer, (self.fn, self.setting)


def _short(value: Any) -> str:
    """``repr(value)``, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def canonicalizer_name(canon: str | Canonicalizer | None) -> str:
    """The name a canonicalizer carries in the signature string.

    Examples
    --------
    >>> canonicalizer_name(None), canonicalizer_name("bfcl"), canonicalizer_name(str.upper)
    ('default', 'bfcl', 'custom:str.upper')
    >>> canonicalizer_name(lambda s: s) != canonicalizer_name(lambda s: s.lower())
    True
    """
    return _name_of(canon, CANONICALIZERS, "default")


def _name_of(canon: Any, table: Mapping[str, Canonicalizer], default: str) -> str:
    """A setting's name in the signature: its table name, else ``custom:<qualname>#<hash of
    its code>`` (two different lambdas do not share a signature)."""
    if canon is None:
        return default
    if isinstance(canon, str):
        return canon
    for name, fn in table.items():
        if fn is canon:
            return name
    name = getattr(canon, "__qualname__", type(canon).__name__)
    code = getattr(canon, "__code__", None)
    if code is None:
        return f"custom:{name}"
    return f"custom:{name}#{hashlib.sha1(marshal.dumps(code)).hexdigest()[:6]}"


def values_equal(pred: Any, gold: Any, canon: Canonicalizer) -> bool:
    """Structural equality of two JSON values under a canonicalizer (SPEC §4).

    Examples
    --------
    >>> values_equal(1, 1.0, canon_exact), values_equal(True, 1, canon_exact)
    (True, False)
    >>> values_equal(["A", "b"], ["a", "B"], canon_default)
    True
    >>> values_equal(["a", "b"], ["b", "a"], canon_default)   # lists are ordered
    False
    >>> values_equal({"k": " X "}, {"k": "x"}, canon_default)
    True
    """
    if isinstance(pred, str):
        return isinstance(gold, str) and (pred == gold or canon(pred) == canon(gold))
    if isinstance(pred, bool) or isinstance(gold, bool):
        return isinstance(pred, bool) and isinstance(gold, bool) and pred is gold
    if isinstance(pred, (int, float)):  # neither is a bool here
        return isinstance(gold, (int, float)) and pred == gold
    if pred is None:
        return gold is None
    if isinstance(pred, (list, tuple)):
        if not isinstance(gold, (list, tuple)) or len(pred) != len(gold):
            return False
        return all(values_equal(p, g, canon) for p, g in zip(pred, gold))
    if isinstance(pred, Mapping):
        if not isinstance(gold, Mapping) or pred.keys() != gold.keys():
            return False
        return all(values_equal(pred[k], gold[k], canon) for k in pred)
    return False


#: The canonicalizers :func:`value_key` may use: plain functions of a string to a string.
KEYED_CANONICALIZERS = frozenset({canon_default, canon_bfcl, canon_exact})


def value_key(value: Any, canon: Canonicalizer, depth: int = 0) -> Any:
    """A hashable key of a JSON value such that, for values ``a`` and ``b`` with keys,
    ``value_key(a) == value_key(b)`` exactly when ``values_equal(a, b, canon)``; None for a
    value that has no key (NaN, objects that are not JSON data, nesting over 100 levels).

    It lets a value be canonicalized once and then compared with many by a set lookup.
    Only for the canonicalizers in :data:`KEYED_CANONICALIZERS`.

    Examples
    --------
    >>> value_key(1, canon_exact) == value_key(1.0, canon_exact), value_key(True, canon_exact) == value_key(1, canon_exact)
    (True, False)
    >>> value_key({"k": [" X "]}, canon_default) == value_key({"k": ["x"]}, canon_default)
    True
    >>> value_key(float("nan"), canon_exact) is None
    True
    """
    t = type(value)
    if t is str:
        return ("s", canon(value))
    if t is bool:
        return ("b", value)
    if t is int:
        return ("n", value)
    if t is float:
        return ("n", value) if value == value else None
    if value is None:
        return ("z",)
    if depth >= 100:
        return None
    if t is list or t is tuple:
        items = []
        for v in value:
            k = value_key(v, canon, depth + 1)
            if k is None:
                return None
            items.append(k)
        return ("l", tuple(items))
    if t is dict:
        pairs = []
        for k, v in value.items():
            vk = value_key(v, canon, depth + 1)
            if vk is None or type(k) is not str:
                return None
            pairs.append((k, vk))
        return ("d", frozenset(pairs))
    return None  # subclasses and other objects: compared by values_equal itself


def strictly_identical(a: Any, b: Any) -> bool:
    """Equality that also tells types apart (``1`` vs ``1.0``, ``True`` vs ``1``).

    Used for repeated keyword arguments, where only an identical repeat is harmless.

    Examples
    --------
    >>> strictly_identical(1, 1.0), strictly_identical([1, "a"], [1, "a"])
    (False, True)
    """
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(strictly_identical(x, y) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, Mapping):
        return a.keys() == b.keys() and all(strictly_identical(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return bool(a == b)


def is_empty_value(value: Any) -> bool:
    """An *empty value* (``""`` or ``[]``), which counts as omitted for an optional argument.

    Examples
    --------
    >>> is_empty_value(""), is_empty_value([]), is_empty_value(0), is_empty_value(None)
    (True, True, False, False)
    """
    return (isinstance(value, str) and value == "") or (
        isinstance(value, (list, tuple)) and len(value) == 0
    )


NameCanonicalizer = Callable[[str], str]


def name_underscore(name: str) -> str:
    """Read every ``.`` in a tool name as ``_`` (``math.factorial`` → ``math_factorial``).

    Examples
    --------
    >>> name_underscore("math.factorial")
    'math_factorial'
    """
    return name.replace(".", "_")


NAME_CANONICALIZERS: dict[str, NameCanonicalizer] = {
    "exact": canon_exact,
    "underscore": name_underscore,
}


def resolve_name_canonicalizer(canon: str | NameCanonicalizer | None) -> NameCanonicalizer:
    """Turn a name canonicalizer (``"exact"``, ``"underscore"``, a callable or None) into a function.

    Raises
    ------
    ValueError
        For an unknown name or something that is neither a name nor a callable.

    Examples
    --------
    >>> resolve_name_canonicalizer("underscore")("a.b")
    'a_b'
    >>> resolve_name_canonicalizer("dots")
    Traceback (most recent call last):
    ...
    ValueError: name_canonicalizer: unknown name 'dots'; expected one of 'exact', 'underscore' or a callable str -> str
    """
    return _resolve("name_canonicalizer", canon, NAME_CANONICALIZERS, canon_exact)


def name_canonicalizer_name(canon: str | NameCanonicalizer | None) -> str:
    """The name a name canonicalizer carries in the signature string.

    Examples
    --------
    >>> name_canonicalizer_name(None), name_canonicalizer_name(str.lower)
    ('exact', 'custom:str.lower')
    """
    return _name_of(canon, NAME_CANONICALIZERS, "exact")
