"""The matcher's shortcuts change no public result.

Each shortcut is a field of :class:`~toolcall_f1.matching.Matcher`; with all of them off
(:data:`GENERAL`) every pair of a group is judged in full by ``judge_pair`` and assigned by
the solver over every pair. Public results — the corpus result with details and per-tool
rows, folded from ``count_example`` as ``ToolCallMetric.compute`` folds it, and
``match_calls`` — must be the same either way, on random groups rich in ties (repeated calls,
multi-valued and optional golds, BFCL nested answers, schema defaults, fractional weights):
for every shortcut alone, and all of them together. Greedy picks the very same pairs; so does
the optimal matcher, except over classes of identical calls, which may break ties another
way — then every count and the objective are still the same.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from toolcall_f1 import Tally, ToolCallMetric, match_calls
from toolcall_f1.matching import Matcher
from toolcall_f1.schema import compile_tools, merge_tools, validate_weights
from toolcall_f1.counting import count_example
from toolcall_f1.values import resolve_canonicalizer, resolve_name_canonicalizer

#: Every shortcut off: the general path.
GENERAL = dict(single=False, forced_exact=False, classes=False, keyed=False, exact_pairs=False)
SHORTCUTS = tuple(GENERAL)


def only(shortcut: str, **fields: Any) -> dict[str, Any]:
    """Matcher fields with one shortcut on (``"all"``: every one), and ``fields``."""
    return {**({} if shortcut == "all" else {**GENERAL, shortcut: True}), **fields}


def compute_with(metric: ToolCallMetric, predictions: list[Any], references: list[Any], matcher: Matcher,
                 tools: Any = None, weights: Any = None, details: bool = True) -> dict[str, Any]:
    """``metric.compute(predictions, references, return_details=details, per_tool=True)`` with
    ``matcher`` pairing the calls: each example read by the metric, then counted by
    ``count_example`` with the matcher, and folded into a ``Tally``. (References carry no
    tools of their own here: the metric's are ``tools`` and ``weights``.)"""
    toolset = compile_tools(merge_tools(tools), validate_weights(weights),
                            resolve_name_canonicalizer(metric.name_canonicalizer))
    tally, scores = Tally(), []
    for pred, ref in zip(predictions, references):
        read = metric(pred, ref)
        score = count_example(list(read.preds), list(read.golds), toolset, level=metric.level,
                              matching=metric.matching, canon=resolve_canonicalizer(metric.canonicalizer),
                              fill_defaults=metric.reference_format != "bfcl", parse_error=read.parse_error,
                              tools_digest=read.tools_digest, details=details, matcher=matcher)
        tally.add(score)
        scores.append(score.to_dict())
    result = tally.result(metric.signature(example_tools_digests=tally.digests), per_tool=True)
    if details:
        result["details"] = scores
    return result


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


@pytest.mark.parametrize("shortcut,seed", [("all", seed) for seed in range(6)]
                         + [(shortcut, seed) for shortcut in SHORTCUTS for seed in range(3)])
@pytest.mark.parametrize("level", ["call", "arg"])
@pytest.mark.parametrize("matching_", ["greedy", "optimal"])
def test_shortcuts_change_no_public_result(shortcut: str, seed: int, level: str, matching_: str) -> None:
    rng = random.Random(seed)
    examples = [_example(rng, rng.choice([3, 6, 14])) for _ in range(60)]
    preds, refs = [p for p, _ in examples], [g for _, g in examples]
    weights = {"g": 0.7, "f": {"arguments": {"b": 1 / 3}}} if seed % 2 else None
    tools = TOOLS if seed % 3 else None
    metric = ToolCallMetric(level, matching=matching_, tools=tools, weights=weights,
                            reference_format="bfcl", canonicalizer=[None, "bfcl", str.lower][seed % 3])
    public = metric.compute(preds, refs, return_details=True, per_tool=True)
    counts = metric.compute(preds, refs, per_tool=True)
    assert compute_with(metric, preds, refs, Matcher(matching_, level), tools, weights) == public
    fast = compute_with(metric, preds, refs, Matcher(matching_, level, **only(shortcut, large_from=2)), tools, weights)
    full = compute_with(metric, preds, refs, Matcher(matching_, level, **GENERAL), tools, weights)
    assert {k: v for k, v in fast.items() if k != "details"} == {k: v for k, v in full.items() if k != "details"}
    assert counts == {k: v for k, v in full.items() if k != "details"}
    fields = only(shortcut, large_from=2)
    assert compute_with(metric, preds, refs, Matcher(matching_, level, **fields), tools, weights, details=False) == counts
    assert _objective(fast) == _objective(full) == _objective(public)
    if matching_ == "greedy" or shortcut not in ("all", "classes"):  # the very same pairs, argument by argument
        assert fast["details"] == full["details"]


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("level", ["call", "arg"])
def test_keyed_judging_chooses_the_same_optimal_pairs(seed: int, level: str) -> None:
    """Without classes, the keyed judge gives the numbers of judging in full: the same cost,
    so the very same pairs."""
    rng = random.Random(100 + seed)
    examples = [_example(rng, 12) for _ in range(20)]
    weights = {"f": {"weight": 1 / 3, "arguments": {"a": 0.3}}} if seed % 2 else None
    metric = ToolCallMetric(level, matching="optimal", tools=TOOLS, reference_format="bfcl", weights=weights)
    preds, refs = [p for p, _ in examples], [g for _, g in examples]
    fast = compute_with(metric, preds, refs, Matcher("optimal", level, classes=False, large_from=2), TOOLS, weights)
    assert fast == compute_with(metric, preds, refs, Matcher("optimal", level, **GENERAL), TOOLS, weights)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("matching_,level", [("greedy", "call"), ("optimal", "call"), ("optimal", "arg")])
def test_match_calls_with_and_without_shortcuts(seed: int, matching_: str, level: str) -> None:
    rng = random.Random(200 + seed)
    pool = [("f", {k: rng.choice(v) for k, v in VALUES.items() if rng.random() < 0.6}) for _ in range(3)]
    preds = [rng.choice(pool) for _ in range(rng.randint(5, 20))]
    golds = [rng.choice(pool) for _ in range(rng.randint(5, 20))]
    fast = Matcher(matching_, level, classes=matching_ == "greedy", large_from=2)
    assert repr(match_calls(preds, golds, tools=TOOLS, matcher=fast)) == repr(
        match_calls(preds, golds, tools=TOOLS, matcher=Matcher(matching_, level, **GENERAL)))
    assert repr(match_calls(preds, golds, tools=TOOLS, matching=matching_, level=level)) == repr(
        match_calls(preds, golds, tools=TOOLS, matcher=Matcher(matching_, level)))


def test_a_matcher_for_other_settings_is_refused() -> None:
    ts = compile_tools([], {})
    with pytest.raises(ValueError, match=r"count_example: the matcher is for matching='greedy', level='call'; "
                                         r"expected matching='optimal', level='call'"):
        count_example([], [], ts, level="call", matching="optimal", canon=str, fill_defaults=True, matcher=Matcher())
    with pytest.raises(ValueError, match="level: unknown value 'token'"):
        Matcher("greedy", "token")
