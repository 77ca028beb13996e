"""Argument rules (SPEC §6b): how one argument of a pair is compared.

By default every argument is compared by SPEC §4 (``"exact"``). ``rules={tool: {arg: rule}}``
(``"*"`` for every argument of the tool without a rule of its own), or ``"match"`` on a
parameter's schema, changes that for one argument: :data:`RULE_NAMES` and the tolerances
``{"abs_tol": x}`` / ``{"rel_tol": y}``, or a callable ``(p, g) -> bool``.

:func:`validate_rules` checks the setting (the :class:`~toolcall_f1.settings.Settings` table
calls it); :class:`ToolRules` is one tool's rules compiled (the tool set builds one per tool
that has any rule but ``"exact"``, and the judge takes its separate branch only for those);
:func:`without_ignored` deletes the ``"ignore"`` arguments from an example's calls before they
are matched (TP, FP, FN and exactness are then those of deleting them from both sides).
A callable is called at most once per distinct pair of values within one computation: the
tool set of a computation owns the memo (:meth:`ToolRules.bound`).
"""

from __future__ import annotations

import json
import math
import pickle
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any

import numpy as np

from .calls import Call, GoldCall, ToolCallWarning
from .values import (KEYED_CANONICALIZERS, Canonicalizer, DuplicateKeyError, canonicalizer_name, held_json, plain_json,
                     value_key, values_equal)

__all__ = ["RULE_NAMES", "TOLERANCES", "ArgumentRuleError", "ArgumentRuleTypeError", "Rule", "ToolRules",
           "check_picklable", "compile_rule", "describe_rules", "refuse_nested", "rules_by_name", "validate_rules", "warn_unknown_rules", "without_ignored"]

#: The rules named by a string (SPEC §6b); ``"exact"`` is the default.
RULE_NAMES = ("exact", "ignore", "unordered", "subset", "superset")
#: The keys of a tolerance rule: ``{"abs_tol": x}``, ``{"rel_tol": y}`` or both.
TOLERANCES = ("abs_tol", "rel_tol")
#: The key for every argument of a tool without a rule of its own.
STAR = "*"

_EXPECTED = ("expected one of " + ", ".join(map(repr, RULE_NAMES))
             + ', {"abs_tol": x}, {"rel_tol": y} (finite, >= 0) or a callable (p, g) -> bool')


class ArgumentRuleError(ValueError):
    """An argument rule could not be applied — a callable rule raised (its exception is the
    ``__cause__``), or a rule met a nested BFCL answer it has no meaning for: names the tool,
    the argument and (once located) the example."""

    def __init__(self, message: str, tool: str, argument: str) -> None:
        super().__init__(message)
        self.tool, self.argument = tool, argument

    def located(self, where: str) -> ArgumentRuleError:
        """The same error, its message prefixed with ``where`` (the example)."""
        return type(self)(f"{where}: {self}", self.tool, self.argument)


class ArgumentRuleTypeError(TypeError):
    """A callable rule returned something that is not a bool (``numpy.bool_`` is one): names
    the tool, the argument and (once located) the example."""

    def __init__(self, message: str, tool: str, argument: str) -> None:
        super().__init__(message)
        self.tool, self.argument = tool, argument

    def located(self, where: str) -> ArgumentRuleTypeError:
        """The same error, its message prefixed with ``where`` (the example)."""
        return type(self)(f"{where}: {self}", self.tool, self.argument)


# --------------------------------------------------------------------------- the setting


def _check_rule(rule: Any, where: str) -> Any:
    """One rule, checked: a name, a tolerance (its values as floats), or a callable."""
    if isinstance(rule, str):
        if rule in RULE_NAMES:
            return rule
    elif isinstance(rule, Mapping):
        if rule and set(rule) <= set(TOLERANCES):
            out = {}
            for key in TOLERANCES:
                if key in rule:
                    value = plain_json(rule[key])  # a numpy scalar as its plain value
                    if not isinstance(value, (int, float)):  # (a bool: not finite >= 0, below)
                        raise ValueError(f"rules: {where}: {key} must be a number (int or float), got "
                                         f"{type(value).__name__} {value!r} (in rule {dict(rule)!r})")
                    try:
                        number = math.nan if isinstance(value, bool) else float(value)
                    except OverflowError:
                        number = math.nan
                    if not (math.isfinite(number) and number >= 0):
                        raise ValueError(f"rules: {where}: {key} must be a finite number >= 0, got {value!r} "
                                         f"(in rule {dict(rule)!r})")
                    out[key] = number
            return out
    elif callable(rule):
        return rule
    raise ValueError(f"rules: {where}: unknown rule {rule!r}; {_EXPECTED}")


