"""Canonicalizers and value equality (SPEC §4).

A canonicalizer maps a string to the form in which two strings are compared. Equality is
then structural: booleans never equal numbers, numbers compare numerically, lists compare in
order, dicts by exact keys and equal values, and the canonicalizer is applied to strings at
every depth.
"""

from __future__ import annotations

import hashlib
import marshal
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "Canonicalizer", "CANONICALIZERS", "canon_default", "canon_bfcl", "canon_exact", "resolve_canonicalizer",
    "canonicalizer_name", "values_equal", "value_key", "strictly_identical", "is_empty_value",
    "CheckedCanonicalizer",
]

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
