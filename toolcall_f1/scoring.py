"""Counting TP/FP/FN per example, micro-averaged scores, and the seed's ``ToolCallMetric``.

Counting is kept apart from dividing (SPEC §7–§8): each example yields weighted TP/FP/FN;
a corpus sums them (with :func:`math.fsum`, so example order cannot change a digit) and
divides once. Never a mean of per-example scores.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import math
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .calls import Call, GoldCall, ToolCallParseError, bfcl_gold, coerce_structured
from .matching import LEVELS, MATCHINGS, PairResult, check_choice, match_indices
from .parsing import FORMATS, Context, read_any
from .schema import ContentKey, ToolSet, compile_tools, content_key, merge_tools, validate_weights
from .templates import resolve_format
from .values import (
    Canonicalizer,
    canonicalizer_name,
    name_canonicalizer_name,
    resolve_canonicalizer,
    resolve_name_canonicalizer,
)

__all__ = [
    "VERSION",
    "Counts",
    "Score",
    "prf",
    "ToolCallMetric",
    "summarize",
    "PARSE_ERROR_MODES",
    "REFERENCE_FORMATS",
]

VERSION = "0.1.0"
PARSE_ERROR_MODES = ("count", "raise")
REFERENCE_FORMATS = tuple(FORMATS)  # "auto", "bfcl" (possible answers) and the text formats


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


@dataclass(frozen=True, slots=True)
class Counts:
    """Weighted TP/FP/FN: the sufficient statistics. ``+`` merges them (micro-averaging).

    Examples
    --------
    >>> c = Counts(1, 0, 0) + Counts(0, 0, 1)
    >>> c, round(c.f1, 4)
    (Counts(tp=1, fp=0, fn=1), 0.6667)
    """

    tp: float = 0.0
    fp: float = 0.0
    fn: float = 0.0

    def __add__(self, other: Counts) -> Counts:
        if not isinstance(other, Counts):
            return NotImplemented
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    @property
    def precision(self) -> float:
        return prf(self.tp, self.fp, self.fn)[0]

    @property
    def recall(self) -> float:
        return prf(self.tp, self.fp, self.fn)[1]

    @property
    def f1(self) -> float:
        return prf(self.tp, self.fp, self.fn)[2]

    @staticmethod
    def total(counts: Iterable[Counts]) -> Counts:
        """Sum exactly rounded (``math.fsum``): the order of the terms cannot matter."""
        items = list(counts)
        return Counts(
            math.fsum(c.tp for c in items),
            math.fsum(c.fp for c in items),
            math.fsum(c.fn for c in items),
        )


@dataclass(frozen=True, slots=True)
class Score:
    """One example's result: weighted counts, its exact flag, and what was matched.

    ``pairs`` holds ``(pred_index, gold_index, PairResult)``; ``preds`` and ``golds`` are
    the calls read from the example.
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

    def to_dict(self) -> dict[str, Any]:
        """Per-example details: counts, exact flag, pairs with each argument's verdict."""
        p, r, f = prf(self.tp, self.fp, self.fn)
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": p,
            "recall": r,
            "f1": f,
            "exact": self.exact,
            "parse_error": self.parse_error,
            "pairs": [
                {
                    "pred": self.preds[i].to_dict(),
                    "gold": _gold_dict(self.golds[j]),
                    "exact": res.exact,
                    "arguments": [v.to_dict() for v in res.verdicts],
                }
                for i, j, res in self.pairs
            ],
            "unmatched_pred": [self.preds[i].to_dict() for i in self.unmatched_pred],
            "unmatched_gold": [_gold_dict(self.golds[j]) for j in self.unmatched_gold],
            "hallucinated_tools": self.hallucinated_tools,
            "hallucinated_args": self.hallucinated_args,
        }


def _gold_dict(gold: GoldCall) -> dict[str, Any]:
    from .matching import _gold_repr

    return {"name": gold.name, "arguments": {k: _gold_repr(v) for k, v in gold.arguments.items()}}


