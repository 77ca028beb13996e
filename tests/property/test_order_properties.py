"""Property tests for ``order="strict"`` (SPEC §5b).

The dynamic program finds the optimum: against every order-preserving set of pairs, enumerated,
none has a better §6 objective. Any order is a relaxation: where pairing never costs more than
leaving both calls unpaired, strict never has fewer FP+FN than ``"any"`` with the optimal
matcher. An in-order prediction scores alike under both. Scaling the weights changes no ratio
and no pair. Judging by value keys or pair by pair, with details or without, changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolcall_f1 import AnyOf, Call, ToolCallMetric, match_calls
from toolcall_f1.matching import Matcher

NAMES = st.sampled_from(["s", "t", "u"])
SMALL = st.sampled_from([1, 2, "a", "B", " b ", None, [1, 2]])
ARGS = st.dictionaries(st.sampled_from(["q", "n", "k"]), SMALL, max_size=3)
CALL = st.builds(Call, NAMES, ARGS)
CALLS = st.lists(CALL, max_size=5)
#: gold calls with accepted-value sets, some optional (BFCL answers): pairing may cost more
ANYOF_CALL = st.builds(
    lambda name, vals, opt, rest: Call(name, {"q": AnyOf(*vals, optional=opt), **rest}),
    NAMES, st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=2, unique=True), st.booleans(),
    st.dictionaries(st.sampled_from(["n", "k"]), SMALL, max_size=2),
)
GOLDS = st.lists(st.one_of(CALL, ANYOF_CALL), max_size=5)
#: weights exact in binary, so that sums of counts are exact in floats (and in Fractions)
WEIGHT = st.sampled_from([0, 0.5, 1, 2, 3])
WEIGHTS = st.fixed_dictionaries({
    n: st.one_of(WEIGHT, st.fixed_dictionaries({"weight": WEIGHT, "arguments": st.fixed_dictionaries({"q": WEIGHT})}))
    for n in ["s", "t", "u"]
})
LEVEL = st.sampled_from(["call", "arg"])


def _answer(gold: Call, pick: int, drop: bool) -> Call:
    """A prediction that a gold call accepts: one of each accepted-value set, an optional one
    maybe left out."""
    args = {}
    for k, v in gold.arguments.items():
        if isinstance(v, AnyOf):
            if not (drop and v.optional):
                args[k] = v.values[pick % len(v.values)]
        else:
            args[k] = v
    return Call(gold.name, args)


@st.composite
def examples(draw: Any, golds: Any = None) -> tuple[list[Call], list[Call]]:
    """Gold calls, and predictions that mix answers to them (exact pairs, in any order) with
    random calls (partial ones)."""
    gold = draw(golds if golds is not None else GOLDS)
    answers = [_answer(g, draw(st.integers(0, 1)), draw(st.booleans())) for g in gold]
    pool = st.sampled_from(answers) | CALL if answers else CALL
    return draw(st.lists(pool, max_size=5)), gold
PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _in_order_sets(preds: list[Call], golds: list[Call], i: int = 0, j: int = 0) -> Iterator[list[tuple[int, int]]]:
    """Every set of same-name pairs that keeps both orders, by brute force."""
    if i == len(preds):
        yield []
        return
    yield from _in_order_sets(preds, golds, i + 1, j)
    for b in range(j, len(golds)):
        if preds[i].name == golds[b].name:
            for rest in _in_order_sets(preds, golds, i + 1, b + 1):
                yield [(i, b), *rest]


def _objective(metric: ToolCallMetric, preds: list[Call], golds: list[Call],
               pairs: list[tuple[int, int]]) -> tuple[Fraction, int, Fraction, Fraction]:
    """SPEC §6's objective of a set of pairs, lower better: FP+FN, −exact pairs, −TP, FP —
    each pair and unpaired call counted alone (§7 counts them one by one)."""
    scores = [metric([preds[i]], [golds[j]]) for i, j in pairs]
    paired_p, paired_g = {i for i, _ in pairs}, {j for _, j in pairs}
    scores += [metric([p], []) for i, p in enumerate(preds) if i not in paired_p]
    scores += [metric([], [g]) for j, g in enumerate(golds) if j not in paired_g]
    tp, fp, fn = (sum((Fraction(getattr(s, k)) for s in scores), Fraction(0)) for k in ("tp", "fp", "fn"))
    return fp + fn, -sum(s.exact for s in scores[:len(pairs)]), -tp, fp


def _no_pair_costs_more(golds: list[Call]) -> bool:
    return not any(isinstance(v, AnyOf) and v.optional for g in golds for v in g.arguments.values())


@PROPS
@given(example=examples(), level=LEVEL, weights=WEIGHTS)
def test_strict_finds_the_best_order_preserving_set_of_pairs(example: tuple[list[Call], list[Call]], level: str,
                                                               weights: dict[str, Any]) -> None:
    preds, golds = example
    metric = ToolCallMetric(level, weights=weights)
    strict = ToolCallMetric(level, order="strict", weights=weights)(preds, golds)
    chosen = [(i, j) for i, j, _ in strict.pairs]
    assert all(i < i2 and j < j2 for (i, j), (i2, j2) in zip(chosen, chosen[1:]))  # both orders kept
    best = min(_objective(metric, preds, golds, s) for s in _in_order_sets(preds, golds))
    got = _objective(metric, preds, golds, chosen)
    assert got == best
    assert (Fraction(strict.fp) + Fraction(strict.fn), -Fraction(strict.tp), Fraction(strict.fp)) == (
        got[0], got[2], got[3])


@PROPS
@given(example=examples(), level=LEVEL, weights=WEIGHTS, matching=st.sampled_from(["greedy", "optimal"]))
def test_any_order_is_a_relaxation(example: tuple[list[Call], list[Call]], level: str, weights: dict[str, Any],
                                   matching: str) -> None:
    preds, golds = example
    strict = ToolCallMetric(level, order="strict", matching=matching, weights=weights)(preds, golds)
    loose = ToolCallMetric(level, matching="optimal", weights=weights)(preds, golds)
    if level == "call" or _no_pair_costs_more(golds):
        assert strict.fp + strict.fn >= loose.fp + loose.fn


@PROPS
@given(golds=CALLS, keep=st.lists(st.booleans(), min_size=5, max_size=5),
       extra=st.lists(st.tuples(st.integers(0, 5), st.builds(Call, st.sampled_from(["x", "y"]), ARGS)), max_size=3),
       level=LEVEL, weights=WEIGHTS)
def test_an_in_order_prediction_scores_alike_under_both_orders(golds: list[Call], keep: list[bool],
                                                                extra: list[tuple[int, Call]], level: str,
                                                                weights: dict[str, Any]) -> None:
    preds = [g for g, k in zip(golds, keep) if k]  # the gold calls themselves, in gold order, some omitted
    for at, call in extra:  # calls to other tools added anywhere
        preds.insert(min(at, len(preds)), call)
    strict = ToolCallMetric(level, order="strict", weights=weights)(preds, golds)
    loose = ToolCallMetric(level, matching="optimal", weights=weights)(preds, golds)
    assert (strict.tp, strict.fp, strict.fn, strict.exact) == (loose.tp, loose.fp, loose.fn, loose.exact)


def _scaled(weights: dict[str, Any], c: float) -> dict[str, Any]:
    return {n: (w * c if not isinstance(w, dict) else {"weight": w["weight"] * c, "arguments": w["arguments"]})
            for n, w in weights.items()}


@PROPS
@given(examples=st.lists(examples(), min_size=1, max_size=4), level=LEVEL, weights=WEIGHTS,
       c=st.sampled_from([0.25, 0.5, 2, 8]), order=st.sampled_from(["any", "strict"]))
def test_scaling_weights_changes_no_ratio_and_no_pair(examples: list[tuple[list[Call], list[Call]]], level: str,
                                                      weights: dict[str, Any], c: float, order: str) -> None:
    preds, refs = [p for p, _ in examples], [g for _, g in examples]
    base = ToolCallMetric(level, order=order, matching="optimal", weights=weights).compute(
        preds, refs, return_details=True)
    scaled = ToolCallMetric(level, order=order, matching="optimal", weights=_scaled(weights, c)).compute(
        preds, refs, return_details=True)
    for key in ("f1", "precision", "recall", "exact_match", "superset_match", "subset_match"):
        assert scaled[key] == base[key]
    assert (scaled["tp"], scaled["fp"], scaled["fn"]) == (base["tp"] * c, base["fp"] * c, base["fn"] * c)
    if order == "strict":  # the dynamic program's choice, ties included, does not move
        def pairs(result: dict[str, Any]) -> list[Any]:
            return [[(p["pred"], p["gold"]) for p in d["pairs"]] for d in result["details"]]

        assert pairs(scaled) == pairs(base)


@PROPS
@given(example=examples(), level=LEVEL, weights=WEIGHTS)
def test_judging_by_value_keys_or_pair_by_pair_chooses_the_same_pairs(example: tuple[list[Call], list[Call]],
                                                                      level: str, weights: dict[str, Any]) -> None:
    preds, golds = example
    keyed = Matcher(level=level, order="strict", large_from=2)  # every group of two calls or more by value keys
    by_pair = Matcher(level=level, order="strict", keyed=False)
    assert repr(match_calls(preds, golds, weights=weights, matcher=keyed)) == repr(
        match_calls(preds, golds, weights=weights, matcher=by_pair))
    metric = ToolCallMetric(level, order="strict", weights=weights)
    assert metric(preds, golds, details=False).counts == metric(preds, golds).counts
