"""Matching calls as a multiset: one name group in four steps (SPEC §6).

:class:`Matcher` pairs an example's calls. Calls are grouped by tool name, and each group
(a :class:`NameGroup`) goes through four steps, :meth:`Matcher.match_group`:

1. *judge* every candidate pair for its numbers — exactness and TP/FP/FN in exact integer
   weight units (:class:`~toolcall_f1.judge.GroupNumbers`);
2. *costs*: the solver reads the numbers as its costs (greedy: each pair's rank; optimal: one
   exact integer cost whose least sum is SPEC §6's objective);
3. *assign*: the solver chooses the pairs — :meth:`Matcher.assign`, the one seam, over
   :data:`SOLVERS` (adding a solver is one entry there);
4. *judge the chosen pairs* in full, for their verdicts.

Shortcuts give the same results faster, each a field of the matcher (the general path is
``Matcher(matching, level, single=False, forced_exact=False, classes=False, keyed=False,
exact_pairs=False)``,
and tests pin each shortcut to it): a group of one pair is paired without a solver; a small
group where each call has its own exact partner takes those pairs without one; a large group
of many repeated calls is judged and assigned over classes of identical calls; and a large
group is judged with value keys (:func:`~toolcall_f1.judge.judge_group`) instead of pair by
pair; and where only exactness is counted, a large group's exact pairs are found through an
index and assigned alone. :func:`match_calls` is the public entry point.

A large group never holds its n² judged pairs as objects: its pairs are judged a block of
predictions at a time (:func:`_judge_blocks`) into compact arrays (a byte per count for
ordinary weights), and everything read from them — greedy's ranks, the optimal matcher's exact
costs (:class:`Parts`, :class:`Cost`) — is computed block by block; only the optimal matcher's
float64 matrix, which scipy's solver needs, is held whole (8 bytes a pair).

Under ``order="strict"`` (SPEC §5b) pairs must keep both orders, across tools too, so the
unit is the whole example: every group's candidate pairs are judged (step 1) and read as the
optimal matcher's objective in one exact scale (step 2), one dynamic program over both
sequences of calls, a weighted longest common subsequence, chooses the pairs (step 3,
:func:`_in_order`), and the chosen pairs are judged (step 4) — :meth:`Matcher._match_in_order`.
"""

from __future__ import annotations

import collections
import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import Any

import numpy as np

from .calls import Call, GoldCall, coerce_structured
from .judge import EXACT_ONLY, INEXACT_ONLY, VERDICT_COUNTS, ArgVerdict, GroupNumbers, PairResult, compare_call, gold_repr, judge_group, judge_pair, judge_pairs, public_settings
from .schema import DEFAULT_TOOL, ToolSet, ToolSpec
from .settings import LEVELS, MATCHINGS, ORDERS, check_choice
from .values import KEYED_CANONICALIZERS, Canonicalizer, value_key

__all__ = [
    "ArgVerdict",  # judged pairs, re-exported: toolcall_f1.matching.compare_call keeps working
    "PairResult",
    "compare_call",
    "gold_repr",
    "match_calls",
    "Matcher",
    "NameGroup",
    "Solver",
    "SOLVERS",
    "DEFAULT_MATCHERS",
    "MATCHINGS",
    "LEVELS",
    "ORDERS",
]


Pairs = list[tuple[int, int]]


@dataclass(slots=True)
class NameGroup:
    """The calls of one example to one tool, and what judges them (a matcher's unit of work).

    ``exact_only``: nothing but the pairs' exactness is counted (call level, no details), so
    chosen pairs are reported as that. ``units`` (:meth:`weight_units`) is filled when first read.
    """

    preds: Sequence[Call]
    golds: Sequence[GoldCall]
    tool: ToolSpec | None
    wspec: ToolSpec
    canon: Canonicalizer
    fill_defaults: bool
    level: str
    exact_only: bool
    units: dict[float, int] | None = None

    def weight_units(self) -> dict[float, int]:
        """The exact integer image of every weight the group's pairs can involve (:func:`_group_units`)."""
        if self.units is None:
            self.units = _group_units(self.preds, self.golds, self.wspec)
        return self.units

    def judge(self, i: int, j: int, exact_only: bool = False) -> PairResult:
        """The pair ``(preds[i], golds[j])`` judged (:func:`~toolcall_f1.judge.judge_pair`): in
        full, or for its exactness alone."""
        return judge_pair(self.preds[i], self.golds[j], self.tool, self.wspec, self.canon, self.fill_defaults,
                          exact_only)

    def judged(self, light: bool, by_keys: bool, exact_read: bool = False,
               ) -> tuple[GroupNumbers | None, list[list[PairResult]]]:
        """Step 1: every candidate pair judged — ``by_keys`` (a large group) by value keys, for
        its numbers (``results`` empty; ``exact_read``: the solver reads their exactness alone,
        and no count is kept), else each pair itself as :meth:`judge` judges it (``numbers``
        None; ``light``: for its exactness alone)."""
        if by_keys:
            return _judge_blocks(self, exact_read), []
        return None, judge_pairs(self.preds, self.golds, self.tool, self.wspec, self.canon, self.fill_defaults, light)

    def reported(self, result: PairResult) -> PairResult:
        """A chosen pair as the score holds it: in full, or its exactness alone."""
        if self.exact_only:
            return EXACT_ONLY if result.exact else INEXACT_ONLY
        return result

    def with_calls(self, preds: Sequence[Call], golds: Sequence[GoldCall]) -> NameGroup:
        """The same settings over other calls of the tool (a class's representatives)."""
        return NameGroup(preds, golds, self.tool, self.wspec, self.canon, self.fill_defaults, self.level,
                         self.exact_only)

# --------------------------------------------------------------------------- exact weights


def _fraction(w: float) -> Fraction:
    """The weight as written (its shortest decimal ``repr``), as an exact fraction.

    The matcher's objective is compared in these decimal units, not in the binary units of
    :class:`~toolcall_f1.counting.Counts` (which sum the reported counts exactly): two
    schemes, because weights as written keep the common costs small — 0.1 is 1 unit with
    ``D = 10``, where its binary image needs 2**55 — so costs fit ``int64`` and float64 and
    scipy's answer needs no exact repair; and because ties are decided on the weights as
    written (0.1 + 0.2 = 0.3), which binary units would break another way.
    """
    return Fraction(repr(float(w)))


def _group_units(preds: Sequence[Call], golds: Sequence[GoldCall], spec: ToolSpec) -> dict[float, int]:
    """The exact integer image, ``w * D`` for the least common denominator ``D``, of every
    weight a group's pairs can involve: the tool weight, 1 (the name field) and the weight
    of every argument of every call."""
    return _units(_group_weights(preds, golds, spec))


