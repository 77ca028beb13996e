"""Inputs as exact JSON text: how the evaluate module stores what is added to it.

evaluate keeps every added input in an Arrow table until ``compute()``. Each prediction and
reference is stored as one JSON text (:func:`dumps`), made when it is added, and read back
(:func:`loads`) as the very input the core would have been given:

- numpy values and other array-likes (anything with ``tolist`` and ``dtype``) become the
  equal plain values (``np.str_`` a ``str``, ``np.int64`` an ``int``, arrays lists);
- tuples stay tuples (a ``(name, args)`` tuple is a call where a call is expected), and
  :class:`~toolcall_f1.Call`, :class:`~toolcall_f1.AnyOf` and other libraries' call objects
  come back as such; integers longer than ``json`` writes (4,300 digits) travel as hex —
  each as a marked object ``{"__toolcall_f1__": kind, ...}`` (an input's own object with that
  key is marked too, so it comes back as data);
- an input that is not JSON data (a set, bytes, an object) is stored as its error and comes
  back as the :class:`~toolcall_f1.ToolCallParseError` the scorer reports for it.

Floats keep every bit (``repr``), ``-0.0``, ``nan`` and lone surrogates included (the text is
ASCII), and nothing is parsed: text stays text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .calls import AnyOf, Call, ToolCallParseError
from .values import MAX_INT_BITS, WALK_DEPTH, array_plain, is_plain_json

__all__ = ["StoredInputs", "dumps", "loads"]

_MARK = "__toolcall_f1__"  # a stored object with this key is one of the marked shapes below
_NOT_JSON = {set: "a set", frozenset: "a set", bytes: "bytes", complex: "a complex number"}
# json's own cycle check is not needed (and costs a sixth of the writing): what it is given has
# been walked to a bounded depth (:func:`~toolcall_f1.values.is_plain_json`, :func:`_to_json`),
# so it holds no cycle
_write = json.JSONEncoder(check_circular=False).encode


def _to_json(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data, marking what JSON cannot say; TypeError if not data."""
    if depth > WALK_DEPTH:  # deeper than the core's own limit (64), which then reports it as it would
        raise ValueError(f"nested deeper than {WALK_DEPTH} levels")
    t = type(value)
    if t is str or t is float or t is bool or value is None:
        return value
    if t is int:
        return value if value.bit_length() < MAX_INT_BITS else {_MARK: "int", "hex": hex(value)}
    if t is list:
        return [_to_json(v, depth + 1) for v in value]
    if t is dict:
        return _object(value, depth)
    if t is tuple:
        return {_MARK: "tuple", "items": [_to_json(v, depth + 1) for v in value]}
    if isinstance(value, AnyOf):
        return {_MARK: "anyof", "optional": value.optional, "values": _to_json(list(value.values), depth)}
    if isinstance(value, Call):
        return {_MARK: "call", "name": value.name, "arguments": _to_json(dict(value.arguments), depth)}
    if isinstance(value, (str, float)):  # subclasses (numpy's str_ and float64): json writes them as the base
        return value
    if isinstance(value, int):
        return _to_json(int(value), depth)
    if isinstance(value, Mapping):
        return _object(dict(value), depth)
    if hasattr(value, "tolist") and hasattr(value, "dtype"):  # numpy (and torch) arrays and scalars
        return _to_json(array_plain(value), depth + 1)
    name = getattr(value, "name", None)
    for attr in ("arguments", "args", "input"):
        if isinstance(name, str) and hasattr(value, attr):  # a call object of another library
            return {_MARK: "object", "name": name, "arguments": _to_json(getattr(value, attr), depth + 1)}
    raise TypeError(f"{_NOT_JSON.get(t, 'a ' + t.__name__)} is not a JSON value")


def _object(value: dict[Any, Any], depth: int) -> dict[str, Any]:
    for k in value:
        if type(k) is not str:
            if not isinstance(k, str):
                raise TypeError(f"object keys must be strings, got {type(k).__name__} {k!r}")
            return _object({str(k): v for k, v in value.items()}, depth)
    out = {k: _to_json(v, depth + 1) for k, v in value.items()}
    return {_MARK: "dict", "items": out} if _MARK in out else out


