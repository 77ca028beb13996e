"""Details are a view of the counting pass (issue 21): what each pair and each unmatched call
adds to TP/FP/FN sums to the example's own counts, at both levels, with any weights; the
hallucination flags of the calls sum to the example's hallucination counts."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolcall_f1 import AnyOf, Call, Counts, ToolCallMetric

#: ``v`` is a tool no schema declares; ``k`` an argument none declares.
NAMES = st.sampled_from(["s", "t", "u", "v"])
VALUES = st.sampled_from([1, 2, "a", "B", None, [1, 2]])
ARGS = st.dictionaries(st.sampled_from(["q", "n", "k"]), VALUES, max_size=3)
PREDS = st.lists(st.builds(Call, NAMES, ARGS), max_size=5)
GOLD_VALUE = st.one_of(VALUES, st.builds(lambda a, opt: AnyOf(a, 2, optional=opt), VALUES, st.booleans()))
GOLDS = st.lists(st.builds(Call, NAMES, st.dictionaries(st.sampled_from(["q", "n"]), GOLD_VALUE, max_size=2)),
                 max_size=5)
TOOLS = [
    {"name": name, "parameters": {"type": "object", "properties": {"q": {}, "n": {}}}} for name in ("s", "t", "u")
]
ANY_WEIGHT = st.one_of(st.sampled_from([0.0, 0.1, 0.3, 1 / 3, 1.0, 7.0]),
                       # SPEC §3 refuses a field weight (w_t or w_t·w_a) below the smallest normal float
                       st.floats(min_value=0, max_value=1e6, allow_nan=False).filter(lambda w: w == 0 or w >= 1e-150))
#: Small dyadic weights: every sum of them is exact in floats.
DYADIC = st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, 3.0, 10.0])
LEVEL = st.sampled_from(["call", "arg"])
MATCHING = st.sampled_from(["greedy", "optimal"])
PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _weights(draw_weight: st.SearchStrategy[float]) -> st.SearchStrategy[dict]:
    tool = st.one_of(
        draw_weight,
        st.fixed_dictionaries({"weight": draw_weight,
                               "arguments": st.fixed_dictionaries({"q": draw_weight, "n": draw_weight})}),
    )
    return st.fixed_dictionaries({name: tool for name in ("s", "t", "u")})


def _rows(d: dict) -> list[dict]:
    return [*d["pairs"], *d["unmatched_pred"], *d["unmatched_gold"]]


@PROPS
@given(preds=PREDS, golds=GOLDS, level=LEVEL, matching=MATCHING, weights=_weights(ANY_WEIGHT), schemas=st.booleans())
def test_row_counts_sum_exactly_to_the_example_counts(preds, golds, level, matching, weights, schemas) -> None:
    metric = ToolCallMetric(level, matching=matching, weights=weights, tools=TOOLS if schemas else None)
    score = metric(preds, golds)
    rows = score.row_counts()
    assert len(rows) == len(score.pairs) + len(score.unmatched_pred) + len(score.unmatched_gold)
    total = Counts.total(rows)
    assert (total.tp, total.fp, total.fn) == (score.tp, score.fp, score.fn)  # to the last digit
    d = score.to_dict()
    assert [tuple(r["adds"].values()) for r in _rows(d)] == [(c.tp, c.fp, c.fn) for c in rows]
    for key in ("tp", "fp", "fn"):
        assert math.isclose(math.fsum(r["adds"][key] for r in _rows(d)), d[key], rel_tol=1e-12, abs_tol=1e-12)


@PROPS
@given(preds=PREDS, golds=GOLDS, level=LEVEL, matching=MATCHING, weights=_weights(DYADIC))
def test_details_adds_sum_to_the_details_totals(preds, golds, level, matching, weights) -> None:
    """Through ``compute(return_details=True)``: the rows' floats add up to the example's."""
    result = ToolCallMetric(level, matching=matching, weights=weights, tools=TOOLS).compute(
        [preds], [golds], return_details=True)
    (d,) = result["details"]
    sums = tuple(math.fsum(r["adds"][key] for r in _rows(d)) for key in ("tp", "fp", "fn"))
    assert sums == (d["tp"], d["fp"], d["fn"]) == (result["tp"], result["fp"], result["fn"])


@PROPS
@given(preds=PREDS, golds=GOLDS, matching=MATCHING, weights=st.fixed_dictionaries({n: DYADIC for n in "stuv"}))
def test_call_level_rows_are_spec_section_7(preds, golds, matching, weights) -> None:
    """At call level a row adds its tool weight once: TP if exact, else FP and FN; FP for an
    extra call, FN for a missed one."""
    d = ToolCallMetric("call", matching=matching, weights=weights)(preds, golds).to_dict()
    for pair in d["pairs"]:
        w = weights[pair["pred"]["name"]]
        assert pair["weight"] == w
        assert tuple(pair["adds"].values()) == ((w, 0.0, 0.0) if pair["exact"] else (0.0, w, w))
    assert [tuple(r["adds"].values()) for r in d["unmatched_pred"]] == [(0.0, weights[r["name"]], 0.0)
                                                                        for r in d["unmatched_pred"]]
    assert [tuple(r["adds"].values()) for r in d["unmatched_gold"]] == [(0.0, 0.0, weights[r["name"]])
                                                                        for r in d["unmatched_gold"]]


@PROPS
@given(preds=PREDS, golds=GOLDS, level=LEVEL, schemas=st.booleans())
def test_hallucination_flags_are_per_predicted_call(preds, golds, level, schemas) -> None:
    d = ToolCallMetric(level, tools=TOOLS if schemas else None)(preds, golds).to_dict()
    predicted = [(p["pred"], p) for p in d["pairs"]] + [(c, c) for c in d["unmatched_pred"]]
    assert len(predicted) == len(preds)
    for call, row in predicted:
        undeclared_tool = schemas and call["name"] == "v"
        assert row["hallucinated_tool"] is undeclared_tool
        assert row["hallucinated_args"] == (["k"] if "k" in call["arguments"] and schemas and not undeclared_tool else [])
    assert sum(row["hallucinated_tool"] for _, row in predicted) == d["hallucinated_tools"]
    assert sum(len(row["hallucinated_args"]) for _, row in predicted) == d["hallucinated_args"]
    assert all("hallucinated_tool" not in g for g in d["unmatched_gold"])