def _group_weights(preds: Sequence[Call], golds: Sequence[GoldCall], spec: ToolSpec) -> set[float]:
    """Every weight a group's pairs can involve (:func:`_group_units`)."""
    keys = {k for c in preds for k in c.arguments} | {k for c in golds for k in c.arguments}
    return {spec.weight, 1.0, *(spec.arg_weight(k) for k in keys)}


def _units(weights: set[float]) -> dict[float, int]:
    """Each weight as ``w * D``, for ``D`` the least common denominator of them all."""
    fracs = {w: _fraction(w) for w in weights}
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
    """The largest magnitude in an array (0 when empty), as a Python int (no copy of the array)."""
    return max(int(a.max()), -int(a.min())) if a.size else 0


# --------------------------------------------------------------------------- a large group, block by block

#: How many pairs a large group's matrices are read in at once (rows of ``_BLOCK // m``): a
#: group's judged numbers are held compactly, everything computed from them block by block.
_BLOCK = 1 << 20


def _row_blocks(n: int, m: int) -> list[slice]:
    """The rows of an ``n × m`` matrix in blocks of about :data:`_BLOCK` entries."""
    step = max(1, _BLOCK // max(m, 1))
    return [slice(a, min(a + step, n)) for a in range(0, n, step)]


def _narrowest(most: int) -> Any:
    """The narrowest signed integer dtype holding ``0 … most``, or None past ``int64``."""
    return next((kind for kind in (np.int8, np.int16, np.int32, np.int64) if most <= np.iinfo(kind).max), None)


def _judge_blocks(group: NameGroup, exact_alone: bool = False) -> GroupNumbers:
    """Every pair of a large group judged for its numbers (:func:`~toolcall_f1.judge.judge_group`),
    a block of predictions at a time, and held compactly: the counts in the narrowest integer
    dtype that holds any of them (1 byte per count for ordinary weights), so an 8,000 × 8,000
    group is 256 MB, not 1.6 GB; ``exact_alone`` (nothing but exactness is read): the counts
    are zeros that take no memory. Read it through :func:`_widen`."""
    preds, golds, units = group.preds, group.golds, group.weight_units()
    keys = {k for c in preds for k in c.arguments} | {k for c in golds for k in c.arguments}
    most = max(map(max, VERDICT_COUNTS.values())) * sum(units[group.wspec.arg_weight(k)] for k in keys)
    kind = _narrowest(most)
    if kind is None:  # counts past int64: exact Python ints, judged at once
        return judge_group(preds, golds, group.tool, group.wspec, group.canon, group.fill_defaults, units)
    n, m = len(preds), len(golds)
    exact = np.empty((n, m), dtype=bool)
    counts = [np.broadcast_to(np.int8(0), (n, m)) if exact_alone else np.empty((n, m), dtype=kind) for _ in range(3)]
    for rows in _row_blocks(n, m):
        block = judge_group(preds[rows], golds, group.tool, group.wspec, group.canon, group.fill_defaults, units)
        exact[rows] = block.exact
        for whole, part in zip(counts, (block.tp, block.fp, block.fn)):
            if not exact_alone:
                whole[rows] = part
    return GroupNumbers(exact, *counts)


def _widen(numbers: GroupNumbers, rows: slice = slice(None), cols: slice = slice(None)) -> GroupNumbers:
    """A block of a group's numbers with its counts in ``int64`` (or exact Python ints), for arithmetic."""
    def wide(a: Any) -> Any:
        a = a[rows, cols]
        return a if a.dtype in (np.int64, object) else a.astype(np.int64)

    return GroupNumbers(numbers.exact[rows, cols], wide(numbers.tp), wide(numbers.fp), wide(numbers.fn))


@dataclass(frozen=True, slots=True)
class Parts:
    """Integer matrices of one ``shape``, given block by block — ``block(rows, cols)`` lists
    each one's block — with each one's largest magnitude (``mosts``): a large group's cost
    parts are computed where they are read, never held whole."""

    shape: tuple[int, int]
    block: Callable[[slice, slice], list[Any]]
    mosts: tuple[int, ...]

    @classmethod
    def of(cls, arrays: Sequence[Any]) -> Parts:
        """Parts held as whole arrays."""
        arrays = tuple(arrays)
        return cls(arrays[0].shape, lambda rows, cols: [a[rows, cols] for a in arrays], tuple(map(_most, arrays)))

    @classmethod
    def computed(cls, shape: tuple[int, int], block: Callable[[slice, slice], list[Any]]) -> Parts:
        """Parts computed block by block (one pass here, for their largest magnitudes)."""
        mosts: list[int] = []
        for rows in _row_blocks(*shape):
            found = [_most(p) for p in block(rows, slice(None))]
            mosts = [max(a, b) for a, b in zip(mosts, found)] if mosts else found
        return cls(shape, block, tuple(mosts))

    def transposed(self) -> Parts:
        """The same parts, transposed (block by block, as they are read)."""
        return Parts(self.shape[::-1], lambda rows, cols: [p.T for p in self.block(cols, rows)], self.mosts)


# --------------------------------------------------------------------------- greedy


def _greedy_costs(numbers: GroupNumbers, group: NameGroup, k: int) -> GroupNumbers:
    """Greedy's costs are the numbers, read block by block as each pair's rank (:func:`_rank_block`)."""
    return numbers


def _rank_block(numbers: GroupNumbers, rows: slice = slice(None)) -> tuple[Any, Any, Any]:
    """Greedy's rank of each pair of a block of rows, compared as a tuple — not exact first,
    then less agreeing weight, then more errors (SPEC §6); lower is taken first."""
    wide = _widen(numbers, rows)
    return ~wide.exact, -wide.tp, wide.fp + wide.fn


def _greedy(numbers: GroupNumbers) -> Pairs:
    """Candidate pairs best-first — by rank (:func:`_rank_block`), then lower prediction
    index, lower gold index — each taken while both calls are free (SPEC §6).

    Block by block, each pair's rank becomes one integer key (the tuple's order kept), the
    keys present are numbered in order, and each block's pairs are sorted stably by that
    number (flat index order within a number); the sorted blocks, 4 bytes a pair, are then
    walked number by number, block after block — the flat order of the whole matrix.
    """
    n, m = numbers.exact.shape
    blocks = _row_blocks(n, m)
    tp_most, err_most = _most(numbers.tp), _most(numbers.fp) + _most(numbers.fn)
    wide = 2 * (tp_most + 1) * (err_most + 1) >= 2**62

    def keys(rows: slice) -> Any:
        inexact, less_tp, errors = _rank_block(numbers, rows)
        inexact, less_tp, errors = (r.astype(object if wide else np.int64) for r in (inexact, less_tp, errors))
        return ((inexact * (tp_most + 1) + (less_tp + tp_most)) * (err_most + 1) + errors).ravel()

    levels = np.unique(np.concatenate([np.unique(keys(rows)) for rows in blocks]))
    code_kind = np.int16 if len(levels) < 2**15 else np.int64  # (a stable sort of int16 is a radix sort)
    index_kind = np.int32 if n * m < 2**31 else np.int64
    walks = []
    for rows in blocks:
        codes = np.searchsorted(levels, keys(rows)).astype(code_kind)
        edges = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=len(levels)))])
        walks.append((rows.start * m, np.argsort(codes, kind="stable").astype(index_kind), edges))
    free_p, free_g = np.ones(n, dtype=bool), np.ones(m, dtype=bool)
    pairs: Pairs = []
    limit = min(n, m)
    for level in range(len(levels)):
        for start, order, edges in walks:
            run = order[edges[level]:edges[level + 1]]
            for chunk in range(0, len(run), 1 << 12):
                i, j = np.divmod(run[chunk:chunk + (1 << 12)].astype(np.int64) + start, m)
                open_ = free_p[i] & free_g[j]
                for a, b in zip(i[open_].tolist(), j[open_].tolist()):
                    if free_p[a] and free_g[b]:
                        free_p[a] = free_g[b] = False
                        pairs.append((a, b))
                        if len(pairs) == limit:
                            return sorted(pairs)
    return sorted(pairs)


