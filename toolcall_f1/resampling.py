"""How sure is the number: intervals, paired tests and pass@k from per-unit counts (SPEC §8b).

Everything here folds the counts of the one scoring pass: nothing is scored twice. A *unit* is
what a resample draws whole: one example, or every example of one group (n samples of one
prompt, the turns of one conversation), so correlated examples are drawn together (a cluster
bootstrap). :class:`Units` collects each unit's summed TP, FP, FN, exact examples and examples;
:func:`interval`, :func:`compare_units` and :func:`pass_k` read those sums with numpy,
vectorised, drawing resamples in chunks of rows so memory stays bounded however many units
there are (the draws are the same as one draw of the whole matrix).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["TESTS", "Units", "check_group", "check_interval", "compare_units", "interval", "pass_k", "scores",
           "signature_parts"]

#: The paired tests of :func:`compare_units` and their default numbers of resamples / trials.
TESTS = {"bootstrap": 1000, "randomization": 10_000}
#: A resample or trial counts as at least as extreme as the observed difference when its
#: statistic is ≥ |delta| − this (scores lie in [0, 1]; summing the same counts in another
#: order must not change p, and ties are never evidence).
TOLERANCE = 1e-9
#: Draws per chunk (rows × units): about 8 MB of int64 indices at a time.
_CHUNK = 1 << 20
#: Columns of a unit's sums.
_TP, _FP, _FN, _EXACT, _EXAMPLES = range(5)


def check_group(group: Any, where: str) -> Hashable:
    """A group key as SPEC §8b allows it: a string or an integer (never a bool, a float or a
    container: ``1``, ``1.0`` and ``True`` must not merge silently).

    Raises
    ------
    ValueError
        Naming ``where`` and the value.

    Examples
    --------
    >>> check_group("prompt-7", "references[0]"), check_group(3, "groups[1]")
    ('prompt-7', 3)
    >>> check_group(1.0, "groups[2]")
    Traceback (most recent call last):
    ...
    ValueError: groups[2]: a group is a string or an integer, got float 1.0
    """
    if type(group).__module__ == "numpy" and hasattr(group, "item"):
        group = group.item()  # a datasets column in numpy format
    if isinstance(group, bool) or not isinstance(group, (str, int)):
        raise ValueError(f"{where}: a group is a string or an integer, got {type(group).__name__} {group!r}")
    return group


class Units:
    """Each unit's summed counts, in order of first appearance (SPEC §8b, "Units").

    Add every example's counts with its group (or ``None`` for "each example its own unit");
    every example has a group or none does.

    Examples
    --------
    >>> u = Units()
    >>> u.add(1.0, 0.0, 0.0, True, "a"); u.add(0.0, 1.0, 1.0, False, "b"); u.add(1.0, 0.0, 1.0, False, "a")
    >>> u.sums().tolist()
    [[2.0, 0.0, 1.0, 1.0, 2.0], [0.0, 1.0, 1.0, 0.0, 1.0]]
    >>> u.grouped, len(u)
    (True, 2)
    """

    __slots__ = ("_index", "_rows", "grouped", "num_examples")

    def __init__(self) -> None:
        self._index: dict[Hashable, int] = {}
        self._rows: list[list[float]] = []
        self.grouped: bool | None = None  # None until the first example
        self.num_examples = 0

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, tp: float, fp: float, fn: float, exact: bool, group: Hashable | None = None,
            where: str = "references") -> None:
        """Fold one example in; ``where`` names it in the error for a missing group.

        Raises
        ------
        ValueError
            When some examples have a group and this one has none, or the reverse.
        """
        grouped = group is not None
        if self.grouped is None:
            self.grouped = grouped
        elif grouped != self.grouped:
            raise ValueError(f"{where}: {'has no' if self.grouped else 'has a'} group, but "
                             f"{'earlier examples have one' if self.grouped else 'earlier examples have none'}: "
                             "every example has a group or none does")
        self.num_examples += 1
        if not grouped:
            self._rows.append([tp, fp, fn, float(exact), 1.0])
            return
        k = self._index.setdefault(group, len(self._rows))  # type: ignore[arg-type]
        if k == len(self._rows):
            self._rows.append([0.0, 0.0, 0.0, 0.0, 0.0])
        row = self._rows[k]
        row[_TP] += tp
        row[_FP] += fp
        row[_FN] += fn
        row[_EXACT] += exact
        row[_EXAMPLES] += 1.0

    def sums(self) -> Any:
        """The units' sums as a (K, 5) float array: TP, FP, FN, exact examples, examples."""
        return np.array(self._rows, dtype=float).reshape(len(self._rows), 5)

    def groups(self) -> list[tuple[Hashable, int, int]]:
        """``(group, examples, exact examples)`` of every group, in order of first appearance."""
        return [(g, int(self._rows[k][_EXAMPLES]), int(self._rows[k][_EXACT])) for g, k in self._index.items()]


