"""One example's counts: its :class:`Score` and :func:`count_example` (SPEC §7).

Matched calls become weighted TP/FP/FN here, one row of fields per pair and per unmatched call (:func:`_rows`); a corpus
sums the scores in a :class:`~toolcall_f1.counting.Tally` (:func:`summarize`, or
:meth:`ToolCallMetric.compute <toolcall_f1.metric.ToolCallMetric.compute>`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .calls import Call, GoldCall
from .counting import Counts, Tally, example_sums, prf
from .judge import AGREE, DISAGREE, EXTRA, MISSING, PairResult, gold_repr
from .matching import DEFAULT_MATCHERS, Matcher
from .rules import without_ignored
from .schema import ToolSet
from .values import Canonicalizer

__all__ = ["Counts", "Score", "Tally", "count_example", "prf", "summarize"]


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
    pairs, unmatched_pred, unmatched_gold = matcher.match(preds, golds, toolset, canon=canon,
                                                          fill_defaults=fill_defaults, details=details)
    rows = _rows(preds, golds, toolset, pairs, unmatched_pred, unmatched_gold, level)
    fields = [f for row in rows for f in row]
    tp, fp, fn = example_sums(fields)
    undeclared = _hallucinations(shown_preds, toolset)  # (rules change no hallucination count)
    exact_pairs = -1 if parse_error is not None else sum(r.exact for _, _, r in pairs)
    return Score(
        tp, fp, fn,
        exact=exact_pairs == len(preds) == len(golds),
        superset_match=exact_pairs == len(golds), subset_match=exact_pairs == len(preds),
        attempted=bool(preds) or parse_error is not None,
        parse_error=parse_error,
        preds=tuple(shown_preds), golds=tuple(shown_golds), pairs=tuple(pairs),
        unmatched_pred=tuple(unmatched_pred), unmatched_gold=tuple(unmatched_gold),
        hallucinated_tools=sum(tool for tool, _ in undeclared),
        hallucinated_args=sum(len(args) for _, args in undeclared),
        per_tool=_per_tool(fields, toolset) if per_tool_counts else {},
        tools_digest=tools_digest, row_fields=rows, undeclared=undeclared,
    )


def _rows(
    preds: Sequence[Call], golds: Sequence[GoldCall], toolset: ToolSet, pairs: Sequence[tuple[int, int, PairResult]],
    unmatched_pred: Sequence[int], unmatched_gold: Sequence[int], level: str,
) -> tuple[tuple[tuple[str, float, str], ...], ...]:
    """Every field a matched example counts (SPEC §7), as ``(verdict, weight, tool name)``, one
    row per pair, then per unmatched prediction, then per unmatched gold call.

    At call level a pair is one field of its tool weight, agreeing when the pair is exact;
    at argument level its name agrees (tool weight) and each argument has its own verdict
    (weight ``w_t·w_a``). An unmatched prediction's fields are extra, an unmatched gold
    call's (but its optional arguments) missing.
    """
    spec_of = toolset.spec_for_weights
    arg_level = level == "arg"
    rows: list[tuple[tuple[str, float, str], ...]] = []
    for i, j, res in pairs:
        wt = spec_of(preds[i].name).weight
        name = golds[j].name
        if not arg_level:
            rows.append((((AGREE if res.exact else DISAGREE), wt, name),))
        else:
            rows.append(((AGREE, wt, name), *[(v.verdict, wt * v.weight, name) for v in res.verdicts]))
    for i in unmatched_pred:
        call = preds[i]
        spec = spec_of(call.name)
        weights = spec.arg_weights
        rows.append(((EXTRA, spec.weight, call.name),
                     *[(EXTRA, spec.weight * weights.get(k, 1.0), call.name) for k in call.arguments if arg_level]))
    for j in unmatched_gold:
        gold = golds[j]
        spec = spec_of(gold.name)
        weights = spec.arg_weights
        rows.append(((MISSING, spec.weight, gold.name),
                     *[(MISSING, spec.weight * weights.get(k, 1.0), gold.name)
                       for k, accepted in gold.arguments.items() if arg_level and not accepted.optional]))
    return tuple(rows)


def _per_tool(fields: Sequence[tuple[str, float, str]], toolset: ToolSet) -> dict[str, Counts]:
    """The fields' counts by tool, one row per tool however it was spelled: the schema's name,
    else the canonical one."""
    rows: dict[str, list[tuple[str, float, str]]] = {}
    for verdict, weight, name in fields:
        key = toolset.name_canon(name)
        declared = toolset.by_key.get(key)
        rows.setdefault(key if declared is None else declared.name, []).append((verdict, weight, name))
    return {name: Counts(*example_sums(row)) for name, row in rows.items()}


def _hallucinations(preds: Sequence[Call], toolset: ToolSet) -> tuple[tuple[bool, tuple[str, ...]], ...]:
    """Per predicted call: is its tool undeclared, and which arguments of a declared tool are
    (``()`` without schemas)."""
    if not toolset.has_schema:
        return ()
    out = []
    for call in preds:
        declared = toolset.lookup(call.name)
        out.append((True, ()) if declared is None else (False, tuple(k for k in call.arguments if k not in declared.params)))
    return tuple(out)


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
