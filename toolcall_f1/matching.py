"""Matching calls as a multiset: assignment over judged pairs (SPEC §6).

One route for a name group (:func:`_match_group`): judge every pair for its numbers
(exactness, TP/FP/FN in exact integer weight units), assign — greedily, or optimally over
one exact integer cost — and judge the chosen pairs in full for their verdicts.
:func:`match_calls` is the public entry point.

Four shortcuts give the same results faster, all switched off by one flag,
:data:`SHORTCUTS`: an example of one call on each side is matched without grouping; a large
group is judged with value keys (:func:`~toolcall_f1.judge.judge_group`) instead of pair by
pair; a group of many repeated calls is matched over classes of identical calls
(:func:`_match_classes`: the same pairs for greedy, an assignment of the same cost for
optimal); and a small group where each call has its own exact partner takes those pairs
without an assignment solver (:func:`_forced_exact`).
"""

from __future__ import annotations

import collections
import pickle
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from math import lcm
from typing import Any

import numpy as np

from .calls import Call, GoldCall, coerce_structured
from .counting import VERDICT_COUNTS
from .judge import ArgVerdict, GroupNumbers, PairResult, compare_call, gold_repr, is_exact, judge_group, judge_pair, public_settings
from .schema import ToolSet, ToolSpec
from .settings import LEVELS, MATCHINGS, check_choice
from .values import Canonicalizer

__all__ = [
    "ArgVerdict",  # judged pairs, re-exported: toolcall_f1.matching.compare_call keeps working
    "PairResult",
    "compare_call",
    "gold_repr",
    "match_calls",
    "MATCHINGS",
    "LEVELS",
]

#: The speed shortcuts above. Off, every pair is judged in full by :func:`compare_call`: the
#: same results, for tests to compare.
SHORTCUTS = True
#: From this many pairs in a group on, the shortcuts are tried (below, judging in full is as fast).
_SHORTCUT_FROM = 64

#: A pair judged for exactness alone, where counting reads nothing else (call level, no details).
EXACT_ONLY = PairResult(True, 0.0, 0.0, ())
INEXACT_ONLY = PairResult(False, 0.0, 0.0, ())

# --------------------------------------------------------------------------- exact weights


def _fraction(w: float) -> Fraction:
    """The weight as written (its shortest decimal ``repr``), as an exact fraction."""
    return Fraction(repr(float(w)))


