"""SPEC §8b's numbers from per-unit counts: intervals, paired tests, pass@k (issue 23).

Simulated corpora of known truth: one gold call per example, exact with probability p, so the
micro-F1's true value is p (an exact example is TP 1; a wrong one FP 1 and FN 1: F1 = k/N).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from toolcall_f1 import resampling
from toolcall_f1.resampling import Units, compare_units, interval, pass_k, scores


def corpus(rng: np.random.Generator, n: int, p: float, groups: int = 0) -> Units:
    """n examples exact with probability p; with ``groups``, n/groups groups of perfectly
    correlated examples (all of a group exact or none)."""
    u = Units()
    if groups:
        for g in range(n // groups):
            ok = bool(rng.random() < p)
            for _ in range(groups):
                u.add(float(ok), float(not ok), float(not ok), ok, g)
        return u
    for ok in rng.random(n) < p:
        u.add(float(ok), float(not ok), float(not ok), bool(ok))
    return u


def test_resamples_follow_the_spec_draws_exactly() -> None:
    rng = np.random.default_rng(0)
    u = corpus(rng, 37, 0.6)
    sums = u.sums()
    idx = np.random.default_rng(99).integers(0, 37, size=(50, 37))
    want = scores(sums[idx].sum(axis=1))["f1"]
    lo, hi = np.percentile(want, [50 * (1 - 0.95), 50 * (1 + 0.95)])  # the SPEC formula (2.5000000000000022)
    assert interval(u, 0.95, 50, 99)["f1"] == [float(lo), float(hi)]


def test_chunked_draws_equal_one_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    u = corpus(np.random.default_rng(1), 33, 0.5)
    whole = interval(u, 0.9, 101, 7)
    monkeypatch.setattr(resampling, "_CHUNK", 33 * 4 + 5)  # 4 rows a chunk, the last one short
    assert interval(u, 0.9, 101, 7) == whole
    a, b = corpus(np.random.default_rng(2), 33, 0.5), corpus(np.random.default_rng(3), 33, 0.7)
    chunked = compare_units({"a": a, "b": b}, test="randomization", n_resamples=97)
    monkeypatch.setattr(resampling, "_CHUNK", 1 << 20)
    assert compare_units({"a": a, "b": b}, test="randomization", n_resamples=97) == chunked


@pytest.mark.slow
def test_95_percent_intervals_cover_the_truth() -> None:
    """400 corpora of 200 examples (a smaller run than the issue's 1,000 corpora, to keep the
    suite fast): coverage within 92–98% (the binomial spread of 400 trials is about ±1.1%)."""
    rng = np.random.default_rng(2026)
    covered = 0
    for _ in range(400):
        lo, hi = interval(corpus(rng, 200, 0.7), 0.95, 500, int(rng.integers(1 << 30)))["f1"]
        covered += lo <= 0.7 <= hi
    assert 0.92 <= covered / 400 <= 0.98


def test_width_falls_as_one_over_root_n() -> None:
    rng = np.random.default_rng(5)
    widths = {}
    for n in (400, 1600):
        w = [np.diff(interval(corpus(rng, n, 0.6), 0.95, 400, s)["f1"])[0] for s in range(8)]
        widths[n] = float(np.mean(w))
    assert widths[400] / widths[1600] == pytest.approx(2.0, rel=0.15)


def test_clustered_intervals_of_perfectly_correlated_groups_are_root_8_wider() -> None:
    rng = np.random.default_rng(8)
    flat, grouped = [], []
    for s in range(8):
        flat.append(np.diff(interval(corpus(rng, 1600, 0.6), 0.95, 400, s)["f1"])[0])
        grouped.append(np.diff(interval(corpus(rng, 1600, 0.6, groups=8), 0.95, 400, s)["f1"])[0])
    assert float(np.mean(grouped) / np.mean(flat)) == pytest.approx(math.sqrt(8), rel=0.2)


@pytest.mark.slow
@pytest.mark.parametrize("test,n", [("bootstrap", 300), ("randomization", 500)])
def test_equal_systems_are_rejected_about_5_percent_of_the_time(test: str, n: int) -> None:
    rng = np.random.default_rng(11)
    rejected = 0
    trials = 300
    for t in range(trials):
        out = compare_units({"a": corpus(rng, 150, 0.6), "b": corpus(rng, 150, 0.6)}, test=test,
                            n_resamples=n, seed=t)
        rejected += out["b"]["p_value"] < 0.05
    assert 0.015 <= rejected / trials <= 0.095


@pytest.mark.parametrize("test", ["bootstrap", "randomization"])
def test_a_gain_of_0_3_at_300_examples_is_detected(test: str) -> None:
    rng = np.random.default_rng(12)
    out = compare_units({"base": corpus(rng, 300, 0.5), "new": corpus(rng, 300, 0.8)}, test=test)
    assert out["new"]["p_value"] < 0.01 and out["new"]["delta"] > 0.2
    assert out["base"]["delta"] == 0.0 and out["base"]["p_value"] is None


@pytest.mark.parametrize("test", ["bootstrap", "randomization"])
def test_a_system_compared_with_itself_has_p_1(test: str) -> None:
    u = corpus(np.random.default_rng(4), 80, 0.5)
    out = compare_units({"a": u, "same": u}, test=test, n_resamples=200)
    assert out["same"]["p_value"] == 1.0 and out["same"]["delta"] == 0.0


def test_same_inputs_and_seed_give_the_same_numbers() -> None:
    a, b = corpus(np.random.default_rng(6), 90, 0.5), corpus(np.random.default_rng(7), 90, 0.6)
    for test in ("bootstrap", "randomization"):
        assert compare_units({"a": a, "b": b}, test=test, seed=3) == compare_units({"a": a, "b": b}, test=test, seed=3)


def test_systems_on_other_units_are_refused() -> None:
    with pytest.raises(ValueError, match="system 'b' is not scored on the same units as 'a'"):
        compare_units({"a": corpus(np.random.default_rng(0), 5, 0.5), "b": corpus(np.random.default_rng(0), 6, 0.5)})


def test_groups_all_or_none() -> None:
    u = Units()
    u.add(1.0, 0.0, 0.0, True, "g")
    with pytest.raises(ValueError, match=r"references\[1\]: has no group, but earlier examples have one"):
        u.add(1.0, 0.0, 0.0, True, None, where="references[1]")


@pytest.mark.parametrize("bad", [True, 1.0, ("a",), None.__class__])
def test_a_group_is_a_string_or_an_integer(bad: object) -> None:
    with pytest.raises(ValueError, match="a group is a string or an integer"):
        resampling.check_group(bad, "groups[0]")


def test_pass_k_is_the_unbiased_estimator() -> None:
    # n=5, c=2: pass@2 = 1 - C(3,2)/C(5,2) = 0.7; pass^2 = C(2,2)/C(5,2) = 0.1
    assert pass_k([("g", 5, 2)], (2,)) == pytest.approx({"pass@2": 0.7, "pass^2": 0.1})
    assert pass_k([("g", 3, 0), ("h", 3, 3)], (1, 3)) == {"pass@1": 0.5, "pass^1": 0.5, "pass@3": 0.5, "pass^3": 0.5}
    with pytest.raises(ValueError, match="every k must be a positive integer, got 0"):
        pass_k([("g", 3, 1)], (0,))
    with pytest.raises(ValueError, match="pass_k needs groups"):
        pass_k([], (1,))


# -- through compute() and compare() ----------------------------------------------------------

from toolcall_f1 import ToolCallMetric, compare  # noqa: E402

REFS = [[("f", {"x": i})] for i in range(60)]
PREDS = [f"[f(x={i if i % 3 else -1})]" for i in range(60)]  # two in three exact


def test_compute_adds_the_interval_of_the_examples_counts() -> None:
    r = ToolCallMetric().compute(PREDS, REFS, confidence_level=0.9, n_resamples=300, seed=4)
    u = Units()
    for i in range(60):
        ok = bool(i % 3)
        u.add(float(ok), float(not ok), float(not ok), ok)
    assert r["ci"] == interval(u, 0.9, 300, 4)
    assert r["ci"]["f1"][0] < r["f1"] < r["ci"]["f1"][1]
    assert r["signature"].endswith("|w:none|ci:0.9|n:300|seed:4|v:0.1.0")
    assert "ci" not in ToolCallMetric().compute(PREDS, REFS)  # none unless asked
    assert ToolCallMetric().compute(PREDS, REFS)["signature"].endswith("|w:none|v:0.1.0")


def test_groups_come_from_groups_or_the_references() -> None:
    keyed = [{"calls": ref, "group": i // 6} for i, ref in enumerate(REFS)]
    by_key = ToolCallMetric().compute(PREDS, keyed, confidence_level=0.95, pass_k=(1, 3))
    by_arg = ToolCallMetric().compute(PREDS, REFS, confidence_level=0.95, pass_k=(1, 3), groups=[i // 6 for i in range(60)])
    assert by_key["ci"] == by_arg["ci"] and by_key["pass_k"] == by_arg["pass_k"]
    assert by_key["signature"].endswith("|seed:12345|groups:yes|v:0.1.0")
    # each group of 6 holds 4 exact examples: pass@1 = 4/6, pass^3 = C(4,3)/C(6,3)
    assert by_key["pass_k"] == pytest.approx({"pass@1": 4 / 6, "pass^1": 4 / 6, "pass@3": 1.0, "pass^3": 4 / 20})
    with pytest.raises(ValueError, match="groups: 3 entries for 60 examples"):
        ToolCallMetric().compute(PREDS, REFS, confidence_level=0.95, groups=[1, 2, 3])
    with pytest.raises(ValueError, match="pass_k needs groups"):
        ToolCallMetric().compute(PREDS, REFS, pass_k=(1,))
    with pytest.raises(ValueError, match=r"references\[1\]: has no \"group\" while references\[0\] has one"):
        ToolCallMetric().compute(PREDS[:2], [keyed[0], REFS[1]], confidence_level=0.95)
    with pytest.raises(ValueError, match=r"groups\[0\]: a group is a string or an integer, got bool True"):
        ToolCallMetric().compute(PREDS[:1], REFS[:1], groups=[True], confidence_level=0.95)
    with pytest.raises(ValueError, match="confidence_level: expected a number between 0 and 1"):
        ToolCallMetric().compute(PREDS, REFS, confidence_level=95)


def test_compare_scores_each_system_once_with_the_same_settings() -> None:
    better = [f"[f(x={i})]" for i in range(60)]
    out = compare({"base": PREDS, "better": better}, REFS, level="arg", seed=1)
    want = ToolCallMetric("arg").compute(better, REFS)["f1"]
    assert out["better"]["f1"] == want and out["better"]["delta"] == want - out["base"]["f1"]
    assert out["better"]["p_value"] < 0.05 and out["base"]["p_value"] is None
    assert out["base"]["signature"].startswith("level:arg|") and "|test:bootstrap|n:1000|seed:1|" in out["base"]["signature"]
    assert compare({"base": PREDS, "better": better}, REFS, level="arg", seed=1) == out
    rnd = compare({"base": PREDS, "better": better}, REFS, test="randomization", n_resamples=2000)
    assert rnd["better"]["p_value"] < 0.05 and "|test:randomization|n:2000|" in rnd["better"]["signature"]
    assert rnd["better"]["ci"] == ToolCallMetric().compute(better, REFS, confidence_level=0.95)["ci"]["f1"]
    with pytest.raises(ValueError, match="compare: no systems given"):
        compare({}, REFS)


def test_a_reference_given_as_json_text_carries_its_group() -> None:
    import json

    keyed = [{"calls": [{"name": "f", "arguments": {"x": i}}], "group": i // 6} for i in range(60)]
    as_text = [json.dumps(r) for r in keyed]
    want = ToolCallMetric().compute(PREDS, keyed, confidence_level=0.95, pass_k=(1, 2))
    got = ToolCallMetric().compute(PREDS, as_text, confidence_level=0.95, pass_k=(1, 2))
    assert got["ci"] == want["ci"] and got["pass_k"] == want["pass_k"] and "groups:yes" in got["signature"]


def test_compare_warns_where_its_numbers_say_little_and_names_its_mistakes() -> None:
    from toolcall_f1 import ToolCallWarning

    with pytest.warns(ToolCallWarning, match="only 1 resampling units"):  # one unit: p at its floor
        compare({"a": ["[h()]"], "b": ["[f(a=1)]"]}, [[("f", {"a": 1})]])
    broken = ["[f(x=" for _ in range(60)]
    with pytest.warns(ToolCallWarning, match="60 of 60 predictions of system 'broken' could not be read"):
        compare({"base": PREDS, "broken": broken}, REFS)
    with pytest.raises(TypeError, match="compare: systems must map each system's name to its predictions"):
        compare([PREDS, PREDS], REFS)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="compare\\(\\) got an unexpected keyword argument 'levl'; did you mean 'level'"):
        compare({"a": PREDS}, REFS, levl="arg")


def test_numpy_numbers_are_read_as_the_plain_ones() -> None:
    want = ToolCallMetric().compute(PREDS, REFS, confidence_level=0.9, n_resamples=50, seed=3)
    got = ToolCallMetric().compute(PREDS, REFS, confidence_level=np.float32(0.9), n_resamples=np.int64(50),
                                   seed=np.int64(3))
    assert got["ci"]["f1"] == want["ci"]["f1"] and type(got["ci"]["level"]) is float
    assert got["ci"]["level"] == 0.9 and got["signature"] == want["signature"]  # float32 as the decimal it holds
    with pytest.raises(ValueError, match="pass_k: expected a sequence of positive integers"):
        ToolCallMetric().compute(PREDS, REFS, groups=[i // 6 for i in range(60)], pass_k=2)  # type: ignore[arg-type]
