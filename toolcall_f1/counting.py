"""Counting apart from dividing (SPEC §7–§8): one example's weighted TP/FP/FN, summed exactly,
divided once.

One example's counts: :func:`count_example` matches its calls and counts them into a
:class:`Score`, one row of fields per pair and per unmatched call. :class:`Counts` holds three
exact sums; ``+`` merges them in any grouping with the same result (shards, processes,
batches), and the floats are rounded only when read out. :class:`Tally` folds a corpus in one
example at a time (:func:`summarize`, or :meth:`ToolCallMetric.compute
<toolcall_f1.metric.ToolCallMetric.compute>`). :func:`prf` is the one place a zero denominator
is decided, and :class:`Tally.result` the one place an empty corpus is.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

from .calls import Call, GoldCall
from .judge import AGREE, DISAGREE, EXTRA, MISSING, VERDICT_COUNTS, PairResult, gold_repr
from .matching import DEFAULT_MATCHERS, Matcher
from .rules import without_ignored
from .schema import ToolSet, ToolSpec
from .values import Canonicalizer

__all__ = ["Counts", "EmptyCorpusError", "Score", "Tally", "count_example", "example_sums", "prf", "summarize"]


class EmptyCorpusError(ValueError):
    """A corpus of zero examples has no score (SPEC §8); a :class:`ValueError`.

    Examples
    --------
    >>> Tally().result("-")
    Traceback (most recent call last):
    ...
    toolcall_f1.counting.EmptyCorpusError: nothing was added: a corpus of zero examples has no score
    """

    def __init__(self, message: str = "nothing was added: a corpus of zero examples has no score") -> None:
        super().__init__(message)


def prf(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    """Precision, recall and F1 from counts; 1.0 when all three are zero, else 0.0 on a zero
    denominator.

    Examples
    --------
    >>> prf(1, 1, 1)
    (0.5, 0.5, 0.5)
    >>> prf(0, 0, 0), prf(0, 0, 2)
    ((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))
    """
    if tp == 0 and fp == 0 and fn == 0:
        return 1.0, 1.0, 1.0
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else 0.0
    return p, r, f


#: Every finite float is a whole number of units of 2**-1074 (the smallest subnormal): an
#: exact sum of floats is a Python int in those units, and ``int / int`` rounds it once,
#: correctly, back to a float.
_EXPONENT = 1074
_UNIT = 1 << _EXPONENT


def _units(field: str, x: Any) -> int:
    """A count, a finite number >= 0 (a bool is not a count), as an exact whole number of units."""
    value = x
    if type(x) is not float:
        if isinstance(x, bool) or not isinstance(x, Real):
            raise TypeError(f"Counts: {field}={x!r}: expected a finite number >= 0, got {type(x).__name__}")
        try:
            value = float(x)
        except OverflowError:
            value = math.inf
    if not 0 <= value < math.inf:  # False for NaN too
        raise ValueError(f"Counts: {field}={x!r}: expected a finite number >= 0")
    num, den = value.as_integer_ratio()
    return num << (_EXPONENT + 1 - den.bit_length())  # den is a power of two


def example_sums(fields: Iterable[tuple[str, float, Any]]) -> tuple[float, float, float]:
    """One example's weighted TP, FP and FN from its fields ``(verdict, weight, _)`` (SPEC §7):
    each weight added to what its verdict adds to (:data:`~toolcall_f1.judge.VERDICT_COUNTS`),
    each sum exact and rounded once, so neither call order nor argument order can change a digit.

    The same numbers as the units of :class:`Counts` give (the exact sum, correctly rounded):
    :func:`math.fsum` computes exactly that, in C, ten times faster than summing units for an
    example's few terms (0.3 µs against 3 µs) — :class:`Counts` keeps units because a corpus
    merges sums that must stay unrounded. Weights are finite and >= 0 (checked when read).

    Examples
    --------
    >>> example_sums([("agree", 1.0, "f"), ("disagree", 0.5, "f"), ("missing", 0.25, "g")])
    (1.0, 0.5, 0.75)
    >>> weights = [0.1, 1 / 3, 2.5e-300, 0.7] * 5
    >>> example_sums([("agree", w, "f") for w in weights])[0] == Counts.total(Counts(w) for w in weights).tp
    True
    """
    tp: list[float] = []
    fp: list[float] = []
    fn: list[float] = []
    for verdict, weight, _ in fields:
        adds_tp, adds_fp, adds_fn = VERDICT_COUNTS[verdict]
        if adds_tp:
            tp.append(weight)
        if adds_fp:
            fp.append(weight)
        if adds_fn:
            fn.append(weight)
    return math.fsum(tp), math.fsum(fp), math.fsum(fn)


class Counts:
    """Weighted TP/FP/FN, the sufficient statistics; ``+`` merges them (micro-averaging)
    exactly, in any grouping: ``tp``, ``fp``, ``fn`` read out the floats :func:`math.fsum` of
    all the terms gives.

    Parameters
    ----------
    tp, fp, fn
        Finite numbers >= 0 (ints or floats; a bool is not a count).

    Raises
    ------
    TypeError
        For a count that is not a number, naming the field.
    ValueError
        For a negative, NaN or infinite count, naming the field.

    Examples
    --------
    >>> c = Counts(1, 0, 0) + Counts(0, 0, 1)
    >>> c, round(c.f1, 4)
    (Counts(tp=1.0, fp=0.0, fn=1.0), 0.6667)
    >>> parts = [Counts(w) for w in (0.7, 0.1, 0.7, 0.3, 1 / 3, 0.7, 0.1, 0.3)]
    >>> Counts.total(parts[:6]) + Counts.total(parts[6:]) == Counts.total(parts)
    True
    >>> Counts(1, -1)
    Traceback (most recent call last):
    ...
    ValueError: Counts: fp=-1: expected a finite number >= 0
    """

    __slots__ = ("_fn", "_fp", "_tp")

    def __init__(self, tp: float = 0.0, fp: float = 0.0, fn: float = 0.0) -> None:
        self._tp = _units("tp", tp)
        self._fp = _units("fp", fp)
        self._fn = _units("fn", fn)

    @staticmethod
    def _of_units(tp: int, fp: int, fn: int) -> Counts:
        counts = Counts.__new__(Counts)
        counts._tp, counts._fp, counts._fn = tp, fp, fn
        return counts

    @property
    def tp(self) -> float:
        return self._tp / _UNIT

    @property
    def fp(self) -> float:
        return self._fp / _UNIT

    @property
    def fn(self) -> float:
        return self._fn / _UNIT

    def __add__(self, other: Counts) -> Counts:
        if not isinstance(other, Counts):
            return NotImplemented
        return Counts._of_units(self._tp + other._tp, self._fp + other._fp, self._fn + other._fn)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Counts):
            return NotImplemented
        return (self._tp, self._fp, self._fn) == (other._tp, other._fp, other._fn)

    def __hash__(self) -> int:
        return hash((self._tp, self._fp, self._fn))

    def __repr__(self) -> str:
        return f"Counts(tp={self.tp!r}, fp={self.fp!r}, fn={self.fn!r})"

    @property
    def precision(self) -> float:
        return prf(self.tp, self.fp, self.fn)[0]

    @property
    def recall(self) -> float:
        return prf(self.tp, self.fp, self.fn)[1]

    @property
    def f1(self) -> float:
        return prf(self.tp, self.fp, self.fn)[2]

    def as_dict(self) -> dict[str, float]:
        """``{"tp", "fp", "fn", "precision", "recall", "f1"}`` (a per-tool row of ``compute``)."""
        tp, fp, fn = self.tp, self.fp, self.fn
        p, r, f = prf(tp, fp, fn)
        return {"tp": tp, "fp": fp, "fn": fn, "precision": p, "recall": r, "f1": f}

    @staticmethod
    def total(counts: Iterable[Counts]) -> Counts:
        """The exact sum: neither the order nor the grouping of the terms can matter.

        Examples
        --------
        >>> Counts.total([Counts(0.1), Counts(0.2)]).tp == math.fsum([0.1, 0.2])
        True
        """
        tp = fp = fn = 0
        for c in counts:
            tp += c._tp
            fp += c._fp
            fn += c._fn
        return Counts._of_units(tp, fp, fn)


#: The four kinds of example by whether the gold has a call and the model attempted one
#: (SPEC §8b, "Call decisions"), in the order :attr:`Tally.decisions` counts them.
DECISIONS = ("expected_and_called", "expected_not_called", "unexpected_called", "unexpected_not_called")


@dataclass(slots=True, eq=False, repr=False)
class Tally:
    """A corpus folded in one example at a time: what ``compute()`` reports, merged exactly.

    Add each example's score and drop it; ``+`` merges two tallies (shards, processes) with
    the result of one pass over all their examples; :meth:`result` divides once. Picklable.

    Examples
    --------
    >>> from toolcall_f1 import ToolCallMetric
    >>> m = ToolCallMetric()
    >>> a, b = Tally(), Tally()
    >>> a.add(m([("g", {})], [("g", {})]))
    >>> b.add(m([], [("g", {})]))
    >>> whole = a + b
    >>> r = whole.result(m.signature(example_tools_digests=whole.digests))
    >>> r == m.compute([[("g", {})], []], [[("g", {})], [("g", {})]])
    True
    >>> round(r["f1"], 4), r["exact_match"], r["num_examples"]
    (0.6667, 0.5, 2)
    """

    _tp: int = field(default=0, init=False)  # exact sums, in units (as Counts holds them)
    _fp: int = field(default=0, init=False)
    _fn: int = field(default=0, init=False)
    num_examples: int = field(default=0, init=False)
    num_exact: int = field(default=0, init=False)
    num_parse_errors: int = field(default=0, init=False)
    hallucinated_tools: int = field(default=0, init=False)
    hallucinated_args: int = field(default=0, init=False)
    per_tool: dict[str, Counts] = field(default_factory=dict, init=False)
    #: Examples with calls whose score counted no per-tool rows (``details=False``).
    num_without_per_tool: int = field(default=0, init=False)
    #: Distinct per-example tools digests (they enter the signature).
    digests: set[str] = field(default_factory=set, init=False)
    num_superset: int = field(default=0, init=False)  # SPEC §5b, "Coverage"
    num_subset: int = field(default=0, init=False)
    #: Examples by (gold has a call, model attempted one), as :data:`DECISIONS` names them.
    decisions: list[int] = field(default_factory=[0, 0, 0, 0].copy, init=False)
    #: Under ``order="turns"``: [exact reference turns, reference turns] (SPEC §5b); else None.
    turns: list[int] | None = field(default=None, init=False)

    @property
    def counts(self) -> Counts:
        """The corpus's summed TP/FP/FN."""
        return Counts._of_units(self._tp, self._fp, self._fn)

    def add(self, score: Any) -> None:
        """Fold one example's :class:`Score` in."""
        self._tp += _units("tp", score.tp)
        self._fp += _units("fp", score.fp)
        self._fn += _units("fn", score.fn)
        self.num_examples += 1
        self.num_exact += bool(score.exact)
        self.num_parse_errors += score.parse_error is not None
        self.hallucinated_tools += score.hallucinated_tools
        self.hallucinated_args += score.hallucinated_args
        self.num_superset += score.superset_match
        self.num_subset += score.subset_match
        self.decisions[2 * (not score.golds) + (not score.attempted)] += 1
        if score.per_tool:
            self._add_per_tool(score.per_tool)
        # Every call adds a field to its tool's row, so a score with calls but no rows was
        # made without them (details=False): per-tool rows would then be silently short.
        if not score.per_tool and (score.pairs or score.unmatched_pred or score.unmatched_gold):
            self.num_without_per_tool += 1
        if score.tools_digest:
            self.digests.add(score.tools_digest)
        if getattr(score, "turns", None) is not None:  # a conversation (order="turns"): its TurnsScore
            self._add_turns(score.turn_counts)

    def _add_turns(self, turns: Sequence[int]) -> None:
        """Fold in (exact reference turns, reference turns) of a conversation, or of a tally."""
        known = self.turns or [0, 0]
        self.turns = [known[0] + turns[0], known[1] + turns[1]]

    def _add_per_tool(self, per_tool: Mapping[str, Counts]) -> None:
        for name, counts in per_tool.items():
            known = self.per_tool.get(name)
            self.per_tool[name] = counts if known is None else known + counts

    def __add__(self, other: Tally) -> Tally:
        if not isinstance(other, Tally):
            return NotImplemented
        out = Tally()
        for part in (self, other):  # exactly as if each part's examples had been added to out
            out._tp += part._tp
            out._fp += part._fp
            out._fn += part._fn
            out.num_examples += part.num_examples
            out.num_exact += part.num_exact
            out.num_parse_errors += part.num_parse_errors
            out.hallucinated_tools += part.hallucinated_tools
            out.hallucinated_args += part.hallucinated_args
            out.num_superset += part.num_superset
            out.num_subset += part.num_subset
            out.decisions = [a + b for a, b in zip(out.decisions, part.decisions)]
            out._add_per_tool(part.per_tool)
            out.num_without_per_tool += part.num_without_per_tool
            out.digests |= part.digests
            if part.turns is not None:
                out._add_turns(part.turns)
        return out

    def result(self, signature: str, per_tool: bool = False) -> dict[str, Any]:
        """The corpus scores of SPEC §8 (the dict ``compute()`` returns, without details).

        Parameters
        ----------
        signature
            The ``signature`` entry (:meth:`ToolCallMetric.signature
            <toolcall_f1.ToolCallMetric.signature>`).
        per_tool
            Add the ``per_tool`` rows: every added score must have counted them (a score
            made with ``details=False`` did not).

        Returns
        -------
        dict
            ``f1, precision, recall, exact_match, tp, fp, fn, num_examples,
            num_parse_errors, hallucinated_tools, hallucinated_args, superset_match,
            subset_match, call_decision, signature`` (+ ``turn_exact_match`` under
            ``order="turns"``, + ``per_tool``). ``call_decision`` holds the four counts of
            :data:`DECISIONS`, ``accuracy`` (right decisions / examples), ``relevance`` (called /
            examples that expect a call; None when none does) and ``irrelevance`` (not called /
            examples that expect none; None when every one expects a call). Unweighted; a parse
            error of text that tried to call is an attempt (BFCL counts it a right abstention;
            this metric does not).

        Raises
        ------
        EmptyCorpusError
            When no example was added: a corpus of zero examples has no score.
        ValueError
            For ``per_tool=True`` when an example with calls was scored without per-tool
            counts (``details=False``): its rows would be missing, a silently wrong table.

        Examples
        --------
        >>> from toolcall_f1 import ToolCallMetric
        >>> m, tally = ToolCallMetric(), Tally()
        >>> tally.add(m("[f(x=1)]", [("f", {"x": 1})]))
        >>> tally.result("-", per_tool=True)["per_tool"]["f"]["tp"]
        1.0
        >>> tally.add(m("[g()]", [("g", {})], details=False))
        >>> tally.result("-", per_tool=True)
        Traceback (most recent call last):
        ...
        ValueError: per_tool=True: 1 of 2 examples were scored with details=False, which counts no per-tool rows; score them with details=True (the default) to report per_tool
        >>> tally.decisions = [3, 1, 2, 4]
        >>> tally.result("-")["call_decision"]
        {'expected_and_called': 3, 'expected_not_called': 1, 'unexpected_called': 2, 'unexpected_not_called': 4, 'accuracy': 0.7, 'relevance': 0.75, 'irrelevance': 0.6666666666666666}
        >>> tally.decisions = [2, 0, 0, 0]
        >>> tally.result("-")["call_decision"]["irrelevance"] is None
        True
        """
        n = self.num_examples
        if n == 0:
            raise EmptyCorpusError()
        if per_tool and self.num_without_per_tool:
            raise ValueError(
                f"per_tool=True: {self.num_without_per_tool} of {n} examples were scored with details=False, "
                "which counts no per-tool rows; score them with details=True (the default) to report per_tool"
            )
        tp, fp, fn = self._tp / _UNIT, self._fp / _UNIT, self._fn / _UNIT  # as Counts reads them out
        p, r, f = prf(tp, fp, fn)
        eac, enc, uac, unc = self.decisions
        decided = eac + enc + uac + unc
        out: dict[str, Any] = {
            "f1": f, "precision": p, "recall": r, "exact_match": self.num_exact / n,
            "tp": tp, "fp": fp, "fn": fn, "num_examples": n,
            "num_parse_errors": self.num_parse_errors,
            "hallucinated_tools": self.hallucinated_tools,
            "hallucinated_args": self.hallucinated_args,
            "superset_match": self.num_superset / n,
            "subset_match": self.num_subset / n,
            **({} if self.turns is None else {"turn_exact_match": self.turns[0] / self.turns[1] if self.turns[1] else 1.0}),
            "call_decision": {
                **dict(zip(DECISIONS, self.decisions)),
                "accuracy": (eac + unc) / decided if decided else None,
                "relevance": eac / (eac + enc) if eac + enc else None,
                "irrelevance": unc / (uac + unc) if uac + unc else None,
            },
            "signature": signature,
        }
        if per_tool:
            out["per_tool"] = {name: self.per_tool[name].as_dict() for name in sorted(self.per_tool)}
        return out