# --------------------------------------------------------------------------- optimal

class Cost:
    """An exact integer cost matrix, ``Σ part · factor``, kept as its parts (:class:`Parts`,
    or whole ``int64`` / Python-int arrays) and factors (Python ints), and read block by
    block: in ``int64`` where it surely fits, as a float image, or row by row in exact
    integers — so that a large group's cost is never held whole in integers."""

    #: The most entries of exact rows kept (8 bytes each: ``int64``, or references to the few
    #: distinct Python ints of a row): the negative-cycle search reads the same rows again and again.
    row_cache = 1 << 22

    def __init__(self, parts: Parts | Sequence[Any], factors: Sequence[int]) -> None:
        self.parts = parts if isinstance(parts, Parts) else Parts.of(parts)
        self.factors = tuple(factors)
        self.shape = self.parts.shape
        #: No entry is larger in magnitude.
        self.bound = sum(most * abs(f) for most, f in zip(self.parts.mosts, self.factors))
        #: The float image is of ``cost >> shift``: in float64 range for any weights.
        self.shift = max(0, self.bound.bit_length() - 900)
        self._rows: dict[int, Any] = {}

    def transposed(self) -> Cost:
        """The transposed cost (its parts transposed as they are read)."""
        return Cost(self.parts.transposed(), self.factors)

    def block(self, rows: slice, cols: slice = slice(None), kind: Any = object) -> Any:
        """A block of the matrix in Python ints, or in ``np.int64`` (when ``bound`` fits it)."""
        parts = self.parts.block(rows, cols)
        if kind is np.int64 and (any(p.dtype == object for p in parts) or any(abs(f) >= 2**63 for f in self.factors)):
            return self.block(rows, cols, object).astype(np.int64)  # a part or factor past int64 (times 0)
        return sum(p.astype(kind) * f for p, f in zip(parts, self.factors))

    def exact(self, kind: Any = object) -> Any:
        """The whole matrix in Python ints, or in ``np.int64`` (when ``bound`` fits it)."""
        return self.block(slice(None), slice(None), kind)

    def row(self, i: int) -> Any:
        """Row ``i`` exactly — in ``int64`` when ``bound`` fits it (differences of two entries
        then fit too), else in Python ints — kept for later reads up to :attr:`row_cache`."""
        if i not in self._rows:
            if (len(self._rows) + 1) * self.shape[1] > self.row_cache:
                del self._rows[next(iter(self._rows))]  # the longest kept
            self._rows[i] = self.block(slice(i, i + 1), kind=np.int64)[0] if self.bound < 2**62 else self._big_row(i)
        return self._rows[i]

    def _big_row(self, i: int) -> Any:
        """Row ``i`` in Python ints: each distinct combination of its parts (a row has few)
        summed once in Python ints, and the row made of references to those sums."""
        parts = self.parts.block(slice(i, i + 1), slice(None))
        if any(p.dtype == object for p in parts):
            return self.block(slice(i, i + 1))[0]
        stack = np.stack([np.broadcast_to(p, (1, self.shape[1]))[0] for p in parts], axis=1)
        # the combinations, found by a hash of each (checked: equal hashes, equal parts)
        mix = np.random.default_rng(0).integers(1, 2**63, size=len(parts), dtype=np.uint64) | np.uint64(1)
        _, first, where = np.unique((stack.astype(np.uint64) * mix).sum(axis=1), return_index=True,
                                    return_inverse=True)
        combos = stack[first]
        if not (combos[where.ravel()] == stack).all():  # a collision: sorted whole instead
            combos, where = np.unique(stack, axis=0, return_inverse=True)
        sums = np.empty(len(combos), dtype=object)
        sums[:] = [sum(int(a) * f for a, f in zip(combo, self.factors)) for combo in combos.tolist()]
        return sums[where.ravel()]

    def most(self) -> int:
        """The largest magnitude of an entry (``bound`` must fit ``int64``)."""
        return max(_most(self.block(rows, kind=np.int64)) for rows in _row_blocks(*self.shape))

    def floats(self) -> Any:
        """The matrix (``bound`` fitting ``int64``) as float64, filled block by block."""
        out = np.empty(self.shape)
        for rows in _row_blocks(*self.shape):
            out[rows] = self.block(rows, kind=np.int64)
        return out

    def image(self) -> Any:
        """``cost >> shift`` in float64, rounded (a part of Python ints, which may be past
        float range, is shifted exactly before it becomes floats), filled block by block."""
        out = np.empty(self.shape)
        for rows in _row_blocks(*self.shape):
            out[rows] = sum(((p * f) >> self.shift).astype(np.float64) if p.dtype == object
                            else p.astype(np.float64) * float(f >> self.shift)
                            for p, f in zip(self.parts.block(rows, slice(None)), self.factors))
        return out


def _optimal(numbers: GroupNumbers, preds: Sequence[Call], golds: Sequence[GoldCall], spec: ToolSpec,
             units: Mapping[float, int], level: str, k: int | None = None) -> Cost:
    """The cost whose least sum over assignments of ``k`` pairs (default: the smaller side)
    is the optimal matcher's objective at argument level (SPEC §6): fewest FP+FN, then most
    exact pairs, then most TP, then fewest FP — in exact integers. (At call level it is −1
    per exact pair: :func:`_optimal_costs`.)"""
    n, m = numbers.exact.shape
    k = min(n, m) if k is None else k
    parts, wt = _arg_parts(numbers, preds, golds, spec, units)
    return _objective_cost(parts, wt, _spans(k, wt * parts.mosts[2], wt * parts.mosts[3]))