def scores(sums: Any) -> dict[str, Any]:
    """Vectorised SPEC §8 scores of rows of summed counts (the last axis as :meth:`Units.sums`):
    1.0 when TP, FP and FN are all zero, else 0.0 on a zero denominator.

    Examples
    --------
    >>> s = scores(np.array([[1.0, 1.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 2.0, 0.0, 2.0]]))
    >>> s["f1"].tolist(), s["exact_match"].tolist()
    ([0.5, 1.0, 0.0], [0.0, 1.0, 0.0])
    """
    tp, fp, fn = sums[..., _TP], sums[..., _FP], sums[..., _FN]
    empty = (tp == 0) & (fp == 0) & (fn == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        r = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
        f = np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), 0.0)
        e = np.where(sums[..., _EXAMPLES] > 0, sums[..., _EXACT] / sums[..., _EXAMPLES], 0.0)
    return {"f1": np.where(empty, 1.0, f), "precision": np.where(empty, 1.0, p),
            "recall": np.where(empty, 1.0, r), "exact_match": e}


def _draws(k: int, n: int, rng: Any, high: int) -> Iterator[Any]:
    """Rows of ``rng.integers(0, high, size=(n, k))``, drawn in row order, a chunk at a time."""
    rows = max(1, _CHUNK // max(k, 1))
    for start in range(0, n, rows):
        yield rng.integers(0, high, size=(min(rows, n - start), k))


def _resampled(sums: Any, n: int, seed: int) -> Any:
    """The (n, 5) summed counts of n bootstrap resamples of the units (SPEC §8b, "Intervals"):
    each chunk of draws becomes how often each unit is drawn in each row (one ``bincount``),
    times the units' sums (one matrix product)."""
    k = len(sums)
    out = np.empty((n, 5))
    done = 0
    for idx in _draws(k, n, np.random.default_rng(seed), k):
        rows = len(idx)
        offsets = (np.arange(rows) * k)[:, None]
        times = np.bincount((idx + offsets).ravel(), minlength=rows * k).reshape(rows, k)
        out[done:done + rows] = times.astype(float) @ sums  # a float product runs in BLAS
        done += rows
    return out


def check_interval(level: float, n: int, seed: int) -> None:
    """Refuse interval settings SPEC §8b does not allow: a level outside (0, 1), a number of
    resamples that is no positive integer, a seed that is no non-negative integer (numpy's
    ``default_rng`` takes none below 0; each a ValueError naming the keyword)."""
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not 0 < level < 1:
        raise ValueError(f"confidence_level: expected a number between 0 and 1 (exclusive), got {level!r}")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n_resamples: expected a positive integer, got {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed: expected a non-negative integer, got {seed!r}")


def signature_parts(head: str, n: int, seed: int, grouped: bool | None) -> list[str]:
    """What a resampled number adds to the signature (SPEC §8b): ``head`` (``ci:<level>`` or
    ``test:<test>``), then ``n:<n>|seed:<seed>``, and ``groups:yes`` when units are groups.

    Examples
    --------
    >>> "|".join(signature_parts("ci:0.95", 1000, 12345, True))
    'ci:0.95|n:1000|seed:12345|groups:yes'
    """
    return [head, f"n:{n}", f"seed:{seed}"] + ["groups:yes"] * bool(grouped)


def _bounds(values: Any, level: float) -> list[float]:
    lo, hi = np.percentile(values, [50 * (1 - level), 50 * (1 + level)])
    return [float(lo), float(hi)]


def interval(units: Units, level: float = 0.95, n_resamples: int = 1000, seed: int = 12345,
             ) -> dict[str, Any]:
    """Percentile bootstrap intervals of F1, precision, recall and exact match (SPEC §8b).

    Resample r is row r of ``default_rng(seed).integers(0, K, size=(n_resamples, K))`` over the
    K units; its counts are the sums over the drawn units; each interval is
    ``numpy.percentile(scores, [50·(1−c), 50·(1+c)])``.

    Raises
    ------
    ValueError
        For a level outside (0, 1), a non-positive ``n_resamples``, a seed that is no integer,
        or no units.

    Examples
    --------
    >>> u = Units()
    >>> for i in range(40):
    ...     u.add(float(i % 4 != 0), float(i % 4 == 0), float(i % 4 == 0), i % 4 != 0)
    >>> ci = interval(u, 0.95, 200, seed=1)
    >>> ci["method"], ci["n_resamples"], ci["level"]
    ('percentile bootstrap', 200, 0.95)
    >>> 0.5 < ci["f1"][0] < 0.75 < ci["f1"][1] <= 1.0
    True
    >>> interval(u, 1.5)
    Traceback (most recent call last):
    ...
    ValueError: confidence_level: expected a number between 0 and 1 (exclusive), got 1.5
    """
    check_interval(level, n_resamples, seed)
    if not len(units):
        raise ValueError("no units to resample: a corpus of zero examples has no interval")
    drawn = scores(_resampled(units.sums(), n_resamples, seed))
    out: dict[str, Any] = {name: _bounds(drawn[name], level) for name in ("f1", "precision", "recall", "exact_match")}
    out.update(level=level, n_resamples=n_resamples, seed=seed, method="percentile bootstrap")
    return out


def _p_value(extreme: Any, n: int) -> float:
    return float((int(np.count_nonzero(extreme)) + 1) / (n + 1))


def _paired_bootstrap(base: Any, systems: Mapping[str, Any], n: int, seed: int, level: float,
                      ) -> dict[str, dict[str, Any]]:
    base_f1 = scores(_resampled(base, n, seed))["f1"]
    observed_base = float(scores(base.sum(axis=0))["f1"])
    out = {}
    for name, sums in systems.items():
        f1 = scores(_resampled(sums, n, seed))["f1"]  # the same draws for every system
        delta = float(scores(sums.sum(axis=0))["f1"]) - observed_base
        d = f1 - base_f1
        out[name] = {"ci": _bounds(f1, level), "delta": delta,
                     "p_value": _p_value(np.abs(d - d.mean()) >= abs(delta) - TOLERANCE, n)}
    return out


def _randomization(base: Any, systems: Mapping[str, Any], n: int, seed: int) -> dict[str, float]:
    out = {}
    observed_base = float(scores(base.sum(axis=0))["f1"])
    for name, sums in systems.items():
        delta = float(scores(sums.sum(axis=0))["f1"]) - observed_base
        diff = base - sums  # what exchanging a unit moves from the baseline to the system
        total_a, total_b = sums.sum(axis=0), base.sum(axis=0)
        extreme = 0
        for mask in _draws(len(sums), n, np.random.default_rng(seed), 2):
            moved = mask.astype(float) @ diff  # (rows, 5): the exchanged units' net counts
            gap = np.abs(scores(total_a + moved)["f1"] - scores(total_b - moved)["f1"])
            extreme += int(np.count_nonzero(gap >= abs(delta) - TOLERANCE))
        out[name] = (extreme + 1) / (n + 1)
    return out


def compare_units(systems: Mapping[str, Units], *, test: str = "bootstrap", n_resamples: int | None = None,
                  seed: int = 12345, confidence_level: float = 0.95) -> dict[str, dict[str, Any]]:
    """Paired comparison of systems scored on the same references (SPEC §8b), the first the
    baseline: each system's ``f1``, ``ci``, ``delta`` (its F1 − the baseline's) and two-sided
    ``p_value`` (None for the baseline).

    ``"bootstrap"`` (1,000 resamples by default): the interval's draws, the same for every
    system; p = (#{r : |d_r − mean(d)| ≥ |delta|} + 1) / (n + 1) with d_r the signed resampled
    difference. ``"randomization"`` (10,000 trials): for each system a fresh
    ``default_rng(seed)``; in trial r unit k's counts are exchanged between the system and the
    baseline where row r, column k of ``rng.integers(0, 2, size=(n, K))`` is 1;
    p = (#{r : |F1(A_r) − F1(B_r)| ≥ |delta|} + 1) / (n + 1); intervals from a fresh
    ``default_rng(seed)`` with 1,000 resamples.

    Raises
    ------
    ValueError
        For an unknown test, fewer than one system, systems of different units, or a bad
        level, number of resamples or seed.

    Examples
    --------
    >>> a, b = Units(), Units()
    >>> for i in range(30):
    ...     a.add(float(i % 2), float(1 - i % 2), float(1 - i % 2), bool(i % 2))
    ...     b.add(1.0, 0.0, 0.0, True)
    >>> out = compare_units({"base": a, "new": b}, n_resamples=500)
    >>> out["base"]["delta"], out["base"]["p_value"], out["new"]["delta"], out["new"]["p_value"] < 0.01
    (0.0, None, 0.5, True)
    >>> compare_units({"base": a, "new": b}, test="t-test")
    Traceback (most recent call last):
    ...
    ValueError: test: unknown value 't-test'; expected one of 'bootstrap', 'randomization'
    """
    if test not in TESTS:
        raise ValueError(f"test: unknown value {test!r}; expected one of {', '.join(map(repr, TESTS))}")
    n = TESTS[test] if n_resamples is None else n_resamples
    check_interval(confidence_level, n, seed)
    names = list(systems)
    if not names:
        raise ValueError("compare: no systems given")
    sums = {name: systems[name].sums() for name in names}
    base_name, base = names[0], sums[names[0]]
    for name in names[1:]:
        if sums[name].shape != base.shape or not np.array_equal(sums[name][:, _EXAMPLES], base[:, _EXAMPLES]):
            raise ValueError(f"compare: system {name!r} is not scored on the same units as {base_name!r}")
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        out[name] = {"f1": float(scores(sums[name].sum(axis=0))["f1"])}
    others = {name: sums[name] for name in names[1:]}
    if test == "bootstrap":
        tested = _paired_bootstrap(base, {base_name: base, **others}, n, seed, confidence_level)
        for name in names:
            out[name].update(tested[name])
    else:
        p_values = _randomization(base, others, n, seed)
        for name in names:
            out[name].update(ci=interval(systems[name], confidence_level, 1000, seed)["f1"],
                             delta=out[name]["f1"] - out[base_name]["f1"], p_value=p_values.get(name))
    out[base_name].update(delta=0.0, p_value=None)
    return out


def pass_k(groups: Sequence[tuple[Hashable, int, int]], ks: Sequence[int]) -> dict[str, float]:
    """pass@k and pass^k over groups of ``(group, n examples, c exact)`` (SPEC §8b): per group
    pass@k = 1 − C(n−c, k)/C(n, k) and pass^k = C(c, k)/C(n, k), each the mean over groups.

    Raises
    ------
    ValueError
        For no groups, a k that is not a positive integer, or a group with fewer than k examples
        (naming it and its n).

    Examples
    --------
    >>> pass_k([("a", 4, 1), ("b", 4, 4)], (1, 2))
    {'pass@1': 0.625, 'pass^1': 0.625, 'pass@2': 0.75, 'pass^2': 0.5}
    >>> pass_k([("a", 1, 1)], (2,))
    Traceback (most recent call last):
    ...
    ValueError: pass_k: group 'a' has 1 example, fewer than k=2
    """
    if not groups:
        raise ValueError("pass_k needs groups (groups= or a reference's \"group\" key): none were given")
    if isinstance(ks, (str, bytes)) or not isinstance(ks, Sequence):
        raise ValueError(f"pass_k: expected a sequence of positive integers such as (1, 2, 4), got {ks!r}")
    out: dict[str, float] = {}
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"pass_k: every k must be a positive integer, got {k!r}")
        at = power = 0.0
        for group, n, c in groups:
            if n < k:
                raise ValueError(f"pass_k: group {group!r} has {n} example{'s' * (n != 1)}, fewer than k={k}")
            total = math.comb(n, int(k))
            at += 1 - math.comb(n - c, int(k)) / total
            power += math.comb(c, int(k)) / total
        out[f"pass@{int(k)}"] = at / len(groups)
        out[f"pass^{int(k)}"] = power / len(groups)
    return out
