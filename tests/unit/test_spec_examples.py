"""SPEC §9: every worked example, with exact numbers."""

from __future__ import annotations

from fractions import Fraction

import pytest

from toolcall_f1 import Call, ToolCallMetric, match_calls


def score(pred, gold, **kwargs):
    level = kwargs.pop("level", "call")
    call_kwargs = {k: kwargs.pop(k) for k in ("weights", "tools") if k in kwargs}
    return ToolCallMetric(level, **kwargs)(pred, gold, **call_kwargs)


def test_identical_calls_score_one() -> None:
    pred = [Call("search", {"q": "cats"}), Call("answer", {"a": "meow"})]
    gold = [("search", {"q": "cats"}), ("answer", {"a": "meow"})]
    assert score(pred, gold).f1 == 1.0


def test_wrong_extra_call_call_level() -> None:
    s = score([("search", {"q": "cats"}), ("delete_all", {})], [("search", {"q": "cats"}), ("answer", {"a": "meow"})])
    assert (s.tp, s.fp, s.fn, s.f1) == (1, 1, 1, 0.5)


def test_wrong_extra_call_arg_level() -> None:
    s = score(
        [("search", {"q": "cats"}), ("delete_all", {})],
        [("search", {"q": "cats"}), ("answer", {"a": "meow"})],
        level="arg",
    )
    assert (s.tp, s.fp, s.fn) == (2, 1, 2)
    assert Fraction(s.f1).limit_denominator(100) == Fraction(4, 7)


def test_reordered_pairs_both_exact() -> None:
    pairs, up, ug = match_calls([("s", {"q": "b"}), ("s", {"q": "a"})], [("s", {"q": "a"}), ("s", {"q": "b"})])
    assert len(pairs) == 2 and up == [] and ug == []
    assert all(p.arguments["q"] == g.arguments["q"].values[0] for p, g in pairs)
    assert score([("s", {"q": "b"}), ("s", {"q": "a"})], [("s", {"q": "a"}), ("s", {"q": "b"})]).exact


def test_repeated_prediction_counts_once() -> None:
    s = score([("s", {"q": "a"}), ("s", {"q": "a"})], [("s", {"q": "a"})])
    assert (s.tp, s.fp, s.fn) == (1, 1, 0)


@pytest.mark.parametrize("level,expected", [("call", (0, 1, 1)), ("arg", (2, 1, 1))])
def test_one_wrong_argument(level: str, expected: tuple) -> None:
    s = score([("f", {"x": 1, "y": 2})], [("f", {"x": 1, "y": 3})], level=level)
    assert (s.tp, s.fp, s.fn) == expected


def test_default_canonicalizer_folds_case_and_space() -> None:
    assert score([("f", {"city": "  new   YORK "})], [("f", {"city": "New York"})]).exact


def test_bfcl_canonicalizer_vs_default() -> None:
    pred, gold = [("f", {"d": "Jan.28,2021"})], [("f", {"d": "jan 28 2021"})]
    assert score(pred, gold, canonicalizer="bfcl").exact
    assert not score(pred, gold).exact


def test_weighted_destructive_tool() -> None:
    s = score([("delete_all", {})], [], weights={"delete_all": 10})
    assert (s.tp, s.fp, s.fn, s.f1) == (0, 10, 0, 0.0)


def test_corpus_is_micro_averaged_not_mean() -> None:
    metric = ToolCallMetric()
    a = metric([("g", {})], [("g", {})])
    b = metric([], [("g", {})])
    result = metric.compute([[("g", {})], []], [[("g", {})], [("g", {})]])
    assert result["f1"] == metric.aggregate([a, b]) == pytest.approx(2 / 3)
    assert (a.f1 + b.f1) / 2 == 0.5  # the wrong answer a mean would give


def test_empty_prediction_and_reference() -> None:
    result = ToolCallMetric().compute([[]], [[]])
    assert result["f1"] == 1.0 and result["exact_match"] == 1.0
    assert (result["precision"], result["recall"]) == (1.0, 1.0)


def test_compute_returns_every_field_of_section_8() -> None:
    result = ToolCallMetric().compute([[("f", {})]], [[("f", {})]], per_tool=True, return_details=True)
    for key in (
        "f1", "precision", "recall", "exact_match", "tp", "fp", "fn", "num_examples",
        "num_parse_errors", "hallucinated_tools", "hallucinated_args", "signature", "per_tool", "details",
    ):
        assert key in result
    assert result["per_tool"] == {"f": {"tp": 1.0, "fp": 0.0, "fn": 0.0, "precision": 1.0, "recall": 1.0, "f1": 1.0}}
    assert result["details"][0]["pairs"][0]["exact"] is True
