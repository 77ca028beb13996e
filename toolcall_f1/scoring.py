"""Scoring one example and a corpus: the seed's ``ToolCallMetric`` (SPEC §2–§8).

One route for every example: read the reference (remembered by content in the metric's own
cache), read the prediction, match the calls, count weighted TP/FP/FN (:func:`count_example`),
and fold the counts into a :class:`~toolcall_f1.counting.Tally`, which divides once at the
end. ``details`` are a view of the same pass. Never a mean of per-example scores.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import math
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .calls import Call, GoldCall, ToolCallParseError, ToolCallWarning, bfcl_gold, bfcl_gold_plain
from .counting import VERDICT_COUNTS, Counts, Tally, prf
from .judge import AGREE, DISAGREE, EXTRA, MISSING, PairResult, gold_repr
from .matching import LEVELS, MATCHINGS, check_choice, match_indices
from .memo import Memo
from .parsing import FORMATS, Context, read_any
from .schema import ToolSet, compile_tools, merge_plain_tools, merge_tools, validate_weights, warn_unknown_weights
from .templates import resolve_format
from .values import (
    Canonicalizer,
    canonicalizer_name,
    is_plain_json,
    name_canonicalizer_name,
    plain_json,
    resolve_canonicalizer,
    resolve_name_canonicalizer,
)

__all__ = [
    "VERSION",
    "Counts",
    "Score",
    "Tally",
    "prf",
    "ToolCallMetric",
    "summarize",
    "PARSE_ERROR_MODES",
    "REFERENCE_FORMATS",
]

VERSION = "0.1.0"
PARSE_ERROR_MODES = ("count", "raise")
REFERENCE_FORMATS = tuple(FORMATS)  # "auto", "bfcl" (possible answers) and the text formats


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
    return {"name": gold.name, "arguments": {k: gold_repr(v) for k, v in gold.arguments.items()}}


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
    details: bool = True,
) -> Score:
    """Match one example's calls and count weighted TP/FP/FN at ``level`` (SPEC §7).

    ``per_tool_counts=False`` leaves ``Score.per_tool`` empty (for a corpus that does not
    report it); ``details=False`` may judge pairs for their counts alone (no per-argument
    verdicts at call level, see :func:`~toolcall_f1.matching.match_indices`). Every count,
    flag and number is the same either way.
    """
    pairs, up, ug = match_indices(
        preds, golds, toolset, canon=canon, matching=matching, level=level, fill_defaults=fill_defaults,
        details=details,
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

    Every field (:func:`_fields`) adds its weight where its verdict says
    (:data:`~toolcall_f1.counting.VERDICT_COUNTS`). Each count is the :func:`math.fsum` of its
    terms, so neither call order nor argument order can change a digit.
    """
    sums: tuple[list[float], list[float], list[float]] = ([], [], [])
    per_tool: dict[str, tuple[list[float], list[float], list[float]]] = {}
    name_fn = toolset.name_canon
    for verdict, weight, name in _fields(preds, golds, toolset, pairs, up, ug, call_level):
        into = VERDICT_COUNTS[verdict]
        for count, terms in zip(into, sums):
            if count:
                terms.append(weight)
        if per_tool_counts:
            # one row per tool however it was spelled: the schema's name, else the canonical one
            key = name_fn(name)
            declared = toolset.by_key.get(key)
            row = per_tool.setdefault(declared.name if declared is not None else key, ([], [], []))
            for count, terms in zip(into, row):
                if count:
                    terms.append(weight)
    exact = not up and not ug and all(res.exact for _, _, res in pairs)
    h_tools, h_args = _hallucinations(preds, toolset)
    return (
        _sum(sums[0]),
        _sum(sums[1]),
        _sum(sums[2]),
        exact,
        h_tools,
        h_args,
        {k: Counts(math.fsum(a), math.fsum(b), math.fsum(c)) for k, (a, b, c) in per_tool.items()},
    )


