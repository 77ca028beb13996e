"""``Settings``: every option that changes the number, as one frozen, validated value.

One declarative table (:data:`_TABLE`, scikit-learn's ``_param_validation``) says, per field,
which names it accepts (:meth:`Settings.allowed`), what else it accepts, the error for
anything else, and the field's key in the ``signature`` (sacrebleu's ``_abbr``). Every entry
point builds a :class:`Settings` and nothing else: the :class:`~toolcall_f1.ToolCallMetric`
constructor builds one, its ``compute()`` keywords a changed copy (:meth:`Settings.replace`),
and the command line, the Trainer helper, the reward and the evaluate adapter read their
choices and keywords from here.

What changes only the *output* (``per_tool``, ``return_details``, ``progress``:
:data:`OUTPUT_OPTIONS`) is not a setting: it is never in the signature, and a result's
numbers are the same with or without it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .parsing import FORMATS
from .rules import describe_rules, validate_rules
from .schema import merge_tools, validate_weights
from .templates import template_reader
from .values import (CANONICALIZERS, NAME_CANONICALIZERS, DuplicateKeyError, canonicalizer_name, content_key, held_json,
                     name_canonicalizer_name)

__all__ = ["CORPUS_OPTIONS", "LEVELS", "MATCHINGS", "ORDERS", "OUTPUT_OPTIONS", "VERSION", "Settings", "check_choice", "digest",
           "keyword_error", "tools_value"]

#: The scoring rules' version, the signature's last field: bumped when a setting's meaning changes.
VERSION = "0.1.0"

#: The scoring levels and the matchers (the ``level`` and ``matching`` settings' names;
#: :mod:`~toolcall_f1.matching` implements them).
LEVELS = ("call", "arg")
MATCHINGS = ("greedy", "optimal")
#: Which sets of pairs are allowed (SPEC §5b): ``"any"``, the calls of an example as a multiset;
#: ``"strict"``, only pairs that keep both orders; ``"turns"``, an example is a conversation and
#: calls pair only within one turn (:mod:`~toolcall_f1.turns`).
ORDERS = ("any", "strict", "turns")

#: ``compute()`` options that change what is returned, never the numbers: not settings.
OUTPUT_OPTIONS = ("per_tool", "return_details", "progress")
#: ``compute()`` options that add how sure the number is (SPEC §8b): an interval (its settings
#: enter the signature when one is asked for) and pass@k. ``groups=`` is the core's alone (through
#: evaluate and the CLI a reference's ``"group"`` key gives the groups).
CORPUS_OPTIONS = ("confidence_level", "n_resamples", "seed", "pass_k")

#: The reference formats: the formats known when the package is imported ("auto", "bfcl" for
#: BFCL's possible answers, and the text formats).
_REFERENCE_FORMATS = tuple(FORMATS)


def check_choice(value: Any, choices: Sequence[str], what: str) -> Any:
    """``value`` when it is one of ``choices``; else a ValueError naming both.

    Examples
    --------
    >>> check_choice("arg", ("call", "arg"), "level")
    'arg'
    >>> check_choice("token", ("call", "arg"), "level")
    Traceback (most recent call last):
    ...
    ValueError: level: unknown value 'token'; expected one of 'call', 'arg'
    """
    if value not in choices:
        raise ValueError(f"{what}: unknown value {value!r}; expected one of " + ", ".join(repr(c) for c in choices))
    return value


def keyword_error(where: str, given: str, valid: Iterable[str]) -> TypeError:
    """The error for a keyword that is not among ``valid``: it names the nearest valid one
    (``difflib``), else lists them all.

    Examples
    --------
    >>> print(keyword_error("compute()", "per_tools", ("per_tool", "progress")))
    compute() got an unexpected keyword argument 'per_tools'; did you mean 'per_tool'?
    >>> print(keyword_error("compute()", "zzz", ("per_tool", "progress")))
    compute() got an unexpected keyword argument 'zzz'; expected one of 'per_tool', 'progress'
    """
    valid = tuple(valid)
    near = difflib.get_close_matches(given, valid, n=1)
    hint = f"did you mean {near[0]!r}?" if near else "expected one of " + ", ".join(map(repr, valid))
    return TypeError(f"{where} got an unexpected keyword argument {given!r}; {hint}")


#: The JSON text a digest hashes: ``json.dumps(obj, sort_keys=True, default=repr, ensure_ascii=True)``,
#: its encoder made once (``json.dumps`` with options builds one per call).
_DIGEST_JSON = json.JSONEncoder(sort_keys=True, default=repr, ensure_ascii=True)


def digest(obj: Any) -> str:
    """Eight hex digits naming a JSON-like value (stable across runs and key order): the
    signature's ``w:`` field, and a reference's own tools.

    Examples
    --------
    >>> digest({"a": 1, "b": [2]}) == digest({"b": [2], "a": 1}), len(digest([]))
    (True, 8)
    """
    try:
        text = _DIGEST_JSON.encode(obj)
    except (TypeError, ValueError, RecursionError):
        text = _bounded_text(obj)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _bounded_text(obj: Any, depth: int = 0) -> str:
    """A deterministic rendering of data too deep (or odd) for ``json.dumps``; cut below 200
    levels, so such schemas differing only that deep share a digest."""
    if depth > 200:
        return "..."
    if isinstance(obj, Mapping):
        items = sorted((str(k), _bounded_text(v, depth + 1)) for k, v in obj.items())
        return "{" + ",".join(f"{k!r}:{v}" for k, v in items) + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + ",".join(_bounded_text(v, depth + 1) for v in obj) + "]"
    return repr(obj)


# --------------------------------------------------------------------------- the table


def _canonicalizer(what: str) -> Callable[[Any], Any]:
    """What a canonicalizer setting accepts besides a name: a callable (None: the default)."""

    def accept(value: Any) -> Any:
        if callable(value):
            return value
        raise ValueError(f"{what}: expected a name or a callable str -> str, got {type(value).__name__}")

    return accept


def tools_value(value: Any) -> Any:
    """Tool schemas as given, or the list (or object) that JSON text holds (SPEC §2, "JSON text").

    Raises
    ------
    ValueError
        For JSON text giving a key two different values, naming the key.

    Examples
    --------
    >>> tools_value('[{"name": "f"}]'), tools_value([{"name": "f"}])
    ([{'name': 'f'}], [{'name': 'f'}])
    >>> tools_value('[{"name": "f", "name": "g"}]')
    Traceback (most recent call last):
    ...
    ValueError: duplicate key 'name' in tools (column 16): a JSON object names it twice, and only one of its values would be read
    """
    try:
        return held_json(value)
    except DuplicateKeyError as err:
        raise ValueError(err.describe("tools")) from None


def _own_tools(value: Any) -> list[Mapping[str, Any]]:
    """Tool schemas merged by name, as the settings' own copy (the caller may change theirs)."""
    tools = merge_tools(tools_value(value))
    key = content_key(tools)
    return pickle.loads(key) if key is not None else tools  # type: ignore[no-any-return]


