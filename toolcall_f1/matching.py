"""Matching calls as a multiset: assignment over judged pairs (SPEC §6).

Pairs are judged in :mod:`toolcall_f1.judge`; here :func:`assign` pairs the calls of one
name group, greedily (the seed's algorithm) or optimally (``scipy.optimize.
linear_sum_assignment`` over an exact integer cost), and :func:`match_calls` is the public
entry point. Large groups of repeated calls are matched over classes of identical calls.
"""

from __future__ import annotations

import collections
import marshal
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from math import lcm
from typing import Any

from .calls import Call, GoldCall, coerce_structured
from .counting import VERDICT_COUNTS
from .judge import (
    EXACT_ONLY,
    INEXACT_ONLY,
    ArgVerdict,
    PairResult,
    _compare,
    compare_call,
    exact_matrix,
    gold_repr,
)
from .schema import ToolSet, ToolSpec, compile_tools, merge_tools, validate_weights
from .values import Canonicalizer, NameCanonicalizer, resolve_canonicalizer, resolve_name_canonicalizer

__all__ = [
    "ArgVerdict",  # judged pairs, re-exported: toolcall_f1.matching.compare_call keeps working
    "PairResult",
    "compare_call",
    "exact_matrix",
    "gold_repr",
    "assign",
    "match_calls",
    "MATCHINGS",
    "LEVELS",
]

MATCHINGS = ("greedy", "optimal")
LEVELS = ("call", "arg")

# --------------------------------------------------------------------------- assignment


def _unmatched_pred_weight(call: Call, spec: ToolSpec) -> list[float]:
    return [spec.arg_weight(k) for k in call.arguments]


def _unmatched_gold_weight(call: GoldCall, spec: ToolSpec) -> list[float]:
    return [spec.arg_weight(k) for k, acc in call.arguments.items() if not acc.optional]


def _greedy_ranks(results: list[list[PairResult]]) -> list[list[tuple[bool, int, int]]]:
    """Each pair's rank for the greedy matcher: ``(not exact, -agree, errors)``, lowest first.

    agree and errors are ranked exactly (integers over a common denominator), so that a
    float sum such as 0.1 + 0.2 never outranks an equal 0.3.
    """
    scale, _ = _to_int_scale([v.weight for row in results for r in row for v in r.verdicts] or [1.0])

    def rank(r: PairResult) -> tuple[bool, int, int]:
        agree = errors = 0
        for v in r.verdicts:
            tp, fp, fn = VERDICT_COUNTS[v.verdict]
            agree += tp * scale[v.weight]
            errors += (fp + fn) * scale[v.weight]
        return not r.exact, -agree, errors

    return [[rank(r) for r in row] for row in results]


def _greedy(results: list[list[PairResult]]) -> list[tuple[int, int]]:
    """Candidate pairs best-first — by rank (:func:`_greedy_ranks`), then prediction index,
    then gold index — each taken while both calls are free (SPEC §6)."""
    ranked = sorted(
        (*rank, i, j) for i, row in enumerate(_greedy_ranks(results)) for j, rank in enumerate(row)
    )
    used_p: set[int] = set()
    used_g: set[int] = set()
    pairs = []
    limit = min(len(results), len(results[0]) if results else 0)
    for _, _, _, i, j in ranked:
        if i in used_p or j in used_g:
            continue
        used_p.add(i)
        used_g.add(j)
        pairs.append((i, j))
        if len(pairs) == limit:
            break
    return sorted(pairs)


@lru_cache(maxsize=4096)
def _fraction(w: float) -> Fraction:
    """The weight as written (its shortest decimal ``repr``), as an exact fraction; memoised
    (``lru_cache`` is safe to share between threads: a pure function of the weight)."""
    return Fraction(repr(float(w)))


