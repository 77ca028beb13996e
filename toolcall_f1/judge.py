"""Judging one (prediction, gold) pair, argument by argument (SPEC §3–§5).

:func:`compare_call` gives every argument of a pair its verdict (agree, disagree, extra,
missing, or omitted) and the pair's exactness, agreeing weight and error weight. Judging for
exactness alone (``_compare`` without verdicts, what counting needs at call level) is the
same code path read cheaply: it stops at the first argument that is not in agreement.
:func:`exact_matrix` judges every pair of a name group for exactness, keying values once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .calls import AnyOf, Call, GoldCall, NestedAnswer, NestedList
from .schema import ToolSpec, type_ok
from .values import (
    KEYED_CANONICALIZERS,
    Canonicalizer,
    is_empty_value,
    resolve_canonicalizer,
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
    "compare_call",
    "exact_matrix",
    "gold_repr",
    "EXACT_ONLY",
    "INEXACT_ONLY",
]

AGREE, DISAGREE, EXTRA, MISSING, OMITTED = "agree", "disagree", "extra", "missing", "omitted"


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


_NO_PARAMS: Mapping[str, Any] = MappingProxyType({})
_NO_REQUIRED: frozenset[str] = frozenset()


def _nested_ok(value: Any, answer: NestedAnswer, schema: Any, canon: Canonicalizer) -> bool:
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
        if not any(values_equal(v, c, canon) for c in accepted.values):
            return False
    return all(key in value or acc.optional for key, acc in answer.fields.items())


_AGREE = (True, "")
_TYPE = (False, "type")
_VALUE = (False, "value")


def _agrees(
    value: Any, accepted: AnyOf, schema: Any, canon: Canonicalizer, check: Callable[[Any], bool] | None = None
) -> tuple[bool, str]:
    """Does ``value`` match one of the accepted values, with the schema's type? ``check`` is
    the schema's compiled ``type_ok`` (:attr:`ParamSpec.check`), when there is one."""
    if accepted.plain:  # the common case, in short: one type check, then the values
        if schema is not None and not (check(value) if check is not None else type_ok(value, schema)):
            return _TYPE
        for cand in accepted.values:
            if values_equal(value, cand, canon):
                return _AGREE
        return _VALUE
    plain_ok: bool | None = None
    for cand in accepted.values:
        if isinstance(cand, NestedAnswer):
            if _nested_ok(value, cand, schema, canon):
                return True, ""
        elif isinstance(cand, NestedList):
            items = schema.get("items") if isinstance(schema, Mapping) else None
            if (
                isinstance(value, (list, tuple))
                and len(value) == len(cand.items)
                and all(_nested_ok(v, a, items, canon) for v, a in zip(value, cand.items))
            ):
                return True, ""
        else:
            if plain_ok is None:
                plain_ok = schema is None or type_ok(value, schema)
            if plain_ok and values_equal(value, cand, canon):
                return True, ""
    return False, "type" if plain_ok is False else "value"


def compare_call(
    pred: Call,
    gold: GoldCall,
    *,
    tool: ToolSpec | None = None,
    weights: ToolSpec | None = None,
    canon: str | Canonicalizer | None = None,
    fill_defaults: bool = True,
) -> PairResult:
    """Judge one pair of calls with the same name, argument by argument (SPEC §5).

    Parameters
    ----------
    pred, gold
        The predicted call and the gold call.
    tool
        The tool's schema (types, required, defaults), or None when there is none.
    weights
        Where argument weights are read from (defaults to ``tool``; weight 1 without either).
    canon
        The string canonicalizer: ``"default"`` (None, as for :class:`ToolCallMetric` and
        :func:`match_calls`), ``"bfcl"``, ``"exact"`` or a callable.
    fill_defaults
        Read an argument absent on one side as its schema default (off for BFCL references).

    Returns
    -------
    PairResult

    Examples
    --------
    >>> r = compare_call(Call("f", {"x": 1, "y": 2}), GoldCall.from_call(Call("f", {"x": 1, "y": 3})))
    >>> r.exact, r.agree, r.errors, [v.verdict for v in r.verdicts]
    (False, 1.0, 2.0, ['agree', 'disagree'])
    >>> compare_call(Call("f", {"city": "new  YORK"}), GoldCall.from_call(Call("f", {"city": "New York"}))).exact
    True
    """
    canon_fn = canon if callable(canon) else resolve_canonicalizer(canon)
    verdicts: list[ArgVerdict] = []
    exact, agree, errors = _compare(
        pred, gold, tool, weights if weights is not None else tool, canon_fn, fill_defaults, verdicts
    )
    return PairResult(exact, agree, errors, tuple(verdicts))