# --------------------------------------------------------------------------- one example's counts


@dataclass(frozen=True, slots=True)
class Score:
    """One example's result: weighted counts, its exact flag, and what was matched.

    ``pairs`` holds ``(pred_index, gold_index, PairResult)``; ``preds`` and ``golds`` are
    the calls read from the example; ``row_fields`` what each pair and unmatched call counted.
    """

    tp: float
    fp: float
    fn: float
    exact: bool
    parse_error: str | None = None
    preds: tuple[Call, ...] = ()
    golds: tuple[GoldCall, ...] = ()
    pairs: tuple[tuple[int, int, PairResult], ...] = ()
    unmatched_pred: tuple[int, ...] = ()
    unmatched_gold: tuple[int, ...] = ()
    hallucinated_tools: int = 0
    hallucinated_args: int = 0
    per_tool: Mapping[str, Counts] = field(default_factory=dict)
    tools_digest: str = ""
    #: Each pair's fields, then each unmatched prediction's, then each unmatched gold call's:
    #: ``(verdict, weight, tool name)`` as the counts summed them (SPEC §7).
    row_fields: tuple[tuple[tuple[str, float, str], ...], ...] = field(default=(), repr=False)
    #: Per predicted call: is its tool undeclared, and which arguments of a declared tool are
    #: (empty without schemas).
    undeclared: tuple[tuple[bool, tuple[str, ...]], ...] = field(default=(), repr=False)

    #: No parse error, and every gold call in an exact pair: the model made at least the gold
    #: calls (SPEC §5b, "Coverage").
    superset_match: bool = False
    #: No parse error, and every predicted call in an exact pair: the model made only gold calls
    #: (SPEC §5b). An example is exact when it is both.
    subset_match: bool = False
    #: Did the model try to call: a predicted call, or a parse error of text that tried to
    #: (SPEC §8b, "Call decisions": an unreadable answer is an attempt, never a right
    #: abstention); the metric clears it for text a named format could not read and ``"auto"``
    #: reads as no call.
    attempted: bool = False

    @property
    def counts(self) -> Counts:
        return Counts(self.tp, self.fp, self.fn)

    @property
    def precision(self) -> float:
        return prf(self.tp, self.fp, self.fn)[0]

    @property
    def recall(self) -> float:
        return prf(self.tp, self.fp, self.fn)[1]

    @property
    def f1(self) -> float:
        return prf(self.tp, self.fp, self.fn)[2]

    def row_counts(self) -> tuple[Counts, ...]:
        """What each pair, then each unmatched prediction, then each unmatched gold call adds to
        the example's counts: the fields of :attr:`row_fields`, summed exactly (SPEC §7).

        Their :meth:`Counts.total <toolcall_f1.counting.Counts.total>` reads out this score's
        ``tp``, ``fp`` and ``fn`` to the last digit.

        Examples
        --------
        >>> from toolcall_f1 import ToolCallMetric
        >>> s = ToolCallMetric("arg")("[f(x=1, y=2), g()]", [("f", {"x": 1, "y": 3})])
        >>> s.row_counts()
        (Counts(tp=2.0, fp=1.0, fn=1.0), Counts(tp=0.0, fp=1.0, fn=0.0))
        >>> Counts.total(s.row_counts()) == s.counts
        True
        """
        return tuple(Counts.total(Counts(*example_sums((f,))) for f in row) for row in self.row_fields)

    def to_dict(self) -> dict[str, Any]:
        """Per-example details: counts, exact flag, pairs with each argument's verdict, and
        unmatched calls; each pair and unmatched call also says what it adds to the counts
        (``adds``, :meth:`row_counts`) with its tool's ``weight``, and each predicted call
        whether its tool (``hallucinated_tool``) or which of its arguments
        (``hallucinated_args``) the schemas do not declare.

        Examples
        --------
        >>> from toolcall_f1 import ToolCallMetric
        >>> d = ToolCallMetric()("[f(x=2), g()]", [("f", {"x": 1})]).to_dict()
        >>> d["pairs"][0]["adds"], d["unmatched_pred"][0]
        ({'tp': 0.0, 'fp': 1.0, 'fn': 1.0}, {'name': 'g', 'arguments': {}, 'adds': {'tp': 0.0, 'fp': 1.0, 'fn': 0.0}, 'weight': 1.0, 'hallucinated_tool': False, 'hallucinated_args': []})
        """
        rows = iter(zip(self.row_fields, self.row_counts(), strict=True))
        return {
            **self.counts.as_dict(),
            "exact": self.exact,
            "parse_error": self.parse_error,
            "pairs": [
                {
                    "pred": self.preds[i].to_dict(),
                    "gold": _gold_dict(self.golds[j]),
                    "exact": res.exact,
                    "arguments": [v.to_dict() for v in res.verdicts],
                    **self._row(next(rows), i),
                }
                for i, j, res in self.pairs
            ],
            "unmatched_pred": [{**self.preds[i].to_dict(), **self._row(next(rows), i)} for i in self.unmatched_pred],
            "unmatched_gold": [{**_gold_dict(self.golds[j]), **self._row(next(rows))} for j in self.unmatched_gold],
            "hallucinated_tools": self.hallucinated_tools,
            "hallucinated_args": self.hallucinated_args,
            "superset_match": self.superset_match,
            "subset_match": self.subset_match,
        }

    def _row(self, row: tuple[tuple[tuple[str, float, str], ...], Counts], pred: int | None = None) -> dict[str, Any]:
        """A row's ``adds`` and tool ``weight`` (its first field is its name's), and for a
        predicted call its hallucination flags."""
        fields, adds = row
        out: dict[str, Any] = {"adds": {"tp": adds.tp, "fp": adds.fp, "fn": adds.fn}, "weight": fields[0][1]}
        if pred is not None:
            tool, args = self.undeclared[pred] if self.undeclared else (False, ())
            out["hallucinated_tool"], out["hallucinated_args"] = tool, list(args)
        return out