def _fields(
    preds: Sequence[Call], golds: Sequence[GoldCall], toolset: ToolSet,
    pairs: Sequence[tuple[int, int, PairResult]], up: Sequence[int], ug: Sequence[int], call_level: bool,
) -> Iterator[tuple[str, float, str]]:
    """Every field a matched example counts (SPEC §7), as ``(verdict, weight, tool name)``.

    At call level a pair is one field of its tool weight, agreeing when the pair is exact;
    at argument level its name agrees (tool weight) and each argument has its own verdict
    (weight ``w_t·w_a``). An unmatched prediction's fields are extra, an unmatched gold
    call's (but its optional arguments) missing.
    """
    spec_of = toolset.spec_for_weights
    for i, j, res in pairs:
        wt = spec_of(preds[i].name).weight
        name = golds[j].name
        if call_level:
            yield (AGREE if res.exact else DISAGREE), wt, name
            continue
        yield AGREE, wt, name
        for v in res.verdicts:
            yield v.verdict, wt * v.weight, name
    for i in up:
        call = preds[i]
        spec = spec_of(call.name)
        yield EXTRA, spec.weight, call.name
        if not call_level:
            for k in call.arguments:
                yield EXTRA, spec.weight * spec.arg_weight(k), call.name
    for j in ug:
        gold = golds[j]
        spec = spec_of(gold.name)
        yield MISSING, spec.weight, gold.name
        if not call_level:
            for k, acc in gold.arguments.items():
                if not acc.optional:
                    yield MISSING, spec.weight * spec.arg_weight(k), gold.name


def _hallucinations(preds: Sequence[Call], toolset: ToolSet) -> tuple[int, int]:
    """Predicted calls to undeclared tools, and undeclared arguments of declared ones."""
    h_tools = h_args = 0
    if toolset.has_schema:
        for call in preds:
            declared = toolset.lookup(call.name)
            if declared is None:
                h_tools += 1
            else:
                h_args += sum(1 for k in call.arguments if k not in declared.params)
    return h_tools, h_args


def _sum(terms: list[float]) -> float:
    """:func:`math.fsum`, without its call for the commonest lists (none or one term)."""
    n = len(terms)
    if n == 0:
        return 0.0
    if n == 1:
        return terms[0] + 0.0  # fsum([x]) is x as a float (weights are finite, >= 0)
    return math.fsum(terms)


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


def _where(index: int | None) -> str:
    """How an error names a reference: ``references[3]``, or ``references`` for a lone one."""
    return "references" if index is None else f"references[{index}]"


def _memo_key(value: Any) -> bytes | None:
    """``marshal`` bytes of a value (equal bytes load back as equal data), or None for
    objects marshal does not write and values too large to remember."""
    try:
        key = marshal.dumps(value)
    except ValueError:  # not plain data, or nested too deep for marshal
        return None
    return key if len(key) <= _MEMO_MAX_BYTES else None


#: References and tool lists larger than this (as marshal bytes) are read, not remembered.
_MEMO_MAX_BYTES = 65536


