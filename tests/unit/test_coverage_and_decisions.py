"""SPEC §5b "Coverage" (superset_match, subset_match) and §8b "Call decisions", in every result
and per example, and merged exactly by Tally."""

from __future__ import annotations

import pytest

from toolcall_f1 import Tally, ToolCallMetric


@pytest.mark.parametrize("pred,gold,superset,subset,exact", [
    ("[f(), g()]", [("f", {})], True, False, False),     # the SPEC's worked examples
    ("[f()]", [("f", {}), ("g", {})], False, True, False),
    ("[f()]", [("f", {})], True, True, True),
    ("[f(x=2)]", [("f", {"x": 1})], False, False, False),
    ("no call", [], True, True, True),
    ("[f(x=", [], False, False, False),                  # a parse error is neither
])
def test_coverage_per_example(pred: str, gold: list, superset: bool, subset: bool, exact: bool) -> None:
    for level in ("call", "arg"):
        s = ToolCallMetric(level)(pred, gold)
        assert (s.superset_match, s.subset_match, s.exact) == (superset, subset, exact)
        d = s.to_dict()
        assert (d["superset_match"], d["subset_match"]) == (superset, subset)
        quick = ToolCallMetric(level)(pred, gold, details=False)
        assert (quick.superset_match, quick.subset_match) == (superset, subset)


PREDS = ["[f()]", "[f(), g()]", "prose", "[h()]", "[f(x=", "sure"]
REFS = [[("f", {})], [("f", {})], [], [], [("f", {})], [("f", {})]]


def test_every_result_reports_coverage_and_call_decisions() -> None:
    r = ToolCallMetric().compute(PREDS, REFS)
    assert (r["superset_match"], r["subset_match"], r["exact_match"]) == (4 / 6, 3 / 6, 2 / 6)  # "sure": only gold calls (none)
    assert r["call_decision"] == {
        "expected_and_called": 3, "expected_not_called": 1, "unexpected_called": 1, "unexpected_not_called": 1,
        "accuracy": 4 / 6, "relevance": 3 / 4, "irrelevance": 1 / 2,
    }
    assert list(r)[-4:] == ["superset_match", "subset_match", "call_decision", "signature"]
    # the same at either level and matching
    for level in ("call", "arg"):
        for matching in ("greedy", "optimal"):
            assert ToolCallMetric(level, matching=matching).compute(PREDS, REFS)["call_decision"] == r["call_decision"]


def test_none_when_no_example_expects_or_refuses_a_call() -> None:
    only_calls = ToolCallMetric().compute(["[f()]"], [[("f", {})]])["call_decision"]
    assert only_calls["irrelevance"] is None and only_calls["relevance"] == 1.0
    no_calls = ToolCallMetric().compute(["prose"], [[]])["call_decision"]
    assert no_calls["relevance"] is None and no_calls["irrelevance"] == 1.0


def test_a_parse_error_is_an_attempt_but_prose_under_a_named_format_abstains() -> None:
    bfcl = ToolCallMetric(prediction_format="bfcl")
    r = bfcl.compute(["I will not call anything.", "[f(x=", "```python\n[f()]\n```"], [[], [], []])
    assert r["num_parse_errors"] == 3
    # prose is an abstention; broken or fenced calls (which auto reads or fails on) are attempts
    assert r["call_decision"]["unexpected_not_called"] == 1 and r["call_decision"]["unexpected_called"] == 2
    auto = ToolCallMetric().compute(["[f(x="], [[]])["call_decision"]
    assert auto["unexpected_called"] == 1


def test_tallies_merge_coverage_and_decisions_exactly() -> None:
    m = ToolCallMetric()
    a, b = Tally(), Tally()
    for i, (p, g) in enumerate(zip(PREDS, REFS)):
        (a if i % 2 else b).add(m(p, g))
    assert (a + b).result(m.signature()) == m.compute(PREDS, REFS)


def test_prose_is_an_abstention_however_it_is_wrapped() -> None:
    """One input, one number: prose under a named format is the same decision as text, as a
    message's content, as text blocks, or in a list of messages."""
    shapes = ["Hello", {"role": "assistant", "content": "Hello"},
              {"role": "assistant", "content": [{"type": "text", "text": "Hello"}]},
              [{"role": "assistant", "content": "Hello"}]]
    r = ToolCallMetric(prediction_format="bfcl").compute(shapes, [[]] * 4)
    assert r["call_decision"]["unexpected_not_called"] == 4