def validate_rules(rules: Any) -> dict[str, dict[str, Any]]:
    """Normalise ``rules=`` (SPEC §6b) to ``{tool: {argument: rule}}``: each rule a name of
    :data:`RULE_NAMES`, a tolerance dict (its values as floats) or a callable. JSON text
    holding the mapping is read (the command line's form).

    Raises
    ------
    ValueError
        Naming the tool, the argument and the rule: an unknown rule, a tolerance that is
        negative or not finite, or a shape that is not ``{tool: {argument: rule}}``.

    Examples
    --------
    >>> validate_rules({"f": {"x": {"abs_tol": 1}, "*": "ignore"}})
    {'f': {'x': {'abs_tol': 1.0}, '*': 'ignore'}}
    >>> validate_rules('{"f": {"ids": "unordered"}}'), validate_rules(None)
    ({'f': {'ids': 'unordered'}}, {})
    >>> validate_rules({"f": {"x": "fuzzy"}})
    Traceback (most recent call last):
    ...
    ValueError: rules: tool 'f' argument 'x': unknown rule 'fuzzy'; expected one of 'exact', 'ignore', 'unordered', 'subset', 'superset', {"abs_tol": x}, {"rel_tol": y} (finite, >= 0) or a callable (p, g) -> bool
    """
    if rules is None:
        return {}
    try:
        rules = held_json(rules)
    except DuplicateKeyError as err:
        raise ValueError(err.describe("rules")) from None
    if isinstance(rules, str):
        raise ValueError(f"rules: expected a mapping {{tool: {{argument: rule}}}} or JSON text holding one, got {rules!r}")
    if not isinstance(rules, Mapping):
        raise ValueError(f"rules: expected a mapping {{tool: {{argument: rule}}}}, got {type(rules).__name__}")
    out: dict[str, dict[str, Any]] = {}
    for tool, entry in rules.items():
        if not isinstance(tool, str):
            raise ValueError(f"rules: tool names must be strings, got {type(tool).__name__} {tool!r}")
        if not isinstance(entry, Mapping):
            raise ValueError(f"rules: tool {tool!r}: expected a mapping {{argument: rule}}, got {entry!r}")
        own = {}
        for arg, rule in entry.items():
            if not isinstance(arg, str):
                raise ValueError(f"rules: tool {tool!r}: argument names must be strings, got {type(arg).__name__} {arg!r}")
            own[arg] = _check_rule(rule, f"tool {tool!r} argument {arg!r}")
        out[tool] = own
    return out


def rules_by_name(rules: Mapping[str, Mapping[str, Any]], name_canon: Callable[[str], str]) -> dict[str, Mapping[str, Any]]:
    """``rules`` keyed by canonical tool name (``name_canon``, the name canonicalizer).

    Raises
    ------
    ValueError
        For two tools whose names are one after ``name_canon``, naming both (neither rule is
        silently dropped).

    Examples
    --------
    >>> rules_by_name({"f": {"x": "ignore"}}, str.lower)
    {'f': {'x': 'ignore'}}
    >>> rules_by_name({"F": {"x": "ignore"}, "f": {"x": "exact"}}, str.lower)
    Traceback (most recent call last):
    ...
    ValueError: rules: tools 'F' and 'f' are one tool after the name canonicalizer ('f'): give its rules once
    """
    out: dict[str, Mapping[str, Any]] = {}
    first: dict[str, str] = {}
    for tool, entry in rules.items():
        key = name_canon(tool)
        if key in out:
            raise ValueError(f"rules: tools {first[key]!r} and {tool!r} are one tool after the name canonicalizer "
                             f"({key!r}): give its rules once")
        out[key], first[key] = entry, tool
    return out