def _arg_objective(numbers: GroupNumbers, preds: Sequence[Call], golds: Sequence[GoldCall], spec: ToolSpec,
                   units: Mapping[float, int]) -> tuple[list[Any], int]:
    """:func:`_arg_parts` as whole arrays."""
    parts, wt = _arg_parts(numbers, preds, golds, spec, units)
    return parts.block(slice(None), slice(None)), wt


def _arg_parts(numbers: GroupNumbers, preds: Sequence[Call], golds: Sequence[GoldCall], spec: ToolSpec,
               units: Mapping[float, int]) -> tuple[Parts, int]:
    """Per pair at argument level, what pairing its two calls changes against leaving both
    unmatched — ``[FP+FN, exact pairs, TP, FP]`` — with the tool weight's units ``wt``, the
    factor of every part but the exact pairs; exact integers, computed block by block."""
    wt, name = units[spec.weight], units[1.0]
    # what leaving a call unmatched costs (its FP or FN): its name and arguments
    un_p = _int_array([name + sum(units[spec.arg_weight(a)] for a in p.arguments) for p in preds])[:, None]
    un_g = _int_array([name + sum(units[spec.arg_weight(a)] for a, acc in g.arguments.items() if not acc.optional)
                       for g in golds])[None, :]
    whole = [numbers.tp, numbers.fp, numbers.fn, un_p, un_g]
    wide = any(p.dtype == object for p in whole) or 4 * max(map(_most, whole)) >= 2**62  # sums could overflow int64

    def block(rows: slice, cols: slice) -> list[Any]:
        part = _widen(numbers, rows, cols)
        exact = part.exact.astype(np.int64)
        tp_args, fp_args, fn_args, up, ug = (p.astype(object) if wide else p
                                             for p in (part.tp, part.fp, part.fn, un_p[rows], un_g[:, cols]))
        # a pair's FP+FN, TP and FP, each against leaving its two calls unmatched (in units of wt)
        return [fp_args + fn_args - up - ug, exact, name + tp_args, fp_args - up]

    return Parts.computed(numbers.exact.shape, block), wt


def _spans(k: int, tp_most: int, fp_most: int) -> tuple[int, int, int]:
    """The factors that make any sum over at most ``k`` pairs order sets of pairs by FP+FN,
    then exact pairs, TP and FP (:func:`_objective_cost`), given the largest TP and FP change
    of one pair (in the cost's units)."""
    m3 = 2 * k * fp_most + 1
    m2 = (2 * k * tp_most + 1) * m3
    return (2 * k + 1) * m2, m2, m3


def _objective_cost(parts: Parts | Sequence[Any], wt: int, spans: tuple[int, int, int]) -> Cost:
    """``[FP+FN, exact pairs, TP, FP]`` changes (:func:`_arg_parts`) as one exact cost,
    lower better, compared in that order."""
    m1, m2, m3 = spans
    return Cost(parts, [wt * m1, -m2, -wt * m3, wt])


def _optimal_costs(numbers: GroupNumbers, group: NameGroup, k: int) -> Cost:
    """The optimal matcher's costs (:func:`_optimal`) for a group of which ``k`` pairs are chosen."""
    if group.level == "call":  # FP+FN, exact pairs, TP and FP: each follows the number of exact pairs
        exact = numbers.exact
        return Cost(Parts.computed(exact.shape, lambda rows, cols: [-exact[rows, cols].astype(np.int64)]), [1])
    return _optimal(numbers, group.preds, group.golds, group.wspec, group.weight_units(), group.level, k)


def _solve(cost: Cost) -> Pairs:
    """The assignment of least total cost, every call of the smaller side paired: scipy's
    solver, exact when every sum fits a float64; else its answer repaired in exact integers."""
    if cost.bound < 2**62:
        span = 2 * (min(cost.shape) + 1)
        if cost.bound * span < 2**53 or cost.most() * span < 2**53:  # (no entry exceeds the bound)
            return _least(cost.floats())
    return _repaired(cost)


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
        if sum(int(cost.row(i)[v]) - int(cost.row(i)[col_of[i]]) for i, v in moves) >= 0:
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
    owner_of = np.full(m, -1)
    owner_of[col_of] = np.arange(n)
    owner = owner_of.tolist()  # plain ints (compiled code declares int)
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
            reach = row[maybe].astype(object) + (dist[c] - int(row[c]))  # exact: dist is unbounded
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


def _members(class_of: list[int], n: int) -> list[collections.deque[int]]:
    """The items of each of ``n`` classes, in index order."""
    members: list[collections.deque[int]] = [collections.deque() for _ in range(n)]
    for i, c in enumerate(class_of):
        members[c].append(i)
    return members


def _greedy_classes(ranks: GroupNumbers, p_class: list[int], g_class: list[int]) -> Pairs:
    """:func:`_greedy` over every pair, computed on classes of identical calls.

    The full greedy takes pairs by rank, then prediction index, then gold index. Within one
    rank that is: each free prediction, in index order, takes the free gold call of lowest
    index among those it has that rank with — and within a class of identical calls, the
    lowest free index is always the first one left (once a prediction finds no partner, no
    later one of its class does in that rank). So each rank costs one pass over the
    predictions, not over every pair.
    """
    na, nb = ranks.exact.shape
    inexact, less_tp, errors = (r.tolist() for r in _rank_block(ranks))
    by_rank: dict[tuple[bool, int, int], dict[int, list[int]]] = {}
    for a in range(na):
        for b in range(nb):
            rank = (bool(inexact[a][b]), int(less_tp[a][b]), int(errors[a][b]))
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


def _transport_classes(cost: Cost, p_class: list[int], g_class: list[int]) -> Pairs:
    """:func:`_solve` over every pair, computed on classes of identical calls: the same exact
    least cost (:func:`_transport`), ties broken its own deterministic way."""
    return _transport(cost.exact().tolist(), p_class, g_class)


def _transport(cost: list[list[int]], p_class: list[int], g_class: list[int]) -> Pairs:
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


# --------------------------------------------------------------------------- exact pairs alone


