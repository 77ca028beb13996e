"""The matcher's shortcuts pick exactly the pairs of the full computation.

``match_indices`` takes shortcuts — one call on each side, forced exact pairs, and at call
level with ``matching="optimal"`` an exactness-only judgement of every pair and weights
gathered from the calls — that must never change a pair: here they are checked against
judging every pair in full and running the matchers without any shortcut, on random groups
rich in ties (repeated calls, multi-valued and optional golds, schema defaults, weights).
"""

from __future__ import annotations

import random

import pytest

from toolcall_f1.calls import AnyOf, Call, GoldCall
from toolcall_f1.matching import (
    _greedy,
    _optimal,
    _solve,
    _to_int_scale,
    compare_call,
    group_by_name,
    match_indices,
)
from toolcall_f1.schema import ToolSet, compile_tools, validate_weights
from toolcall_f1.values import canon_default

TOOLS = [
    {"name": "f", "importance": 2, "parameters": {"type": "object", "properties": {
        "a": {"type": "integer", "importance": 0.1},
        "b": {"type": "string", "default": "x"},
        "c": {"type": "number", "importance": 0.3}}, "required": ["a"]}},
    {"name": "g", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}},
]


def _full(preds: list[Call], golds: list[GoldCall], ts: ToolSet, matching: str, level: str, fill: bool):
    pairs = []
    pg = group_by_name([c.name for c in preds], ts.name_canon)
    gg = group_by_name([c.name for c in golds], ts.name_canon)
    for key, pidx in pg.items():
        gidx = gg.get(key)
        if not gidx:
            continue
        tool = ts.by_key.get(key)
        wspec = ts.spec_for_weights(preds[pidx[0]].name)
        results = [
            [compare_call(preds[i], golds[j], tool=tool, weights=wspec, canon=canon_default, fill_defaults=fill)
             for j in gidx]
            for i in pidx
        ]
        gp, gg_ = [preds[i] for i in pidx], [golds[j] for j in gidx]
        if len(pidx) == len(gidx) == 1:
            chosen = [(0, 0)]
        elif matching == "greedy":
            chosen = _greedy(results)
        elif level == "arg":
            chosen = _optimal(results, gp, gg_, wspec, level)
        else:
            chosen = _optimal_call_reference(results, gp, gg_, wspec)
        pairs.extend((pidx[a], gidx[b], results[a][b]) for a, b in chosen)
    return sorted(pairs, key=lambda t: (t[0], t[1]))


def _optimal_call_reference(results, preds, golds, spec):
    """The call-level cost as first written: weights gathered from every verdict."""
    all_w = [spec.weight, 1.0]
    for row in results:
        for r in row:
            all_w.extend(v.weight for v in r.verdicts)
    for p in preds:
        all_w.extend(spec.arg_weight(k) for k in p.arguments)
    for g in golds:
        all_w.extend(spec.arg_weight(k) for k, acc in g.arguments.items() if not acc.optional)
    scale, _ = _to_int_scale(all_w)
    wt = scale[spec.weight]
    primary = [[(0 if r.exact else 2 * wt) - wt - wt for r in row] for row in results]
    exact = [[1 if r.exact else 0 for r in row] for row in results]
    tp = [[wt if r.exact else 0 for r in row] for row in results]
    fp = [[(0 if r.exact else wt) - wt for r in row] for row in results]
    return _solve(primary, exact, tp, fp)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("matching,level", [("optimal", "call"), ("optimal", "arg"), ("greedy", "call")])
def test_shortcuts_choose_the_same_pairs(seed: int, matching: str, level: str) -> None:
    rng = random.Random(seed)

    def call() -> Call:
        values = (("a", [1, 2, 2.0]), ("b", ["x", "y"]), ("c", [0.5, 1]))
        return Call(rng.choice("fgh"), {k: rng.choice(v) for k, v in values if rng.random() < 0.6})

    for _ in range(300):
        ts = compile_tools(TOOLS if rng.random() < 0.7 else [],
                           validate_weights({"g": 0.7} if rng.random() < 0.3 else None))
        pool = [call() for _ in range(rng.randint(1, 4))]  # a small pool: repeats and ties
        preds = [rng.choice(pool) if rng.random() < 0.7 else call() for _ in range(rng.randint(0, 6))]
        golds = []
        for _ in range(rng.randint(0, 6)):
            c = rng.choice(pool) if rng.random() < 0.7 else call()
            golds.append(GoldCall(c.name, {
                k: AnyOf(v, 1, optional=rng.random() < 0.3) if rng.random() < 0.3 else AnyOf(v)
                for k, v in c.arguments.items()
            }))
        fill = rng.random() < 0.5
        pairs, _, _ = match_indices(preds, golds, ts, canon=canon_default, matching=matching, level=level,
                                    fill_defaults=fill)
        # repr: the same pairs with the same verdicts, argument by argument
        assert repr(pairs) == repr(_full(preds, golds, ts, matching, level, fill))