def describe_rules(rules: Mapping[str, Mapping[str, Any]]) -> Any:
    """The rules as JSON data for the signature's digest: a callable by its code
    (:func:`~toolcall_f1.values.canonicalizer_name`, as a callable canonicalizer is named).

    Examples
    --------
    >>> describe_rules({"f": {"x": "ignore", "y": {"rel_tol": 0.1}}})
    {'f': {'x': 'ignore', 'y': {'rel_tol': 0.1}}}
    >>> describe_rules({"f": {"x": str.__eq__}})["f"]["x"]
    'custom:str.__eq__'
    """
    return {tool: {arg: _code_name(rule) if callable(rule) else rule for arg, rule in entry.items()}
            for tool, entry in rules.items()}


def check_picklable(rules: Mapping[str, Mapping[str, Any]]) -> None:
    """Refuse, clearly, to pickle ``rules`` holding a callable that pickle cannot save (a
    lambda, a local function): the object holding them is being pickled.

    Raises
    ------
    pickle.PicklingError
        Naming the tool, the argument and the callable, and what would pickle.

    Examples
    --------
    >>> check_picklable({"f": {"x": "ignore", "y": str.__eq__}})
    >>> check_picklable({"f": {"x": lambda p, g: True}})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    _pickle.PicklingError: rules: tool 'f' argument 'x': the callable rule custom:<lambda>... cannot be pickled (...); ...
    """
    for tool, entry in rules.items():
        for arg, rule in entry.items():
            if not callable(rule):
                continue
            try:
                pickle.dumps(rule)
            except Exception as err:  # pickle raises more than PicklingError (AttributeError, TypeError)
                raise pickle.PicklingError(
                    f"rules: tool {tool!r} argument {arg!r}: the callable rule {_code_name(rule)} cannot be pickled "
                    f"({type(err).__name__}: {err}); to pickle the metric, define it at a module's top level "
                    "(a lambda or a local function cannot be pickled)") from err


def _code_name(fn: Any) -> str:
    """A callable rule's name: its qualified name and a hash of its code (as a callable
    canonicalizer is named in the signature)."""
    return canonicalizer_name(fn)


def warn_unknown_rules(toolset: Any, rules: Mapping[str, Mapping[str, Any]]) -> None:
    """Warn (never raise) for ``rules`` naming a tool the schemas of ``toolset`` (a
    :class:`~toolcall_f1.schema.ToolSet`) do not declare, or an argument its tool does not
    (``"*"`` aside): likely a misspelling. The rule still applies. Nothing is checked
    without schemas.

    Examples
    --------
    >>> import warnings
    >>> from toolcall_f1.schema import compile_tools
    >>> ts = compile_tools([{"name": "f", "parameters": {"properties": {"x": {}}}}], {})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_unknown_rules(ts, {"g": {"x": "ignore"}, "f": {"y": "ignore", "*": "exact"}})
    >>> [str(w.message) for w in caught]  # doctest: +NORMALIZE_WHITESPACE
    ["rules: tool 'g' is not among the tool schemas (its rules still apply)",
     "rules: tool 'f' has no parameter 'y' (its rule still applies)"]
    """
    if not toolset.has_schema:
        return
    for tool, entry in rules.items():
        spec = toolset.lookup(tool)
        if spec is None:
            warnings.warn(f"rules: tool {tool!r} is not among the tool schemas (its rules still apply)",
                          ToolCallWarning, stacklevel=3)
            continue
        for arg in entry:
            if arg != STAR and arg not in spec.params:
                warnings.warn(f"rules: tool {tool!r} has no parameter {arg!r} (its rule still applies)",
                              ToolCallWarning, stacklevel=3)


# --------------------------------------------------------------------------- one rule