def _exact_candidates(group: NameGroup) -> list[list[int]] | None:
    """For each gold call, the predictions that can be its exact partners (a superset of
    them), found through one argument: a non-optional one whose accepted values are plain and
    keyed. An exact pair agrees on it, so the prediction gives an equal value — an equal
    :func:`~toolcall_f1.values.value_key` — or none, read as the schema default. None when a
    gold call has no such argument or the canonicalizer is not keyed."""
    if group.canon not in KEYED_CANONICALIZERS or group.wspec.rules is not None:  # (a rule's agreement has no key)
        return None
    params = (group.tool.params if group.tool is not None else {})
    index: dict[str, tuple[dict[Any, list[int]], list[int], list[int]]] = {}  # by value key, unkeyed, lacking
    out = []
    for gold in group.golds:
        anchor = next((k for k, acc in gold.arguments.items() if not acc.optional and acc.plain), None)
        if anchor is None:
            return None
        keys = [value_key(c, group.canon) for c in gold.arguments[anchor].values]
        if any(k is None for k in keys):
            return None
        if anchor not in index:
            index[anchor] = _value_index(group.preds, anchor, group.canon)
        by_key, unkeyed, lacking = index[anchor]
        pspec = params.get(anchor)
        found = [i for k in dict.fromkeys(keys) for i in by_key.get(k, ())] + unkeyed
        if group.fill_defaults and pspec is not None and pspec.has_default:
            found += lacking
        out.append(found)
    return out


def _value_index(preds: Sequence[Call], key: str, canon: Canonicalizer) -> tuple[dict[Any, list[int]], list[int], list[int]]:
    """The predictions by the value key of their argument ``key``; those whose value has no
    key; those without the argument."""
    by_key: dict[Any, list[int]] = {}
    unkeyed, lacking = [], []
    for i, p in enumerate(preds):
        if key not in p.arguments:
            lacking.append(i)
        elif (k := value_key(p.arguments[key], canon)) is None:
            unkeyed.append(i)
        else:
            by_key.setdefault(k, []).append(i)
    return by_key, unkeyed, lacking


# --------------------------------------------------------------------------- the solvers


@dataclass(frozen=True, slots=True)
class Solver:
    """An assignment rule of SPEC §6, in two steps: ``costs(numbers, group, k)`` reads a
    group's judged numbers (``k``: how many pairs are chosen), ``assign(costs)`` chooses the
    pairs ``(i, j)``, sorted.

    ``assign_classes(costs, pred_class, gold_class)``, when given, assigns over classes of
    identical calls (costs of the classes' representatives) what ``assign`` would assign over
    every pair: the same pairs, or for a tie-breaking rule of its own the same objective.
    ``forced_exact_levels``: the levels at which, for a group where each call of the smaller
    side has its own exact partner, the rule surely chooses those pairs (``forced_exact_square``:
    at every level too when the group has as many predicted as gold calls). ``assign_exact(exact, n, m)``, when given: where only exactness is
    counted (call level, no details), the exact pairs the rule chooses, from the exact pairs
    alone (``(i, j, agreeing weight units)``); every other call of the smaller side is then
    paired inexactly, and which inexact pair is listed changes no count.
    ``reads_only_exact``: the levels at which the rule reads nothing but the pairs' exactness.
    """

    costs: Callable[[GroupNumbers, NameGroup, int], Any]
    assign: Callable[[Any], Pairs]
    assign_classes: Callable[[Any, list[int], list[int]], Pairs] | None = None
    forced_exact_levels: frozenset[str] = frozenset()
    forced_exact_square: bool = False
    assign_exact: Callable[[list[tuple[int, int, int]], int, int], Pairs] | None = None
    reads_only_exact: frozenset[str] = frozenset()


def _greedy_exact(exact: list[tuple[int, int, int]], n: int, m: int) -> Pairs:
    """Greedy over exact pairs alone: it takes every exact pair before any other, best-first
    (more agreeing weight, then lower prediction and gold index)."""
    free_p, free_g = bytearray(b"\1") * n, bytearray(b"\1") * m
    pairs: Pairs = []
    for i, j, _ in sorted(exact, key=lambda e: (-e[2], e[0], e[1])):
        if free_p[i] and free_g[j]:
            free_p[i] = free_g[j] = 0
            pairs.append((i, j))
    return sorted(pairs)


def _most_exact(exact: list[tuple[int, int, int]], n: int, m: int) -> Pairs:
    """The optimal matcher at call level over exact pairs alone: the most exact pairs (a
    maximum bipartite matching, Hopcroft–Karp), which is its objective there."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    if not exact:
        return []
    rows, cols = [e[0] for e in exact], [e[1] for e in exact]
    graph = csr_matrix((np.ones(len(exact), dtype=np.int8), (rows, cols)), shape=(n, m))
    match = maximum_bipartite_matching(graph, perm_type="column")  # the column of each row, or -1
    return [(i, int(j)) for i, j in enumerate(match.tolist()) if j >= 0]


#: The matchers by name (``matching=``): a new solver is one entry here, its name one in
#: :data:`~toolcall_f1.settings.MATCHINGS` (the settings table's allowed values; a test holds them equal).
SOLVERS: Mapping[str, Solver] = {
    "greedy": Solver(_greedy_costs, _greedy, _greedy_classes, frozenset(LEVELS), False, _greedy_exact),
    "optimal": Solver(_optimal_costs, _solve, _transport_classes, frozenset({"call"}), True, _most_exact,
                      frozenset({"call"})),
}


# --------------------------------------------------------------------------- in order (SPEC §5b)


def _objective(numbers: GroupNumbers, group: NameGroup) -> tuple[list[Any], int]:
    """Per pair of a group, what pairing its two calls changes against leaving both unmatched
    — ``[FP+FN, exact pairs, TP, FP]`` at the group's level — with the tool weight's units,
    the factor of every part but the exact pairs (:func:`_arg_objective`). At call level an
    exact pair turns the FP and FN of its two calls (``2·w_t``) into one TP (``w_t``); an
    inexact one changes nothing."""
    if group.level == "arg":
        return _arg_objective(numbers, group.preds, group.golds, group.wspec, group.weight_units())
    exact = numbers.exact.astype(np.int64)
    return [-2 * exact, exact, exact, -exact], group.weight_units()[group.wspec.weight]


def _in_order_costs(parts: Sequence[tuple[list[Any], int]], k: int) -> list[Cost]:
    """Each group's objective changes (:func:`_objective`) as one exact cost, in one scale for
    all of them: any sum over at most ``k`` pairs of any groups then orders sets of pairs as
    SPEC §6's optimal objective does."""
    spans = _spans(k, max(wt * _most(p[2]) for p, wt in parts), max(wt * _most(p[3]) for p, wt in parts))
    return [_objective_cost(p, wt, spans) for p, wt in parts]


