"""ToolCallMetric's public routes (issue 12: one pipeline; issue 11: no silent reading).

- ``metric(pred, gold, details=False)`` counts exactly as ``details=True`` (what a reward calls);
- a reference remembered by content scores as a fresh metric reads it (the memo is a speed
  trick pinned to the general path);
- a missing (None) reference is an error naming the example, on every entry point;
- the "most predictions could not be read" warning needs a corpus of at least 10 examples.
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolcall_f1
from toolcall_f1 import Call, ToolCallMetric, ToolCallWarning
from toolcall_f1.metric import PARSE_ERROR_WARNING_MIN

TOOLS = [
    {"name": "f", "importance": 3, "parameters": {"properties": {
        "a": {"type": "integer", "importance": 0.7}, "b": {"type": "string"}, "c": {"default": 1}},
        "required": ["a"]}},
    {"name": "g", "parameters": {"properties": {"a": {}, "b": {"importance": 1 / 3}}}},
]

_values = st.sampled_from([1, 2, 1.0, "x", "X ", [1], None])
_args = st.dictionaries(st.sampled_from("abc"), _values, max_size=3)
_calls = st.lists(st.builds(Call, st.sampled_from(["f", "g", "h"]), _args), max_size=4)


def _counts(score: toolcall_f1.Score) -> tuple:
    return (score.tp, score.fp, score.fn, score.exact, score.parse_error,
            score.hallucinated_tools, score.hallucinated_args, score.tools_digest)


@settings(max_examples=300, deadline=None)
@given(pred=_calls, gold=_calls, level=st.sampled_from(["call", "arg"]),
       matching=st.sampled_from(["greedy", "optimal"]), per_example_tools=st.booleans())
def test_counts_are_the_same_with_and_without_details(pred, gold, level, matching, per_example_tools) -> None:
    metric = ToolCallMetric(level, matching=matching, tools=None if per_example_tools else TOOLS)
    reference = {"calls": gold, "tools": TOOLS} if per_example_tools else gold
    full = metric(pred, reference)
    quick = metric(pred, reference, details=False)
    assert _counts(quick) == _counts(full)
    assert quick.per_tool == {} and (full.per_tool != {} or not (pred or gold))
    assert (quick.unmatched_pred, quick.unmatched_gold) == (full.unmatched_pred, full.unmatched_gold) or matching == "optimal"


def test_without_details_a_call_level_pair_carries_no_verdicts() -> None:
    metric = ToolCallMetric("call")
    assert metric("[f(a=2)]", [("f", {"a": 1})]).pairs[0][2].verdicts
    assert metric("[f(a=2)]", [("f", {"a": 1})], details=False).pairs[0][2].verdicts == ()
    # at argument level the verdicts are the counts: kept either way
    arg = ToolCallMetric("arg")
    assert arg("[f(a=2)]", [("f", {"a": 1})], details=False).pairs[0][2].verdicts


def test_a_remembered_reference_scores_as_a_fresh_reading() -> None:
    tools = [{"name": "f", "parameters": {"properties": {"x": {"type": "integer"}, "y": {}}}}]
    refs = [{"calls": "[f(1, 2)]", "tools": tools}, {"calls": "[f(1.0, 2)]", "tools": tools},
            {"calls": "[f(x=True, y=2)]", "tools": tools}, {"calls": [("f", {"x": 1, "y": 2})], "tools": tools}]
    preds = ["[f(x=1, y=2)]", "[f(x=1.0, y=2)]", "[f(x=True, y=2)]", "[f(x=1, y=2)]"]
    repeated_refs, repeated_preds = refs * 5, preds * 5
    one_metric = ToolCallMetric(canonicalizer="exact")
    with_memo = [one_metric(p, r) for p, r in zip(repeated_preds, repeated_refs)]
    fresh = [ToolCallMetric(canonicalizer="exact")(p, r) for p, r in zip(repeated_preds, repeated_refs)]
    assert [(_counts(s), s.per_tool) for s in with_memo] == [(_counts(s), s.per_tool) for s in fresh]
    assert len(one_metric._memo) <= one_metric._memo.size
    shifted = preds[1:] + preds[:1]
    assert ToolCallMetric(canonicalizer="exact").compute(shifted * 5, repeated_refs)["exact_match"] == 0.25
    assert [ToolCallMetric(canonicalizer="exact")(p, r).exact for p, r in zip(shifted, refs)] == [
        False, False, False, True]


def test_numpy_references_with_equal_bytes_are_never_confused() -> None:
    np = pytest.importorskip("numpy")
    metric = ToolCallMetric(reference_format="bfcl")
    ints = [{"f": {"x": np.array([1, 0], dtype=np.int32)}}]
    wide = [{"f": {"x": np.array([1], dtype=np.int64)}}]  # the same raw bytes
    assert metric("[f(x=1)]", ints).exact and metric("[f(x=0)]", ints).exact
    assert metric("[f(x=1)]", wide).exact and not metric("[f(x=0)]", wide).exact
    tools = [{"name": "f", "parameters": {"properties": {"x": {}}}}]
    for wrap in (lambda calls: {"calls": calls, "tools": tools}, lambda calls: {"calls": calls}):
        both = ToolCallMetric(reference_format="bfcl")
        assert both("[f(x=1)]", wrap(ints)).exact and both("[f(x=0)]", wrap(ints)).exact
        assert both("[f(x=1)]", wrap(wide)).exact and not both("[f(x=0)]", wrap(wide)).exact


@pytest.mark.parametrize("call", [
    lambda: ToolCallMetric()("[f()]", None, index=3),
    lambda: ToolCallMetric().compute(["[]", "[]", "[]", "[f()]"], [[], [], [], None]),
    lambda: ToolCallMetric().read_reference(None, index=3),
    lambda: ToolCallMetric().score_all(["[]"] * 4, [[], [], [], None]),
], ids=["call", "compute", "read_reference", "score_all"])
def test_a_missing_reference_is_an_error_naming_the_example(call) -> None:
    with pytest.raises(ValueError, match=r"^references\[3\]: the reference is missing \(None\); write \[\] for an "
                                         r"example where no call is expected$"):
        call()


def test_a_missing_reference_without_index() -> None:
    with pytest.raises(ValueError, match=r"^references: the reference is missing \(None\)"):
        ToolCallMetric()("[f()]", None)
    assert ToolCallMetric()("[]", []).f1 == 1.0  # what to write instead


def test_a_missing_reference_through_evaluate() -> None:
    pytest.importorskip("evaluate")
    metric = toolcall_f1.load()
    with pytest.raises(ValueError, match=r"references\[1\]: the reference is missing \(None\)"):
        metric.compute(predictions=["[]", "[f()]"], references=[[], None])
    metric.add(prediction="[]", reference=[])
    metric.add(prediction="[f()]", reference=None)
    with pytest.raises(ValueError, match=r"references\[1\]: the reference is missing \(None\)"):
        metric.compute()


def _parse_warnings(n_examples: int, n_errors: int) -> list[str]:
    preds = ["[f(a=1"] * n_errors + ["[f(a=1)]"] * (n_examples - n_errors)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ToolCallMetric().compute(preds, [[("f", {"a": 1})]] * n_examples)
    return [str(w.message) for w in caught if issubclass(w.category, ToolCallWarning)]


def test_the_parse_error_warning_needs_ten_examples() -> None:
    assert PARSE_ERROR_WARNING_MIN == 10
    assert _parse_warnings(1, 1) == []
    assert _parse_warnings(9, 9) == []
    assert _parse_warnings(10, 5) == []  # half is not more than half
    assert _parse_warnings(10, 6) == [
        "6 of 10 predictions could not be read (parse errors, scored as no calls): is prediction_format='auto' right?"]


def test_a_single_text_is_not_a_corpus_and_iterators_are_read() -> None:
    metric = ToolCallMetric()
    with pytest.raises(TypeError, match=r"^predictions: expected a list with one entry per example, got a single str"):
        metric.compute("[f()]", [[("f", {})]])
    with pytest.raises(TypeError, match=r"^references: expected a list .* got a single dict"):
        metric.compute(["[f()]"], {"calls": []})
    assert metric.compute((p for p in ["[f()]"]), iter([[("f", {})]]))["f1"] == 1.0