class Rule:
    """One rule compiled: ``kind`` (a name of :data:`RULE_NAMES`, ``"tolerance"`` or
    ``"callable"``), and :meth:`agrees`, the comparison of one predicted value with one
    accepted gold value (a callable's memo and error names are the caller's: :class:`ToolRules`).

    Examples
    --------
    >>> compile_rule("unordered").agrees([2, 1], [1, 2], str)
    True
    >>> compile_rule({"abs_tol": 0.01}).agrees({"a": [1.005]}, {"a": [1.0]}, str)
    True
    """

    __slots__ = ("kind", "abs_tol", "rel_tol", "fn", "memo_key")

    def __init__(self, kind: str, abs_tol: float = 0.0, rel_tol: float = 0.0, fn: Callable[[Any, Any], Any] | None = None):
        self.kind, self.abs_tol, self.rel_tol, self.fn = kind, abs_tol, rel_tol, fn
        #: The callable's part of a memo key: the callable itself, by identity (the key keeps it
        #: alive, so no other callable can take its id while the memo lives; SPEC §6b).
        self.memo_key = None if fn is None else _Same(fn)

    def __repr__(self) -> str:
        if self.kind == "tolerance":
            return f"Rule(abs_tol={self.abs_tol!r}, rel_tol={self.rel_tol!r})"
        return f"Rule({self.kind!r})" if self.fn is None else f"Rule({_code_name(self.fn)!r})"

    def agrees(self, p: Any, g: Any, canon: Canonicalizer) -> bool:
        """Does predicted value ``p`` agree with gold value ``g`` under this rule (SPEC §6b's
        table)? A callable is called as is (no memo): :meth:`ToolRules.equal` wraps it."""
        kind = self.kind
        if kind == "tolerance":
            return self._close(p, g, canon)
        if kind == "unordered":
            if _is_list(p) and _is_list(g):
                return len(p) == len(g) and _within(p, g, canon)
            return values_equal(p, g, canon)
        if kind in ("subset", "superset"):
            small, big = (p, g) if kind == "subset" else (g, p)
            if isinstance(small, Mapping) and isinstance(big, Mapping):
                return all(k in big and values_equal(v, big[k], canon) for k, v in small.items())
            if _is_list(small) and _is_list(big):
                return _within(small, big, canon)
            return values_equal(p, g, canon)
        if kind == "callable":
            return bool(self.fn(p, g))  # type: ignore[misc]
        return values_equal(p, g, canon)

    def _close(self, p: Any, g: Any, canon: Canonicalizer) -> bool:
        """Numbers by ``math.isclose`` at every depth (a bool is never a number; ints too
        large for a float compare exactly); everything else by SPEC §4."""
        if _is_number(p) and _is_number(g):
            return _isclose(p, g, self.rel_tol, self.abs_tol)
        if _is_list(p) and _is_list(g):
            return len(p) == len(g) and all(self._close(a, b, canon) for a, b in zip(p, g))
        if isinstance(p, Mapping) and isinstance(g, Mapping):
            return p.keys() == g.keys() and all(self._close(p[k], g[k], canon) for k in p)
        return values_equal(p, g, canon)