def _in_order(n: int, m: int, blocks: Sequence[tuple[Sequence[int], Sequence[int], Any]]) -> Pairs:
    """The set of pairs that keeps both orders (for pairs ``(i, j)``, ``(i', j')``: ``i < i'``
    exactly when ``j < j'``) of greatest total gain: a weighted longest common subsequence of
    the ``n`` predicted and ``m`` gold calls, by dynamic programming over prefixes (SPEC §5b).

    ``blocks`` are the name groups, ``(prediction indices, gold indices, gain)``: predicted
    call ``pidx[a]`` and gold call ``gidx[b]`` may pair, gaining ``gain[a, b]`` (exact
    integers, ``int64`` or Python ints); calls in no common block never pair. Cell ``(i, j)``
    holds the best gain of the first ``i`` predicted and first ``j`` gold calls. A row is
    computed at once: each cell is the better of pairing ``i - 1`` with ``j - 1`` and leaving
    predicted call ``i - 1`` unpaired, and then of that and leaving gold call ``j - 1``
    unpaired — a running maximum along the row. Ties are broken tracing back from ``(n, m)``,
    preferring, in this order, the pair, leaving gold call ``j - 1`` unpaired, leaving
    predicted call ``i - 1`` unpaired. ``O(n·m)`` time and memory. Returns the pairs, sorted.
    """
    kind = blocks[0][2].dtype if blocks else np.int64
    rows: list[tuple[Any, Any, Any] | None] = [None] * n  # per predicted call: its block's gold indices, gains
    block_p, block_g = [-1] * n, [-2] * m
    for k, (pidx, gidx, gain) in enumerate(blocks):
        cols = np.asarray(gidx, dtype=np.int64)
        for a, i in enumerate(pidx):
            rows[i], block_p[i] = (cols, cols + 1, gain[a]), k
        for j in gidx:
            block_g[j] = k
    best = np.zeros((n + 1, m + 1), dtype=kind)
    for i in range(1, n + 1):
        row = best[i - 1].copy()  # leaving predicted call i - 1 unpaired
        if (found := rows[i - 1]) is not None:
            cols, after, gains = found
            row[after] = np.maximum(row[after], best[i - 1, cols] + gains)  # pairing it with gold call j - 1
        np.maximum.accumulate(row, out=best[i])  # leaving gold call j - 1 unpaired
    local_p = {i: a for pidx, _, _ in blocks for a, i in enumerate(pidx)}
    local_g = {j: b for _, gidx, _ in blocks for b, j in enumerate(gidx)}
    pairs: Pairs = []
    i, j = n, m
    while i and j:
        here, k = best[i, j], block_p[i - 1]
        if k == block_g[j - 1] and here == best[i - 1, j - 1] + blocks[k][2][local_p[i - 1], local_g[j - 1]]:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif here == best[i, j - 1]:
            j -= 1
        else:
            i -= 1
    return pairs[::-1]


# --------------------------------------------------------------------------- the matcher