def _gold_dict(gold: GoldCall) -> dict[str, Any]:
    return {"name": gold.name, "arguments": {k: gold_repr(v) for k, v in gold.arguments.items()}}


def count_example(
    preds: Sequence[Call],
    golds: Sequence[GoldCall],
    toolset: ToolSet,
    *,
    level: str,
    matching: str,
    canon: Canonicalizer,
    order: str = "any",
    fill_defaults: bool,
    parse_error: str | None = None,
    tools_digest: str = "",
    per_tool_counts: bool = True,
    details: bool = True,
    matcher: Matcher | None = None,
) -> Score:
    """Match one example's calls and count weighted TP/FP/FN at ``level`` (SPEC §7).

    Parameters
    ----------
    preds, golds, toolset
        The example's calls and the compiled schemas they are judged with.
    level, matching, canon, fill_defaults
        As :meth:`Matcher.match <toolcall_f1.matching.Matcher.match>` takes them.
    order
        ``"any"`` (the calls as a multiset) or ``"strict"`` (pairs keep both orders; SPEC §5b).
    parse_error, tools_digest
        Carried into the :class:`Score` (an unreadable prediction is never exact).
    per_tool_counts
        ``False`` leaves ``Score.per_tool`` empty (a corpus that does not report it).
    details
        ``False``: at call level pairs are reported for their exactness alone (no
        per-argument verdicts); every count and flag is the same.
    matcher
        The :class:`~toolcall_f1.matching.Matcher` that pairs the calls (its shortcuts);
        by default the one for ``matching``, ``level`` and ``order``. Its own must be those.

    Returns
    -------
    Score

    Raises
    ------
    ValueError
        For a ``matcher`` whose matching, level or order is not ``matching``, ``level`` or ``order``.

    Examples
    --------
    >>> from toolcall_f1.schema import compile_tools
    >>> s = count_example([Call("f", {"x": 2})], [GoldCall.from_call(Call("f", {"x": 1}))],
    ...                   compile_tools([], {}), level="arg", matching="greedy", canon=str, fill_defaults=True)
    >>> s.tp, s.fp, s.fn, s.exact
    (1.0, 1.0, 1.0, False)
    """
    if matcher is None:
        matcher = DEFAULT_MATCHERS.get((matching, level, order)) or Matcher(matching, level, order)
    elif (matcher.matching, matcher.level) != (matching, level):
        raise ValueError(f"count_example: the matcher is for matching={matcher.matching!r}, level={matcher.level!r};"
                         f" expected matching={matching!r}, level={level!r}")
    elif matcher.order != order:
        raise ValueError(f"count_example: the matcher is for order={matcher.order!r}; expected order={order!r}")
    shown_preds, shown_golds = preds, golds
    if toolset.ruled:  # argument rules (SPEC §6b): an "ignore" argument is deleted from both sides first
        preds, golds = without_ignored(preds, golds, toolset.rules_of)
    pairs, unmatched_pred, unmatched_gold, named = matcher.match_example(preds, golds, toolset, canon=canon,
                                                                         fill_defaults=fill_defaults, details=details)
    # Every field the example counts (SPEC §7), as (verdict, weight, tool name), one row per pair,
    # then per unmatched prediction, then per unmatched gold call. At call level a pair is one
    # field of its tool weight, agreeing when the pair is exact; at argument level its name agrees
    # (tool weight) and each argument has its own verdict (weight w_t·w_a). An unmatched
    # prediction's fields are extra, an unmatched gold call's (but its optional arguments) missing.
    # ``named``: each name's (declared schema, weights), as the matcher found them (ToolSet.lookup,
    # ToolSet.spec_for_weights).
    arg_level = level == "arg"
    rows: list[tuple[tuple[str, float, str], ...]] = []
    for i, j, res in pairs:
        wt, name = named[preds[i].name][1].weight, golds[j].name
        rows.append(((AGREE, wt, name), *[(v.verdict, wt * v.weight, name) for v in res.verdicts]) if arg_level
                    else (((AGREE if res.exact else DISAGREE), wt, name),))
    for i in unmatched_pred:
        call, spec = preds[i], named[preds[i].name][1]
        rows.append(((EXTRA, spec.weight, call.name),
                     *[(EXTRA, spec.weight * spec.arg_weights.get(k, 1.0), call.name)
                       for k in (call.arguments if arg_level else ())]))
    for j in unmatched_gold:
        gold, spec = golds[j], named[golds[j].name][1]
        rows.append(((MISSING, spec.weight, gold.name),
                     *[(MISSING, spec.weight * spec.arg_weights.get(k, 1.0), gold.name)
                       for k, accepted in (gold.arguments.items() if arg_level else ()) if not accepted.optional]))
    fields = [f for row in rows for f in row]
    tp, fp, fn = example_sums(fields)
    undeclared, tools_hall, args_hall = _undeclared(shown_preds, named) if toolset.has_schema else ((), 0, 0)
    exact_pairs = -1 if parse_error is not None else [r.exact for _, _, r in pairs].count(True)
    # (positional, in the order of Score's fields: nineteen keywords cost more than the rest of
    # this function's bookkeeping — about 2 µs of an example's few tens)
    return Score(
        tp, fp, fn, exact_pairs == len(preds) == len(golds),  # exact
        parse_error, tuple(shown_preds), tuple(shown_golds), tuple(pairs), tuple(unmatched_pred),
        tuple(unmatched_gold), tools_hall, args_hall,  # hallucinated tools, arguments
        _per_tool(fields, toolset) if per_tool_counts else {}, tools_digest, tuple(rows), undeclared,
        exact_pairs == len(golds), exact_pairs == len(preds),  # superset_match, subset_match
        bool(preds) or parse_error is not None,  # attempted
    )


