"""Issue 26 item 14: a large name group is matched without holding its n² judged pairs.

A large group's pairs are judged a block of predictions at a time and kept compactly (a byte
per count for ordinary weights); greedy's ranks and the optimal matcher's exact costs are
computed from them block by block, never held whole in integers. The results are those of
the whole-matrix computation: greedy is pinned to the lexsort over the whole matrix it
replaced, and every setting to itself with one row per block.
"""

from __future__ import annotations

import random
import tracemalloc
from typing import Any

import pytest

from toolcall_f1 import Call, GoldCall, ToolCallMetric
from toolcall_f1 import matching
from toolcall_f1.judge import GroupNumbers
from toolcall_f1.schema import compile_tools

np = pytest.importorskip("numpy")
pytest.importorskip("scipy.optimize")


def _group(n: int, seed: int = 0) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """n distinct, partly overlapping calls of one tool against n gold calls (bench_scaling's group)."""
    rng = random.Random(seed)
    gold = [{"name": "lookup", "arguments": {"key": f"k{i}", "region": rng.choice("ab"), "page": i % 7,
                                             "tag": rng.choice("xyz")}} for i in range(n)]
    pred = []
    for i, g in enumerate(gold):
        args = dict(g["arguments"])
        if i % 2:
            args["key"] = f"k{(i * 7 + 3) % n}"
            args["page"] = (i + 1) % 7
        pred.append({"name": "lookup", "arguments": args})
    rng.shuffle(pred)
    return pred, gold


def _lexsort_greedy(exact: Any, tp: Any, fp: Any, fn: Any) -> list[tuple[int, int]]:
    """Greedy as it was computed over the whole matrix: one lexsort of every pair's rank
    (not exact, less agreeing weight, more errors; ties by flat index), each pair taken while
    both calls are free."""
    n, m = exact.shape
    order = np.lexsort(((fp + fn).ravel(), (-tp).ravel(), (~exact).ravel()))
    free_p, free_g, pairs = [True] * n, [True] * m, []
    for flat in order.tolist():
        i, j = divmod(flat, m)
        if free_p[i] and free_g[j]:
            free_p[i] = free_g[j] = False
            pairs.append((i, j))
    return sorted(pairs)


@pytest.mark.parametrize("seed", range(30))
def test_blocked_greedy_is_the_whole_matrix_lexsort(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ranks full of ties, walked in blocks of a few rows: the same pairs as one lexsort."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 40)), int(rng.integers(1, 40))
    kind = [np.int8, np.int16, np.int64][seed % 3]
    numbers = GroupNumbers(rng.random((n, m)) < 0.2, *(rng.integers(0, 4, (n, m)).astype(kind) for _ in range(3)))
    monkeypatch.setattr(matching, "_BLOCK", int(rng.integers(1, 3 * m + 2)))
    wide = [a.astype(np.int64) for a in (numbers.tp, numbers.fp, numbers.fn)]
    assert matching._greedy(numbers) == _lexsort_greedy(numbers.exact, *wide)


@pytest.mark.parametrize("seed", range(12))
def test_one_row_per_block_changes_nothing(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every setting, with and without details, weights past float precision included: the
    same result with one row per block as with the whole group in one block."""
    rng = random.Random(seed)
    n, m = rng.randint(9, 30), rng.randint(9, 30)
    preds = [Call("f", {k: rng.randint(0, 3) for k in "abc" if rng.random() < 0.7}) for _ in range(n)]
    golds = [("f", {k: rng.randint(0, 3) for k in "abc" if rng.random() < 0.7}) for _ in range(m)]
    weights = [None, {"f": {"weight": 1 / 3, "arguments": {"a": 0.1, "b": 1 / 7}}},
               {"f": {"arguments": {"a": 1e-300, "b": 1 / 3}}}][seed % 3]
    for level in ("call", "arg"):
        for matching_ in ("greedy", "optimal"):
            metric = ToolCallMetric(level, matching=matching_, weights=weights)
            whole = metric.compute([preds], [golds], return_details=True)
            with monkeypatch.context() as patched:
                patched.setattr(matching, "_BLOCK", 1)
                assert metric.compute([preds], [golds], return_details=True) == whole


def test_judged_counts_are_kept_in_one_byte_each() -> None:
    group = matching.NameGroup([Call("f", {"a": i}) for i in range(9)],
                               [GoldCall.from_call(Call("f", {"a": i, "b": 1})) for i in range(8)],
                               None, compile_tools([], {}).spec_for_weights("f"), str, True, "arg", False)
    numbers = matching._judge_blocks(group)
    assert numbers.exact.shape == (9, 8) and {a.dtype for a in (numbers.tp, numbers.fp, numbers.fn)} == {np.dtype(np.int8)}
    assert int(numbers.tp[3, 3]) == 1 and int(numbers.fn[3, 3]) == 1 and bool(numbers.exact[3, 3]) is False


@pytest.mark.parametrize(("level", "matching_"), [("arg", "optimal"), ("arg", "greedy"), ("call", "optimal"),
                                                  ("call", "greedy")])
def test_a_large_group_with_details_holds_no_pair_as_an_object(level: str, matching_: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """600 × 600 distinct calls with details: the memory traced at its peak stays under 20
    bytes per pair (the compact counts, 4 bytes a pair, and the optimal matcher's float64
    cost, 8), where judging every pair into whole int64 matrices took 68 to 98."""
    monkeypatch.setattr(matching, "_BLOCK", 1 << 14)  # the blocks' own working memory, out of the way
    n = 600
    pred, gold = _group(n)
    metric = ToolCallMetric(level, matching=matching_)
    metric.compute([pred[:80]], [gold[:80]], return_details=True)  # imports (scipy) before measuring
    tracemalloc.start()
    try:
        result = metric.compute([pred], [gold], return_details=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(result["details"][0]["pairs"]) == n
    assert peak < 20 * n * n, f"{peak / n / n:.1f} bytes per pair"


def test_strict_order_with_weights_past_int64_factors() -> None:
    """Call level in order with a weight of 1e-300 and no exact pair: cost factors past int64
    times parts of zeros were an OverflowError (int64 parts multiplied by a Python int too
    large); they are zero, and so is the score."""
    preds = [{"name": "f", "arguments": {"a": i, "b": i % 2}} for i in range(12)]
    golds = [{"name": "f", "arguments": {"a": 100 + i, "b": i % 2}} for i in range(12)]
    metric = ToolCallMetric("call", order="strict", weights={"f": {"arguments": {"a": 1e-300, "b": 1 / 3}}})
    result = metric.compute([preds], [golds], return_details=True)
    assert (result["tp"], result["fp"], result["fn"]) == (0.0, 12.0, 12.0)
    assert len(result["details"][0]["pairs"]) == 12  # paired in order, none exact
