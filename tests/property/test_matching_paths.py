"""The matcher's shortcuts change no public result.

``matching.SHORTCUTS`` switches off every shortcut at once (keyed judging of large groups,
classes of identical calls): then every pair is judged in full by ``compare_call``. Public
results — ``ToolCallMetric.compute(..., return_details=True)`` and ``match_calls`` — must be
the same either way, on random groups rich in ties (repeated calls, multi-valued and optional
golds, BFCL nested answers, schema defaults, fractional weights). Greedy picks the very same
pairs; so does the optimal matcher, except over classes of identical calls, which may break
ties another way — then every count and the objective are still the same.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric, match_calls
from toolcall_f1 import matching

TOOLS = [
    {"name": "f", "importance": 2, "parameters": {"type": "object", "properties": {
        "a": {"type": "integer", "importance": 0.1},
        "b": {"type": "string", "default": "x"},
        "c": {"type": "number", "importance": 1 / 3},
        "d": {"type": "array", "items": {"type": "string"}}}, "required": ["a"]}},
    {"name": "g", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}},
]
VALUES = {"a": [1, 2, 2.0, True], "b": ["x", "X ", "y"], "c": [0.5, 1, "1"], "d": [["p"], ["P"], []]}


def _example(rng: random.Random, most: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Predicted and gold calls (BFCL answers) drawn from a small pool: ties everywhere."""
    def args() -> dict[str, Any]:
        return {k: rng.choice(v) for k, v in VALUES.items() if rng.random() < 0.5}

    pool = [(rng.choice("ffg"), args()) for _ in range(rng.randint(1, 4))]
    preds = [{"name": n, "arguments": a} for n, a in
             (rng.choice(pool) if rng.random() < 0.7 else (rng.choice("fgh"), args())
              for _ in range(rng.randint(0, most)))]
    golds = []
    for _ in range(rng.randint(0, most)):
        name, raw = rng.choice(pool) if rng.random() < 0.7 else (rng.choice("fg"), args())
        answer = {k: [v] + ([rng.choice(VALUES[k])] if rng.random() < 0.3 else []) + ([""] if rng.random() < 0.2 else [])
                  for k, v in raw.items()}
        if rng.random() < 0.15:
            answer["e"] = [{"k": ["v", "w"]}]  # a nested answer: judged pair by pair
        golds.append({name: answer})
    return preds, golds


def _objective(result: dict[str, Any]) -> list[tuple[float, ...]]:
    return [(d["fp"] + d["fn"], sum(p["exact"] for p in d["pairs"]), d["tp"], d["fp"]) for d in result["details"]]


def _both_ways(monkeypatch: pytest.MonkeyPatch, run: Any) -> tuple[Any, Any]:
    with monkeypatch.context() as patched:
        patched.setattr(matching, "_SHORTCUT_FROM", 2)  # shortcuts on small groups too
        fast = run()
    with monkeypatch.context() as patched:
        patched.setattr(matching, "SHORTCUTS", False)
        full = run()
    return fast, full


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", ["call", "arg"])
@pytest.mark.parametrize("matching_", ["greedy", "optimal"])
def test_shortcuts_change_no_public_result(seed: int, level: str, matching_: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    examples = [_example(rng, rng.choice([3, 6, 14])) for _ in range(60)]
    preds, refs = [p for p, _ in examples], [g for _, g in examples]
    weights = {"g": 0.7, "f": {"arguments": {"b": 1 / 3}}} if seed % 2 else None
    metric = ToolCallMetric(level, matching=matching_, tools=TOOLS if seed % 3 else None, weights=weights,
                            reference_format="bfcl", canonicalizer=[None, "bfcl", str.lower][seed % 3])

    def run() -> tuple[dict[str, Any], dict[str, Any]]:
        return (metric.compute(preds, refs, return_details=True, per_tool=True),
                metric.compute(preds, refs, per_tool=True))

    (fast, fast_counts), (full, full_counts) = _both_ways(monkeypatch, run)
    assert {k: v for k, v in fast.items() if k != "details"} == {k: v for k, v in full.items() if k != "details"}
    assert fast_counts == full_counts == {k: v for k, v in full.items() if k != "details"}
    assert _objective(fast) == _objective(full)
    if matching_ == "greedy":  # the very same pairs, argument by argument
        assert fast["details"] == full["details"]


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("level", ["call", "arg"])
def test_keyed_judging_chooses_the_same_optimal_pairs(seed: int, level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without classes, the keyed judge gives the numbers of judging in full: the same cost,
    so the very same pairs."""
    rng = random.Random(100 + seed)
    examples = [_example(rng, 12) for _ in range(20)]
    metric = ToolCallMetric(level, matching="optimal", tools=TOOLS, reference_format="bfcl",
                            weights={"f": {"weight": 1 / 3, "arguments": {"a": 0.3}}} if seed % 2 else None)
    monkeypatch.setattr(matching, "_MAX_CLASS_PAIRS", 0)

    def run() -> dict[str, Any]:
        return metric.compute([p for p, _ in examples], [g for _, g in examples], return_details=True)

    fast, full = _both_ways(monkeypatch, run)
    assert fast == full


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("matching_,level", [("greedy", "call"), ("optimal", "call"), ("optimal", "arg")])
def test_match_calls_with_and_without_shortcuts(seed: int, matching_: str, level: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(200 + seed)
    pool = [("f", {k: rng.choice(v) for k, v in VALUES.items() if rng.random() < 0.6}) for _ in range(3)]
    preds = [rng.choice(pool) for _ in range(rng.randint(5, 20))]
    golds = [rng.choice(pool) for _ in range(rng.randint(5, 20))]
    monkeypatch.setattr(matching, "_MAX_CLASS_PAIRS", 0 if matching_ == "optimal" else 256)

    def run() -> str:
        return repr(match_calls(preds, golds, tools=TOOLS, matching=matching_, level=level))

    fast, full = _both_ways(monkeypatch, run)
    assert fast == full
