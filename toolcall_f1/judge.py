"""Judging one (prediction, gold) pair, argument by argument (SPEC §3–§5).

One rule, :func:`_verdict`, decides one argument of one pair: agree, disagree, extra,
missing or omitted; a pair is exact when every verdict is fine (:data:`FINE`), and
:data:`VERDICT_COUNTS` is the one table of what a verdict adds to TP/FP/FN. :func:`judge_pair`
(and :func:`compare_call`, its public form) reads the rule for every argument of a pair;
:func:`judge_group` reads the same rule for every pair of a name group at once, as numbers,
deciding a value's equality by comparing integer ids of its
:func:`~toolcall_f1.values.value_key` where it can (the part of the rule both read is one
table, :data:`BOTH_VERDICT`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import warnings
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from .calls import AnyOf, Call, GoldCall, NestedAnswer, NestedList
from .schema import ParamSpec, ToolSet, ToolSpec, compile_tools, merge_tools, type_ok, validate_weights
from .values import (
    KEYED_CANONICALIZERS,
    Canonicalizer,
    is_empty_value,
    resolve_canonicalizer,
    resolve_name_canonicalizer,
    value_key,
    values_equal,
)

__all__ = [
    "AGREE",
    "DISAGREE",
    "EXTRA",
    "MISSING",
    "OMITTED",
    "ArgVerdict",
    "PairResult",
    "GroupNumbers",
    "compare_call",
    "judge_pair",
    "judge_pairs",
    "gold_repr",
    "judge_group",
    "FINE",
    "VERDICT_COUNTS",
    "EXACT_ONLY",
    "INEXACT_ONLY",
]

AGREE, DISAGREE, EXTRA, MISSING, OMITTED = "agree", "disagree", "extra", "missing", "omitted"

#: What one field adds to (TP, FP, FN), its weight each time, by its verdict (SPEC §7): the
#: one table of it, read by judging, matching and counting alike — and the one place a
#: disagreeing field (an argument, or a whole pair that is not exact at call level) counts as
#: both a false positive and a false negative.
VERDICT_COUNTS: Mapping[str, tuple[int, int, int]] = {
    AGREE: (1, 0, 0),
    DISAGREE: (0, 1, 1),
    EXTRA: (0, 1, 0),
    MISSING: (0, 0, 1),
    OMITTED: (0, 0, 0),
}
#: The verdicts an exact pair may have (SPEC §5): a pair is exact when all of its are fine.
FINE = frozenset({AGREE, OMITTED})


@dataclass(frozen=True, slots=True)
class ArgVerdict:
    """One argument of a pair: its verdict, weight ``w_a`` and the two sides' values."""

    name: str
    verdict: str
    weight: float
    pred: Any = None
    gold: Any = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``argument``, ``verdict``, ``weight``, ``pred`` (when given), ``gold``
        (accepted values as ``{"any_of": [...], "optional": bool}`` when not a single value),
        and ``reason`` (``type``, ``value``, ``default``, ``required``) where there is one."""
        out: dict[str, Any] = {"argument": self.name, "verdict": self.verdict, "weight": self.weight}
        if self.verdict != MISSING and self.verdict != OMITTED or self.pred is not None:
            out["pred"] = self.pred
        out["gold"] = gold_repr(self.gold)
        if self.reason:
            out["reason"] = self.reason
        return out


def gold_repr(gold: Any) -> Any:
    if isinstance(gold, AnyOf):
        vals = [gold_repr(v) for v in gold.values]
        if len(vals) == 1 and not gold.optional:
            return vals[0]
        return {"any_of": vals, "optional": gold.optional}
    if isinstance(gold, NestedAnswer):
        return {k: gold_repr(v) for k, v in gold.fields.items()}
    if isinstance(gold, NestedList):
        return [gold_repr(v) for v in gold.items]
    return gold


@dataclass(frozen=True, slots=True)
class PairResult:
    """A judged pair: exact or not, agreeing weight, error weight, and per-argument verdicts.

    ``agree`` and ``errors`` are in argument weights ``w_a`` (the tool weight is applied when
    counting); ``errors`` counts a disagreeing argument twice (its FP and its FN).
    """

    exact: bool
    agree: float
    errors: float
    verdicts: tuple[ArgVerdict, ...]


#: A pair judged for its exactness alone, where nothing else is read (call level, no details).
EXACT_ONLY = PairResult(True, 0.0, 0.0, ())
INEXACT_ONLY = PairResult(False, 0.0, 0.0, ())

#: How a predicted value is compared with one accepted gold value: ``(p, g, canon) -> bool``.
Equal = Callable[[Any, Any, Canonicalizer], bool]

_NO_ARGS: Mapping[str, Any] = MappingProxyType({})
#: The schema of an undeclared tool: no parameters, none required.
_NO_TOOL = ToolSpec("", 1.0, _NO_ARGS, frozenset(), _NO_ARGS)


def _nested_ok(value: Any, answer: NestedAnswer, schema: Any, canon: Canonicalizer, equal: Equal = values_equal) -> bool:
    if not isinstance(value, Mapping):
        return False
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(props, Mapping):
        props = {}
    for key, v in value.items():
        accepted = answer.fields.get(key)
        if accepted is None:
            return False
        if accepted.optional and is_empty_value(v):
            continue
        key_schema = props.get(key)
        if key_schema is not None and not type_ok(v, key_schema):
            return False
        if not any(equal(v, c, canon) for c in accepted.values):
            return False
    return all(key in value or acc.optional for key, acc in answer.fields.items())


def _nested_agrees(value: Any, cand: NestedAnswer | NestedList, schema: Any, canon: Canonicalizer,
                   equal: Equal = values_equal) -> bool:
    """Does ``value`` match a nested accepted value (a dict's fields, or a list of them)?"""
    if isinstance(cand, NestedAnswer):
        return _nested_ok(value, cand, schema, canon, equal)
    items = schema.get("items") if isinstance(schema, Mapping) else None
    return (isinstance(value, (list, tuple)) and len(value) == len(cand.items)
            and all(_nested_ok(v, a, items, canon, equal) for v, a in zip(value, cand.items)))


def _verdict(
    key: str, pargs: Mapping[str, Any], accepted: AnyOf | None, pspec: ParamSpec | None, required: frozenset[str],
    canon: Canonicalizer, fill_defaults: bool, equal: Equal = values_equal,
) -> tuple[str, Any, Any, str | None]:
    """One argument of a pair (SPEC §3, §5), the one rule: ``(verdict, pred value, gold
    value, reason)``. ``accepted`` is the gold call's :class:`AnyOf` for ``key`` (None when
    only the prediction has it); ``pspec`` the schema's parameter, if declared; ``equal``: how
    a value is compared with one accepted value (an argument rule's, SPEC §6b).

    Where a value is compared, it agrees when it matches one of the accepted values with a
    type the schema allows (any type, without a schema); else the reason is ``"type"`` or
    ``"value"`` — or ``"default"``, agreeing or not, where one side is read as the schema default.
    """
    reason = None
    if accepted is None:  # only the prediction has it: extra, unless a default it can match
        value = pargs[key]
        if not (fill_defaults and pspec is not None and pspec.has_default):
            return EXTRA, value, None, None
        shown, against, reason = pspec.default, AnyOf(pspec.default), "default"
    elif key in pargs:
        value = pargs[key]
        if accepted.optional and is_empty_value(value):
            return BOTH_VERDICT[True, False], value, accepted, None
        shown = against = accepted
    elif key in required:
        return MISSING, None, accepted, "required"
    elif accepted.optional:
        return OMITTED, None, accepted, None
    elif fill_defaults and pspec is not None and pspec.has_default:  # the prediction omits it: read as the default
        value, shown, against, reason = pspec.default, accepted, accepted, "default"
    else:
        return MISSING, None, accepted, None
    type_fine: bool | None = None  # checked once, at the first plain accepted value
    for cand in against.values:
        if not against.plain and isinstance(cand, (NestedAnswer, NestedList)):
            if _nested_agrees(value, cand, pspec.schema if pspec is not None else None, canon, equal):
                return BOTH_VERDICT[False, True], value, shown, reason
            continue
        if type_fine is None:
            type_fine = pspec is None or pspec.check(value)
        if type_fine and equal(value, cand, canon):
            return BOTH_VERDICT[False, True], value, shown, reason
    return BOTH_VERDICT[False, False], value, shown, reason or ("type" if type_fine is False else "value")


#: The verdict of an argument both sides have, by ``(omitted, agrees)``: omitted when the gold
#: marks it optional and the prediction gives it empty, else agree when its value agrees (SPEC
#: §3, §5) — the part of :func:`_verdict` the keyed judge reads as a table.
BOTH_VERDICT: Mapping[tuple[bool, bool], str] = {
    (True, False): OMITTED, (True, True): OMITTED, (False, True): AGREE, (False, False): DISAGREE,
}


def compare_call(
    pred: Call,
    gold: Call | GoldCall,
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    weights: Mapping[str, Any] | None = None,
    canonicalizer: str | Canonicalizer | None = None,
    name_canonicalizer: str | Callable[[str], str] | None = None,
    fill_defaults: bool = True,
    canon: str | Canonicalizer | None = None,
) -> PairResult:
    """Judge one pair of calls with the same name, argument by argument (SPEC §5), with the
    settings :class:`ToolCallMetric` takes.

    Parameters
    ----------
    pred, gold
        The predicted call and the gold call (a :class:`GoldCall`, or a :class:`Call`).
    tools, weights
        Tool schemas (types, required, defaults, importance) and weight overrides, as for
        :class:`ToolCallMetric`; without them every argument weighs 1 and nothing is type-checked.
    canonicalizer, name_canonicalizer
        As for :class:`ToolCallMetric` (``canon=`` is the old name of ``canonicalizer=``).
    fill_defaults
        Read an argument absent on one side as its schema default (off for BFCL references).

    Returns
    -------
    PairResult

    Raises
    ------
    ValueError
        For an unknown setting or a malformed schema or weight.

    Examples
    --------
    >>> r = compare_call(Call("f", {"x": 1, "y": 2}), GoldCall.from_call(Call("f", {"x": 1, "y": 3})))
    >>> r.exact, r.agree, r.errors, [v.verdict for v in r.verdicts]
    (False, 1.0, 2.0, ['agree', 'disagree'])
    >>> compare_call(Call("f", {"city": "new  YORK"}), Call("f", {"city": "New York"})).exact
    True
    >>> compare_call(Call("f", {"n": "2"}), Call("f", {"n": 2}), weights={"f": {"arguments": {"n": 3}}},
    ...              tools=[{"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}]).errors
    6.0
    >>> compare_call(Call("f", {}), Call("f", {}), canonicalizer="loose")
    Traceback (most recent call last):
    ...
    ValueError: canonicalizer: unknown name 'loose'; expected one of 'default', 'bfcl', 'exact' or a callable str -> str
    """
    toolset, canon_fn = public_settings("compare_call", tools, weights, canonicalizer, name_canonicalizer, canon)
    gold = gold if isinstance(gold, GoldCall) else GoldCall.from_call(gold)
    return judge_pair(pred, gold, toolset.lookup(pred.name), toolset.spec_for_weights(pred.name), canon_fn,
                      fill_defaults)


def public_settings(
    who: str, tools: Any, weights: Any, canonicalizer: Any, name_canonicalizer: Any, canon: Any,
) -> tuple[ToolSet, Canonicalizer]:
    """The settings :func:`compare_call` and :func:`~toolcall_f1.matching.match_calls` take,
    compiled as :class:`ToolCallMetric` compiles them: ``(tool set, canonicalizer)``. ``canon=``,
    the old name of ``canonicalizer=``, still works, with a DeprecationWarning naming ``who``."""
    if canon is not None:
        warnings.warn(f"{who}(canon=...) is now canonicalizer=", DeprecationWarning, stacklevel=3)
        canonicalizer = canon if canonicalizer is None else canonicalizer
    toolset = compile_tools(merge_tools(tools), validate_weights(weights), resolve_name_canonicalizer(name_canonicalizer))
    return toolset, resolve_canonicalizer(canonicalizer)


def judge_pair(pred: Call, gold: GoldCall, tool: ToolSpec | None, wspec: ToolSpec, canon: Canonicalizer,
               fill_defaults: bool, exact_only: bool = False) -> PairResult:
    """:func:`compare_call` on compiled settings: ``tool`` gives types, required and defaults,
    ``wspec`` the weights — the one pair of :func:`judge_pairs`. ``exact_only``: where nothing
    but exactness is read, the judgement stops at the first argument that is not fine and gives
    :data:`EXACT_ONLY` or :data:`INEXACT_ONLY` (no weights or verdicts)."""
    return judge_pairs((pred,), (gold,), tool, wspec, canon, fill_defaults, exact_only)[0][0]


def judge_pairs(preds: Sequence[Call], golds: Sequence[GoldCall], tool: ToolSpec | None, wspec: ToolSpec,
                canon: Canonicalizer, fill_defaults: bool, exact_only: bool = False) -> list[list[PairResult]]:
    """Every pair ``(preds[i], golds[j])`` of a name group judged, argument by argument, by
    the one rule (:func:`_verdict`): ``rows[i][j]``, as :func:`judge_pair` judges each.

    A pair's arguments are the gold call's, then the prediction's own. A tool with argument
    rules (``wspec.rules``, a :class:`~toolcall_f1.rules.ToolRules`, SPEC §6b): an ``"ignore"``
    argument is skipped on both sides; every other one gets the one rule's verdict, its values
    compared by its rule. A nested BFCL answer under a rule that has no meaning there is an
    error (raised where the pair's judgement reaches that argument)."""
    rules: Any = wspec.rules
    tool = tool or _NO_TOOL
    params, required, weights = tool.params, tool.required, wspec.arg_weights
    # each call's arguments, but those its tool's rules ignore, listed once per call
    gold_keys = [list(g.arguments) if rules is None else [k for k in g.arguments if not rules.ignores(k)]
                 for g in golds]
    rows = []
    for pred in preds:
        pargs = pred.arguments
        pkeys = pargs if rules is None else [k for k in pargs if not rules.ignores(k)]
        row: list[PairResult] = []
        for gold, keys in zip(golds, gold_keys):
            gargs = gold.arguments
            own = [k for k in pkeys if k not in gargs]
            verdicts = []
            exact, agree, errors = True, 0.0, 0.0
            for key in (keys + own if own else keys):
                accepted = gargs.get(key)
                if rules is None:
                    equal = values_equal
                elif accepted is not None and not accepted.plain and rules.refuses_nested(key):
                    raise rules.nested_error(key)
                else:
                    equal = rules.equal(key)
                verdict, value, shown, reason = _verdict(key, pargs, accepted, params.get(key), required, canon,
                                                         fill_defaults, equal)
                if exact_only:
                    if verdict not in FINE:
                        exact = False
                        break
                    continue
                w = weights.get(key, 1.0)  # (ToolSpec.arg_weight)
                verdicts.append(ArgVerdict(key, verdict, w, value, shown, reason))
                tp, fp, fn = VERDICT_COUNTS[verdict]
                agree += tp * w
                errors += (fp + fn) * w
                exact = exact and verdict in FINE
            if exact_only:
                row.append(EXACT_ONLY if exact else INEXACT_ONLY)
            else:
                row.append(PairResult(exact, agree, errors, tuple(verdicts)))
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- a whole name group

#: Verdict codes in :func:`judge_group`'s matrices (``_NONE``: neither side has the argument).
_CODES = (AGREE, DISAGREE, EXTRA, MISSING, OMITTED)
_NONE = len(_CODES)
_CODE = {v: c for c, v in enumerate(_CODES)}


@dataclass(frozen=True, slots=True)
class GroupNumbers:
    """Every pair of a name group judged for its numbers: ``exact[i, j]``, and ``tp``, ``fp``,
    ``fn`` — the pair's argument fields (not its name) in integer weight units (numpy arrays,
    ``int64`` or exact Python ints)."""

    exact: Any
    tp: Any
    fp: Any
    fn: Any


def judge_group(
    preds: Sequence[Call], golds: Sequence[GoldCall], tool: ToolSpec | None, wspec: ToolSpec,
    canon: Canonicalizer, fill_defaults: bool, units: Mapping[float, int],
) -> GroupNumbers:
    """Every pair ``(preds[i], golds[j])`` judged as :func:`compare_call` judges it, as numbers.

    Argument by argument: where only one side has it, its verdict is judged once per call;
    where both do, equality is decided by integer ids of value keys (one
    :func:`~toolcall_f1.values.value_key` and one type check per value), and by
    :func:`_verdict` pair by pair for what keys cannot decide (nested answers, values without
    a key, canonicalizers other than the built-in ones). ``units`` maps every argument weight
    to its exact integer image.
    """
    if wspec.rules is not None:  # the tool has argument rules (SPEC §6b): each pair by their branch
        return _ruled_group(preds, golds, tool, wspec, canon, fill_defaults, units)
    n, m = len(preds), len(golds)
    keys = list(dict.fromkeys([k for c in golds for k in c.arguments] + [k for c in preds for k in c.arguments]))
    weight = {k: units[wspec.arg_weight(k)] for k in keys}
    dtype = object if 3 * sum(weight.values()) >= 2**62 else np.int64
    exact = np.ones((n, m), dtype=bool)
    counts = [np.zeros((n, m), dtype=dtype) for _ in range(3)]
    table = np.array([VERDICT_COUNTS[v] for v in _CODES] + [(0, 0, 0)], dtype=np.int64).T
    fine = np.array([v in FINE for v in _CODES] + [True])
    for key in keys:
        codes = _argument_codes(key, preds, golds, tool, canon, fill_defaults)
        for total, per_code in zip(counts, table):
            total += per_code[codes].astype(dtype) * weight[key]
        exact &= fine[codes]
    return GroupNumbers(exact, *counts)


def _argument_codes(
    key: str, preds: Sequence[Call], golds: Sequence[GoldCall], tool: ToolSpec | None, canon: Canonicalizer,
    fill_defaults: bool,
) -> Any:
    """The verdict code of argument ``key`` for every pair (:data:`_CODES`), an n×m array."""
    tool = tool or _NO_TOOL
    pspec, required = tool.params.get(key), tool.required
    n, m = len(preds), len(golds)
    accepted = [g.arguments.get(key) for g in golds]
    given = np.array([key in p.arguments for p in preds], dtype=bool)
    has_gold = np.array([a is not None for a in accepted], dtype=bool)

    def code(pargs: Mapping[str, Any], acc: AnyOf | None) -> int:
        return _CODE[_verdict(key, pargs, acc, pspec, required, canon, fill_defaults)[0]]

    only_gold = np.array([code(_NO_ARGS, a) if a is not None else _NONE for a in accepted])
    only_pred = np.array([code(p.arguments, None) if key in p.arguments else _NONE for p in preds])
    both = np.full((n, m), _NONE, dtype=np.int64)
    rows, cols = np.flatnonzero(given), np.flatnonzero(has_gold)
    if len(rows) and len(cols):
        both[np.ix_(rows, cols)] = _both_codes(key, [preds[i] for i in rows.tolist()],
                                                [a for a in accepted if a is not None], pspec, required, canon,
                                                fill_defaults, code)
    return np.where(given[:, None], np.where(has_gold[None, :], both, only_pred[:, None]), only_gold[None, :])


def _both_codes(
    key: str, preds: Sequence[Call], accepted: Sequence[AnyOf], pspec: ParamSpec | None, required: frozenset[str],
    canon: Canonicalizer, fill_defaults: bool, code: Callable[[Mapping[str, Any], AnyOf | None], int],
) -> Any:
    """Verdict codes where both sides have the argument: omitted (optional, given empty),
    else agree when the value's type is allowed and it equals an accepted value."""
    ids: dict[Any, int] = {}
    keyed = canon in KEYED_CANONICALIZERS

    def value_id(value: Any) -> int:
        k = value_key(value, canon) if keyed else None
        return -1 if k is None else ids.setdefault(k, len(ids))

    values = [p.arguments[key] for p in preds]
    pid = np.array([value_id(v) for v in values])
    type_fine = np.array([pspec is None or pspec.check(v) for v in values], dtype=bool)
    empty = np.array([is_empty_value(v) for v in values], dtype=bool)
    width = max(len(a.values) for a in accepted)
    gid = np.full((len(accepted), width), -2)
    for j, a in enumerate(accepted):
        if a.plain:
            gid[j, : len(a.values)] = [value_id(c) for c in a.values]
        else:
            gid[j, 0] = -1
    unkeyed = (pid[:, None] == -1) | (gid == -1).any(axis=1)[None, :]
    member = np.zeros((len(preds), len(accepted)), dtype=bool)
    for slot in gid.T:
        member |= pid[:, None] == slot[None, :]
    optional = np.array([a.optional for a in accepted], dtype=bool)
    both = np.array([[_CODE[BOTH_VERDICT[o, a]] for a in (False, True)] for o in (False, True)])
    codes = both[(empty[:, None] & optional[None, :]).astype(np.int64), (member & type_fine[:, None]).astype(np.int64)]
    for i, j in np.argwhere(unkeyed).tolist():  # plain ints (compiled code declares int)
        codes[i, j] = code(preds[i].arguments, accepted[j])
    return codes


# --------------------------------------------------------------------------- argument rules (SPEC §6b)


def _ruled_group(
    preds: Sequence[Call], golds: Sequence[GoldCall], tool: ToolSpec | None, wspec: ToolSpec,
    canon: Canonicalizer, fill_defaults: bool, units: Mapping[float, int],
) -> GroupNumbers:
    """:func:`judge_group` for a tool with argument rules: every pair judged by
    :func:`judge_pairs`, its verdicts summed in the exact integer ``units``."""
    exact, sums = [], []
    for p in preds:  # a row at a time: a block's judged pairs are never held at once
        for result in judge_pairs((p,), golds, tool, wspec, canon, fill_defaults)[0]:
            exact.append(result.exact)
            row = [0, 0, 0]
            for v in result.verdicts:
                for k, c in enumerate(VERDICT_COUNTS[v.verdict]):
                    row[k] += c * units[v.weight]
            sums.append(row)
    shape = (len(preds), len(golds))
    most = max((max(row) for row in sums), default=0)
    dtype = object if most >= 2**62 else np.int64
    counts = [np.array([row[k] for row in sums], dtype=dtype).reshape(shape) for k in range(3)]
    return GroupNumbers(np.array(exact, dtype=bool).reshape(shape), *counts)