class _Readings:
    """What one metric has read and compiled, by content: one :class:`~toolcall_f1.memo.Memo`
    policy, owned by the metric (never shared between metrics, dropped when pickled).

    A value is remembered only when it is plain JSON data (:func:`is_plain_json`): ``marshal``
    bytes then tell apart any two values that could read differently, and a value holding
    anything else (numpy arrays, which ``marshal`` writes as raw bytes) can never have the
    bytes of a remembered one — it is read each time instead.
    """

    __slots__ = ("example_tools", "golds", "toolsets")

    def __init__(self) -> None:
        #: Compiled tool sets, by (tools' content, weights' content, name canonicalizer).
        self.toolsets = Memo(512)
        #: Gold calls, by (calls' content, reference format, tool set). Only a few, on purpose:
        #: they catch what repeats from one example to the next (several sampled answers to
        #: one prompt, BFCL's entries), while a large memo of gold calls, each a tree of
        #: objects the garbage collector must walk, slows a corpus of all-different references.
        self.golds = Memo(16)
        #: Per-example tool sets and their digests, by (raw tools' content, base tool set).
        self.example_tools = Memo(16)


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

    Warns
    -----
    ToolCallWarning
        When ``weights`` name a tool the schemas do not declare (or an argument its tool does
        not declare), and for the schema mistakes :func:`~toolcall_f1.schema.merge_tools` and
        :func:`~toolcall_f1.schema.compile_tools` warn about. The score never changes.

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
        self._readings = _Readings()
        self._toolset = self._compile(self.tools, self.weights)
        warn_unknown_weights(self._toolset, self.weights)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the cache of readings (a new metric starts with an empty one)."""
        state = self.__dict__.copy()
        del state["_readings"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._readings = _Readings()

    # -- configuration -------------------------------------------------------------------

    def _compile(self, tools: Sequence[Mapping[str, Any]], weights: Mapping[str, Any]) -> ToolSet:
        return compile_tools(tools, weights, self._name_fn, cache=self._readings.toolsets)

    def _toolset_for(
        self,
        call_tools: Sequence[Mapping[str, Any]] | None,
        call_weights: Mapping[str, Any] | None,
        example_tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> ToolSet:
        """The compiled schemas for one call: constructor < call < per-example tools
        (``example_tools`` already merged, see :meth:`_example_toolset`)."""
        if not call_tools and not call_weights and not example_tools:
            return self._toolset
        weights = self.weights
        if call_weights:
            weights = {**self.weights, **validate_weights(call_weights)}
        tools = merge_plain_tools(self.tools, plain_json(call_tools), example_tools)
        return self._compile(tools, weights)

    def _corpus_toolset(self, tools: Any, weights: Any) -> ToolSet:
        """:meth:`_toolset_for` a call's ``tools``/``weights``, warning about weights that name
        no declared tool."""
        toolset = self._toolset_for(tools, weights)
        if tools or weights:
            warn_unknown_weights(toolset, {**self.weights, **validate_weights(weights)})
        return toolset

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
        effective_weights = self.weights
        if weights:
            effective_weights = {**self.weights, **validate_weights(weights)}
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
        tools: Sequence[Mapping[str, Any]] | None = None, weights: Mapping[str, Any] | None = None,
    ) -> tuple[list[GoldCall], ToolSet]:
        """A reference → (gold calls, the compiled tool set they are judged with).

        Positional arguments in the reference are named through the metric's schemas, then
        ``tools``, then the reference's own ``tools``, merged by name. Raises, naming the index.

        Examples
        --------
        >>> golds, toolset = ToolCallMetric().read_reference(
        ...     {"calls": "[f(1)]", "tools": [{"name": "f", "parameters": {"properties": {"x": {}}}}]})
        >>> golds, toolset.has_schema
        ([f(x=1)], True)
        >>> ToolCallMetric().read_reference("[f(", index=3)
        Traceback (most recent call last):
        ...
        toolcall_f1.calls.ToolCallParseError: references[3]: python: unbalanced brackets (in '[f(')
        """
        fmt = self._check_formats(reference_format, None)
        base = self._toolset_for(tools, weights)
        golds, toolset, _ = self._read_reference(reference, base, tools, weights, fmt, index)
        return list(golds), toolset

    @staticmethod
    def _split_reference(reference: Any, index: int | None) -> tuple[Any, Any]:
        """``{"calls": ..., "tools": [...]}`` → (calls, its raw ``tools`` or None)."""
        if isinstance(reference, ToolCallParseError):
            raise reference.located(_where(index))
        if type(reference).__module__ == "numpy":
            reference = plain_json(reference)  # a numpy array (a datasets column in numpy format)
        if not (type(reference) is dict or isinstance(reference, Mapping)) or "calls" not in reference:
            return reference, None
        calls = reference["calls"]
        if type(calls).__module__ == "numpy":
            calls = plain_json(calls)
        if not isinstance(calls, (list, str)):
            return reference, None  # a call to a tool named "calls"
        return calls, reference.get("tools")

    def _read_reference(
        self, reference: Any, base: ToolSet, tools: Any, weights: Any, fmt: str, index: int | None,
    ) -> tuple[list[GoldCall], ToolSet, str]:
        """A reference → (gold calls, the tool set it is judged with, its tools' digest),
        remembered by content: consecutive examples often share their reference or tool list
        (several sampled answers to one prompt, BFCL's entries with their tools). ``base`` is
        the corpus's tool set without per-example tools, ``self._toolset_for(tools, weights)``."""
        calls, raw_tools = self._split_reference(reference, index)
        toolset, digest = base, ""
        if raw_tools is not None:
            toolset, digest = self._example_toolset(raw_tools, base, tools, weights, index)
        key = _memo_key(calls)
        slot = (key, fmt, id(toolset))
        if key is not None:
            hit = self._readings.golds.get(slot)
            if hit is not None and hit[0] is toolset:
                return hit[1], toolset, digest
        plain = key is not None and is_plain_json(calls)
        golds = self._read_gold(calls, fmt, index, toolset, plain)
        if plain:
            self._readings.golds.put(slot, (toolset, golds))
        return golds, toolset, digest

    def _example_toolset(
        self, raw_tools: Any, base: ToolSet, tools: Any, weights: Any, index: int | None
    ) -> tuple[ToolSet, str]:
        """A reference's own tools → (the merged tool set, their digest), remembered by content."""
        key = _memo_key(raw_tools)
        slot = (key, id(base))
        if key is not None:
            hit = self._readings.example_tools.get(slot)
            if hit is not None and hit[0] is base:
                return hit[1], hit[2]
        plain = key is not None and is_plain_json(raw_tools)
        try:
            example_tools = merge_plain_tools(_tools_list(raw_tools if plain else plain_json(raw_tools)))
            toolset = self._toolset_for(tools, weights, example_tools) if example_tools else base
        except ValueError as err:
            raise ValueError(f"{_where(index)}: {err}") from None
        digest = _digest(example_tools) if example_tools else ""
        if plain:
            self._readings.example_tools.put(slot, (base, toolset, digest))
        return toolset, digest

    def _read_gold(
        self, raw: Any, reference_format: str | None, index: int | None, ts: ToolSet, plain: bool = False
    ) -> list[GoldCall]:
        """Gold calls from a reference's calls (``plain``: known to hold no numpy values)."""
        fmt = reference_format or self.reference_format
        try:
            if fmt == "bfcl":
                return (bfcl_gold_plain if plain else bfcl_gold)(raw, _where(index))
            return [GoldCall.from_call(c) for c in read_any(raw, fmt, _reader_context(ts), gold=True)]
        except ToolCallParseError as err:
            raise err.located(_where(index), index) from None

    def read_prediction(
        self, prediction: Any, toolset: ToolSet, *, prediction_format: str | None = None,
        index: int | None = None,
    ) -> tuple[list[Call], str | None]:
        """A prediction → (calls, parse error message or None); raises with ``"raise"``.

        A :class:`ToolCallParseError` given as the prediction (an upstream reader's failure)
        is that parse error.
        """
        fmt = prediction_format or self.prediction_format
        if type(prediction) is not str and isinstance(prediction, str):
            prediction = str(prediction)  # numpy's str_ (a datasets column in numpy format)
        try:
            if isinstance(prediction, ToolCallParseError):
                raise prediction
            return read_any(prediction, fmt, _reader_context(toolset)), None
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
        fmt = self._check_formats(reference_format, prediction_format)
        base = self._toolset_for(tools, weights)
        return self._score(pred, gold, base, tools, weights, fmt, prediction_format, index, True, True)

    def _score(
        self, pred: Any, gold: Any, base: ToolSet, tools: Any, weights: Any, fmt: str,
        prediction_format: str | None, index: int | None, per_tool_counts: bool, details: bool,
    ) -> Score:
        """The one per-example pipeline: reference, prediction, matching, counts."""
        golds, toolset, digest = self._read_reference(gold, base, tools, weights, fmt, index)
        preds, error = self.read_prediction(pred, toolset, prediction_format=prediction_format, index=index)
        return count_example(
            preds, golds, toolset, level=self.level, matching=self.matching, canon=self._canon,
            fill_defaults=fmt != "bfcl", parse_error=error, tools_digest=digest,
            per_tool_counts=per_tool_counts, details=details,
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
                                 prediction_format, progress, True, True))

    def _scores(
        self, predictions: Sequence[Any], references: Sequence[Any], tools: Any, weights: Any,
        reference_format: str | None, prediction_format: str | None, progress: bool,
        per_tool_counts: bool, details: bool,
    ) -> Iterator[Score]:
        fmt = self._check_formats(reference_format, prediction_format)
        base = self._corpus_toolset(tools, weights)
        for i, p, g in self._examples(predictions, references, progress):
            yield self._score(p, g, base, tools, weights, fmt, prediction_format, i, per_tool_counts, details)

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

        Without ``return_details`` the examples stream through: each score is folded into a
        :class:`~toolcall_f1.counting.Tally` and dropped, so memory holds a few numbers, not
        the examples' calls.

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
        EmptyCorpusError
            A :class:`ValueError`, for zero examples: a corpus of zero examples has no score.
        ValueError
            For lengths that differ, an unreadable reference (naming its index), a bad
            setting; :class:`ToolCallParseError` for a prediction with ``on_parse_error="raise"``.

        Warns
        -----
        ToolCallWarning
            When more than half of the predictions could not be read (likely the wrong
            ``prediction_format``), and for the schema and weight mistakes the constructor
            warns about. The score never changes.

        Examples
        --------
        >>> r = ToolCallMetric().compute([[("f", {"x": 1})], []], [[("f", {"x": 1})], [("g", {})]])
        >>> round(r["f1"], 4), r["exact_match"], r["num_examples"]
        (0.6667, 0.5, 2)
        >>> ToolCallMetric().compute([[]], [])
        Traceback (most recent call last):
        ...
        ValueError: predictions and references differ in length: 1 vs 0
        >>> ToolCallMetric().compute([], [])
        Traceback (most recent call last):
        ...
        toolcall_f1.counting.EmptyCorpusError: nothing was added: a corpus of zero examples has no score
        """
        prediction_format = self._prediction_format(prediction_format)
        tally = Tally()
        kept: list[Score] = []
        for score in self._scores(predictions, references, tools, weights, reference_format,
                                  prediction_format, progress, per_tool, return_details):
            tally.add(score)
            if return_details:
                kept.append(score)
        sig = self.signature(
            tools=tools, weights=weights, prediction_format=prediction_format,
            reference_format=reference_format, example_tools_digests=tally.digests,
        )
        out = tally.result(sig, per_tool)
        _warn_parse_errors(tally, prediction_format or self.prediction_format)
        if return_details:
            out["details"] = [s.to_dict() for s in kept]
        return out

    def aggregate(self, scores: Iterable[Score]) -> float:
        """Micro-averaged F1 over the corpus (sum TP/FP/FN, then divide) — never a mean.

        Raises
        ------
        EmptyCorpusError
            A :class:`ValueError`, for no scores: a corpus of zero examples has no score.

        Examples
        --------
        >>> m = ToolCallMetric()
        >>> m.aggregate([m([("g", {})], [("g", {})]), m([], [("g", {})])])
        0.6666666666666666
        """
        tally = Tally()
        for s in scores:
            tally.add(s)
        return tally.result("")["f1"]


def _tools_list(raw_tools: Any) -> list[Any]:
    """A reference's ``tools`` (free of numpy values): a list of function schemas."""
    if not isinstance(raw_tools, list):
        raise ValueError("'tools' must be a list of function schemas")
    return raw_tools


def _reader_context(toolset: ToolSet) -> Context:
    """What the text readers need of a tool set (made once per compiled tool set)."""
    ctx = toolset.reader_context
    if ctx is None:
        ctx = toolset.reader_context = Context(toolset.param_order) if toolset.has_schema else Context()
    return ctx


def _warn_parse_errors(tally: Tally, prediction_format: str) -> None:
    """Warn when more than half of the predictions are parse errors: likely the wrong format."""
    if tally.num_parse_errors * 2 > tally.num_examples:
        warnings.warn(
            f"{tally.num_parse_errors} of {tally.num_examples} predictions could not be read "
            f"(parse errors, scored as no calls): is prediction_format={prediction_format!r} right?",
            ToolCallWarning,
            stacklevel=3,
        )