def dumps(value: Any) -> str:
    """One input as the exact JSON text it is stored as; what is not data stores its error.

    Parameters
    ----------
    value
        A prediction or a reference, in any shape the scorer reads.

    Returns
    -------
    str
        ASCII JSON text; :func:`loads` gives back the input (see the module docstring).

    Examples
    --------
    >>> dumps("[f(x=1)]")
    '"[f(x=1)]"'
    >>> dumps([("f", {"x": 0.1})])
    '[{"__toolcall_f1__": "tuple", "items": ["f", {"x": 0.1}]}]'
    >>> loads(dumps([("f", {"x": 0.1})]))
    [('f', {'x': 0.1})]
    >>> loads(dumps({1, 2}))
    ToolCallParseError('structured: a set is not a JSON value')
    """
    if type(value) is str:
        return _write(value)
    if is_plain_json(value, tuples=False):  # the common case: already JSON data, written as it is (C speed)
        text = _write(value)
        if _MARK not in text:
            return text
    try:
        return _write(_to_json(value))
    except (TypeError, ValueError, RecursionError) as err:
        return _write({_MARK: "error", "message": str(err)})


def _revive(value: Any) -> Any:
    """A stored JSON value back to the input it was made from (see :func:`_to_json`)."""
    if isinstance(value, list):
        return [_revive(v) for v in value]
    if not isinstance(value, dict):
        return value
    mark = value.get(_MARK)
    if mark is None:
        return {k: _revive(v) for k, v in value.items()}
    if mark == "tuple":
        return tuple(_revive(v) for v in value["items"])
    if mark == "int":
        return int(value["hex"], 16)
    if mark == "dict":
        return {k: _revive(v) for k, v in value["items"].items()}
    if mark == "anyof":
        return AnyOf(*_revive(value["values"]), optional=value["optional"])
    if mark == "call":
        return Call(value["name"], _revive(value["arguments"]))
    if mark == "object":
        return _CallObject(value["name"], _revive(value["arguments"]))
    if mark == "error":
        return ToolCallParseError(value["message"], format="structured")
    raise ValueError(f"unknown mark {mark!r}")


def loads(text: str) -> Any:
    """A stored input read back (the revival walk only when something was marked).

    Parameters
    ----------
    text
        What :func:`dumps` wrote.

    Returns
    -------
    Any
        The input, with numpy values as plain values; an input that was not JSON data comes
        back as the :class:`~toolcall_f1.ToolCallParseError` it gives.

    Raises
    ------
    ValueError
        For text that :func:`dumps` did not write (damaged storage), saying so.

    Examples
    --------
    >>> import numpy as np
    >>> loads(dumps({"a": np.int64(3), "b": np.array([0.5, 1.0])}))
    {'a': 3, 'b': [0.5, 1.0]}
    >>> loads('{"__toolcall_f1__": "tuple"}')
    Traceback (most recent call last):
    ...
    ValueError: a stored toolcall_f1 input could not be read back: KeyError 'items'
    """
    try:
        value = json.loads(text)
        return _revive(value) if _MARK in text else value
    except (ValueError, KeyError, TypeError) as err:
        raise ValueError(f"a stored toolcall_f1 input could not be read back: {type(err).__name__} {err}") from None


class _CallObject:
    """A call object of another library, as stored: its ``name`` and ``arguments``."""

    def __init__(self, name: str, arguments: Any) -> None:
        self.name, self.arguments = name, arguments


class StoredInputs(Sequence[Any]):
    """Stored texts read back one at a time, as the scorer reaches them (never all at once).

    A text equal to the one read just before it gives back that same value, read once:
    consecutive examples often share their reference (one prompt's sampled answers, the
    records of a BFCL entry with their tool schemas). An error is read afresh each time (it
    is raised where it is read).

    Examples
    --------
    >>> inputs = StoredInputs([dumps("[f()]"), dumps([("f", {})]), dumps([("f", {})])])
    >>> len(inputs), inputs[1], inputs[:1], inputs[2] is inputs[1]
    (3, [('f', {})], ['[f()]'], True)
    """

    def __init__(self, texts: Sequence[str]) -> None:
        self._texts = texts
        self._last_text: str | None = None
        self._last_value: Any = None

    def __len__(self) -> int:
        return len(self._texts)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [loads(t) for t in self._texts[index]]
        text = self._texts[index]
        if text == self._last_text:
            return self._last_value
        value = loads(text)
        if not isinstance(value, ToolCallParseError):
            self._last_text, self._last_value = text, value
        return value