class _Rule(NamedTuple):
    """One row of the table: what a field accepts, the error for anything else, its key in
    the signature."""

    names: Callable[[], tuple[str, ...]] | None  # the fixed set of names, if the field has one
    unknown: str  # the error for a name (any value, without ``other``) not among them
    other: Callable[[Any], Any] | None = None  # accepts (and normalises) a value that is not a name
    default: str | None = None  # what None stands for
    abbr: str | None = None  # the field's key in the signature; None: not in it (tools and weights: w)
    show: Callable[[Any], str] = str  # the value as the signature writes it
    per_call: bool = False  # compute() and metric(...) keywords may change it for one call
    omit_empty: bool = False  # left out of the signature when empty (rules: SPEC §8)


def _rules_text(rules: Mapping[str, Any]) -> str:
    """The ``rules:`` field of the signature: a digest of the rules, a callable by its code
    (the field is left out without rules: SPEC §8)."""
    return digest(describe_rules(rules))


_UNKNOWN = "{what}: unknown value {value!r}; expected one of {names}"
_UNKNOWN_CANON = "{what}: unknown name {value!r}; expected one of {names} or a callable str -> str"

#: Every setting: field name → its rule. The order is the signature's.
_TABLE: dict[str, _Rule] = {
    "level": _Rule(lambda: LEVELS, _UNKNOWN, abbr="level"),
    "matching": _Rule(lambda: MATCHINGS, _UNKNOWN, abbr="match"),
    "order": _Rule(lambda: ORDERS, _UNKNOWN, abbr="order", per_call=True),
    "canonicalizer": _Rule(lambda: tuple(CANONICALIZERS), _UNKNOWN_CANON, _canonicalizer("canonicalizer"),
                           "default", "canon", canonicalizer_name),
    "name_canonicalizer": _Rule(lambda: tuple(NAME_CANONICALIZERS), _UNKNOWN_CANON, _canonicalizer("name_canonicalizer"),
                                "exact", "names", name_canonicalizer_name),
    "prediction_format": _Rule(lambda: tuple(FORMATS), _UNKNOWN + ", or a response template", template_reader,
                               abbr="pred", per_call=True),
    "reference_format": _Rule(lambda: _REFERENCE_FORMATS, _UNKNOWN, abbr="ref", per_call=True),
    "on_parse_error": _Rule(lambda: ("count", "raise"), _UNKNOWN),
    "tools": _Rule(None, "", _own_tools, per_call=True),
    "weights": _Rule(None, "", validate_weights, per_call=True),
    "rules": _Rule(None, "", validate_rules, abbr="rules", show=_rules_text, per_call=True, omit_empty=True),
}