@dataclass(frozen=True, slots=True)
class Matcher:
    """Pairs an example's calls, name group by name group, in four steps (module docstring).

    Parameters
    ----------
    matching
        The solver, a name in :data:`SOLVERS`: ``"greedy"`` or ``"optimal"``.
    level
        ``"call"`` or ``"arg"``: the FP+FN the optimal matcher minimises.
    order
        ``"any"`` (the calls as a multiset; ``matching`` chooses the pairs) or ``"strict"``
        (only pairs that keep both orders, the set of them with the optimal objective whatever
        ``matching`` says: SPEC §5b). The shortcuts serve ``"any"``.
    single
        Shortcut: a group of one prediction and one gold call is that pair (every call of
        the smaller side is paired), without numbers or a solver.
    forced_exact
        Shortcut: in a group judged pair by pair where each call of the smaller side has
        exactly one exact partner, each a different one, take those pairs (where the solver
        surely would: :attr:`Solver.forced_exact_levels`).
    classes
        Shortcut: a large group of many repeated calls is judged once per distinct pair and
        assigned over classes of identical calls (:attr:`Solver.assign_classes`).
    keyed
        Shortcut: a large group is judged by value keys (:func:`~toolcall_f1.judge.judge_group`).
    exact_pairs
        Shortcut: where only exactness is counted (call level, no details), a large group's
        exact pairs are found through an index of the predictions' values and assigned alone
        (:attr:`Solver.assign_exact`); no n×m table is held.
    large_from
        The number of pairs from which a group is large.

    Raises
    ------
    ValueError
        For an unknown ``matching``, ``level`` or ``order``.

    Examples
    --------
    >>> from toolcall_f1.schema import compile_tools
    >>> m = Matcher("optimal", "arg")
    >>> pairs, up, ug = m.match([Call("f", {"x": 1}), Call("f", {"x": 2})],
    ...                         [GoldCall.from_call(Call("f", {"x": 2}))], compile_tools([], {}),
    ...                         canon=str, fill_defaults=True)
    >>> [(i, j, r.exact) for i, j, r in pairs], up, ug
    ([(1, 0, True)], [0], [])
    >>> pairs, up, ug = Matcher(order="strict").match([Call("a", {}), Call("b", {})],
    ...     [GoldCall.from_call(Call("b", {})), GoldCall.from_call(Call("a", {}))], compile_tools([], {}),
    ...     canon=str, fill_defaults=True)
    >>> [(i, j) for i, j, _ in pairs], up, ug       # the pairs may not cross: b-b alone
    ([(1, 0)], [0], [1])
    >>> Matcher("best")
    Traceback (most recent call last):
    ...
    ValueError: matching: unknown value 'best'; expected one of 'greedy', 'optimal'
    """

    matching: str = "greedy"
    level: str = "call"
    order: str = "any"
    single: bool = True
    forced_exact: bool = True
    classes: bool = True
    keyed: bool = True
    exact_pairs: bool = True
    large_from: int = 64

    def __post_init__(self) -> None:
        check_choice(self.matching, MATCHINGS, "matching")
        check_choice(self.level, LEVELS, "level")
        check_choice(self.order, ORDERS, "order")

    def match(
        self, preds: Sequence[Call], golds: Sequence[GoldCall], toolset: ToolSet, *, canon: Canonicalizer,
        fill_defaults: bool, details: bool = True,
    ) -> tuple[list[tuple[int, int, PairResult]], list[int], list[int]]:
        """Match by index: ``([(i, j, PairResult)], unmatched pred indices, unmatched gold indices)``.

        ``details=False`` at call level, for counting only: a chosen pair is reported for its
        exactness alone (:data:`EXACT_ONLY` / :data:`INEXACT_ONLY`, no per-argument verdicts);
        the pairs are the same. (:meth:`match_example` also gives each name's weights.)
        """
        pairs, unmatched_pred, unmatched_gold, _ = self.match_example(preds, golds, toolset, canon=canon,
                                                                      fill_defaults=fill_defaults, details=details)
        return pairs, unmatched_pred, unmatched_gold

    def match_example(
        self, preds: Sequence[Call], golds: Sequence[GoldCall], toolset: ToolSet, *, canon: Canonicalizer,
        fill_defaults: bool, details: bool = True,
    ) -> tuple[list[tuple[int, int, PairResult]], list[int], list[int], dict[str, tuple[ToolSpec | None, ToolSpec]]]:
        """:meth:`match`, and for every name as the example's calls spell it, its tool: ``(the
        declared schema or None, the spec its weights are read from)`` — what
        :meth:`ToolSet.lookup <toolcall_f1.schema.ToolSet.lookup>` and
        :meth:`ToolSet.spec_for_weights <toolcall_f1.schema.ToolSet.spec_for_weights>` give for
        it. Each distinct name is canonicalized once; counting reads the tools here.

        Examples
        --------
        >>> from toolcall_f1.schema import compile_tools
        >>> tools = compile_tools([], {"f": {"weight": 0.5}})
        >>> pairs, up, ug, named = Matcher().match_example([Call("f", {}), Call("g", {})],
        ...     [GoldCall.from_call(Call("f", {}))], tools, canon=str, fill_defaults=True)
        >>> [(i, j) for i, j, _ in pairs], up, ug, {name: spec.weight for name, (_, spec) in named.items()}
        ([(0, 0)], [1], [], {'f': 0.5, 'g': 1.0})
        """
        exact_only = not details and self.level == "call"
        name_canon, weighted, by_key, level = toolset.name_canon, toolset.weighted, toolset.by_key, self.level
        key_of: dict[str, str] = {}  # each name as called: its canonical key (SPEC §5), and its tool
        named: dict[str, tuple[ToolSpec | None, ToolSpec]] = {}
        for calls in (preds, golds):
            for call in calls:
                if (name := call.name) not in key_of:
                    key_of[name] = key = name_canon(name)
                    named[name] = (by_key.get(key), weighted.get(key, DEFAULT_TOOL))
        if self.order != "strict" and self.single and len(preds) == len(golds) == 1:  # the commonest: no grouping
            key = key_of[preds[0].name]
            if key != key_of[golds[0].name]:
                return [], [0], [0], named
            group = NameGroup(preds, golds, *named[preds[0].name], canon, fill_defaults, level, exact_only)
            return self.match_group(group), [], [], named
        # the calls by tool name (SPEC §5): a group for every name both sides call, in the order
        # of the first prediction of each
        by_name: dict[str, tuple[list[int], list[int]]] = {}  # canonical name: (prediction, gold indices)
        for i, pcall in enumerate(preds):
            by_name.setdefault(key_of[pcall.name], ([], []))[0].append(i)
        for j, gcall in enumerate(golds):
            if (found := by_name.get(key_of[gcall.name])) is not None:
                found[1].append(j)
        groups = [(pidx, gidx, NameGroup([preds[i] for i in pidx], [golds[j] for j in gidx], by_key.get(key),
                                         weighted.get(key, DEFAULT_TOOL), canon, fill_defaults, level, exact_only))
                  for key, (pidx, gidx) in by_name.items() if gidx]
        if self.order == "strict":
            pairs = self._match_in_order(groups, len(preds), len(golds), exact_only)
        else:
            pairs = [(pidx[a], gidx[b], result) for pidx, gidx, group in groups for a, b, result in self.match_group(group)]
        # by (prediction, gold) index — unique, so a PairResult is never compared — with the calls in none
        pairs.sort()
        matched_p, matched_g = {i for i, _, _ in pairs}, {j for _, j, _ in pairs}
        return (pairs, [i for i in range(len(preds)) if i not in matched_p],
                [j for j in range(len(golds)) if j not in matched_g], named)

    def match_group(self, group: NameGroup) -> list[tuple[int, int, PairResult]]:
        """The pairs of one name group, ``(i, j, PairResult)`` by position in its calls."""
        preds, golds = group.preds, group.golds
        n, m = len(preds), len(golds)
        if self.single and n == m == 1:
            return [(0, 0, judge_pairs(preds, golds, group.tool, group.wspec, group.canon, group.fill_defaults,
                                       group.exact_only)[0][0])]
        large = n * m >= self.large_from
        if self.classes and large and (classed := self._match_classes(group)) is not None:
            return classed
        if self.exact_pairs and large and group.exact_only and (found := self._match_exact(group)) is not None:
            return found
        # 1. judge every candidate pair (a large group by value keys, for its numbers alone)
        solver = SOLVERS[self.matching]
        light = group.exact_only and self.level in solver.reads_only_exact  # exactness is all that is read
        numbers, results = group.judged(light, self.keyed and large, self.level in solver.reads_only_exact)
        # 2. costs and 3. assign (or the forced exact pairs, where the solver surely takes them)
        chosen: Pairs | None = None
        if results and self.forced_exact and (self.level in solver.forced_exact_levels
                                              or solver.forced_exact_square and n == m):
            chosen = _forced_exact([[r.exact for r in row] for row in results])
        if chosen is None:
            if numbers is None:
                numbers = _numbers(results, {} if light else group.weight_units())
            chosen = self.assign(numbers, group)
        # 4. judge the chosen pairs
        return [(a, b, group.reported(results[a][b] if results else group.judge(a, b))) for a, b in chosen]

    def assign(self, numbers: GroupNumbers, group: NameGroup) -> Pairs:
        """Steps 2 and 3 for a group judged for its numbers: the solver's costs, and the
        pairs ``(i, j)`` it chooses, sorted."""
        solver = SOLVERS[self.matching]
        return solver.assign(solver.costs(numbers, group, min(numbers.exact.shape)))

    def _match_in_order(self, groups: list[tuple[list[int], list[int], NameGroup]], n: int, m: int, exact_only: bool,
                        ) -> list[tuple[int, int, PairResult]]:
        """``order="strict"`` (SPEC §5b): among the sets of pairs that keep both orders, the
        one with the optimal matcher's objective, whatever :attr:`matching` says.

        Order binds pairs of different tools too (``[a(), b()]`` against ``[b(), a()]`` can
        keep only one of its two pairs), so the unit here is the whole example, not one name
        group, and the choice is not :meth:`assign`'s: each group's candidate pairs are
        judged (step 1) and read as the optimal objective in one exact scale for the whole
        example (step 2, :func:`_objective`, :func:`_objective_cost`); one dynamic program
        over both sequences of calls chooses the pairs (step 3, :func:`_in_order`); the
        chosen pairs are judged (step 4).
        """
        if not groups:
            return []
        units = _units(set().union(*(_group_weights(g.preds, g.golds, g.wspec) for _, _, g in groups)))
        judged, parts = [], []
        for _, _, group in groups:  # 1. judge every candidate pair, and read it as the objective
            group.units = units  # one scale for every tool of the example
            by_keys = self.keyed and len(group.preds) * len(group.golds) >= self.large_from
            numbers, results = group.judged(exact_only, by_keys)  # exact_only: the call level's
            judged.append(results)
            parts.append(_objective(numbers if numbers is not None else _numbers(results, {} if exact_only else units),
                                    group))
        costs = _in_order_costs(parts, min(n, m))  # 2. costs, in one scale
        kind = np.int64 if max(c.bound for c in costs) * (min(n, m) + 1) < 2**62 else object
        # 3. assign: the dynamic program, on gains (the costs negated) in exact integers
        chosen = _in_order(n, m, [(p, g, -c.exact(kind)) for (p, g, _), c in zip(groups, costs)])
        where_p = {i: (k, a) for k, (pidx, _, _) in enumerate(groups) for a, i in enumerate(pidx)}
        where_g = {j: b for pidx, gidx, _ in groups for b, j in enumerate(gidx)}
        pairs = []
        for i, j in chosen:  # 4. judge the chosen pairs
            (k, a), b = where_p[i], where_g[j]
            group, results = groups[k][2], judged[k]
            pairs.append((i, j, group.reported(results[a][b] if results else group.judge(a, b))))
        return pairs

    def _match_exact(self, group: NameGroup) -> list[tuple[int, int, PairResult]] | None:
        """Call level, no details: the solver's exact pairs from the exact pairs alone, each
        found among its candidates (:func:`_exact_candidates`) and judged in full; the other
        calls of the smaller side paired inexactly in index order. None when the solver has no
        rule for that, or the group's calls give no index."""
        assign_exact = SOLVERS[self.matching].assign_exact
        candidates = _exact_candidates(group) if assign_exact is not None else None
        if assign_exact is None or candidates is None:
            return None
        units = group.weight_units()
        exact = []
        for j, found in enumerate(candidates):
            for i in found:
                r = group.judge(i, j)
                if r.exact:
                    exact.append((i, j, sum(VERDICT_COUNTS[v.verdict][0] * units[v.weight] for v in r.verdicts)))
        n, m = len(group.preds), len(group.golds)
        chosen = assign_exact(exact, n, m)
        taken_p, taken_g = {i for i, _ in chosen}, {j for _, j in chosen}
        rest = zip([i for i in range(n) if i not in taken_p], [j for j in range(m) if j not in taken_g])
        return sorted([(i, j, EXACT_ONLY) for i, j in chosen] + [(i, j, INEXACT_ONLY) for i, j in rest])

    def _match_classes(self, group: NameGroup) -> list[tuple[int, int, PairResult]] | None:
        """A group with many repeated calls: identical predictions (and identical gold calls)
        judge alike against everything, so each distinct pair is judged once, and the solver
        works on the classes of identical calls — 2,000 identical calls are one judgement and
        linear work. None when the calls are too varied for that to pay, or the solver has
        no rule over classes."""
        solver = SOLVERS[self.matching]
        if solver.assign_classes is None:
            return None
        preds, golds = group.preds, group.golds
        p_class, p_reps = _classes([_strict_key(tuple(p.arguments.items())) for p in preds])
        g_class, g_reps = _classes([_strict_key(tuple((k, a.values, a.optional) for k, a in g.arguments.items()))
                                    for g in golds])
        distinct = len(p_reps) * len(g_reps)
        if distinct > _MAX_CLASS_PAIRS or distinct * max(4, len(p_reps) + len(g_reps)) > len(preds) * len(golds):
            return None
        reps = group.with_calls([preds[i] for i in p_reps], [golds[j] for j in g_reps])
        judged = judge_pairs(reps.preds, reps.golds, reps.tool, reps.wspec, reps.canon, reps.fill_defaults)
        costs = solver.costs(_numbers(judged, reps.weight_units()), reps, min(len(preds), len(golds)))
        return [(i, j, group.reported(judged[p_class[i]][g_class[j]]))
                for i, j in solver.assign_classes(costs, p_class, g_class)]