_NOT_EXACT = (False, 0.0, 0.0)

#: A pair judged for exactness alone (no verdicts): what ``match_indices(details=False)``
#: gives at call level, where counting reads nothing else of a pair.
EXACT_ONLY = PairResult(True, 0.0, 0.0, ())
INEXACT_ONLY = PairResult(False, 0.0, 0.0, ())


def _compare(
    pred: Call,
    gold: GoldCall,
    tool: ToolSpec | None,
    wspec: ToolSpec | None,
    canon: Canonicalizer,
    fill_defaults: bool,
    verdicts: list[ArgVerdict] | None,
) -> tuple[bool, float, float]:
    """:func:`compare_call`'s judgement: ``(exact, agree, errors)``, each argument's verdict
    appended to ``verdicts``. With ``verdicts=None`` only exactness is wanted: the first
    argument that disagrees, is missing or extra ends it with ``(False, 0.0, 0.0)``, and no
    verdict is built — one code path, so the two can never judge differently."""
    params = tool.params if tool is not None else _NO_PARAMS
    required = tool.required if tool is not None else _NO_REQUIRED
    # ToolSpec.arg_weight, inlined: the override, else the schema's importance, else 1
    overrides = wspec.arg_weights if wspec is not None else _NO_PARAMS
    wparams = wspec.params if wspec is not None else _NO_PARAMS
    pargs = pred.arguments
    gargs = gold.arguments
    add = verdicts.append if verdicts is not None else None
    agree = errors = 0.0
    exact = True
    keys: Iterable[str] = gargs
    if not pargs.keys() <= gargs.keys():
        keys = (*gargs, *(k for k in pargs if k not in gargs))
    w = 0.0
    for key in keys:
        if add is not None:
            override = overrides.get(key)
            if override is None:
                wp = wparams.get(key)
                w = wp.weight if wp is not None else 1.0
            else:
                w = override
        pspec = params.get(key)
        if pspec is not None:
            schema, check = pspec.schema, pspec.check
        else:
            schema = check = None
        accepted = gargs.get(key)
        if accepted is not None:
            if key in pargs:
                value = pargs[key]
                if accepted.optional and is_empty_value(value):
                    if add is not None:
                        add(ArgVerdict(key, OMITTED, w, value, accepted))
                    continue
                ok, reason = _agrees(value, accepted, schema, canon, check)
                if ok:
                    if add is not None:
                        add(ArgVerdict(key, AGREE, w, value, accepted))
                    agree += w
                else:
                    if add is None:
                        return _NOT_EXACT
                    add(ArgVerdict(key, DISAGREE, w, value, accepted, reason))
                    errors += 2 * w
                    exact = False
            elif key in required:
                if add is None:
                    return _NOT_EXACT
                add(ArgVerdict(key, MISSING, w, None, accepted, "required"))
                errors += w
                exact = False
            elif accepted.optional:
                if add is not None:
                    add(ArgVerdict(key, OMITTED, w, None, accepted))
            elif fill_defaults and pspec is not None and pspec.has_default:
                ok, reason = _agrees(pspec.default, accepted, schema, canon, check)
                if ok:
                    if add is not None:
                        add(ArgVerdict(key, AGREE, w, pspec.default, accepted, "default"))
                    agree += w
                else:
                    if add is None:
                        return _NOT_EXACT
                    add(ArgVerdict(key, DISAGREE, w, pspec.default, accepted, "default"))
                    errors += 2 * w
                    exact = False
            else:
                if add is None:
                    return _NOT_EXACT
                add(ArgVerdict(key, MISSING, w, None, accepted))
                errors += w
                exact = False
        else:
            value = pargs[key]
            if fill_defaults and pspec is not None and pspec.has_default:
                ok, reason = _agrees(value, AnyOf(pspec.default), schema, canon, check)
                if ok:
                    if add is not None:
                        add(ArgVerdict(key, AGREE, w, value, pspec.default, "default"))
                    agree += w
                else:
                    if add is None:
                        return _NOT_EXACT
                    add(ArgVerdict(key, DISAGREE, w, value, pspec.default, "default"))
                    errors += 2 * w
                    exact = False
            else:
                if add is None:
                    return _NOT_EXACT
                add(ArgVerdict(key, EXTRA, w, value, None))
                errors += w
                exact = False
    return exact, agree, errors