def _check(name: str, value: Any) -> Any:
    """``value`` for the field ``name``, checked (and normalised) by its rule."""
    rule = _TABLE[name]
    if value is None and rule.default is not None:
        return rule.default
    if rule.names is not None and (rule.other is None or isinstance(value, str)):
        names = rule.names()
        if value not in names:
            raise ValueError(rule.unknown.format(what=name, value=value, names=", ".join(map(repr, names))))
        return value
    return rule.other(value)  # type: ignore[misc]


# --------------------------------------------------------------------------- the value


@dataclass(frozen=True, slots=True)
class Settings:
    """Every option that changes the number, validated on construction (one table).

    Parameters
    ----------
    level
        ``"call"`` (a call is a TP only on an exact match) or ``"arg"`` (partial credit).
    matching
        ``"greedy"`` or ``"optimal"``.
    order
        ``"any"`` (the calls of an example as a multiset), ``"strict"`` (pairs keep both
        orders; the set of them with the optimal objective, whatever ``matching`` says) or
        ``"turns"`` (a reference ``{"turns": [...]}`` and one prediction entry per turn; calls
        pair only within a turn: SPEC §5b). A ``compute()`` keyword may change it for one call.
    canonicalizer
        A name (``"default"``; None means it), or a callable ``str -> str``.
    name_canonicalizer
        ``"exact"`` (None means it), ``"underscore"``, or a callable.
    prediction_format
        A format name, or a response template (a dict, a tokenizer with
        ``.response_template``, a :class:`~toolcall_f1.templates.TemplateReader`): kept as its
        compiled reader.
    reference_format
        A format name (``"bfcl"`` for BFCL's possible answers).
    on_parse_error
        ``"count"`` or ``"raise"``: whether an unreadable prediction is counted or raised (it
        changes no number, so it is not in the signature).
    tools, weights
        Tool schemas (merged by name; the settings keep their own copy) and weight overrides
        (normalised by :func:`~toolcall_f1.schema.validate_weights`); they enter the signature
        as one digest (``w:``).
    rules
        Argument rules ``{tool: {argument: rule}}`` (SPEC §6b; normalised by
        :func:`~toolcall_f1.rules.validate_rules`); in the signature as ``rules:`` (a digest,
        a callable by its code) when there are any.

    Settings are hashable (two with equal fields and equal tools and weights are equal) and
    pickle.

    Raises
    ------
    ValueError
        For a value the table does not accept, naming the field, the value and what is accepted.

    Examples
    --------
    >>> s = Settings(level="arg")
    >>> s.signature()
    'level:arg|match:greedy|order:any|canon:default|names:exact|pred:auto|ref:auto|w:none|v:0.1.0'
    >>> s.replace(matching="optimal") == Settings(level="arg", matching="optimal")
    True
    >>> Settings.allowed("level")
    ('call', 'arg')
    >>> Settings(level="token")
    Traceback (most recent call last):
    ...
    ValueError: level: unknown value 'token'; expected one of 'call', 'arg'
    """

    level: str = "call"
    matching: str = "greedy"
    order: str = "any"
    canonicalizer: Any = "default"
    name_canonicalizer: Any = "exact"
    prediction_format: Any = "auto"
    reference_format: str = "auto"
    on_parse_error: str = "count"
    tools: Any = field(default=None, compare=False)
    weights: Any = field(default=None, compare=False)
    rules: Any = field(default=None, compare=False)
    _content: Any = field(init=False, repr=False, default=None)  # tools and weights, as a hashable key
    #: The signature's settings fields and its ``w:`` digest without references' own tools,
    #: written once (:func:`_sign`). (Not named ``_signed``: mypyc's C names it ``__signed``, a GCC keyword.)
    _signed_parts: tuple[str, str] = field(init=False, repr=False, compare=False, default=("", ""))
    #: The whole signature when no reference brings its own tools and no corpus option adds a
    #: part (``signature()`` with no arguments), written once: what a plain ``compute()`` returns.
    base_signature: str = field(init=False, repr=False, compare=False, default="")

    def __post_init__(self) -> None:
        for name in _TABLE:
            value = getattr(self, name)
            checked = _check(name, value)
            if checked is not value:
                object.__setattr__(self, name, checked)
        object.__setattr__(self, "_content", _content_of(self.tools, self.weights, self.rules))
        _sign(self)

    @classmethod
    def allowed(cls, name: str) -> tuple[str, ...]:
        """The names a field accepts (for the fields with a fixed set: every field but
        ``tools`` and ``weights``; canonicalizers and formats take more than names).

        Raises
        ------
        ValueError
            For a field without a fixed set of names, or no field at all.

        Examples
        --------
        >>> Settings.allowed("canonicalizer"), Settings.allowed("on_parse_error")
        (('default', 'bfcl', 'exact'), ('count', 'raise'))
        >>> Settings.allowed("tools")
        Traceback (most recent call last):
        ...
        ValueError: tools: no fixed set of values; fields with one: 'level', 'matching', 'order', 'canonicalizer', 'name_canonicalizer', 'prediction_format', 'reference_format', 'on_parse_error'
        """
        rule = _TABLE.get(name)
        if rule is None or rule.names is None:
            fixed = ", ".join(repr(n) for n, r in _TABLE.items() if r.names is not None)
            raise ValueError(f"{name}: no fixed set of values; fields with one: {fixed}")
        return rule.names()

    @classmethod
    def names(cls, *, per_call: bool = False) -> tuple[str, ...]:
        """The fields, in the signature's order; ``per_call=True``: only those a ``compute()``
        (or ``metric(...)``) keyword may change for one call.

        Examples
        --------
        >>> Settings.names(per_call=True)
        ('order', 'prediction_format', 'reference_format', 'tools', 'weights', 'rules')
        """
        return tuple(n for n, rule in _TABLE.items() if rule.per_call or not per_call)

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes`` (each checked as on construction; the rest kept as is).

        Raises
        ------
        TypeError
            For a keyword that names no field (naming the nearest one).
        ValueError
            For a value the table does not accept.

        Examples
        --------
        >>> Settings().replace(level="arg").level
        'arg'
        >>> Settings().replace(levle="arg")
        Traceback (most recent call last):
        ...
        TypeError: Settings.replace() got an unexpected keyword argument 'levle'; did you mean 'level'?
        """
        new = Settings.__new__(Settings)  # (not object.__new__: a compiled Settings has its own)
        for name in _TABLE:
            if name in changes:
                object.__setattr__(new, name, _check(name, changes.pop(name)))
            else:
                object.__setattr__(new, name, getattr(self, name))
        for name in changes:
            raise keyword_error("Settings.replace()", name, _TABLE)
        same = new.tools is self.tools and new.weights is self.weights and new.rules is self.rules
        object.__setattr__(new, "_content", self._content if same else _content_of(new.tools, new.weights, new.rules))
        _sign(new)
        return new

    def signature(self, example_tools_digests: Iterable[str] = (), extra: Sequence[str] = ()) -> str:
        """A short string naming every setting that changes the number (sacrebleu-style):
        each field by its key in the table, then ``w:`` (a digest of the tools, weights and
        the references' own tools, or ``none``), the ``extra`` parts a corpus option adds (an
        interval's ``ci:…|n:…|seed:…``, SPEC §8b) and ``v:`` (:data:`VERSION`).

        Examples
        --------
        >>> Settings(canonicalizer="bfcl", reference_format="bfcl").signature()
        'level:call|match:greedy|order:any|canon:bfcl|names:exact|pred:auto|ref:bfcl|w:none|v:0.1.0'
        >>> Settings(weights={"f": 2}).signature()
        'level:call|match:greedy|order:any|canon:default|names:exact|pred:auto|ref:auto|w:d754a2e5|v:0.1.0'
        >>> Settings(rules={"f": {"x": "ignore"}}).signature().split("|")[7]
        'rules:f777dc44'
        >>> Settings(level="arg").signature() == Settings(level="arg").base_signature
        True
        """
        digests = sorted({d for d in example_tools_digests if d})
        fields, weighed = self._signed_parts
        if digests:
            weighed = digest([self.tools, self.weights, digests])
        return "|".join([fields, f"w:{weighed}", *extra, f"v:{VERSION}"])


def _sign(settings: Settings) -> None:
    """Write once what :meth:`Settings.signature` says of the settings themselves — each field
    by its key in the table (a field the table omits when empty only when set) and the ``w:``
    digest of the tools and weights (``none`` without them) — and the whole signature without
    references' own tools or extra parts (:attr:`Settings.base_signature`)."""
    fields = "|".join(f"{rule.abbr}:{rule.show(getattr(settings, name))}" for name, rule in _TABLE.items()
                      if rule.abbr and (getattr(settings, name) or not rule.omit_empty))
    weighed = digest([settings.tools, settings.weights, []]) if settings.tools or settings.weights else "none"
    object.__setattr__(settings, "_signed_parts", (fields, weighed))
    object.__setattr__(settings, "base_signature", f"{fields}|w:{weighed}|v:{VERSION}")


def _content_of(tools: Any, weights: Any, rules: Any) -> Any:
    """The hashable stand-in for tools, weights and rules in equality: their content key (a
    fresh object, equal only to itself, for data that has none: a callable rule)."""
    key = content_key((tools, weights) if not rules else (tools, weights, rules))
    return key if key is not None else object()
