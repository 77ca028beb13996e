"""Property tests for scoring (STYLE.md): invariances, bounds, batching, weights, matchers."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolcall_f1 import AnyOf, Call, Counts, ToolCallMetric

NAMES = st.sampled_from(["s", "t", "u"])
SMALL = st.sampled_from([1, 2, "a", "B", " b ", True, None, [1, 2]])
ARGS = st.dictionaries(st.sampled_from(["q", "n", "k"]), SMALL, max_size=3)
CALL = st.builds(Call, NAMES, ARGS)
CALLS = st.lists(CALL, max_size=5)
EXAMPLES = st.lists(st.tuples(CALLS, CALLS), min_size=1, max_size=6)
WEIGHTS = st.fixed_dictionaries({n: st.sampled_from([0, 0.5, 1, 2, 3]) for n in ["s", "t", "u"]})
ANYOF_GOLD = st.lists(
    st.builds(
        lambda name, vals, opt: Call(name, {"q": AnyOf(*vals, optional=opt)}),
        NAMES,
        st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=2, unique=True),
        st.booleans(),
    ),
    max_size=5,
)
LEVEL = st.sampled_from(["call", "arg"])
PROPS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

KEYS = ("f1", "precision", "recall", "exact_match", "tp", "fp", "fn", "num_parse_errors")


def _summary(result: dict) -> tuple:
    return tuple(result[k] for k in KEYS)


@PROPS
@given(examples=EXAMPLES, level=LEVEL, seed=st.integers(0, 10**6), weights=WEIGHTS)
def test_shuffling_examples_and_calls_changes_nothing_optimal(examples, level, seed, weights) -> None:
    metric = ToolCallMetric(level, matching="optimal", weights=weights)
    preds, refs = [p for p, _ in examples], [g for _, g in examples]
    base = metric.compute(preds, refs)
    rng = random.Random(seed)
    order = list(range(len(examples)))
    rng.shuffle(order)
    shuffled_p = [rng.sample(preds[i], len(preds[i])) for i in order]
    shuffled_g = [rng.sample(refs[i], len(refs[i])) for i in order]
    assert _summary(metric.compute(shuffled_p, shuffled_g)) == _summary(base)


@PROPS
@given(examples=EXAMPLES, seed=st.integers(0, 10**6))
def test_greedy_call_level_is_order_free_on_plain_references(examples, seed) -> None:
    metric = ToolCallMetric("call")
    preds, refs = [p for p, _ in examples], [g for _, g in examples]
    rng = random.Random(seed)
    shuffled_p = [rng.sample(p, len(p)) for p in preds]
    shuffled_g = [rng.sample(g, len(g)) for g in refs]
    assert _summary(metric.compute(shuffled_p, shuffled_g)) == _summary(metric.compute(preds, refs))


@PROPS
@given(examples=EXAMPLES, level=LEVEL, matching=st.sampled_from(["greedy", "optimal"]))
def test_greedy_and_optimal_are_deterministic(examples, level, matching) -> None:
    metric = ToolCallMetric(level, matching=matching)
    preds, refs = [p for p, _ in examples], [g for _, g in examples]
    a = metric.compute(preds, refs, return_details=True)
    b = metric.compute(preds, refs, return_details=True)
    assert a == b


@PROPS
@given(calls=CALLS, level=LEVEL, weights=WEIGHTS)
def test_identical_prediction_and_reference_score_one(calls, level, weights) -> None:
    s = ToolCallMetric(level, weights=weights)(calls, calls)
    assert s.f1 == 1.0 and s.exact and s.fp == 0 and s.fn == 0


@PROPS
@given(examples=EXAMPLES, level=LEVEL, matching=st.sampled_from(["greedy", "optimal"]), weights=WEIGHTS)
def test_scores_stay_in_unit_interval(examples, level, matching, weights) -> None:
    r = ToolCallMetric(level, matching=matching, weights=weights).compute([p for p, _ in examples], [g for _, g in examples])
    for key in ("f1", "precision", "recall", "exact_match"):
        assert 0.0 <= r[key] <= 1.0
    assert min(r["tp"], r["fp"], r["fn"]) >= 0


@PROPS
@given(examples=EXAMPLES, level=LEVEL, cut=st.integers(0, 6))
def test_batches_summed_equal_one_pass(examples, level, cut) -> None:
    metric = ToolCallMetric(level)
    scores = [metric(p, g) for p, g in examples]
    cut = min(cut, len(scores))
    left = Counts.total(s.counts for s in scores[:cut])
    right = Counts.total(s.counts for s in scores[cut:])
    whole = Counts.total(s.counts for s in scores)
    merged = left + right
    assert (merged.tp, merged.fp, merged.fn) == (whole.tp, whole.fp, whole.fn)
    assert metric.aggregate(scores) == whole.f1


@PROPS
@given(examples=EXAMPLES, level=LEVEL, weights=WEIGHTS, factor=st.sampled_from([2, 4, 0.5, 8]))
def test_scaling_all_weights_changes_no_ratio(examples, level, weights, factor) -> None:
    preds, refs = [p for p, _ in examples], [g for _, g in examples]
    a = ToolCallMetric(level, matching="optimal", weights=weights).compute(preds, refs)
    b = ToolCallMetric(level, matching="optimal", weights={k: v * factor for k, v in weights.items()}).compute(preds, refs)
    for key in ("f1", "precision", "recall", "exact_match"):
        assert a[key] == b[key]


@PROPS
@given(pred=CALLS, gold=ANYOF_GOLD, level=LEVEL, weights=WEIGHTS)
def test_optimal_never_has_more_errors_than_greedy(pred, gold, level, weights) -> None:
    g = ToolCallMetric(level, weights=weights)(pred, gold)
    o = ToolCallMetric(level, matching="optimal", weights=weights)(pred, gold)
    assert o.fp + o.fn <= g.fp + g.fn + 1e-9
    if g.exact:
        assert o.exact


FRACTIONAL = st.fixed_dictionaries({
    n: st.fixed_dictionaries({"weight": st.sampled_from([0.7, 0.1, 0.3, 1 / 3, 2.5]),
                              "arguments": st.fixed_dictionaries({"q": st.sampled_from([0.1, 0.7, 1 / 3])})})
    for n in ["s", "t", "u"]
})


@PROPS
@given(examples=st.lists(st.tuples(CALLS, CALLS), min_size=1, max_size=12), level=LEVEL,
       matching=st.sampled_from(["greedy", "optimal"]), weights=FRACTIONAL,
       plan=st.lists(st.tuples(st.sampled_from(["add", "batch"]), st.integers(1, 4), st.integers(0, 2)),
                     min_size=1, max_size=12))
def test_any_split_across_adds_batches_and_metrics_equals_one_pass(examples, level, matching, weights, plan) -> None:
    """Examples streamed one by one (``metric(p, r)``), in batches (``score_all``), over several
    metrics whose tallies are merged (``Tally +``): the result is ``==`` one ``compute()``."""
    from toolcall_f1 import Tally

    metrics = [ToolCallMetric(level, matching=matching, weights=weights) for _ in range(3)]
    tallies = [Tally() for _ in metrics]
    start = 0
    for how, size, which in plan * (len(examples) // len(plan) + 1):
        if start >= len(examples):
            break
        chunk = examples[start: start + (1 if how == "add" else size)]
        start += len(chunk)
        metric, tally = metrics[which], tallies[which]
        if how == "add":
            tally.add(metric(*chunk[0]))
        else:
            for score in metric.score_all([p for p, _ in chunk], [g for _, g in chunk]):
                tally.add(score)
    merged = tallies[2] + tallies[0] + tallies[1]
    one = metrics[0].compute([p for p, _ in examples], [g for _, g in examples], per_tool=True)
    assert merged.result(metrics[0].signature(example_tools_digests=merged.digests), per_tool=True) == one