class _Same:
    """An object as a dict key by identity (a callable rule may define ``__eq__`` or no
    ``__hash__``): equal to another ``_Same`` holding the very same object."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj


#: Every int of at most this magnitude is a float exactly.
_FLOAT_EXACT = 2 ** 53


def _isclose(p: int | float, g: int | float, rel_tol: float, abs_tol: float) -> bool:
    """``math.isclose(p, g, rel_tol=, abs_tol=)``, but an int that no float holds exactly is
    compared exactly (SPEC §6b): ``|p - g| <= max(rel_tol·max(|p|, |g|), abs_tol)`` in
    fractions (a float's own value is exact in one).

    Examples
    --------
    >>> _isclose(2 ** 60 + 1, 2 ** 60, 0.0, 0.5), _isclose(2 ** 60 + 1, 2 ** 60, 0.0, 1.0), _isclose(1, 1.05, 0.0, 0.1)
    (False, True, True)
    """
    if all(isinstance(v, float) or -_FLOAT_EXACT <= v <= _FLOAT_EXACT for v in (p, g)):
        return math.isclose(p, g, rel_tol=rel_tol, abs_tol=abs_tol)
    if any(isinstance(v, float) and not math.isfinite(v) for v in (p, g)):
        return False  # a finite int is close to no infinity and no nan
    fp, fg = Fraction(p), Fraction(g)
    return abs(fp - fg) <= max(Fraction(rel_tol) * max(abs(fp), abs(fg)), Fraction(abs_tol))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _within(small: Sequence[Any], big: Sequence[Any], canon: Canonicalizer) -> bool:
    """Do ``small``'s elements form a sub-multiset of ``big``'s under SPEC §4's equality (an
    equivalence, so each element may take the first equal one left)? By value keys where every
    element has one, else pair by pair."""
    if canon in KEYED_CANONICALIZERS:
        small_keys = [value_key(v, canon) for v in small]
        big_keys = [value_key(v, canon) for v in big]
        if None not in small_keys and None not in big_keys:
            return not (Counter(small_keys) - Counter(big_keys))
    left = list(big)
    for value in small:
        for k, other in enumerate(left):
            if values_equal(value, other, canon):
                del left[k]
                break
        else:
            return False
    return True


#: The rule of an argument nothing else names.
EXACT = Rule("exact")
_NAMED = {name: EXACT if name == "exact" else Rule(name) for name in RULE_NAMES}


def compile_rule(rule: Any) -> Rule:
    """A rule as :func:`validate_rules` normalises it, compiled into a :class:`Rule`.

    Examples
    --------
    >>> compile_rule("subset"), compile_rule({"rel_tol": 0.5})
    (Rule('subset'), Rule(abs_tol=0.0, rel_tol=0.5))
    """
    if isinstance(rule, str):
        return _NAMED[rule]
    if isinstance(rule, Mapping):
        return Rule("tolerance", rule.get("abs_tol", 0.0), rule.get("rel_tol", 0.0))
    return Rule("callable", fn=rule)


# --------------------------------------------------------------------------- one tool's rules


class ToolRules:
    """One tool's argument rules, compiled: for an argument the first that applies —
    ``rules[tool][argument]``, ``rules[tool]["*"]``, the schema's ``"match"``, ``"exact"``
    (SPEC §6b) — with the memo of a callable's answers (owned by the computation's tool set).

    Examples
    --------
    >>> r = ToolRules.compile("f", {"x": "ignore", "*": "unordered"}, {"y": "subset"})
    >>> r.rule("x").kind, r.rule("y").kind, r.rule("z").kind, r.ignores("x")
    ('ignore', 'unordered', 'unordered', True)
    >>> ToolRules.compile("f", {"x": "exact"}, {}) is None   # nothing but exact: no rules
    True
    """

    __slots__ = ("tool", "own", "star", "schema", "memo", "has_callable")

    def __init__(self, tool: str, own: Mapping[str, Rule], star: Rule | None, schema: Mapping[str, Rule],
                 memo: dict[Any, bool] | None = None) -> None:
        self.tool, self.own, self.star, self.schema = tool, own, star, schema
        self.memo: dict[Any, bool] = {} if memo is None else memo
        self.has_callable = any(r.kind == "callable" for r in [*own.values(), *schema.values(), *([star] if star else [])])

    @classmethod
    def compile(cls, tool: str, own: Mapping[str, Any] | None, schema: Mapping[str, Any],
                memo: dict[Any, bool] | None = None) -> ToolRules | None:
        """The rules of ``tool`` from its entry of ``rules=`` (``own``, validated) and its
        parameters' ``"match"`` (``schema``, checked here); None when every argument is exact.

        Raises
        ------
        ValueError
            For a schema ``"match"`` that is no rule, naming the tool, the argument and the rule.
        """
        own = dict(own or {})
        star = own.pop(STAR, None)
        compiled = {arg: compile_rule(rule) for arg, rule in own.items()}
        from_schema = {arg: compile_rule(_check_rule(rule, f"tool {tool!r} argument {arg!r} (schema 'match')"))
                       for arg, rule in schema.items()}
        star_rule = None if star is None else compile_rule(star)
        if all(r is EXACT for r in [*compiled.values(), *from_schema.values(), *([star_rule] if star_rule else [])]):
            return None
        return cls(tool, compiled, star_rule, from_schema, memo)

    def bound(self, memo: dict[Any, bool]) -> ToolRules:
        """The same rules with the memo ``memo`` (a computation's own)."""
        return ToolRules(self.tool, self.own, self.star, self.schema, memo)

    def rule(self, arg: str) -> Rule:
        """The rule of argument ``arg``: the first that applies."""
        found = self.own.get(arg)
        if found is None:
            found = self.star if self.star is not None else self.schema.get(arg, EXACT)
        return found

    def ignores(self, arg: str) -> bool:
        """Is ``arg`` never compared nor counted (``"ignore"``)?"""
        return self.rule(arg).kind == "ignore"

    def equal(self, arg: str) -> Callable[[Any, Any, Canonicalizer], bool]:
        """The comparison of ``arg``'s predicted value with one accepted gold value, as
        :func:`~toolcall_f1.values.values_equal` is called; a callable's answer remembered per
        distinct pair of values (their JSON text with sorted keys), its errors naming the
        tool and the argument."""
        rule = self.rule(arg)
        if rule.kind != "callable":
            return rule.agrees
        return lambda p, g, canon: self._called(rule, arg, p, g)

    def refuses_nested(self, arg: str) -> bool:
        """Does ``arg``'s rule have no meaning against a nested BFCL answer (SPEC §6b: every
        rule but ``"exact"`` and the tolerances)?"""
        return self.rule(arg).kind not in ("exact", "tolerance")

    def nested_error(self, arg: str) -> ArgumentRuleError:
        """The error for a nested BFCL answer under a rule that refuses one."""
        return ArgumentRuleError(f"rules: tool {self.tool!r} argument {arg!r}: rule {self.rule(arg)!r} cannot compare a "
                          "nested BFCL answer (a dict of accepted lists); use 'exact' or a tolerance there", self.tool, arg)

    def _called(self, rule: Rule, arg: str, p: Any, g: Any) -> bool:
        """A callable rule's answer for ``(p, g)``, from the memo or called once."""
        try:
            key: Any = (rule.memo_key, json.dumps(p, sort_keys=True), json.dumps(g, sort_keys=True))
        except (TypeError, ValueError, RecursionError):
            key = None
        if key is not None and key in self.memo:
            return self.memo[key]
        name = f"tool {self.tool!r} argument {arg!r}"
        try:
            answer = rule.fn(p, g)  # type: ignore[misc]
        except Exception as err:  # a user's judge: any failure is reported, naming where
            raise ArgumentRuleError(f"rules: {name}: the rule {_code_name(rule.fn)} raised "
                                    f"{type(err).__name__}: {err}", self.tool, arg) from err
        if not isinstance(answer, (bool, np.bool_)):
            raise ArgumentRuleTypeError(f"rules: {name}: the rule {_code_name(rule.fn)} returned "
                                        f"{type(answer).__name__} {answer!r}; expected a bool", self.tool, arg)
        if key is not None:
            self.memo[key] = bool(answer)
        return bool(answer)


def refuse_nested(golds: Sequence[GoldCall], rules_of: Callable[[str], ToolRules | None]) -> None:
    """Refuse a reference whose nested BFCL answer (a dict of accepted lists) stands under a
    rule that has no meaning there (SPEC §6b), when the reference is read: every reference,
    whether or not a prediction calls the tool (``rules_of``: a tool name's rules, or None).

    Raises
    ------
    ArgumentRuleError
        Naming the tool, the argument and the rule.

    Examples
    --------
    >>> from toolcall_f1.calls import bfcl_gold_plain
    >>> golds = bfcl_gold_plain([{"f": {"d": [{"a": [1]}]}}])
    >>> rules = ToolRules.compile("f", {"d": "subset"}, {})
    >>> refuse_nested(golds, lambda name: None)
    >>> refuse_nested(golds, lambda name: rules)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    toolcall_f1.rules.ArgumentRuleError: rules: tool 'f' argument 'd': rule Rule('subset') cannot compare a nested BFCL answer ...
    """
    for gold in golds:
        rules = rules_of(gold.name)
        if rules is None:
            continue
        for key, accepted in gold.arguments.items():
            if not accepted.plain and rules.refuses_nested(key) and not rules.ignores(key):
                raise rules.nested_error(key)


# --------------------------------------------------------------------------- "ignore"


def without_ignored(preds: Sequence[Call], golds: Sequence[GoldCall], rules_of: Callable[[str], ToolRules | None],
                    ) -> tuple[list[Call], list[GoldCall]]:
    """An example's calls with every ``"ignore"`` argument deleted, on both sides (``rules_of``:
    a tool name's rules, or None); calls that lose nothing are kept as they are.

    Examples
    --------
    >>> rules = ToolRules.compile("f", {"rid": "ignore"}, {})
    >>> p, g = without_ignored([Call("f", {"q": "a", "rid": "1"})], [GoldCall.from_call(Call("f", {"rid": "9"}))],
    ...                        lambda name: rules if name == "f" else None)
    >>> dict(p[0].arguments), dict(g[0].arguments)
    ({'q': 'a'}, {})
    """
    def strip(call: Any) -> Any:
        rules = rules_of(call.name)
        if rules is None or not any(rules.ignores(k) for k in call.arguments):
            return call
        kept = {k: v for k, v in call.arguments.items() if not rules.ignores(k)}
        return Call(call.name, kept) if isinstance(call, Call) else GoldCall(call.name, MappingProxyType(kept))

    return [strip(c) for c in preds], [strip(c) for c in golds]

