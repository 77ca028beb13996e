"""``order=`` (SPEC §5b): ``"any"`` is the multiset of §6, ``"strict"`` keeps both orders.

The §9 worked examples as exact numbers, the tie-break of the trace back, the setting's
errors and signature, exact weights past float range, and the same number through the core,
the evaluate module, the CLI and the reward.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcall_f1 import Settings, ToolCallMetric, match_calls
from toolcall_f1.cli import main
from toolcall_f1.rewards import ToolCallReward


def _counts(level: str, pred: Any, gold: Any, **kw: Any) -> tuple[float, float, float]:
    s = ToolCallMetric(level, order="strict", **kw)(pred, gold)
    return s.tp, s.fp, s.fn


def _pairs(pred: Any, gold: Any, **kw: Any) -> list[tuple[int, int]]:
    return [(i, j) for i, j, _ in ToolCallMetric(order="strict", **kw)(pred, gold).pairs]


# --------------------------------------------------------------------------- SPEC §9


def test_crossing_calls_of_two_tools_keep_one_pair_b_b() -> None:
    pred, gold = "[a(), b()]", [("b", {}), ("a", {})]
    assert _pairs(pred, gold) == [(1, 0)]  # b-b; a unpaired on both sides
    s = ToolCallMetric(order="strict")(pred, gold)
    assert (s.tp, s.fp, s.fn, s.f1) == (1.0, 1.0, 1.0, 0.5)
    assert ToolCallMetric()(pred, gold).f1 == 1.0  # any: both pairs


def test_swapped_calls_of_one_tool_keep_the_exact_pair() -> None:
    pred, gold = "[f(x=1), f(x=2)]", [("f", {"x": 2}), ("f", {"x": 1})]
    assert _pairs(pred, gold) == [(1, 0)]  # f(x=2)-f(x=2)
    assert ToolCallMetric(order="strict")(pred, gold).f1 == 0.5
    assert _counts("arg", pred, gold) == (2.0, 2.0, 2.0)
    assert [(i, j) for i, j, _ in ToolCallMetric("arg", order="strict")(pred, gold).pairs] == [(1, 0)]


def test_an_extra_call_between_gold_calls() -> None:
    pred, gold = "[a(), b(), c()]", [("a", {}), ("c", {})]
    assert _pairs(pred, gold) == [(0, 0), (2, 1)]
    assert _counts("call", pred, gold) == (2.0, 1.0, 0.0)


# --------------------------------------------------------------------------- the choice


def test_matching_has_no_say_under_strict() -> None:
    pred, gold = "[f(x=1, y=1), f(x=1, y=2)]", [("f", {"x": 1, "y": 2}), ("f", {"x": 1, "y": 1})]
    for level in ("call", "arg"):
        got = {m: ToolCallMetric(level, matching=m, order="strict")(pred, gold) for m in ("greedy", "optimal")}
        assert got["greedy"].counts == got["optimal"].counts
        assert [p[:2] for p in got["greedy"].pairs] == [p[:2] for p in got["optimal"].pairs]


def test_ties_prefer_the_pair_then_leaving_the_gold_call_unpaired() -> None:
    # two identical gold calls, one prediction: tracing back from (1, 2) pairs it with the last gold
    assert _pairs("[f()]", [("f", {}), ("f", {})]) == [(0, 1)]
    # two identical predictions, one gold: leaving gold unpaired comes before leaving the prediction,
    # so the trace pairs the last prediction
    assert _pairs("[f(), f()]", [("f", {})]) == [(1, 0)]
    # an inexact pair costs what leaving both unpaired costs at call level: the pair is preferred
    assert _pairs("[f(x=1)]", [("f", {"x": 2})]) == [(0, 0)]


def test_a_pair_that_costs_more_than_leaving_both_unpaired_is_not_taken() -> None:
    # arg level, three optional gold arguments all given wrong: paired FP+FN 6 (TP 1), unpaired
    # FP 4 + FN 1 (an unmatched gold call's optional arguments are not missing) — strict leaves
    # both unpaired, where "any" must pair every call of the smaller side
    ref = [{"f": {"x": [1, ""], "y": [1, ""], "z": [1, ""]}}]
    strict = ToolCallMetric("arg", order="strict", reference_format="bfcl")("[f(x=2, y=2, z=2)]", ref)
    assert (strict.tp, strict.fp, strict.fn, strict.pairs) == (0.0, 4.0, 1.0, ())
    any_ = ToolCallMetric("arg", matching="optimal", reference_format="bfcl")("[f(x=2, y=2, z=2)]", ref)
    assert (any_.tp, any_.fp, any_.fn) == (1.0, 3.0, 3.0)
    # with two of them, the FP+FN tie (4 and 4) goes to the pair's TP
    ref = [{"f": {"x": [1, ""], "y": [1, ""]}}]
    strict = ToolCallMetric("arg", order="strict", reference_format="bfcl")("[f(x=2, y=2)]", ref)
    assert (strict.tp, strict.fp, strict.fn, len(strict.pairs)) == (1.0, 2.0, 2.0, 1)


def test_at_equal_fp_fn_and_exact_pairs_the_most_tp_wins() -> None:
    # f(x=1, y=1, z=5) against [f(x=[1, ""], y=[1, ""]), f(x=1)], arg level: either pair is
    # inexact (z extra) and saves 4 of FP+FN; the first has TP 3, the second TP 2 — the trace
    # back alone would take the last gold call
    ref = [{"f": {"x": [1, ""], "y": [1, ""]}}, {"f": {"x": [1]}}]
    s = ToolCallMetric("arg", order="strict", reference_format="bfcl")("[f(x=1, y=1, z=5)]", ref)
    assert [(i, j) for i, j, _ in s.pairs] == [(0, 0)]
    assert (s.tp, s.fp, s.fn) == (3.0, 1.0, 2.0)


def test_pairs_are_of_one_name_after_the_name_canonicalizer() -> None:
    pred, gold = "[math.sqrt(x=4), b()]", [("math_sqrt", {"x": 4}), ("b", {})]
    assert _pairs(pred, gold) == [(1, 1)]
    assert _pairs(pred, gold, name_canonicalizer="underscore") == [(0, 0), (1, 1)]


def test_match_calls_takes_order() -> None:
    pairs, up, ug = match_calls([("a", {}), ("b", {})], [("b", {}), ("a", {})], order="strict", level="arg")
    assert [(p.name, g.name) for p, g in pairs] == [("b", "b")]
    assert [c.name for c in up] == ["a"] and [c.name for c in ug] == ["a"]


def test_weights_whose_exact_images_need_python_ints_are_compared_exactly() -> None:
    # weights 400 decimal orders apart: their exact integer images are past int64
    pred, gold = "[f(), g()]", [("g", {}), ("f", {})]
    assert _pairs(pred, gold, weights={"f": 1e-300, "g": 1e100}) == [(1, 0)]  # g-g: the heavier pair wins
    assert _pairs(pred, gold, weights={"f": 1e100, "g": 1e-300}) == [(0, 1)]
    # f(x=1)-f(x=1) saves 2 * 3e-300 at arg level (name and x); g-g saves 2 * w_g
    pred, gold = "[f(x=1), g()]", [("g", {}), ("f", {"x": 1})]
    for w_g, want in ((2.9e-300, [(0, 1)]), (3.1e-300, [(1, 0)])):
        weights = {"f": {"weight": 1e-300, "arguments": {"x": 2}}, "g": w_g, "h": 1e100}
        assert _pairs(pred, gold, weights=weights, level="arg") == want


def test_many_tools_in_one_long_example() -> None:
    gold = [(f"t{i % 7}", {"k": i}) for i in range(60)]
    pred = [(n, a) for n, a in gold if a["k"] % 5] + [("other", {})]
    s = ToolCallMetric(order="strict")(pred, gold)
    assert (s.tp, s.fp, s.fn) == (48.0, 1.0, 12.0)
    assert ToolCallMetric(order="strict")(pred[::-1], gold).tp < 10


# --------------------------------------------------------------------------- the setting


def test_the_setting_is_checked_and_named_in_the_signature() -> None:
    with pytest.raises(ValueError, match=r"^order: unknown value 'sorted'; expected one of 'any', 'strict', 'turns'$"):
        Settings(order="sorted")
    with pytest.raises(ValueError, match=r"^order: unknown value 'sorted'"):
        ToolCallMetric(order="sorted")
    assert Settings.allowed("order") == ("any", "strict", "turns")
    assert Settings().order == "any" and ToolCallMetric(order="strict").order == "strict"
    assert "|match:greedy|order:strict|canon:" in ToolCallMetric(order="strict").signature()
    assert "|match:optimal|order:any|canon:" in ToolCallMetric(matching="optimal").signature()


def test_order_is_a_per_call_keyword() -> None:
    pred, gold = ["[a(), b()]"], [[("b", {}), ("a", {})]]
    metric = ToolCallMetric()
    strict = metric.compute(pred, gold, order="strict")
    assert strict["f1"] == 0.5 and "order:strict" in strict["signature"]
    assert metric.compute(pred, gold)["f1"] == 1.0  # the constructor's setting is untouched
    assert metric(pred[0], gold[0], order="strict").f1 == 0.5
    assert ToolCallMetric(order="strict").compute(pred, gold, order="any")["f1"] == 1.0
    assert [s.f1 for s in metric.scores(pred, gold, order="strict")] == [0.5]
    assert "order:strict" in metric.signature(order="strict")


def test_the_same_number_through_core_evaluate_cli_and_reward(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("evaluate")
    import toolcall_f1

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    preds = ["[a(), b(x=1), c()]", "[f(x=1), f(x=2)]", "[g()]"]
    refs: list[Any] = [[{"name": "b", "arguments": {"x": 1}}, {"name": "a", "arguments": {}}],
                       "[f(x=2), f(x=1)]", [{"name": "g", "arguments": {}}]]
    numbers = ("f1", "precision", "recall", "exact_match", "tp", "fp", "fn", "signature")
    for level in ("call", "arg"):
        want = ToolCallMetric(level, order="strict").compute(preds, refs)
        assert want["f1"] < ToolCallMetric(level).compute(preds, refs)["f1"]
        via_evaluate = toolcall_f1.load(keep_in_memory=True).compute(predictions=preds, references=refs, level=level,
                                                                      order="strict")
        path = tmp_path / "run.jsonl"
        path.write_text("".join(json.dumps({"prediction": p, "reference": r}) + "\n" for p, r in zip(preds, refs)))
        capsys.readouterr()
        assert main(["score", "--input", str(path), "-o", "json", "--no-progress", "--level", level,
                     "--order", "strict"]) == 0
        via_cli = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        for got in (via_evaluate, via_cli):
            assert {k: got[k] for k in numbers} == {k: want[k] for k in numbers}
        rewards = ToolCallReward(level, order="strict")(prompts=["p"] * 3, completions=preds, reference=refs)
        assert rewards == [ToolCallMetric(level, order="strict")(p, r).f1 for p, r in zip(preds, refs)]