def _group_units(preds: Sequence[Call], golds: Sequence[GoldCall], spec: ToolSpec) -> dict[float, int]:
    """The exact integer image, ``w * D`` for the least common denominator ``D``, of every
    weight a group's pairs can involve: the tool weight, 1 (the name field) and the weight
    of every argument of every call."""
    keys = {k for c in preds for k in c.arguments} | {k for c in golds for k in c.arguments}
    fracs = {w: _fraction(w) for w in {spec.weight, 1.0, *(spec.arg_weight(k) for k in keys)}}
    denom = lcm(1, *(f.denominator for f in fracs.values()))
    return {w: f.numerator * (denom // f.denominator) for w, f in fracs.items()}


def _numbers(results: list[list[PairResult]], units: Mapping[float, int]) -> GroupNumbers:
    """:class:`GroupNumbers` of pairs judged in full: their exactness and argument counts."""
    tp, fp, fn = [], [], []
    for row in results:
        for r in row:
            a = b = c = 0
            for v in r.verdicts:
                counts, unit = VERDICT_COUNTS[v.verdict], units[v.weight]
                a, b, c = a + counts[0] * unit, b + counts[1] * unit, c + counts[2] * unit
            tp.append(a)
            fp.append(b)
            fn.append(c)
    shape = (len(results), len(results[0]))
    exact = np.array([r.exact for row in results for r in row], dtype=bool).reshape(shape)
    return GroupNumbers(exact, *(_int_array(c).reshape(shape) for c in (tp, fp, fn)))


def _int_array(values: list[int]) -> Any:
    """Integers as an ``int64`` array when they surely fit, else as exact Python ints."""
    if not values or max(values) < 2**60 and min(values) > -(2**60):
        return np.array(values, dtype=np.int64)
    return np.array(values, dtype=object)


def _most(a: Any) -> int:
    """The largest magnitude in an array (0 when empty), as a Python int."""
    return int(np.abs(a).max()) if a.size else 0


# --------------------------------------------------------------------------- greedy


def _greedy(numbers: GroupNumbers) -> list[tuple[int, int]]:
    """Candidate pairs best-first — exact first, then more agreeing weight, fewer errors,
    lower prediction index, lower gold index — each taken while both calls are free (SPEC §6)."""
    n, m = numbers.exact.shape
    # lexsort is stable: ties keep the flat order i * m + j, i.e. (prediction, gold) index
    order = np.lexsort((_ranks(numbers.fp + numbers.fn), _ranks(-numbers.tp), ~numbers.exact.ravel()))
    free_p, free_g = bytearray(b"\1") * n, bytearray(b"\1") * m
    pairs: list[tuple[int, int]] = []
    limit = min(n, m)
    for start in range(0, n * m, 1 << 16):
        for flat in order[start : start + (1 << 16)].tolist():
            i, j = divmod(flat, m)
            if free_p[i] and free_g[j]:
                free_p[i] = free_g[j] = 0
                pairs.append((i, j))
                if len(pairs) == limit:
                    return sorted(pairs)
    return sorted(pairs)


def _ranks(values: Any) -> Any:
    """Flattened values as sortable ``int64`` (exact Python ints become their rank)."""
    if values.dtype == object:
        return np.unique(values.ravel(), return_inverse=True)[1].ravel()
    return values.ravel()


# --------------------------------------------------------------------------- optimal


class Cost:
    """An exact integer cost matrix, ``Σ part · factor``, kept as its parts (``int64`` or
    Python-int arrays) and factors (Python ints): it is read whole as ``int64`` where it
    surely fits, as a float image, or row by row in exact integers."""

    def __init__(self, parts: Sequence[Any], factors: Sequence[int]) -> None:
        self.parts, self.factors = tuple(parts), tuple(factors)
        self.shape = self.parts[0].shape
        #: No entry is larger in magnitude.
        self.bound = sum(_most(p) * abs(f) for p, f in zip(self.parts, self.factors))
        #: The float image is of ``cost >> shift``: in float64 range for any weights.
        self.shift = max(0, self.bound.bit_length() - 900)
        self._rows: dict[int, Any] = {}

    def transposed(self) -> Cost:
        return Cost([p.T for p in self.parts], self.factors)

    def exact(self, kind: Any = object) -> Any:
        """The whole matrix in Python ints, or in ``np.int64`` (when ``bound`` fits it)."""
        if kind is np.int64 and any(p.dtype == object for p in self.parts):
            return self.exact(object).astype(np.int64)  # a part past int64 (its factor may be 0)
        return sum(p.astype(kind) * f for p, f in zip(self.parts, self.factors))

    def row(self, i: int) -> Any:
        """Row ``i`` in Python ints, computed once: the negative-cycle search reads the same
        rows again and again."""
        if i not in self._rows:
            self._rows[i] = sum(p[i].astype(object) * f for p, f in zip(self.parts, self.factors))
        return self._rows[i]

    def image(self) -> Any:
        """``cost >> shift`` in float64, rounded (a part of Python ints, which may be past
        float range, is shifted exactly before it becomes floats)."""
        return sum(((p * f) >> self.shift).astype(np.float64) if p.dtype == object
                   else p.astype(np.float64) * float(f >> self.shift) for p, f in zip(self.parts, self.factors))


def _optimal(numbers: GroupNumbers, preds: Sequence[Call], golds: Sequence[GoldCall], spec: ToolSpec,
             units: Mapping[float, int], level: str, k: int | None = None) -> Cost:
    """The cost whose least sum over assignments of ``k`` pairs (default: the smaller side)
    is the optimal matcher's objective (SPEC §6): fewest FP+FN at ``level``, then most exact
    pairs, then most TP, then fewest FP — in exact integers."""
    exact = numbers.exact.astype(np.int64)
    if level == "call":  # FP+FN, exact pairs, TP and FP: each follows the number of exact pairs
        return Cost([-exact], [1])
    n, m = exact.shape
    k = min(n, m) if k is None else k
    wt, name = units[spec.weight], units[1.0]
    # what leaving a call unmatched costs (its FP or FN): its name and arguments
    un_p = _int_array([name + sum(units[spec.arg_weight(a)] for a in p.arguments) for p in preds])[:, None]
    un_g = _int_array([name + sum(units[spec.arg_weight(a)] for a, acc in g.arguments.items() if not acc.optional)
                       for g in golds])[None, :]
    parts = [numbers.tp, numbers.fp, numbers.fn, un_p, un_g]
    if any(p.dtype == object for p in parts) or 4 * max(map(_most, parts)) >= 2**62:  # sums could overflow int64
        parts = [p.astype(object) for p in parts]
    tp_args, fp_args, fn_args, un_p, un_g = parts
    # a pair's FP+FN, TP and FP, each against leaving its two calls unmatched (in units of wt)
    errors, tp, fp = fp_args + fn_args - un_p - un_g, name + tp_args, fp_args - un_p
    # spans that make any sum over k pairs order assignments by errors, then exact, tp, fp
    m3 = 2 * k * wt * _most(fp) + 1
    m2 = (2 * k * wt * _most(tp) + 1) * m3
    m1 = (2 * k + 1) * m2
    return Cost([errors, exact, tp, fp], [wt * m1, -m2, -wt * m3, wt])


def _solve(cost: Cost) -> list[tuple[int, int]]:
    """The assignment of least total cost, every call of the smaller side paired: scipy's
    solver, exact when every sum fits a float64; else its answer repaired in exact integers."""
    if cost.bound < 2**62:
        full = cost.exact(np.int64)
        span = 2 * (min(cost.shape) + 1)
        if cost.bound * span < 2**53 or _most(full) * span < 2**53:  # (no entry exceeds the bound)
            return _least(full.astype(np.float64))
    return _repaired(cost)


def _most_exact(exact: Any) -> list[tuple[int, int]]:
    """The optimal matcher at call level: :func:`_optimal`'s cost there, −1 per exact pair,
    which floats hold exactly, so scipy's answer needs no exact-integer checks."""
    return _least(np.where(exact, -1.0, 0.0))


def _least(cost: Any) -> list[tuple[int, int]]:
    """scipy's least-cost assignment of a float matrix, as sorted ``(row, column)`` pairs."""
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(cost)
    return sorted(zip(rows.tolist(), cols.tolist()))


def _repaired(cost: Cost) -> list[tuple[int, int]]:
    """The exact least-cost assignment of a cost that floats cannot hold: scipy's answer on
    the float image, then each negative cycle of the residual graph, found with exact
    integers (:func:`_negative_cycle`), cancelled, until there is none — which proves the
    assignment optimal."""
    from scipy.optimize import linear_sum_assignment

    flipped = cost.shape[0] > cost.shape[1]
    if flipped:
        cost = cost.transposed()
    image = cost.image()
    rows, cols = linear_sum_assignment(image)
    col_of = cols[np.argsort(rows)].tolist()  # row i sits in column col_of[i]; every row sits
    while (cycle := _negative_cycle(cost, image, col_of)) is not None:
        owner = {c: i for i, c in enumerate(col_of)}
        moves = [(owner[u], v) for u, v in zip(cycle, cycle[1:] + cycle[:1]) if u < cost.shape[1] and v < cost.shape[1]]
        if sum(cost.row(i)[v] - cost.row(i)[col_of[i]] for i, v in moves) >= 0:
            raise RuntimeError("exact assignment: a cycle that is not negative")  # cannot happen
        for i, v in moves:
            col_of[i] = v
    pairs = list(enumerate(col_of))
    return sorted((j, i) for i, j in pairs) if flipped else pairs


def _negative_cycle(cost: Cost, image: Any, col_of: list[int]) -> list[int] | None:
    """A cycle of negative total cost in the residual graph of an assignment (rows ≤ columns),
    or None when there is none (the assignment is then optimal).

    Nodes are the columns and a source ``S`` (numbered ``m``). The row in column ``c`` may
    move to any column ``j`` (edge ``c → j``, cost ``cost[row, j] − cost[row, c]``); a free
    column may be the one a chain of moves ends in (``f → S``, 0), and any column the one it
    starts from, left free (``S → c``, 0). Shortest distances by queue-based Bellman-Ford in
    exact integers (``image``, the cost in floats, skips the columns that surely cannot
    improve); a cycle among the predecessors is a negative cycle.
    """
    n, m = cost.shape
    owner = np.full(m, -1)
    owner[col_of] = np.arange(n)
    dist = np.zeros(m, dtype=object)  # every column reached from S at 0
    near = np.zeros(m)  # dist in floats, to skip the columns that surely cannot improve
    slack = float(cost.bound >> cost.shift) * (4 * m + 4) * 2.0**-45  # far above any float rounding here
    dist_s = 0
    pred = np.full(m + 1, m)  # a column's way in: from S, until a shorter one is found
    pred[m] = -1
    queue = collections.deque(col_of)
    queued = np.zeros(m + 1, dtype=bool)
    queued[col_of] = True
    pops = 0
    while queue:
        c = queue.popleft()
        queued[c] = False
        if c == m:  # S: every column may start a chain
            better = np.flatnonzero(dist > dist_s)
            dist[better] = dist_s
        elif owner[c] < 0:  # a free column: the chain ends
            better = np.array([m] if dist[c] < dist_s else [], dtype=np.int64)
            if len(better):
                dist_s = dist[c]
        else:
            i = owner[c]
            rough = image[i]
            maybe = np.flatnonzero(rough + (near[c] - rough[c]) < near + slack)
            row = cost.row(i)
            reach = row[maybe] + (dist[c] - row[c])
            better = maybe[reach < dist[maybe]]
            dist[better] = reach[reach < dist[maybe]]
        near[better[better < m]] = (dist[better[better < m]] >> cost.shift).astype(np.float64)
        if len(better):
            pred[better] = c
            fresh = better[~queued[better]]
            queued[fresh] = True
            queue.extend(fresh.tolist())
        pops += 1
        if pops % (m + 1) == 0 and (cycle := _cycle_of(pred)) is not None:
            return cycle
    return None


def _cycle_of(pred: Any) -> list[int] | None:
    """A cycle in the predecessor graph (each node's ``pred``), in edge order, or None."""
    links, walked_from = pred.tolist(), [-1] * len(pred)
    for start in range(len(links)):
        node = start
        while node >= 0 and walked_from[node] < 0:
            walked_from[node] = start
            node = links[node]
        if node >= 0 and walked_from[node] == start:  # back on this walk: a cycle
            cycle = [node]
            while links[cycle[-1]] != node:
                cycle.append(links[cycle[-1]])
            return cycle[::-1]  # pred points backwards: reverse into edge order
    return None


# --------------------------------------------------------------------------- one name group


def _match_group(
    gp: Sequence[Call], gg: Sequence[GoldCall], tool: ToolSpec | None, wspec: ToolSpec, canon: Canonicalizer,
    fill_defaults: bool, matching: str, level: str, details: bool,
) -> list[tuple[int, int, PairResult]]:
    """The pairs of one name group, ``(i, j, PairResult)`` by position in ``gp`` and ``gg``:
    every pair judged for its numbers, assigned, and the chosen pairs judged in full."""
    exact_only = not details and level == "call"  # nothing but exactness is counted
    if len(gp) == len(gg) == 1:  # one pair: the only choice
        return [(0, 0, _judge(gp[0], gg[0], tool, wspec, canon, fill_defaults, exact_only))]
    if SHORTCUTS and len(gp) * len(gg) >= _SHORTCUT_FROM:
        units = _group_units(gp, gg, wspec)
        classed = _match_classes(gp, gg, tool, wspec, canon, fill_defaults, matching, level, units)
        if classed is not None:
            return classed
        numbers = judge_group(gp, gg, tool, wspec, canon, fill_defaults, units)
        return [(a, b, _judge(gp[a], gg[b], tool, wspec, canon, fill_defaults, exact_only))
                for a, b in _assign(numbers, gp, gg, wspec, units, matching, level)]
    ranked = exact_only and matching == "optimal"  # greedy ranks the pairs by their agreeing weight
    results = [[_judge(p, g, tool, wspec, canon, fill_defaults, ranked) for g in gg] for p in gp]
    chosen: list[tuple[int, int]] | None = None
    if SHORTCUTS and (matching == "greedy" or level == "call" or len(gp) == len(gg)):
        chosen = _forced_exact([[r.exact for r in row] for row in results])
    if chosen is None and matching == "optimal" and level == "call":  # nothing but exactness is read
        chosen = _most_exact([[r.exact for r in row] for row in results])
    if chosen is None:
        units = _group_units(gp, gg, wspec)
        chosen = _assign(_numbers(results, units), gp, gg, wspec, units, matching, level)
    return [(a, b, results[a][b]) for a, b in chosen]


def _judge(pred: Call, gold: GoldCall, tool: ToolSpec | None, wspec: ToolSpec, canon: Canonicalizer,
           fill_defaults: bool, exact_only: bool) -> PairResult:
    """The pair judged in full, or for its exactness alone where nothing else is read."""
    if exact_only:
        return EXACT_ONLY if is_exact(pred, gold, tool, canon, fill_defaults) else INEXACT_ONLY
    return judge_pair(pred, gold, tool, wspec, canon, fill_defaults)


def _assign(numbers: GroupNumbers, preds: Sequence[Call], golds: Sequence[GoldCall], spec: ToolSpec,
            units: Mapping[float, int], matching: str, level: str) -> list[tuple[int, int]]:
    """The chosen pairs ``(i, j)`` of a group judged for its numbers, sorted."""
    if matching == "greedy":
        return _greedy(numbers)
    if level == "call":
        return _most_exact(numbers.exact)
    return _solve(_optimal(numbers, preds, golds, spec, units, level))


def _forced_exact(exact_pairs: list[list[bool]]) -> list[tuple[int, int]] | None:
    """The pairs when every call of the smaller side has exactly one exact partner, each a
    different one (parallel calls to one tool, the common case); else None.

    Both matchers then choose exactly these pairs: greedy takes exact pairs first and none
    of these collide; for the optimal matcher at call level (or with as many predicted as
    gold calls, at either level) it is the one assignment with every pair exact, better
    than any other on FP+FN or, at equal cost, on the number of exact pairs.
    """
    if len(exact_pairs) > len(exact_pairs[0]):  # gold is the smaller side: the transposed question
        flipped = _forced_exact([list(column) for column in zip(*exact_pairs)])
        return None if flipped is None else sorted((i, j) for j, i in flipped)
    pairs = []
    for i, row in enumerate(exact_pairs):
        partners = [j for j, x in enumerate(row) if x]
        if len(partners) != 1:
            return None
        pairs.append((i, partners[0]))
    return pairs if len({j for _, j in pairs}) == len(pairs) else None


# --------------------------------------------------------------------------- repeated calls

#: The most distinct (prediction, gold) pairs the class route solves. Its optimal matcher
#: runs a Bellman-Ford over the ``d`` class pairs per augmentation, and there are about as
#: many augmentations as classes on both sides; judging every pair instead costs ``n·m``:
#: the route is taken only where ``n·m ≥ d·max(4, classes)``.
_MAX_CLASS_PAIRS = 4096


def _classes(keys: Sequence[object]) -> tuple[list[int], list[int]]:
    """``(class of each item, first item of each class)`` for items with equal keys."""
    first: dict[object, int] = {}
    class_of: list[int] = []
    reps: list[int] = []
    for i, key in enumerate(keys):
        if key not in first:
            first[key] = len(reps)
            reps.append(i)
        class_of.append(first[key])
    return class_of, reps


def _strict_key(value: Any) -> object:
    """Equal only for identical values (``1``, ``1.0`` and ``True`` differ, and so does key
    order): the pickle bytes of what calls hold once read, plain data and this package's own
    answer types (:class:`~toolcall_f1.calls.AnyOf`, nested answers; never a caller's object,
    which :func:`~toolcall_f1.memo.content_key` refuses). Anything else: a key equal to no other."""
    try:
        return pickle.dumps(value, protocol=5)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return object()


def _match_classes(
    preds: Sequence[Call], golds: Sequence[GoldCall], tool: ToolSpec | None, wspec: ToolSpec,
    canon: Canonicalizer, fill_defaults: bool, matching: str, level: str, units: Mapping[float, int],
) -> list[tuple[int, int, PairResult]] | None:
    """One name group with many repeated calls: identical predictions (and identical gold
    calls) judge alike against everything, so each distinct pair is judged once, and the
    matchers work on the classes of identical calls — 2,000 identical calls are one judgement
    and linear work. None when the calls are too varied for that to pay.

    Greedy picks exactly the pairs it picks over every pair (:func:`_greedy_classes`); the
    optimal matcher minimises the same exact objective (:func:`_transport`), breaking ties
    its own deterministic way.
    """
    p_class, p_reps = _classes([_strict_key(tuple(p.arguments.items())) for p in preds])
    g_class, g_reps = _classes([_strict_key(tuple((k, a.values, a.optional) for k, a in g.arguments.items()))
                                for g in golds])
    distinct = len(p_reps) * len(g_reps)
    if distinct > _MAX_CLASS_PAIRS or distinct * max(4, len(p_reps) + len(g_reps)) > len(preds) * len(golds):
        return None
    rp, rg = [preds[i] for i in p_reps], [golds[j] for j in g_reps]
    judged = [[judge_pair(p, g, tool, wspec, canon, fill_defaults)
               for g in rg] for p in rp]
    numbers = _numbers(judged, units)
    if matching == "greedy":
        pairs = _greedy_classes(numbers, p_class, g_class)
    else:
        cost = _optimal(numbers, rp, rg, wspec, units, level, min(len(preds), len(golds)))
        pairs = _transport(cost.exact().tolist(), p_class, g_class)
    return [(i, j, judged[p_class[i]][g_class[j]]) for i, j in pairs]


def _members(class_of: list[int], n: int) -> list[collections.deque[int]]:
    """The items of each of ``n`` classes, in index order."""
    members: list[collections.deque[int]] = [collections.deque() for _ in range(n)]
    for i, c in enumerate(class_of):
        members[c].append(i)
    return members


def _greedy_classes(numbers: GroupNumbers, p_class: list[int], g_class: list[int]) -> list[tuple[int, int]]:
    """:func:`_greedy` over every pair, computed on classes of identical calls.

    The full greedy takes pairs by rank, then prediction index, then gold index. Within one
    rank that is: each free prediction, in index order, takes the free gold call of lowest
    index among those it has that rank with — and within a class of identical calls, the
    lowest free index is always the first one left (once a prediction finds no partner, no
    later one of its class does in that rank). So each rank costs one pass over the
    predictions, not over every pair.
    """
    na, nb = numbers.exact.shape
    errors = (numbers.fp + numbers.fn).tolist()
    by_rank: dict[tuple[bool, int, int], dict[int, list[int]]] = {}
    for a in range(na):
        for b in range(nb):
            rank = (not numbers.exact[a, b], -int(numbers.tp[a, b]), int(errors[a][b]))
            by_rank.setdefault(rank, {}).setdefault(a, []).append(b)
    free_preds, free_golds = _members(p_class, na), _members(g_class, nb)
    limit = min(len(p_class), len(g_class))
    pairs: list[tuple[int, int]] = []
    for rank in sorted(by_rank):
        targets = by_rank[rank]
        for i in sorted(i for a in targets for i in free_preds[a]):
            free = [b for b in targets[p_class[i]] if free_golds[b]]
            if free:
                best = min(free, key=lambda b: free_golds[b][0])
                free_preds[p_class[i]].popleft()  # i: the first one left of its class (see above)
                pairs.append((i, free_golds[best].popleft()))
                if len(pairs) == limit:
                    return sorted(pairs)
    return sorted(pairs)


def _transport(cost: list[list[int]], p_class: list[int], g_class: list[int]) -> list[tuple[int, int]]:
    """The least-cost assignment of ``min(n, m)`` pairs where pairing any call of prediction
    class ``a`` with any of gold class ``b`` costs ``cost[a][b]``, in exact integers: a
    transportation problem, solved by successive shortest paths (Bellman-Ford, for negative
    costs), each augmentation sending as many pairs as the path allows."""
    na, nb = len(cost), len(cost[0])
    supply, demand = collections.Counter(p_class), collections.Counter(g_class)
    flow = [[0] * nb for _ in range(na)]
    left = min(len(p_class), len(g_class))
    while left:
        # rows 0..na-1, columns na..na+nb-1; flow sent may be undone (column -> row)
        edges = [(a, na + b, cost[a][b]) for a in range(na) for b in range(nb)]
        edges += [(na + b, a, -cost[a][b]) for b in range(nb) for a in range(na) if flow[a][b]]
        dist, prev = _shortest_paths(edges, [a for a in range(na) if supply[a]], na + nb)
        end = min((b for b in range(nb) if demand[b] and dist[na + b] is not None), key=lambda b: (dist[na + b], b))
        path = [na + end]
        while prev[path[-1]] >= 0:
            path.append(prev[path[-1]])
        path.reverse()  # row, column, row, column, ..., column
        steps = list(zip(path, path[1:]))
        amount = min([supply[path[0]], demand[end], left] + [flow[v][u - na] for u, v in steps if u >= na])
        for u, v in steps:
            if u < na:
                flow[u][v - na] += amount
            else:
                flow[v][u - na] -= amount
        supply[path[0]] -= amount
        demand[end] -= amount
        left -= amount
    preds, golds = _members(p_class, na), _members(g_class, nb)
    return sorted((preds[a].popleft(), golds[b].popleft())
                  for a in range(na) for b in range(nb) for _ in range(flow[a][b]))


def _shortest_paths(edges: list[tuple[int, int, int]], sources: list[int], size: int) -> tuple[list[Any], list[int]]:
    """Bellman-Ford from ``sources`` (at 0) over ``(u, v, cost)`` edges: each node's distance
    (None: unreached) and predecessor (-1: none)."""
    dist: list[Any] = [None] * size
    for s in sources:
        dist[s] = 0
    prev = [-1] * size
    for _ in range(size + 1):
        changed = False
        for u, v, c in edges:
            if dist[u] is not None and (dist[v] is None or dist[u] + c < dist[v]):
                dist[v], prev[v], changed = dist[u] + c, u, True
        if not changed:
            return dist, prev
    raise RuntimeError("minimum-cost flow: a negative cycle")  # cannot happen: a least-cost flow has none


# --------------------------------------------------------------------------- public


def match_calls(
    pred: Any,
    gold: Any,
    *,
    canonicalizer: str | Canonicalizer | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
    weights: Mapping[str, Any] | None = None,
    matching: str = "greedy",
    level: str = "call",
    name_canonicalizer: str | Callable[[str], str] | None = None,
    canon: str | Canonicalizer | None = None,
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
    canonicalizer
        String canonicalizer: ``"default"`` (None), ``"bfcl"``, ``"exact"`` or a callable
        (``canon=`` is its old name).
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
    toolset, canon_fn = public_settings("match_calls", tools, weights, canonicalizer, name_canonicalizer, canon)
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

    ``details=False`` at call level, for counting only: a pair may be judged for exactness
    alone (:data:`EXACT_ONLY` / :data:`INEXACT_ONLY`, no per-argument verdicts); the pairs
    are the same.
    """
    if SHORTCUTS and len(preds) == len(golds) == 1:  # the commonest example: one call on each side
        key = toolset.name_canon(preds[0].name)
        if key != toolset.name_canon(golds[0].name):
            return [], [0], [0]
        return _match_group(preds, golds, toolset.by_key.get(key), toolset.spec_for_weights(preds[0].name), canon,
                            fill_defaults, matching, level, details), [], []
    groups: dict[str, tuple[list[int], list[int]]] = {}  # canonical name: (prediction, gold indices)
    for i, pcall in enumerate(preds):
        groups.setdefault(toolset.name_canon(pcall.name), ([], []))[0].append(i)
    for j, gcall in enumerate(golds):
        if (group := groups.get(toolset.name_canon(gcall.name))) is not None:
            group[1].append(j)
    pairs: list[tuple[int, int, PairResult]] = []
    for key, (pidx, gidx) in groups.items():
        if gidx:
            matched = _match_group([preds[i] for i in pidx], [golds[j] for j in gidx], toolset.by_key.get(key),
                                   toolset.spec_for_weights(preds[pidx[0]].name), canon, fill_defaults, matching,
                                   level, details)
            pairs.extend((pidx[a], gidx[b], result) for a, b, result in matched)
    pairs.sort()  # by (pred index, gold index): unique, so a PairResult is never compared
    matched_p = {i for i, _, _ in pairs}
    matched_g = {j for _, j, _ in pairs}
    return (
        pairs,
        [i for i in range(len(preds)) if i not in matched_p],
        [j for j in range(len(golds)) if j not in matched_g],
    )