#: The matcher of each setting, ``(matching, level, order)``, with every shortcut on (what
#: the metric uses).
DEFAULT_MATCHERS: Mapping[tuple[str, str, str], Matcher] = {
    (matching, level, order): Matcher(matching, level, order)
    for matching in MATCHINGS for level in LEVELS for order in ORDERS
}


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
    order: str = "any",
    name_canonicalizer: str | Callable[[str], str] | None = None,
    canon: str | Canonicalizer | None = None,
    matcher: Matcher | None = None,
) -> tuple[list[tuple[Call, GoldCall]], list[Call], list[GoldCall]]:
    """Assign predicted calls to gold calls — the layer a flat field metric does not provide.

    Calls are grouped by tool name (a call to another tool is never a pair). Within a name,
    ``"greedy"`` takes candidate pairs best-first (exact before partial, more agreeing
    weight, fewer errors, then lower prediction and gold index); ``"optimal"`` finds the
    assignment with the fewest FP+FN at ``level``. Every call of the smaller side of a
    name group is paired. With ``order="strict"`` only pairs that keep both orders are
    allowed, and the set of them with the optimal objective is taken (SPEC §5b).

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
    order
        ``"any"`` (a multiset) or ``"strict"`` (pairs keep both orders).
    name_canonicalizer
        ``"exact"`` (None), ``"underscore"`` or a callable.
    matcher
        A :class:`Matcher` (its shortcuts) in place of ``matching``, ``level`` and ``order``.

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
    >>> len(match_calls([("s", {"q": "b"}), ("s", {"q": "a"})], [("s", {"q": "a"}), ("s", {"q": "b"})],
    ...                 order="strict")[0])      # one of them, in order
    1
    >>> match_calls([], [], matching="best")
    Traceback (most recent call last):
    ...
    ValueError: matching: unknown value 'best'; expected one of 'greedy', 'optimal'
    """
    matcher = matcher or DEFAULT_MATCHERS.get((matching, level, order)) or Matcher(matching, level, order)
    toolset, canon_fn = public_settings("match_calls", tools, weights, canonicalizer, name_canonicalizer, canon)
    pcalls = coerce_structured(pred)
    gcalls = [GoldCall.from_call(c) for c in coerce_structured(gold, gold=True)]
    pairs_idx, up, ug = matcher.match(pcalls, gcalls, toolset, canon=canon_fn, fill_defaults=True)
    return (
        [(pcalls[i], gcalls[j]) for i, j, _ in pairs_idx],
        [pcalls[i] for i in up],
        [gcalls[j] for j in ug],
    )