def _digest(obj: Any) -> str:
    """Eight hex digits naming a JSON-like value (stable across runs and key order)."""
    try:
        text = json.dumps(obj, sort_keys=True, default=repr, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        text = _bounded_text(obj)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _bounded_text(obj: Any, depth: int = 0) -> str:
    """A deterministic rendering for data too deep (or odd) for ``json.dumps``; below 200
    levels it is cut, so such schemas differing only that deep share a digest."""
    if depth > 200:
        return "..."
    if isinstance(obj, Mapping):
        items = sorted((str(k), _bounded_text(v, depth + 1)) for k, v in obj.items())
        return "{" + ",".join(f"{k!r}:{v}" for k, v in items) + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + ",".join(_bounded_text(v, depth + 1) for v in obj) + "]"
    return repr(obj)


#: The latest readings of references (see ``ToolCallMetric._memo_reference``): gold calls by
#: (calls' content, reference format, tool set), per-example tool sets by (tools' content,
#: base tool set). Only a few, on purpose: they catch what repeats from one example to the
#: next, while a large memo of gold calls, each a tree of objects the garbage collector must
#: walk, made a corpus of all-different references 40% slower (measured). Values over
#: ``_MEMO_MAX_BYTES`` are not remembered.
_GOLDS: dict[tuple[bytes, str, int], tuple[ToolSet, list[GoldCall]]] = {}
_EXAMPLE_TOOLS: dict[tuple[bytes | None, int], tuple[ToolSet, ToolSet, str]] = {}
_MEMO_SIZE = 16
_MEMO_MAX_BYTES = 65536


def _where(index: int | None) -> str:
    """How an error names a reference: ``references[3]``, or ``references`` for a lone one."""
    return "references" if index is None else f"references[{index}]"


def _merge_example_tools(example_tools: Any, where: str) -> list[Mapping[str, Any]]:
    """A reference's own ``tools``, merged by name; errors name the reference."""
    if not isinstance(example_tools, list):
        raise ValueError(f"{where}: 'tools' must be a list of function schemas")
    try:
        return merge_tools(example_tools)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None


def _memo_key(value: Any) -> bytes | None:
    """``marshal`` bytes of plain data (equal bytes load back as equal data), or None for
    other objects and values too large to remember."""
    try:
        key = marshal.dumps(value)
    except ValueError:  # not plain data, or nested too deep for marshal
        return None
    return key if len(key) <= _MEMO_MAX_BYTES else None


def _remember(memo: dict[Any, Any], slot: Any, value: Any) -> None:
    if len(memo) >= _MEMO_SIZE:
        memo.clear()
    memo[slot] = value


_DIGESTS: dict[ContentKey, str] = {}
_DIGESTS_SIZE = 4096


def _tools_digest(tools: Sequence[Mapping[str, Any]], key: ContentKey | None) -> str:
    """``_digest(tools)``, remembered by content key (per-example tools repeat in a corpus)."""
    if key is None:
        return _digest(tools)
    digest = _DIGESTS.get(key)
    if digest is None:
        digest = _digest(tools)
        if len(_DIGESTS) >= _DIGESTS_SIZE:
            _DIGESTS.clear()
        _DIGESTS[key] = digest
    return digest


def count_example(
    preds: Sequence[Call],
    golds: Sequence[GoldCall],
    toolset: ToolSet,
    *,
    level: str,
    matching: str,
    canon: Canonicalizer,
    fill_defaults: bool,
    parse_error: str | None = None,
    tools_digest: str = "",
    per_tool_counts: bool = True,
) -> Score:
    """Match one example's calls and count weighted TP/FP/FN at ``level`` (SPEC §7).

    ``per_tool_counts=False`` leaves ``Score.per_tool`` empty (for a corpus that does not
    report it); every other field is the same.
    """
    pairs, up, ug = match_indices(
        preds, golds, toolset, canon=canon, matching=matching, level=level, fill_defaults=fill_defaults
    )
    tp, fp, fn, exact, h_tools, h_args, per_tool = _tally(
        preds, golds, toolset, pairs, up, ug, level == "call", per_tool_counts
    )
    return Score(
        tp,
        fp,
        fn,
        exact and parse_error is None,
        parse_error,
        tuple(preds),
        tuple(golds),
        tuple(pairs),
        tuple(up),
        tuple(ug),
        h_tools,
        h_args,
        per_tool,
        tools_digest,
    )


def _tally(
    preds: Sequence[Call],
    golds: Sequence[GoldCall],
    toolset: ToolSet,
    pairs: Sequence[tuple[int, int, PairResult]],
    up: Sequence[int],
    ug: Sequence[int],
    call_level: bool,
    per_tool_counts: bool,
) -> tuple[float, float, float, bool, int, int, dict[str, Counts]]:
    """The counts of one matched example (SPEC §7): ``(tp, fp, fn, every call paired and
    every pair exact, hallucinated tools, hallucinated arguments, per-tool counts)``.

    Each count is the :func:`math.fsum` of its terms — a pair's or unmatched call's tool
    weight, at argument level also ``tool weight × argument weight`` per argument — so
    neither call order nor argument order can change a digit.
    """
    tp: list[float] = []
    fp: list[float] = []
    fn: list[float] = []
    per_tool: dict[str, list[list[float]]] = {}
    name_fn = toolset.name_canon
    spec_of = toolset.spec_for_weights
    exact = not up and not ug

    def bucket(name: str) -> list[list[float]]:
        # one row per tool however it was spelled: the schema's name, else the canonical one
        key = name_fn(name)
        declared = toolset.by_key.get(key)
        return per_tool.setdefault(declared.name if declared is not None else key, [[], [], []])

    if call_level:
        for i, j, res in pairs:
            wt = spec_of(preds[i].name).weight
            if res.exact:
                tp.append(wt)
                if per_tool_counts:
                    bucket(golds[j].name)[0].append(wt)
            else:
                exact = False
                fp.append(wt)
                fn.append(wt)
                if per_tool_counts:
                    b = bucket(golds[j].name)
                    b[1].append(wt)
                    b[2].append(wt)
        for i in up:
            wt = spec_of(preds[i].name).weight
            fp.append(wt)
            if per_tool_counts:
                bucket(preds[i].name)[1].append(wt)
        for j in ug:
            wt = spec_of(golds[j].name).weight
            fn.append(wt)
            if per_tool_counts:
                bucket(golds[j].name)[2].append(wt)
    else:
        for i, j, res in pairs:
            wt = spec_of(preds[i].name).weight
            if not res.exact:
                exact = False
            ptp, pfp, pfn = [wt], [], []
            for v in res.verdicts:
                w = wt * v.weight
                if v.verdict == "agree":
                    ptp.append(w)
                elif v.verdict == "disagree":
                    pfp.append(w)
                    pfn.append(w)
                elif v.verdict == "extra":
                    pfp.append(w)
                elif v.verdict == "missing":
                    pfn.append(w)
            tp.extend(ptp)
            fp.extend(pfp)
            fn.extend(pfn)
            if per_tool_counts:
                b = bucket(golds[j].name)
                b[0].extend(ptp)
                b[1].extend(pfp)
                b[2].extend(pfn)
        for i in up:
            call = preds[i]
            spec = spec_of(call.name)
            terms = [spec.weight]
            terms.extend(spec.weight * spec.arg_weight(k) for k in call.arguments)
            fp.extend(terms)
            if per_tool_counts:
                bucket(call.name)[1].extend(terms)
        for j in ug:
            gold = golds[j]
            spec = spec_of(gold.name)
            terms = [spec.weight]
            terms.extend(
                spec.weight * spec.arg_weight(k) for k, acc in gold.arguments.items() if not acc.optional
            )
            fn.extend(terms)
            if per_tool_counts:
                bucket(gold.name)[2].extend(terms)

    h_tools = h_args = 0
    if toolset.has_schema:
        lookup = toolset.lookup
        for call in preds:
            declared = lookup(call.name)
            if declared is None:
                h_tools += 1
            else:
                params = declared.params
                for k in call.arguments:
                    if k not in params:
                        h_args += 1
    return (
        _sum(tp),
        _sum(fp),
        _sum(fn),
        exact,
        h_tools,
        h_args,
        {k: Counts(math.fsum(a), math.fsum(b), math.fsum(c)) for k, (a, b, c) in per_tool.items()},
    )


def _sum(terms: list[float]) -> float:
    """:func:`math.fsum`, without its call for the commonest lists (none or one term)."""
    n = len(terms)
    if n == 0:
        return 0.0
    if n == 1:
        return terms[0] + 0.0  # fsum([x]) is x as a float (weights are finite, >= 0)
    return math.fsum(terms)


class _Totals:
    """What :func:`summarize` needs from a corpus, folded in one :class:`Score` at a time.

    Keeps each example's TP/FP/FN (a compact float array) and sums them with
    :func:`math.fsum` at the end — exactly the numbers ``summarize`` computes from the list
    of scores — without holding the scores themselves (their calls, pairs and verdicts).
    """

    __slots__ = ("digests", "fn", "fp", "h_args", "h_tools", "n", "num_exact", "parse_errors", "per_tool", "tp")

    def __init__(self) -> None:
        self.tp = array("d")
        self.fp = array("d")
        self.fn = array("d")
        self.n = self.num_exact = self.parse_errors = self.h_tools = self.h_args = 0
        self.per_tool: dict[str, list[Counts]] = {}
        self.digests: set[str] = set()

    def add(self, s: Score) -> None:
        self.add_counts(s.tp, s.fp, s.fn, s.exact, s.parse_error, s.hallucinated_tools,
                        s.hallucinated_args, s.per_tool, s.tools_digest)

    def add_counts(
        self, tp: float, fp: float, fn: float, exact: bool, parse_error: str | None,
        h_tools: int, h_args: int, per_tool: Mapping[str, Counts], tools_digest: str,
    ) -> None:
        """One example's numbers, as a :class:`Score` would carry them."""
        self.tp.append(tp)
        self.fp.append(fp)
        self.fn.append(fn)
        self.n += 1
        if exact:
            self.num_exact += 1
        if parse_error is not None:
            self.parse_errors += 1
        self.h_tools += h_tools
        self.h_args += h_args
        for name, c in per_tool.items():
            bucket = self.per_tool.get(name)
            if bucket is None:
                self.per_tool[name] = [c]
            else:
                bucket.append(c)
        if tools_digest:
            self.digests.add(tools_digest)

    def result(self, signature: str, per_tool: bool) -> dict[str, Any]:
        tp, fp, fn = math.fsum(self.tp), math.fsum(self.fp), math.fsum(self.fn)
        p, r, f = prf(tp, fp, fn)
        n = self.n
        out: dict[str, Any] = {
            "f1": f,
            "precision": p,
            "recall": r,
            "exact_match": (self.num_exact / n) if n else 1.0,
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "num_examples": n,
            "num_parse_errors": self.parse_errors,
            "hallucinated_tools": self.h_tools,
            "hallucinated_args": self.h_args,
            "signature": signature,
        }
        if per_tool:
            table = {}
            for name in sorted(self.per_tool):
                c = Counts.total(self.per_tool[name])
                prec, rec, f1 = prf(c.tp, c.fp, c.fn)
                table[name] = {"tp": c.tp, "fp": c.fp, "fn": c.fn, "precision": prec, "recall": rec, "f1": f1}
            out["per_tool"] = table
        return out


def summarize(
    scores: Sequence[Score],
    *,
    signature: str,
    per_tool: bool = False,
    return_details: bool = False,
) -> dict[str, Any]:
    """The corpus result of SPEC §8 from per-example scores: micro-averaged, never a mean.

    Examples
    --------
    >>> m = ToolCallMetric()
    >>> a = m([("g", {})], [("g", {})])
    >>> b = m([], [("g", {})])
    >>> r = summarize([a, b], signature="-")
    >>> round(r["f1"], 4), r["exact_match"], r["tp"], r["fn"]
    (0.6667, 0.5, 1.0, 1.0)
    """
    totals = _Totals()
    for s in scores:
        totals.add(s)
    out = totals.result(signature, per_tool)
    if return_details:
        out["details"] = [s.to_dict() for s in scores]
    return out


class ToolCallMetric:
    """Tool-call correctness (BFCL AST match) as a cost-weighted, micro-averaged metric.

    Parameters
    ----------
    level
        ``"call"`` (default): a call is a TP only on an exact match; ``"arg"``: partial credit
        per argument (the name and each argument are fields).
    canonicalizer
        ``"default"`` (None), ``"bfcl"``, ``"exact"`` or a callable ``str -> str``.
    tools
        Tool schemas (OpenAI or BFCL form): types, required, defaults, importance weights.
    weights
        ``{tool: w}`` or ``{tool: {"weight": w, "arguments": {arg: w}}}``; overrides importance.
    matching
        ``"greedy"`` (default, the seed's algorithm) or ``"optimal"``.
    name_canonicalizer
        ``"exact"`` (None), ``"underscore"`` (``a.b`` reads as ``a_b``) or a callable.
    prediction_format, reference_format
        How text is read (``"auto"``; ``"bfcl"`` for BFCL's strict decoder / possible answers).
        ``prediction_format`` may also be the model's response template (a dict, or a tokenizer
        with ``.response_template``): transformers' parser reads the text, and the message's
        ``tool_calls`` are the calls (see :mod:`toolcall_f1.templates`).
    on_parse_error
        ``"count"`` (score as zero calls, count in ``num_parse_errors``) or ``"raise"``.
    grammar
        The seed's name for the source of cost weights: read as ``tools`` when ``tools`` is
        not given.

    Raises
    ------
    ValueError
        For an unknown setting, a malformed schema, or an invalid weight (naming the tool).

    Examples
    --------
    >>> metric = ToolCallMetric()
    >>> s = metric([("search", {"q": "cats"}), ("delete_all", {})],
    ...            [("search", {"q": "cats"}), ("answer", {"a": "meow"})])
    >>> s.tp, s.fp, s.fn, s.f1, s.exact
    (1.0, 1.0, 1.0, 0.5, False)
    >>> ToolCallMetric(level="token")
    Traceback (most recent call last):
    ...
    ValueError: level: unknown value 'token'; expected one of 'call', 'arg'
    """

    def __init__(
        self,
        level: str = "call",
        *,
        canonicalizer: str | Canonicalizer | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        matching: str = "greedy",
        name_canonicalizer: str | Callable[[str], str] | None = None,
        prediction_format: str = "auto",
        reference_format: str = "auto",
        on_parse_error: str = "count",
        grammar: Any = None,
    ) -> None:
        self.level = check_choice(level, LEVELS, "level")
        self.matching = check_choice(matching, MATCHINGS, "matching")
        self.canonicalizer = canonicalizer
        self._canon = resolve_canonicalizer(canonicalizer)
        self.name_canonicalizer = name_canonicalizer
        self._name_fn = resolve_name_canonicalizer(name_canonicalizer)
        self.prediction_format = resolve_format(prediction_format, tuple(FORMATS), "prediction_format")
        self.reference_format = check_choice(reference_format, REFERENCE_FORMATS, "reference_format")
        self.on_parse_error = check_choice(on_parse_error, PARSE_ERROR_MODES, "on_parse_error")
        if grammar is not None and tools is None:
            tools = grammar  # the seed's name for the schema source
        self.tools = list(merge_tools(tools))
        self.weights = validate_weights(weights)
        self._toolset = compile_tools(self.tools, self.weights, self._name_fn)

    # -- configuration -------------------------------------------------------------------

    def _toolset_for(
        self,
        call_tools: Sequence[Mapping[str, Any]] | None,
        call_weights: Mapping[str, Any] | None,
        example_tools: Sequence[Mapping[str, Any]] | None,
        example_key: ContentKey | None = None,
    ) -> ToolSet:
        """The compiled schemas for one call: constructor < call < per-example tools.

        ``example_tools`` are already merged (``_split_reference``) and ``example_key`` is
        their content key, if known.
        """
        if not call_tools and not call_weights and not example_tools:
            return self._toolset
        weights = {**self.weights, **validate_weights(call_weights)} if call_weights else self.weights
        if example_tools and not self.tools and not call_tools:
            # per-example tools alone: merging them again would give an equal list
            return compile_tools(example_tools, weights, self._name_fn, tools_key=example_key)
        tools = merge_tools(self.tools, call_tools, example_tools)
        return compile_tools(tools, weights, self._name_fn)

    def signature(
        self,
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        prediction_format: str | None = None,
        reference_format: str | None = None,
        example_tools_digests: Iterable[str] = (),
    ) -> str:
        """A short string naming every setting that changes the number (sacrebleu-style).

        Examples
        --------
        >>> ToolCallMetric().signature()
        'level:call|match:greedy|canon:default|names:exact|pred:auto|ref:auto|w:none|v:0.1.0'
        """
        prediction_format = self._prediction_format(prediction_format)
        digests = sorted({d for d in example_tools_digests if d})
        effective_tools = merge_tools(self.tools, tools)
        effective_weights = {**self.weights, **validate_weights(weights)} if weights else self.weights
        weight_src = [effective_tools, effective_weights, digests]
        has_weights = bool(effective_tools or effective_weights or digests)
        parts = [
            f"level:{self.level}",
            f"match:{self.matching}",
            f"canon:{canonicalizer_name(self.canonicalizer)}",
            f"names:{name_canonicalizer_name(self.name_canonicalizer)}",
            f"pred:{prediction_format or self.prediction_format}",
            f"ref:{reference_format or self.reference_format}",
            f"w:{_digest(weight_src) if has_weights else 'none'}",
            f"v:{VERSION}",
        ]
        return "|".join(parts)

    # -- reading -------------------------------------------------------------------------

    def read_reference(
        self, reference: Any, *, reference_format: str | None = None, index: int | None = None,
        toolset: ToolSet | None = None,
    ) -> tuple[list[GoldCall], list[Mapping[str, Any]] | None]:
        """A reference → (gold calls, per-example tools or None). Raises, naming the index.

        Positional arguments in the reference are named through ``toolset`` merged with the
        reference's own ``tools``.
        """
        where = _where(index)
        raw, example_tools = self._split_reference(reference, where)
        ts = toolset or self._toolset
        if example_tools:
            ts, _ = self._with_example_tools(None, None, example_tools, content_key(example_tools), where)
        return self._read_gold(raw, reference_format, index, ts), example_tools

    @staticmethod
    def _split_reference(reference: Any, where: str) -> tuple[Any, list[Mapping[str, Any]] | None]:
        """``{"calls": ..., "tools": [...]}`` → (calls, merged per-example tools or None)."""
        if isinstance(reference, ToolCallParseError):
            raise reference.located(where)
        if not (isinstance(reference, Mapping) and "calls" in reference and isinstance(reference["calls"], (list, str))):
            return reference, None
        example_tools = reference.get("tools")
        if example_tools is None:
            return reference["calls"], None
        return reference["calls"], _merge_example_tools(example_tools, where)

    def _read_gold(self, raw: Any, reference_format: str | None, index: int | None, ts: ToolSet) -> list[GoldCall]:
        fmt = reference_format or self.reference_format
        where = _where(index)
        try:
            if fmt == "bfcl":
                return bfcl_gold(raw, where)
            ctx = Context(ts.param_order) if ts.has_schema else Context()
            return [GoldCall.from_call(c) for c in read_any(raw, fmt, ctx, gold=True)]
        except ToolCallParseError as err:
            raise err.located(where, index) from None

    def read_prediction(
        self, prediction: Any, toolset: ToolSet, *, prediction_format: str | None = None,
        index: int | None = None,
    ) -> tuple[list[Call], str | None]:
        """A prediction → (calls, parse error message or None); raises with ``"raise"``.

        A :class:`ToolCallParseError` given as the prediction (an upstream reader's failure)
        is that parse error.
        """
        fmt = prediction_format or self.prediction_format
        ctx = toolset.reader_context
        if ctx is None:  # made once per compiled tool set
            ctx = toolset.reader_context = Context(toolset.param_order) if toolset.has_schema else Context()
        try:
            if isinstance(prediction, ToolCallParseError):
                raise prediction
            return read_any(prediction, fmt, ctx), None
        except ToolCallParseError as err:
            where = "predictions" if index is None else f"predictions[{index}]"
            located = err.located(where, index)
            if self.on_parse_error == "raise":
                raise located from None
            return [], str(located)

    # -- scoring -------------------------------------------------------------------------

    def __call__(
        self,
        pred: Any,
        gold: Any,
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        reference_format: str | None = None,
        prediction_format: str | None = None,
        index: int | None = None,
    ) -> Score:
        """Score one example: a prediction (calls or text) against a reference.

        Parameters
        ----------
        pred
            The prediction: model-output text or structured calls.
        gold
            The reference: calls, text, a BFCL answer (``reference_format="bfcl"``) or
            ``{"calls": ..., "tools": [...]}`` with per-example schemas.
        tools, weights
            Schemas and weight overrides for this call, over the constructor's.
        reference_format, prediction_format
            Override the constructor's formats.
        index
            The example's position, used in error messages (``references[3]: ...``).

        Returns
        -------
        Score
            Weighted ``tp``, ``fp``, ``fn``, ``precision``, ``recall``, ``f1``, ``exact``, and
            the matched pairs with every argument's verdict.

        Raises
        ------
        ValueError
            For a reference that cannot be read, naming it; with ``on_parse_error="raise"``
            also :class:`ToolCallParseError` for a prediction that cannot be read.

        Examples
        --------
        >>> metric = ToolCallMetric("arg")
        >>> s = metric("[get_weather(city='Paris', unit='F')]", [("get_weather", {"city": "paris", "unit": "C"})])
        >>> s.tp, s.fp, s.fn, s.exact
        (2.0, 1.0, 1.0, False)
        >>> metric("[]", "[get_weather(city='Paris'")
        Traceback (most recent call last):
        ...
        toolcall_f1.calls.ToolCallParseError: references: python: unbalanced brackets (in "[get_weather(city='Paris'")
        """
        prediction_format = self._prediction_format(prediction_format)
        return self._score(pred, gold, tools, weights, reference_format, prediction_format, index, True)

    def _score(
        self,
        pred: Any,
        gold: Any,
        tools: Sequence[Mapping[str, Any]] | None,
        weights: Mapping[str, Any] | None,
        reference_format: str | None,
        prediction_format: str | None,
        index: int | None,
        per_tool_counts: bool,
    ) -> Score:
        fmt = self._check_formats(reference_format, prediction_format)
        golds, toolset, digest = self._reference(gold, tools, weights, fmt, index)
        preds, error = self.read_prediction(
            pred, toolset, prediction_format=prediction_format, index=index
        )
        return count_example(
            preds,
            golds,
            toolset,
            level=self.level,
            matching=self.matching,
            canon=self._canon,
            fill_defaults=fmt != "bfcl",
            parse_error=error,
            tools_digest=digest,
            per_tool_counts=per_tool_counts,
        )

    def _check_formats(self, reference_format: str | None, prediction_format: str | None) -> str:
        """Validate per-call format overrides; the reference format in effect."""
        if reference_format is not None:
            check_choice(reference_format, REFERENCE_FORMATS, "reference_format")
        if prediction_format is not None:
            resolve_format(prediction_format, tuple(FORMATS), "prediction_format")
        return reference_format or self.reference_format

    @staticmethod
    def _prediction_format(fmt: Any) -> Any:
        """A per-call ``prediction_format`` checked once: a name, a response template's reader
        (compiled once, not per example; named ``tmpl:<8 hex>`` in the signature), or None."""
        return None if fmt is None else resolve_format(fmt, tuple(FORMATS), "prediction_format")

    def _tally_into(
        self,
        totals: _Totals,
        predictions: Sequence[Any],
        references: Sequence[Any],
        tools: Sequence[Mapping[str, Any]] | None,
        weights: Mapping[str, Any] | None,
        reference_format: str | None,
        prediction_format: str | None,
        progress: bool,
        per_tool_counts: bool,
    ) -> None:
        """Fold every example's counts into ``totals`` — what :meth:`_score` counts, without
        keeping (or building) the calls, pairs and verdicts a :class:`Score` carries."""
        fmt = self._check_formats(reference_format, prediction_format)
        fill_defaults = fmt != "bfcl"
        level, matching, canon = self.level, self.matching, self._canon
        call_level = level == "call"
        base = self._toolset_for(tools, weights, None)
        for i, p, g in self._examples(predictions, references, progress):
            golds, toolset, digest = self._memo_reference(g, base, tools, weights, fmt, i)
            preds, error = self.read_prediction(p, toolset, prediction_format=prediction_format, index=i)
            pairs, up, ug = match_indices(
                preds, golds, toolset, canon=canon, matching=matching, level=level,
                fill_defaults=fill_defaults, details=False,
            )
            tp, fp, fn, exact, h_tools, h_args, per_tool = _tally(
                preds, golds, toolset, pairs, up, ug, call_level, per_tool_counts
            )
            totals.add_counts(tp, fp, fn, exact and error is None, error, h_tools, h_args, per_tool, digest)

    def _reference(
        self, gold: Any, tools: Any, weights: Any, fmt: str, index: int | None,
    ) -> tuple[list[GoldCall], ToolSet, str]:
        """A reference → (gold calls, the tool set it is judged with, its tools' digest)."""
        where = _where(index)
        raw, example_tools = self._split_reference(gold, where)
        example_key = content_key(example_tools) if example_tools else None
        toolset, digest = self._with_example_tools(tools, weights, example_tools, example_key, where)
        return self._read_gold(raw, fmt, index, toolset), toolset, digest

    def _with_example_tools(
        self, tools: Any, weights: Any, example_tools: list[Mapping[str, Any]] | None,
        example_key: ContentKey | None, where: str,
    ) -> tuple[ToolSet, str]:
        if not example_tools:
            return self._toolset_for(tools, weights, None), ""
        try:
            toolset = self._toolset_for(tools, weights, example_tools, example_key)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
        return toolset, _tools_digest(example_tools, example_key)

    def _memo_reference(
        self, gold: Any, base: ToolSet, tools: Any, weights: Any, fmt: str, index: int | None,
    ) -> tuple[list[GoldCall], ToolSet, str]:
        """:meth:`_reference`, remembered by content for the next few examples: consecutive
        examples often share their reference or tool list (several sampled answers to one
        prompt, BFCL's entries with their tools), and reading them is most of the work after
        the prediction. Only plain data (dict, list, str, numbers) is remembered, keyed by its
        ``marshal`` bytes, which tell apart any two values that could read differently; gold
        calls are immutable, and the remembered ones are never handed out (only a corpus
        without ``details`` reads through here). ``base`` is the corpus's tool set without
        per-example tools, ``self._toolset_for(tools, weights, None)``, made once per corpus."""
        t = type(gold)
        if t is dict and "calls" in gold and type(gold["calls"]) in (list, str):
            calls, raw_tools = gold["calls"], gold.get("tools")
        elif t is list or t is str:
            calls, raw_tools = gold, None
        else:
            return self._reference(gold, tools, weights, fmt, index)
        if raw_tools is None:
            toolset, digest = base, ""
        elif type(raw_tools) is not list:
            return self._reference(gold, tools, weights, fmt, index)
        else:
            toolset, digest = self._memo_example_tools(raw_tools, base, tools, weights, index)
        key = _memo_key(calls)
        if key is None:
            return self._read_gold(calls, fmt, index, toolset), toolset, digest
        slot = (key, fmt, id(toolset))
        hit = _GOLDS.get(slot)
        if hit is not None and hit[0] is toolset:
            return hit[1], toolset, digest
        golds = self._read_gold(calls, fmt, index, toolset)
        _remember(_GOLDS, slot, (toolset, golds))
        return golds, toolset, digest

    def _memo_example_tools(
        self, raw_tools: list[Any], base: ToolSet, tools: Any, weights: Any, index: int | None
    ) -> tuple[ToolSet, str]:
        """Per-example tools → (tool set, digest), remembered by the raw list's content."""
        key = _memo_key(raw_tools)
        slot = (key, id(base))
        if key is not None:
            hit = _EXAMPLE_TOOLS.get(slot)
            if hit is not None and hit[0] is base:
                return hit[1], hit[2]
        where = _where(index)
        example_tools = _merge_example_tools(raw_tools, where) if raw_tools else None
        # merging a list without repeated names keeps it as it is: the same content key
        same = key is not None and example_tools is not None and len(example_tools) == len(raw_tools)
        example_key = key if same else (content_key(example_tools) if example_tools else None)
        toolset, digest = self._with_example_tools(tools, weights, example_tools, example_key, where)
        if key is not None:
            _remember(_EXAMPLE_TOOLS, slot, (base, toolset, digest))
        return toolset, digest

    def score_all(
        self,
        predictions: Sequence[Any],
        references: Sequence[Any],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        reference_format: str | None = None,
        prediction_format: str | None = None,
        progress: bool = False,
    ) -> list[Score]:
        """Score every example; ``predictions`` and ``references`` must be the same length."""
        prediction_format = self._prediction_format(prediction_format)
        return list(self._scores(predictions, references, tools, weights, reference_format,
                                 prediction_format, progress, True))

    def _scores(
        self,
        predictions: Sequence[Any],
        references: Sequence[Any],
        tools: Sequence[Mapping[str, Any]] | None,
        weights: Mapping[str, Any] | None,
        reference_format: str | None,
        prediction_format: str | None,
        progress: bool,
        per_tool_counts: bool,
    ) -> Iterator[Score]:
        for i, p, g in self._examples(predictions, references, progress):
            yield self._score(p, g, tools, weights, reference_format, prediction_format, i, per_tool_counts)

    @staticmethod
    def _examples(
        predictions: Sequence[Any], references: Sequence[Any], progress: bool
    ) -> Iterator[tuple[int, Any, Any]]:
        """``(index, prediction, reference)``, checking the lengths; a progress bar if asked."""
        if len(predictions) != len(references):
            raise ValueError(
                f"predictions and references differ in length: {len(predictions)} vs {len(references)}"
            )
        items: Iterable[tuple[int, tuple[Any, Any]]] = enumerate(zip(predictions, references))
        if progress:
            from tqdm.auto import tqdm

            items = tqdm(items, total=len(predictions), desc="toolcall_f1", unit="ex")
        for i, (p, g) in items:
            yield i, p, g

    def compute(
        self,
        predictions: Sequence[Any],
        references: Sequence[Any],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        reference_format: str | None = None,
        prediction_format: str | None = None,
        per_tool: bool = False,
        return_details: bool = False,
        progress: bool = False,
    ) -> dict[str, Any]:
        """Score a corpus: the dict of SPEC §8 (``f1``, ``precision``, ..., ``signature``).

        Without ``return_details`` the examples stream through: each score is folded into the
        totals and dropped, so memory holds a few numbers per example, not its calls.

        Parameters
        ----------
        predictions, references
            One entry per example, same length (any shape of SPEC §2).
        tools, weights
            Corpus-wide schemas and weight overrides, layered over the constructor's.
        reference_format, prediction_format
            Override the constructor's formats for this call.
        per_tool, return_details
            Add ``per_tool`` and ``details`` to the result.
        progress
            Show a progress bar (tqdm) on stderr.

        Returns
        -------
        dict
            ``f1, precision, recall, exact_match, tp, fp, fn, num_examples,
            num_parse_errors, hallucinated_tools, hallucinated_args, signature`` (+ optional).

        Raises
        ------
        ValueError
            For lengths that differ, an unreadable reference (naming its index), a bad
            setting; :class:`ToolCallParseError` for a prediction with ``on_parse_error="raise"``.

        Examples
        --------
        >>> r = ToolCallMetric().compute([[("f", {"x": 1})], []], [[("f", {"x": 1})], [("g", {})]])
        >>> round(r["f1"], 4), r["exact_match"], r["num_examples"]
        (0.6667, 0.5, 2)
        >>> ToolCallMetric().compute([[]], [])
        Traceback (most recent call last):
        ...
        ValueError: predictions and references differ in length: 1 vs 0
        """
        prediction_format = self._prediction_format(prediction_format)
        if return_details:
            kept = list(self._scores(predictions, references, tools, weights, reference_format,
                                     prediction_format, progress, per_tool))
            sig = self.signature(
                tools=tools, weights=weights, prediction_format=prediction_format,
                reference_format=reference_format,
                example_tools_digests=(s.tools_digest for s in kept),
            )
            return summarize(kept, signature=sig, per_tool=per_tool, return_details=True)
        totals = _Totals()
        self._tally_into(totals, predictions, references, tools, weights, reference_format,
                         prediction_format, progress, per_tool)
        sig = self.signature(
            tools=tools, weights=weights, prediction_format=prediction_format,
            reference_format=reference_format, example_tools_digests=totals.digests,
        )
        return totals.result(sig, per_tool)

    def aggregate(self, scores: Iterable[Score]) -> float:
        """Micro-averaged F1 over the corpus (sum TP/FP/FN, then divide) — never a mean.

        Examples
        --------
        >>> m = ToolCallMetric()
        >>> m.aggregate([m([("g", {})], [("g", {})]), m([], [("g", {})])])
        0.6666666666666666
        """
        return Counts.total(s.counts for s in scores).f1


def coerce_gold(gold: Any) -> list[GoldCall]:
    """Structured gold calls (plain values) as :class:`GoldCall`."""
    return [GoldCall.from_call(c) for c in coerce_structured(gold)]