#: From this many pairs on, keying the values once beats comparing every pair in full.
_KEYED_FROM = 9


def exact_matrix(
    preds: Sequence[Call],
    golds: Sequence[GoldCall],
    tool: ToolSpec | None,
    canon: Canonicalizer,
    fill_defaults: bool,
) -> list[list[bool]]:
    """Which pairs of one name group are exact: ``[[exact(p, g) for g in golds] for p in preds]``,
    as :func:`compare_call` judges them.

    Judging every pair in full costs n·m comparisons of every argument. Here each predicted
    value is type-checked and keyed once (:func:`~toolcall_f1.values.value_key`), each gold
    argument's accepted values become one set of keys, and a pair is then judged by set
    lookups; anything the keys do not cover (nested answers, defaults to fill, extra
    arguments, values without a key, other canonicalizers) is judged by the full comparison.
    """
    n, m = len(preds), len(golds)
    if n * m < _KEYED_FROM or canon not in KEYED_CANONICALIZERS:
        return [[_compare(p, g, tool, None, canon, fill_defaults, None)[0] for g in golds] for p in preds]
    params = tool.params if tool is not None else _NO_PARAMS
    pred_keys: list[dict[str, tuple[bool, Any, bool]] | None] = []
    for p in preds:
        keyed: dict[str, tuple[bool, Any, bool]] | None = {}
        for k, v in p.arguments.items():
            vk = value_key(v, canon)
            if vk is None:
                keyed = None
                break
            pspec = params.get(k)
            ok = pspec is None or (pspec.check(v) if pspec.check is not None else type_ok(v, pspec.schema))
            keyed[k] = (ok, vk, is_empty_value(v))  # type: ignore[index]
        pred_keys.append(keyed)
    gold_keys: list[dict[str, frozenset[Any] | None]] = []
    for g in golds:
        accepted_keys: dict[str, frozenset[Any] | None] = {}
        for k, acc in g.arguments.items():
            keys: set[Any] | None = set()
            for c in acc.values:
                ck = None if isinstance(c, (NestedAnswer, NestedList)) else value_key(c, canon)
                if ck is None:
                    keys = None
                    break
                keys.add(ck)  # type: ignore[union-attr]
            accepted_keys[k] = None if keys is None else frozenset(keys)
        gold_keys.append(accepted_keys)
    required = tool.required if tool is not None else _NO_REQUIRED
    rows = []
    for p, pk in zip(preds, pred_keys):
        row = []
        for g, gk in zip(golds, gold_keys):
            if pk is None or not pk.keys() <= gk.keys():
                row.append(_compare(p, g, tool, None, canon, fill_defaults, None)[0])
                continue
            exact = True
            for key, accepted in g.arguments.items():
                entry = pk.get(key)
                if entry is None:  # not given: required, optional, or a default to fill
                    if key in required:
                        exact = False
                    elif accepted.optional:
                        continue
                    else:
                        exact = _compare(p, g, tool, None, canon, fill_defaults, None)[0]
                    break
                type_fine, vk, empty = entry
                if accepted.optional and empty:
                    continue
                key_set = gk[key]
                if key_set is None:
                    pspec = params.get(key)
                    if not _agrees(p.arguments[key], accepted, pspec.schema if pspec else None, canon,
                                   pspec.check if pspec else None)[0]:
                        exact = False
                        break
                elif not (type_fine and vk in key_set):
                    exact = False
                    break
            row.append(exact)
        rows.append(row)
    return rows