def _to_int_scale(weights: Iterable[float]) -> tuple[dict[float, int], int]:
    """Exact integer images of weights: ``w * D`` for the least common denominator ``D``."""
    fracs = {w: _fraction(w) for w in set(weights)}
    denom = 1
    for f in fracs.values():
        if f.denominator != 1:
            denom = lcm(denom, f.denominator)
    return {w: f.numerator * (denom // f.denominator) for w, f in fracs.items()}, denom


def _group_scale(preds: Sequence[Call], golds: Sequence[GoldCall], spec: ToolSpec) -> dict[float, int]:
    """The exact integer image of every weight a group's pairs can involve: the tool weight,
    1 (the name field) and the weight of every argument of every call (each argument of each
    call appears in the verdicts of some pair, and unmatched calls weigh a subset of them)."""
    weights = {spec.weight, 1.0}
    for p in preds:
        weights.update(spec.arg_weight(k) for k in p.arguments)
    for g in golds:
        weights.update(spec.arg_weight(k) for k in g.arguments)
    scale, _ = _to_int_scale(weights)
    return scale


def _optimal(
    results: list[list[PairResult]],
    preds: Sequence[Call],
    golds: Sequence[GoldCall],
    spec: ToolSpec,
    level: str,
) -> list[tuple[int, int]]:
    if level == "call":
        return _optimal_call([[r.exact for r in row] for row in results], preds, golds, spec)
    return _solve(*_arg_costs(results, preds, golds, spec))


Costs = tuple[list[list[int]], list[list[int]], list[list[int]], list[list[int]]]


def _arg_costs(
    results: list[list[PairResult]], preds: Sequence[Call], golds: Sequence[GoldCall], spec: ToolSpec
) -> Costs:
    """The optimal matcher's objective at argument level, per pair, in exact integers:
    ``(primary, exact, tp, fp)`` — FP+FN the pair adds over leaving both calls unmatched, 1
    for an exact pair, its TP, and the FP it adds over leaving the prediction unmatched."""
    n, m = len(results), len(results[0])
    scale = _group_scale(preds, golds, spec)
    wt = scale[spec.weight]

    # Per-call cost of leaving it unmatched (FP+FN and FP), in integers.
    un_p = [wt * (scale[1.0] + sum(scale[w] for w in _unmatched_pred_weight(p, spec))) for p in preds]
    un_g = [wt * (scale[1.0] + sum(scale[w] for w in _unmatched_gold_weight(g, spec))) for g in golds]

    primary = [[0] * m for _ in range(n)]
    exact = [[0] * m for _ in range(n)]
    tp = [[0] * m for _ in range(n)]
    fp = [[0] * m for _ in range(n)]
    for i, row in enumerate(results):
        for j, r in enumerate(row):
            pair_tp, pair_fp, pair_fn = scale[1.0], 0, 0  # the name field agrees
            for v in r.verdicts:
                counts = VERDICT_COUNTS[v.verdict]
                pair_tp += counts[0] * scale[v.weight]
                pair_fp += counts[1] * scale[v.weight]
                pair_fn += counts[2] * scale[v.weight]
            primary[i][j] = wt * (pair_fp + pair_fn) - un_p[i] - un_g[j]
            exact[i][j] = 1 if r.exact else 0
            tp[i][j] = wt * pair_tp
            fp[i][j] = wt * pair_fp - un_p[i]
    return primary, exact, tp, fp


def _call_costs(
    exact_pairs: list[list[bool]], preds: Sequence[Call], golds: Sequence[GoldCall], spec: ToolSpec
) -> Costs:
    """The objective at call level, where a pair counts only as exact or not."""
    wt = _group_scale(preds, golds, spec)[spec.weight]
    # a pair: exact (no error, TP wt) or not (FP+FN 2wt, FP wt); unmatched: wt each side
    primary = [[(0 if x else 2 * wt) - 2 * wt for x in row] for row in exact_pairs]
    exact = [[1 if x else 0 for x in row] for row in exact_pairs]
    tp = [[wt if x else 0 for x in row] for row in exact_pairs]
    fp = [[(0 if x else wt) - wt for x in row] for row in exact_pairs]
    return primary, exact, tp, fp


def _optimal_call(
    exact_pairs: list[list[bool]], preds: Sequence[Call], golds: Sequence[GoldCall], spec: ToolSpec
) -> list[tuple[int, int]]:
    """The optimal assignment at call level, where a pair counts only as exact or not."""
    return _solve(*_call_costs(exact_pairs, preds, golds, spec))


def _most_exact_pairs(
    preds: Sequence[Call], golds: Sequence[GoldCall], tool: ToolSpec | None, canon: Canonicalizer,
    fill_defaults: bool,
) -> list[tuple[int, int, bool]]:
    """:func:`_most_exact` for one name group, as ``(i, j, exact)``, judging as few pairs as
    it can: first each prediction against the free gold calls in turn (starting with its own
    position, where parallel calls usually are), and when that pairs every call of the
    smaller side exactly — as many exact pairs as there can be — no other pair is judged;
    otherwise every pair is judged and matched in full."""
    n, m = len(preds), len(golds)
    want = min(n, m)
    taken: list[tuple[int, int, bool]] = []
    free = list(range(m))
    for i in range(n):
        if len(taken) == want:
            break
        for step in range(len(free)):
            j = free[(i + step) % len(free)]
            if _compare(preds[i], golds[j], tool, None, canon, fill_defaults, None)[0]:
                taken.append((i, j, True))
                free.remove(j)
                break
        else:
            if n <= m:
                break  # every prediction needs an exact partner, and this one has none left
    if len(taken) == want:
        return sorted(taken)
    exact_pairs = exact_matrix(preds, golds, tool, canon, fill_defaults)
    return [(a, b, exact_pairs[a][b]) for a, b in _most_exact(exact_pairs)]


def _most_exact(exact_pairs: list[list[bool]]) -> list[tuple[int, int]]:
    """A full assignment (every call of the smaller side paired) with as many exact pairs as
    any assignment can have: a maximum matching of the exact pairs, the rest paired in order.

    At call level the optimal matcher's counts depend only on that number — TP ``k·w``, FP
    ``(n−k)·w``, FN ``(m−k)·w`` for ``k`` exact pairs, one tool weight ``w`` — and its
    objective (fewest FP+FN, then most exact pairs) always reaches the largest ``k``.
    """
    n, m = len(exact_pairs), len(exact_pairs[0])
    match_of_gold = [-1] * m
    if n * m > 4096:
        import numpy as np
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import maximum_bipartite_matching

        graph = csr_matrix(np.array(exact_pairs, dtype=bool))
        for j, i in enumerate(maximum_bipartite_matching(graph, perm_type="row").tolist()):
            match_of_gold[j] = i
    else:
        adjacent = [[j for j, x in enumerate(row) if x] for row in exact_pairs]

        def augment(i: int, seen: list[bool]) -> bool:  # Kuhn's augmenting path
            for j in adjacent[i]:
                if not seen[j]:
                    seen[j] = True
                    if match_of_gold[j] < 0 or augment(match_of_gold[j], seen):
                        match_of_gold[j] = i
                        return True
            return False

        for i in range(n):
            if adjacent[i]:
                augment(i, [False] * m)
    pairs = [(i, j) for j, i in enumerate(match_of_gold) if i >= 0]
    free_p = iter(sorted(set(range(n)) - {i for i, _ in pairs}))
    free_g = [j for j in range(m) if match_of_gold[j] < 0]
    pairs.extend(zip(free_p, free_g))
    return sorted(pairs)


def _compose(primary: list[list[int]], exact: list[list[int]], tp: list[list[int]], fp: list[list[int]],
             k: int) -> list[list[int]]:
    """One exact integer cost whose sum over any ``k`` pairs orders assignments by
    (primary, -exact, -tp, fp) lexicographically."""
    span_fp = 2 * k * max(abs(x) for row in fp for x in row) + 1
    span_tp = 2 * k * max(abs(x) for row in tp for x in row) + 1
    m3 = span_fp
    m2 = span_tp * m3
    m1 = (2 * k + 1) * m2
    return [
        [p * m1 - e * m2 - t * m3 + f for p, e, t, f in zip(*rows)]
        for rows in zip(primary, exact, tp, fp)
    ]


def _solve(
    primary: list[list[int]], exact: list[list[int]], tp: list[list[int]], fp: list[list[int]]
) -> list[tuple[int, int]]:
    """Minimise (primary, -exact, -tp, fp) lexicographically, exactly.

    scipy's solver on one composed cost when every sum fits a float64 exactly; else the
    four objectives one after the other (:func:`_lexicographic`) when each fits; else the
    pure-Python :func:`_hungarian_exact` over the composed integers (weights written with
    16 significant digits, such as 1/3, on large groups).
    """
    n, m = len(primary), len(primary[0])
    k = min(n, m)
    cost = _compose(primary, exact, tp, fp, k)
    if _fits(cost, k):
        import numpy as np
        from scipy.optimize import linear_sum_assignment

        rows, cols = linear_sum_assignment(np.array(cost, dtype=np.float64))
        return sorted(zip(rows.tolist(), cols.tolist()))
    stages = [primary, [[-x for x in row] for row in exact], [[-x for x in row] for row in tp], fp]
    if all(_fits(stage, max(n, m)) for stage in stages):
        return _lexicographic(stages)
    return _hungarian_exact(cost)


def _fits(cost: list[list[int]], k: int) -> bool:
    """Are sums of ``k`` entries (and potentials, up to twice that) exact in a float64?"""
    return max(abs(x) for row in cost for x in row) * 2 * (k + 1) < 2**53


def _lexicographic(stages: list[list[list[int]]]) -> list[tuple[int, int]]:
    """An assignment minimising ``stages[0]``, then among those ``stages[1]``, and so on.

    Each stage is one scipy solve over the pairs still allowed. After a stage, dual
    potentials of its optimum are found (:func:`_tight_pairs`); a pair whose reduced cost is
    not zero is in no optimal assignment of that stage, so it is dropped for the next. Every
    number stays an integer a float64 holds exactly (:func:`_fits`).
    """
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    n, m = len(stages[0]), len(stages[0][0])
    size = max(n, m)  # square, with zero-cost stand-ins for the calls the smaller side lacks
    allowed = np.ones((size, size), dtype=bool)
    cols = np.arange(size)
    for number, stage in enumerate(stages):
        cost = np.zeros((size, size))
        cost[:n, :m] = np.array(stage, dtype=np.float64)
        cost[~allowed] = np.inf
        rows, cols = linear_sum_assignment(cost)
        if number < len(stages) - 1:
            allowed &= _tight_pairs(cost, cols)
    return sorted((i, j) for i, j in zip(rows.tolist(), cols.tolist()) if i < n and j < m)


def _tight_pairs(cost: Any, assigned: Any) -> Any:
    """The pairs of zero reduced cost under dual potentials of the optimal ``assigned``
    (row ``i`` to column ``assigned[i]``) of a square ``cost``: column potentials start at 0
    and fall to the cheapest way in, each row's potential keeping its own pair tight, until
    nothing changes (no negative cycle, so at most one round per row)."""
    import numpy as np

    n = len(assigned)
    own = cost[np.arange(n), assigned]
    col = np.zeros(n)
    for _ in range(n + 1):
        row = col[assigned] - own
        lowered = np.minimum(col, (row[:, None] + cost).min(axis=0))
        if np.array_equal(lowered, col):
            break
        col = lowered
    row = col[assigned] - own
    with np.errstate(invalid="ignore"):
        return (cost + row[:, None] - col[None, :]) == 0


def _hungarian_exact(cost: list[list[int]]) -> list[tuple[int, int]]:
    """Minimum-cost assignment over Python integers (exact for any magnitude).

    Used only when the integer costs do not fit a float64 exactly; O(n²m).
    """
    n, m = len(cost), len(cost[0])
    transposed = n > m
    if transposed:
        cost = [list(col) for col in zip(*cost)]
        n, m = m, n
    inf = float("inf")
    u = [0] * (n + 1)
    v = [0] * (m + 1)
    p = [0] * (m + 1)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv: list[Any] = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            delta: Any = inf
            j1 = 0
            for j in range(1, m + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    pairs = [(p[j] - 1, j - 1) for j in range(1, m + 1) if p[j] != 0]
    if transposed:
        pairs = [(b, a) for a, b in pairs]
    return sorted(pairs)


def assign(
    results: list[list[PairResult]],
    preds: Sequence[Call],
    golds: Sequence[GoldCall],
    spec: ToolSpec,
    *,
    matching: str = "greedy",
    level: str = "call",
) -> list[tuple[int, int]]:
    """Pair the calls of one name group; ``results[i][j]`` judges ``preds[i]`` vs ``golds[j]``.

    Every call of the smaller side is paired. Returns ``(i, j)`` index pairs, sorted.
    """
    if not results or not results[0]:
        return []
    if len(results) == 1 and len(results[0]) == 1:
        return [(0, 0)]
    if matching == "greedy" or level == "call" or len(results) == len(results[0]):
        forced = _forced_exact([[r.exact for r in row] for row in results])
        if forced is not None:
            return forced
    if matching == "greedy":
        return _greedy(results)
    return _optimal(results, preds, golds, spec, level)


def _forced_exact(exact_pairs: list[list[bool]]) -> list[tuple[int, int]] | None:
    """The pairs when every call of the smaller side has exactly one exact partner, each a
    different one — the common case of parallel calls to one tool; else None.

    Then both matchers must return exactly these pairs: greedy takes exact pairs first and
    none of these collide; for the optimal matcher at call level (or with as many predicted
    as gold calls, at either level) it is the one assignment with every pair exact, which
    beats every other on FP+FN or, at equal cost, on the number of exact pairs.
    """
    n, m = len(exact_pairs), len(exact_pairs[0])
    if n > m:  # the gold side is the smaller one: the same question about the transposed matrix
        flipped = _forced_exact([list(column) for column in zip(*exact_pairs)])
        return None if flipped is None else sorted((i, j) for j, i in flipped)
    pairs: list[tuple[int, int]] = []
    taken: set[int] = set()
    for i, row in enumerate(exact_pairs):
        found = -1
        for j, is_exact in enumerate(row):
            if is_exact:
                if found >= 0:
                    return None
                found = j
        if found < 0 or found in taken:
            return None
        taken.add(found)
        pairs.append((i, found))
    return pairs


# --------------------------------------------------------------------------- repeated calls

#: From this many pairs in a name group on, identical calls are judged once (see
#: :func:`_match_classes`); below it every pair is judged, which is as fast.
_CLASSES_FROM = 64
#: The most distinct (prediction, gold) pairs the class route solves (with few distinct
#: calls the classes stay few; many distinct calls are judged pair by pair).
_MAX_CLASS_PAIRS = 256


def _classes(keys: Sequence[Any]) -> tuple[list[int], list[int]]:
    """``(class of each item, first item of each class)`` for items with equal keys; an item
    whose key is None is a class of its own."""
    first: dict[Any, int] = {}
    class_of: list[int] = []
    reps: list[int] = []
    for i, key in enumerate(keys):
        c = first.get(key) if key is not None else None
        if c is None:
            c = len(reps)
            reps.append(i)
            if key is not None:
                first[key] = c
        class_of.append(c)
    return class_of, reps


def _strict_key(value: Any) -> bytes | None:
    """``marshal`` bytes: equal only for identical plain data (``1``, ``1.0`` and ``True``
    differ, and so does key order), or None for anything else."""
    try:
        return marshal.dumps(value)
    except ValueError:
        return None


def _pred_key(call: Call) -> bytes | None:
    return _strict_key(tuple(call.arguments.items()))


def _gold_key(call: GoldCall) -> bytes | None:
    return _strict_key(tuple((k, acc.values, acc.optional) for k, acc in call.arguments.items()))


def _match_classes(
    preds: Sequence[Call], golds: Sequence[GoldCall], tool: ToolSpec | None, wspec: ToolSpec,
    canon: Canonicalizer, fill_defaults: bool, matching: str, level: str, exact_only: bool,
) -> list[tuple[int, int, PairResult]] | None:
    """One name group with many repeated calls: identical predictions (and identical gold
    calls) judge alike against everything, so each distinct pair is judged once, and the
    matchers work on the classes of identical calls — 2,000 identical calls are one judgement
    and linear work. None when the calls are too varied for that to pay.

    Greedy picks exactly the pairs it picks over every pair (:func:`_greedy_classes`); the
    optimal matcher minimises the same exact objective (:func:`_transport`), breaking ties
    its own deterministic way.
    """
    p_class, p_reps = _classes([_pred_key(p) for p in preds])
    g_class, g_reps = _classes([_gold_key(g) for g in golds])
    distinct = len(p_reps) * len(g_reps)
    if distinct > _MAX_CLASS_PAIRS or 4 * distinct > len(preds) * len(golds):
        return None
    rp, rg = [preds[i] for i in p_reps], [golds[j] for j in g_reps]
    if exact_only and matching == "optimal":  # its counts need only which pairs are exact
        judged = [[EXACT_ONLY if _compare(p, g, tool, None, canon, fill_defaults, None)[0] else INEXACT_ONLY
                   for g in rg] for p in rp]
    else:
        judged = [[compare_call(p, g, tool=tool, weights=wspec, canon=canon, fill_defaults=fill_defaults)
                   for g in rg] for p in rp]
    if matching == "greedy":
        pairs = _greedy_classes(judged, p_class, g_class)
    else:
        if level == "call":
            costs = _call_costs([[r.exact for r in row] for row in judged], rp, rg, wspec)
        else:
            costs = _arg_costs(judged, rp, rg, wspec)
        k = min(len(preds), len(golds))
        flows = _transport(_compose(*costs, k), _sizes(p_class, len(p_reps)), _sizes(g_class, len(g_reps)), k)
        pairs = _pairs_of_flows(flows, p_class, g_class)
    return [(i, j, judged[p_class[i]][g_class[j]]) for i, j in pairs]


def _sizes(class_of: list[int], n: int) -> list[int]:
    sizes = [0] * n
    for c in class_of:
        sizes[c] += 1
    return sizes


def _members(class_of: list[int], n: int) -> list[list[int]]:
    members: list[list[int]] = [[] for _ in range(n)]
    for i, c in enumerate(class_of):
        members[c].append(i)
    return members


def _greedy_classes(judged: list[list[PairResult]], p_class: list[int], g_class: list[int]) -> list[tuple[int, int]]:
    """:func:`_greedy` over every pair, computed on classes of identical calls.

    The full greedy takes pairs by rank, then prediction index, then gold index. Within one
    rank that is: each free prediction, in index order, takes the free gold call of lowest
    index among those it has that rank with — and within a class of identical gold calls,
    the lowest free index is always the first one left. So each rank costs one pass over the
    predictions, not over every pair.
    """
    ranks = _greedy_ranks(judged)
    by_rank: dict[tuple[bool, int, int], dict[int, list[int]]] = {}
    for a, row in enumerate(ranks):
        for b, rank in enumerate(row):
            by_rank.setdefault(rank, {}).setdefault(a, []).append(b)
    free_preds = _members(p_class, len(judged))
    free_golds = [collections.deque(m) for m in _members(g_class, len(judged[0]))]
    limit = min(len(p_class), len(g_class))
    pairs: list[tuple[int, int]] = []
    for rank in sorted(by_rank):
        targets = by_rank[rank]
        for i in sorted(i for a in targets for i in free_preds[a]):
            best = None
            for b in targets[p_class[i]]:
                if free_golds[b] and (best is None or free_golds[b][0] < free_golds[best][0]):
                    best = b
            if best is not None:
                pairs.append((i, free_golds[best].popleft()))
                free_preds[p_class[i]].remove(i)
                if len(pairs) == limit:
                    return sorted(pairs)
    return sorted(pairs)


def _greedy_exact_first(
    exact_pairs: list[list[bool]], preds: Sequence[Call], golds: Sequence[GoldCall], tool: ToolSpec | None,
    wspec: ToolSpec, canon: Canonicalizer, fill_defaults: bool,
) -> list[tuple[int, int, bool]]:
    """Greedy's pairs, as far as counts at call level go: ``(i, j, exact)``.

    Greedy takes every exact pair it can before any other (an exact pair ranks first), so
    which exact pairs it takes is decided among the exact pairs alone — judged in full here
    for their rank. The rest are paired in index order: at call level any pairing of them
    counts the same (each pair FP and FN at the one tool weight of the group).
    """
    candidates = [(i, j) for i, row in enumerate(exact_pairs) for j, x in enumerate(row) if x]
    judged = [[compare_call(preds[i], golds[j], tool=tool, weights=wspec, canon=canon, fill_defaults=fill_defaults)
               for i, j in candidates]]
    ranks = _greedy_ranks(judged)[0] if candidates else []
    taken_p: set[int] = set()
    taken_g: set[int] = set()
    out: list[tuple[int, int, bool]] = []
    for *_, i, j in sorted((*rank, i, j) for rank, (i, j) in zip(ranks, candidates)):
        if i not in taken_p and j not in taken_g:
            taken_p.add(i)
            taken_g.add(j)
            out.append((i, j, True))
    rest = zip((i for i in range(len(preds)) if i not in taken_p), (j for j in range(len(golds)) if j not in taken_g))
    out.extend((i, j, False) for i, j in rest)
    return sorted(out)


def _transport(cost: list[list[int]], supply: list[int], demand: list[int], k: int) -> list[list[int]]:
    """The cheapest way to send ``k`` units from rows (each row ``a`` at most ``supply[a]``)
    to columns (at most ``demand[b]``) at ``cost[a][b]`` per unit, in exact integers: the
    assignment problem over classes of identical calls (a transportation problem).

    Successive shortest paths (Bellman-Ford, for negative costs) over the residual graph;
    each augmentation sends as much as the path allows. Returns the flow per (row, column).
    """
    na, nb = len(supply), len(demand)
    flow = [[0] * nb for _ in range(na)]
    left_s, left_d = list(supply), list(demand)
    sent = 0
    while sent < k:
        dist, prev = _residual_distances(cost, flow, left_s)
        ends = [b for b in range(nb) if left_d[b] > 0 and dist[na + b] is not None]
        end = min(ends, key=lambda b: (dist[na + b], b))
        path = [na + end]
        while prev[path[-1]] >= 0:
            path.append(prev[path[-1]])
        path.reverse()  # row, column, row, column, ..., column
        amount = min(left_s[path[0]], left_d[end], k - sent)
        for back in range(1, len(path) - 1, 2):  # column -> row: undoing some flow
            amount = min(amount, flow[path[back + 1]][path[back] - na])
        for step in range(0, len(path) - 1):
            u, v = path[step], path[step + 1]
            if step % 2 == 0:
                flow[u][v - na] += amount
            else:
                flow[v][u - na] -= amount
        left_s[path[0]] -= amount
        left_d[end] -= amount
        sent += amount
    return flow


def _residual_distances(
    cost: list[list[int]], flow: list[list[int]], left_s: list[int]
) -> tuple[list[Any], list[int]]:
    """Shortest distances from the rows with supply left, over rows → columns (cost) and
    columns → rows where flow can be undone (−cost): Bellman-Ford rounds until nothing
    changes (a minimum-cost flow has no negative cycle, so it ends)."""
    na, nb = len(cost), len(cost[0])
    dist: list[Any] = [0 if left_s[a] > 0 else None for a in range(na)] + [None] * nb
    prev = [-1] * (na + nb)
    for _ in range(na + nb + 1):
        changed = False
        for a in range(na):
            da = dist[a]
            if da is None:
                continue
            for b in range(nb):
                d = da + cost[a][b]
                if dist[na + b] is None or d < dist[na + b]:
                    dist[na + b], prev[na + b], changed = d, a, True
        for b in range(nb):
            db = dist[na + b]
            if db is None:
                continue
            for a in range(na):
                if flow[a][b] > 0:
                    d = db - cost[a][b]
                    if dist[a] is None or d < dist[a]:
                        dist[a], prev[a], changed = d, na + b, True
        if not changed:
            return dist, prev
    raise RuntimeError("minimum-cost flow: a negative cycle")  # cannot happen: see above


def _pairs_of_flows(flows: list[list[int]], p_class: list[int], g_class: list[int]) -> list[tuple[int, int]]:
    """Index pairs from a flow between classes: lowest indices first, class pair by class pair."""
    preds = [collections.deque(m) for m in _members(p_class, len(flows))]
    golds = [collections.deque(m) for m in _members(g_class, len(flows[0]))]
    pairs = []
    for a, row in enumerate(flows):
        for b, f in enumerate(row):
            for _ in range(f):
                pairs.append((preds[a].popleft(), golds[b].popleft()))
    return sorted(pairs)


def check_choice(value: str, choices: Sequence[str], what: str) -> str:
    """Validate a setting against its allowed values, naming both in the error."""
    if value not in choices:
        raise ValueError(
            f"{what}: unknown value {value!r}; expected one of " + ", ".join(repr(c) for c in choices)
        )
    return value


def group_by_name(
    names: Sequence[str], name_canon: NameCanonicalizer
) -> dict[str, list[int]]:
    """Indices grouped by canonical name, in first-seen order."""
    groups: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        groups.setdefault(name_canon(name), []).append(i)
    return groups


def match_calls(
    pred: Any,
    gold: Any,
    *,
    canon: str | Canonicalizer | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
    weights: Mapping[str, Any] | None = None,
    matching: str = "greedy",
    level: str = "call",
    name_canonicalizer: str | Callable[[str], str] | None = None,
) -> tuple[list[tuple[Call, GoldCall]], list[Call], list[GoldCall]]:
    """Assign predicted calls to gold calls — the layer a flat field metric does not provide.

    Calls are grouped by tool name (a call to another tool is never a pair). Within a name,
    ``"greedy"`` takes candidate pairs best-first (exact before partial, more agreeing
    weight, fewer errors, then lower prediction and gold index); ``"optimal"`` finds the
    assignment with the fewest FP+FN at ``level``. Every call of the smaller side of a
    name group is paired.

    Parameters
    ----------
    pred, gold
        Calls in any structured shape of SPEC §2 (a list of ``Call``, ``(name, args)``
        tuples, dicts, ...).
    canon
        String canonicalizer: ``"default"`` (None), ``"bfcl"``, ``"exact"`` or a callable.
    tools, weights
        Tool schemas and weight overrides (they decide types, defaults and costs).
    matching
        ``"greedy"`` or ``"optimal"``.
    level
        ``"call"`` or ``"arg"``: the FP+FN the optimal matcher minimises.
    name_canonicalizer
        ``"exact"`` (None), ``"underscore"`` or a callable.

    Returns
    -------
    tuple
        ``(pairs, unmatched_pred, unmatched_gold)``; pairs are ``(Call, GoldCall)``.

    Raises
    ------
    ValueError
        For an unknown setting or a malformed call.

    Examples
    --------
    >>> pairs, up, ug = match_calls([("s", {"q": "b"}), ("s", {"q": "a"})],
    ...                             [("s", {"q": "a"}), ("s", {"q": "b"})])
    >>> len(pairs), up, ug          # order-insensitive within a tool name
    (2, [], [])
    >>> match_calls([], [], matching="best")
    Traceback (most recent call last):
    ...
    ValueError: matching: unknown value 'best'; expected one of 'greedy', 'optimal'
    """
    check_choice(matching, MATCHINGS, "matching")
    check_choice(level, LEVELS, "level")
    canon_fn = resolve_canonicalizer(canon)
    name_fn = resolve_name_canonicalizer(name_canonicalizer)
    toolset = compile_tools(merge_tools(tools), validate_weights(weights), name_fn)
    pcalls = coerce_structured(pred)
    gcalls = [GoldCall.from_call(c) for c in coerce_structured(gold, gold=True)]
    pairs_idx, up, ug = match_indices(
        pcalls, gcalls, toolset, canon=canon_fn, matching=matching, level=level, fill_defaults=True
    )
    return (
        [(pcalls[i], gcalls[j]) for i, j, _ in pairs_idx],
        [pcalls[i] for i in up],
        [gcalls[j] for j in ug],
    )


def match_indices(
    preds: Sequence[Call],
    golds: Sequence[GoldCall],
    toolset: ToolSet,
    *,
    canon: Canonicalizer,
    matching: str,
    level: str,
    fill_defaults: bool,
    details: bool = True,
) -> tuple[list[tuple[int, int, PairResult]], list[int], list[int]]:
    """Match by index: ``([(i, j, PairResult)], unmatched pred indices, unmatched gold indices)``.

    ``details=False`` at call level, for counting only: each pair is judged for exactness
    alone (:data:`EXACT_ONLY` / :data:`INEXACT_ONLY`, no per-argument verdicts), and the
    optimal matcher may pick other pairs than in full — with as many exact pairs, which is
    all its counts depend on (:func:`_most_exact`). The greedy matcher's pairs are the same.
    """
    name_fn = toolset.name_canon
    exact_only = not details and level == "call"
    if len(preds) == 1 and len(golds) == 1:  # the commonest example: one call on each side
        p, g = preds[0], golds[0]
        key = name_fn(p.name)
        if key != name_fn(g.name):
            return [], [0], [0]
        if exact_only:
            exact = _compare(p, g, toolset.by_key.get(key), None, canon, fill_defaults, None)[0]
            return [(0, 0, EXACT_ONLY if exact else INEXACT_ONLY)], [], []
        result = compare_call(
            p, g, tool=toolset.by_key.get(key), weights=toolset.spec_for_weights(p.name),
            canon=canon, fill_defaults=fill_defaults,
        )
        return [(0, 0, result)], [], []
    pgroups = group_by_name([c.name for c in preds], name_fn)
    ggroups = group_by_name([c.name for c in golds], name_fn)
    pairs: list[tuple[int, int, PairResult]] = []
    matched_p: set[int] = set()
    matched_g: set[int] = set()
    for key, pidx in pgroups.items():
        gidx = ggroups.get(key)
        if not gidx:
            continue
        tool = toolset.by_key.get(key)
        wspec = toolset.spec_for_weights(preds[pidx[0]].name)
        gp = [preds[i] for i in pidx]
        gg = [golds[j] for j in gidx]
        for a, b, result in _match_group(gp, gg, tool, wspec, canon, fill_defaults, matching, level, exact_only):
            pairs.append((pidx[a], gidx[b], result))
            matched_p.add(pidx[a])
            matched_g.add(gidx[b])
    pairs.sort()  # by (pred index, gold index): unique, so a PairResult is never compared
    return (
        pairs,
        [i for i in range(len(preds)) if i not in matched_p],
        [j for j in range(len(golds)) if j not in matched_g],
    )


def _match_group(
    gp: Sequence[Call], gg: Sequence[GoldCall], tool: ToolSpec | None, wspec: ToolSpec, canon: Canonicalizer,
    fill_defaults: bool, matching: str, level: str, exact_only: bool,
) -> list[tuple[int, int, PairResult]]:
    """The pairs of one name group, ``(i, j, PairResult)`` by position in ``gp`` and ``gg``,
    judging as few pairs in full as gives the same pairs (or, where only counts are wanted,
    the same counts) as judging every pair and running :func:`assign`."""
    def judge(a: int, b: int) -> PairResult:
        return compare_call(gp[a], gg[b], tool=tool, weights=wspec, canon=canon, fill_defaults=fill_defaults)

    large = len(gp) * len(gg) >= _CLASSES_FROM
    if large:
        classed = _match_classes(gp, gg, tool, wspec, canon, fill_defaults, matching, level, exact_only)
        if classed is not None:
            return classed
    if exact_only:
        # no details at call level: only the counts are wanted, and they depend on
        # nothing but which pairs are exact
        if matching == "optimal" or len(gp) * len(gg) == 1:
            # the optimal matcher's counts are those of the most exact pairs an
            # assignment can have (see _most_exact); one pair is the only choice
            return [(a, b, EXACT_ONLY if x else INEXACT_ONLY)
                    for a, b, x in _most_exact_pairs(gp, gg, tool, canon, fill_defaults)]
        # greedy: when every call of the smaller side has its own exact partner (what
        # assign() checks first), those are its pairs; else its exact pairs, judged in full
        exact_pairs = exact_matrix(gp, gg, tool, canon, fill_defaults)
        forced = _forced_exact(exact_pairs)
        if forced is not None:
            return [(a, b, EXACT_ONLY) for a, b in forced]
        if large:
            return [(a, b, EXACT_ONLY if x else INEXACT_ONLY)
                    for a, b, x in _greedy_exact_first(exact_pairs, gp, gg, tool, wspec, canon, fill_defaults)]
    elif matching == "optimal" and level == "call" and len(gp) * len(gg) > 1:
        # at call level the assignment needs only which pairs are exact: judge every
        # pair for exactness alone, and in full only the pairs chosen
        exact_pairs = exact_matrix(gp, gg, tool, canon, fill_defaults)
        chosen = _forced_exact(exact_pairs)
        if chosen is None:
            chosen = _optimal_call(exact_pairs, gp, gg, wspec)
        return [(a, b, judge(a, b)) for a, b in chosen]
    elif large and (matching == "greedy" or len(gp) == len(gg)):
        # a large group of parallel calls: when every call of the smaller side has its own
        # exact partner, assign() would return those pairs; judge only them in full
        forced = _forced_exact(exact_matrix(gp, gg, tool, canon, fill_defaults))
        if forced is not None:
            return [(a, b, judge(a, b)) for a, b in forced]
    results = [[judge(a, b) for b in range(len(gg))] for a in range(len(gp))]
    return [(a, b, results[a][b]) for a, b in assign(results, gp, gg, wspec, matching=matching, level=level)]