def _undeclared(preds: Sequence[Call], named: Mapping[str, tuple[ToolSpec | None, ToolSpec]],
                ) -> tuple[tuple[tuple[bool, tuple[str, ...]], ...], int, int]:
    """Per predicted call: is its tool undeclared, and which arguments of a declared tool are
    (``named``: each name's declared schema, as the matcher found it; argument rules change no
    hallucination count) — with the number of undeclared tools and of undeclared arguments."""
    flags: list[tuple[bool, tuple[str, ...]]] = []
    tools = args = 0
    for call in preds:
        declared = named[call.name][0]
        if declared is None:
            flags.append((True, ()))
            tools += 1
        else:
            params = declared.params
            extra = tuple([k for k in call.arguments if k not in params])
            flags.append((False, extra))
            args += len(extra)
    return tuple(flags), tools, args


def _per_tool(fields: Sequence[tuple[str, float, str]], toolset: ToolSet) -> dict[str, Counts]:
    """The fields' counts by tool, one row per tool however it was spelled: the schema's name,
    else the canonical one."""
    rows: dict[str, list[tuple[str, float, str]]] = {}
    for verdict, weight, name in fields:
        key = toolset.name_canon(name)
        declared = toolset.by_key.get(key)
        rows.setdefault(key if declared is None else declared.name, []).append((verdict, weight, name))
    return {name: Counts(*example_sums(row)) for name, row in rows.items()}


def summarize(
    scores: Iterable[Score],
    *,
    signature: str,
    per_tool: bool = False,
    return_details: bool = False,
) -> dict[str, Any]:
    """The corpus result of SPEC §8 from per-example scores: micro-averaged, never a mean.

    Raises
    ------
    EmptyCorpusError
        A :class:`ValueError`, when there is no score: a corpus of zero examples has no score.

    Examples
    --------
    >>> from toolcall_f1 import ToolCallMetric
    >>> m = ToolCallMetric()
    >>> a = m([("g", {})], [("g", {})])
    >>> b = m([], [("g", {})])
    >>> r = summarize([a, b], signature="-")
    >>> round(r["f1"], 4), r["exact_match"], r["tp"], r["fn"]
    (0.6667, 0.5, 1.0, 1.0)
    >>> summarize([], signature="-")
    Traceback (most recent call last):
    ...
    toolcall_f1.counting.EmptyCorpusError: nothing was added: a corpus of zero examples has no score
    """
    scores = list(scores)
    tally = Tally()
    for s in scores:
        tally.add(s)
    out = tally.result(signature, per_tool)
    if return_details:
        out["details"] = [s.to_dict() for s in scores]
    return out
