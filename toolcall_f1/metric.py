"""``ToolCallMetric``: one per-example pipeline and one corpus loop (SPEC §2–§8).

Every example travels one route (``ToolCallMetric._score``): its reference is read into gold
calls and the tool set they are judged with, its prediction into calls, and
:func:`~toolcall_f1.scoring.count_example` matches and counts them into a
:class:`~toolcall_f1.scoring.Score`. ``compute()`` folds the scores into a
:class:`~toolcall_f1.counting.Tally`, which divides once; details are a view of the same pass.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from typing import Any, NamedTuple

from .calls import Call, GoldCall, ToolCallParseError, ToolCallWarning, bfcl_gold_plain
from .counting import Tally
from .matching import LEVELS, MATCHINGS, check_choice
from .memo import Memo, content_key
from .parsing import FORMATS, Context, read_any
from .schema import ToolSet, compile_tools, merge_plain_tools, merge_tools, validate_weights, warn_unknown_weights
from .scoring import Score, count_example, summarize
from .templates import resolve_format
from .values import (Canonicalizer, canonicalizer_name, name_canonicalizer_name, plain_json, resolve_canonicalizer,
                     resolve_name_canonicalizer)

__all__ = ["VERSION", "PARSE_ERROR_MODES", "REFERENCE_FORMATS", "PARSE_ERROR_WARNING_MIN", "ToolCallMetric"]

VERSION = "0.1.0"
PARSE_ERROR_MODES = ("count", "raise")
REFERENCE_FORMATS = tuple(FORMATS)  # "auto", "bfcl" (possible answers) and the text formats
#: ``compute()`` warns that most predictions could not be read only from this many examples on:
#: in a smaller corpus "more than half" says little about the format setting.
PARSE_ERROR_WARNING_MIN = 10
#: A metric's :class:`~toolcall_f1.memo.Memo` of tool sets, references' own tools and references.
#: Small on purpose: it catches what repeats from one example to the next (answers sampled for
#: one prompt, BFCL's entries), while many trees of gold calls slow the garbage collector.
_MEMO_SIZE = 64
#: Inputs larger than this (as their content key's bytes) are read each time, not remembered.
_MEMO_MAX_BYTES = 65536


def mostly_unreadable(num_parse_errors: int, num_examples: int) -> bool:
    """Does a corpus look read with the wrong format: more than half of its predictions
    unreadable, in a corpus of at least :data:`PARSE_ERROR_WARNING_MIN` examples? The one rule
    behind ``compute()``'s warning and the CLI's."""
    return num_examples >= PARSE_ERROR_WARNING_MIN and num_parse_errors * 2 > num_examples


class _Run(NamedTuple):
    """One call's settings, checked once: every example of the call is scored with them (a
    named tuple, cheap to build: one is made for every ``metric(pred, ref)``)."""

    tools: list[Mapping[str, Any]]  # the constructor's schemas, the call's laid over them by name
    weights: dict[str, Any]  # likewise
    toolset: ToolSet  # compiled from tools and weights
    reference_format: str
    prediction_format: Any
    per_tool: bool  # count per-tool rows
    details: bool  # at call level, judge each argument (not exactness alone)


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
        ``"greedy"`` (default: best-first pairs) or ``"optimal"`` (the fewest FP+FN; README, "Inputs").
    name_canonicalizer
        ``"exact"`` (None), ``"underscore"`` (``a.b`` reads as ``a_b``) or a callable.
    prediction_format, reference_format
        How text is read (``"auto"``; ``"bfcl"`` for BFCL's strict decoder / possible answers).
        ``prediction_format`` may also be the model's response template (a dict, or a tokenizer
        with ``.response_template``): see :mod:`toolcall_f1.templates`.
    on_parse_error
        ``"count"`` (score as zero calls, count in ``num_parse_errors``) or ``"raise"``.
    grammar
        An older name for ``tools`` (the original design note's), read when ``tools`` is not given.

    Raises
    ------
    ValueError
        For an unknown setting, a malformed schema, or an invalid weight (naming the tool).

    Warns
    -----
    ToolCallWarning
        When ``weights`` name a tool (or argument) the schemas do not declare, and for the
        schema mistakes :mod:`toolcall_f1.schema` warns about. The score never changes.

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
        prediction_format: Any = "auto",
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
        self.tools = merge_tools(grammar if tools is None else tools)
        key = content_key(self.tools)  # the metric's own copy of plain schemas (the caller may change theirs)
        self.tools = pickle.loads(key) if key is not None else self.tools
        self.weights = validate_weights(weights)
        self._memo = Memo(_MEMO_SIZE)
        self._toolset = compile_tools(self.tools, self.weights, self._name_fn, cache=self._memo)
        warn_unknown_weights(self._toolset, self.weights)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its memo (a new metric starts with an empty one)."""
        state = self.__dict__.copy()
        del state["_memo"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._memo = Memo(_MEMO_SIZE)

    # -- settings ------------------------------------------------------------------------

    def _run(
        self, tools: Any, weights: Any, reference_format: str | None, prediction_format: Any, *,
        per_tool: bool = True, details: bool = True, warn: bool = False,
    ) -> _Run:
        """A call's settings over the constructor's, checked once. ``warn``: warn about weights
        for undeclared tools, when the call's tools or weights make a new tool set."""
        if prediction_format is not None:  # a response template's reader is compiled once, here
            prediction_format = resolve_format(prediction_format, tuple(FORMATS), "prediction_format")
        if reference_format is not None:
            check_choice(reference_format, REFERENCE_FORMATS, "reference_format")
        all_weights = self.weights if weights is None else {**self.weights, **validate_weights(weights)}
        all_tools = self.tools if tools is None else merge_plain_tools(self.tools, plain_json(tools))
        toolset = self._toolset
        if all_tools is not self.tools or all_weights is not self.weights:
            toolset = compile_tools(all_tools, all_weights, self._name_fn, cache=self._memo)  # the same content's
            if warn and toolset is not self._toolset:
                warn_unknown_weights(toolset, all_weights)
        return _Run(all_tools, all_weights, toolset, reference_format or self.reference_format,
                    prediction_format or self.prediction_format, per_tool, details)

    def signature(
        self,
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        prediction_format: Any = None,
        reference_format: str | None = None,
        example_tools_digests: Iterable[str] = (),
    ) -> str:
        """A short string naming every setting that changes the number (sacrebleu-style).

        Examples
        --------
        >>> ToolCallMetric().signature()
        'level:call|match:greedy|canon:default|names:exact|pred:auto|ref:auto|w:none|v:0.1.0'
        """
        run = self._run(tools, weights, reference_format, prediction_format)
        return self._signature(run, example_tools_digests)

    def _signature(self, run: _Run, example_tools_digests: Iterable[str]) -> str:
        digests = sorted({d for d in example_tools_digests if d})
        has_weights = bool(run.tools or run.weights or digests)
        return "|".join([
            f"level:{self.level}",
            f"match:{self.matching}",
            f"canon:{canonicalizer_name(self.canonicalizer)}",
            f"names:{name_canonicalizer_name(self.name_canonicalizer)}",
            f"pred:{run.prediction_format}",
            f"ref:{run.reference_format}",
            f"w:{_digest([run.tools, run.weights, digests]) if has_weights else 'none'}",
            f"v:{VERSION}",
        ])

    # -- reading -------------------------------------------------------------------------

    def read_reference(
        self, reference: Any, *, reference_format: str | None = None, index: int | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None, weights: Mapping[str, Any] | None = None,
    ) -> tuple[list[GoldCall], ToolSet]:
        """A reference → (gold calls, the compiled tool set they are judged with).

        Positional arguments in the reference are named through the metric's schemas, then
        ``tools``, then the reference's own ``tools``, merged by name.

        Raises
        ------
        ValueError
            Naming the index, for a reference that cannot be read or is missing (None); text
            from which no call can be read (prose) is one, text writing an empty list of calls
            (after reasoning or a family's marker) is no call.

        Examples
        --------
        >>> golds, toolset = ToolCallMetric().read_reference(
        ...     {"calls": "[f(1)]", "tools": [{"name": "f", "parameters": {"properties": {"x": {}}}}]})
        >>> golds, toolset.has_schema
        ([f(x=1)], True)
        >>> ToolCallMetric().read_reference("<think>Only a greeting.</think>\\n[]")[0]  # an empty list: no call
        []
        >>> ToolCallMetric().read_reference("[f(", index=3)
        Traceback (most recent call last):
        ...
        toolcall_f1.calls.ToolCallParseError: references[3]: python: unbalanced brackets (in '[f(')
        """
        golds, toolset, _ = self._read_reference(reference, index, self._run(tools, weights, reference_format, None))
        return list(golds), toolset

    def _read_reference(self, reference: Any, index: int | None, run: _Run) -> tuple[list[GoldCall], ToolSet, str]:
        """A reference → (gold calls, the tool set they are judged with, its own tools' digest),
        remembered by its one :func:`~toolcall_f1.memo.content_key`: consecutive examples often share it."""
        if reference is None:
            raise ValueError(f"{_where(index)}: the reference is missing (None); "
                             "write [] for an example where no call is expected")
        key = content_key(reference, _MEMO_MAX_BYTES)
        slot = ("reference", key, run.reference_format, run.toolset)  # a ToolSet hashes by identity
        hit = None if key is None else self._memo.get(slot)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        calls, raw_tools = _split_reference(reference, index)
        toolset, digest = run.toolset, ""
        if raw_tools is not None:
            toolset, digest = self._example_toolset(raw_tools, index, run)
        golds = self._read_gold(calls if key is not None else plain_json(calls), run.reference_format, index, toolset)
        if key is not None:
            self._memo.put(slot, (golds, toolset, digest))
        return golds, toolset, digest

    def _example_toolset(self, raw_tools: Any, index: int | None, run: _Run) -> tuple[ToolSet, str]:
        """A reference's own tools → (the tool set they make over the call's, their digest),
        remembered by content (this slot names it: compiled without a second key): references
        often share their tools (one agent's tools for every task; BFCL's categories)."""
        key = content_key(raw_tools, _MEMO_MAX_BYTES)
        slot = ("example tools", key, run.toolset)
        hit = None if key is None else self._memo.get(slot)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        # a private copy (the key's bytes loaded back): the tool set compiles subschemas when a
        # value first reaches them, and the caller may change these dicts before then
        raw_tools = pickle.loads(key) if key is not None else plain_json(raw_tools)
        try:
            if not isinstance(raw_tools, list):
                raise ValueError("'tools' must be a list of function schemas")
            example_tools = merge_plain_tools(raw_tools)
            merged = merge_plain_tools(run.tools, example_tools)
            toolset = compile_tools(merged, run.weights, self._name_fn) if example_tools else run.toolset
        except ValueError as err:
            raise ValueError(f"{_where(index)}: {err}") from None
        digest = _digest(example_tools) if example_tools else ""
        if key is not None:
            self._memo.put(slot, (toolset, digest))
        return toolset, digest

    def _read_gold(self, calls: Any, fmt: str, index: int | None, toolset: ToolSet) -> list[GoldCall]:
        """Gold calls from a reference's calls (free of numpy values)."""
        try:
            if fmt == "bfcl":
                return bfcl_gold_plain(calls, _where(index))
            return [GoldCall.from_call(c) for c in read_any(calls, fmt, _reader_context(toolset), gold=True)]
        except ToolCallParseError as err:
            raise err.located(_where(index), index) from None

    def _read_prediction(self, prediction: Any, toolset: ToolSet, fmt: Any, index: int | None,
                         ) -> tuple[list[Call], str | None]:
        """A prediction → (calls, the parse error's message or None); with ``"raise"`` it raises.
        A :class:`ToolCallParseError` given as the prediction (stored by the adapter) is that error."""
        if type(prediction) is not str and isinstance(prediction, str):
            prediction = str(prediction)  # numpy's str_ (a datasets column in numpy format)
        try:
            if isinstance(prediction, ToolCallParseError):
                raise prediction
            return read_any(prediction, fmt, _reader_context(toolset)), None
        except ToolCallParseError as err:
            return [], self._unreadable(err, index)

    def _unreadable(self, err: ToolCallParseError, index: int | None) -> str:
        """The message of a prediction's parse error, counted; with ``"raise"`` it is raised."""
        located = err.located("predictions" if index is None else f"predictions[{index}]", index)
        if self.on_parse_error == "raise":
            raise located from None
        return str(located)

    # -- scoring -------------------------------------------------------------------------

    def __call__(
        self,
        pred: Any,
        gold: Any,
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        reference_format: str | None = None,
        prediction_format: Any = None,
        index: int | None = None,
        details: bool = True,
    ) -> Score:
        """Score one example: a prediction (calls or text) against a reference.

        Parameters
        ----------
        pred
            The prediction: model-output text or structured calls.
        gold
            The reference: calls, text, a BFCL answer (``reference_format="bfcl"``) or
            ``{"calls": ..., "tools": [...]}`` with per-example schemas; ``[]`` where no call
            is expected.
        tools, weights, reference_format, prediction_format
            As :meth:`compute` takes them.
        index
            The example's position, used in error messages (``references[3]: ...``).
        details
            ``False`` to count only (what a reward needs): the same counts and flags, but no
            ``per_tool`` rows, and at call level no per-argument verdicts in the pairs (the
            optimal matcher may then pick other pairs, with as many exact ones).

        Returns
        -------
        Score
            Weighted ``tp``, ``fp``, ``fn``, ``precision``, ``recall``, ``f1``, ``exact``, and
            the matched pairs with every argument's verdict.

        Raises
        ------
        ValueError
            For a reference that cannot be read or is missing (None), naming it; with
            ``on_parse_error="raise"`` also :class:`ToolCallParseError` for a prediction
            that cannot be read.

        Examples
        --------
        >>> metric = ToolCallMetric("arg")
        >>> s = metric("[get_weather(city='Paris', unit='F')]", [("get_weather", {"city": "paris", "unit": "C"})])
        >>> s.tp, s.fp, s.fn, s.exact
        (2.0, 1.0, 1.0, False)
        >>> quick = ToolCallMetric()("[f(x=2)]", [("f", {"x": 1})], details=False)
        >>> (quick.tp, quick.fp, quick.fn), quick.pairs[0][2].verdicts
        ((0.0, 1.0, 1.0), ())
        >>> metric("[]", "[get_weather(city='Paris'")
        Traceback (most recent call last):
        ...
        toolcall_f1.calls.ToolCallParseError: references: python: unbalanced brackets (in "[get_weather(city='Paris'")
        >>> metric("[f()]", None, index=3)
        Traceback (most recent call last):
        ...
        ValueError: references[3]: the reference is missing (None); write [] for an example where no call is expected
        """
        run = self._run(tools, weights, reference_format, prediction_format, per_tool=details, details=details)
        return self._score(pred, gold, index, run)

    def _score(self, pred: Any, gold: Any, index: int | None, run: _Run) -> Score:
        """The one per-example pipeline: reference, prediction, matching, counts."""
        golds, toolset, digest = self._read_reference(gold, index, run)
        preds, error = self._read_prediction(pred, toolset, run.prediction_format, index)
        try:
            return self._count(preds, golds, toolset, error, digest, run)
        except ToolCallParseError as err:  # a predicted value too large to type-check (schema.MAX_CHECK_STEPS)
            return self._count([], golds, toolset, self._unreadable(err, index), digest, run)

    def _count(self, preds: list[Call], golds: list[GoldCall], toolset: ToolSet, error: str | None, digest: str,
               run: _Run) -> Score:
        return count_example(
            preds, golds, toolset, level=self.level, matching=self.matching, canon=self._canon,
            fill_defaults=run.reference_format != "bfcl", parse_error=error, tools_digest=digest,
            per_tool_counts=run.per_tool, details=run.details,
        )

    def _scores(self, predictions: Sequence[Any], references: Sequence[Any], run: _Run, progress: bool,
                ) -> Iterator[Score]:
        """The one corpus loop: every example's :class:`Score`, in order."""
        predictions, references = _corpus(predictions, "predictions"), _corpus(references, "references")
        if len(predictions) != len(references):
            raise ValueError(
                f"predictions and references differ in length: {len(predictions)} vs {len(references)}"
            )
        examples: Iterable[tuple[int, tuple[Any, Any]]] = enumerate(zip(predictions, references))
        if progress:
            from tqdm.auto import tqdm  # an optional dependency, needed only here

            examples = tqdm(examples, total=len(predictions), desc="toolcall_f1", unit="ex")
        for i, (pred, gold) in examples:
            yield self._score(pred, gold, i, run)

    def score_all(
        self,
        predictions: Sequence[Any],
        references: Sequence[Any],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        reference_format: str | None = None,
        prediction_format: Any = None,
        progress: bool = False,
    ) -> list[Score]:
        """Every example's :class:`Score` (with details), as :meth:`__call__` gives it.

        Raises
        ------
        ValueError
            As :meth:`compute` does.

        Examples
        --------
        >>> [s.exact for s in ToolCallMetric().score_all(["[f()]", "[g()]"], [[("f", {})], []])]
        [True, False]
        """
        run = self._run(tools, weights, reference_format, prediction_format, warn=True)
        return list(self._scores(predictions, references, run, progress))

    def compute(
        self,
        predictions: Sequence[Any],
        references: Sequence[Any],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        reference_format: str | None = None,
        prediction_format: Any = None,
        per_tool: bool = False,
        return_details: bool = False,
        progress: bool = False,
    ) -> dict[str, Any]:
        """Score a corpus: the dict of SPEC §8, from one pass that folds each example's score
        into a :class:`~toolcall_f1.counting.Tally` and drops it (its details kept if asked).

        Parameters
        ----------
        predictions, references
            One entry per example, same length (any shape of SPEC §2); a reference is never
            None (``[]`` where no call is expected).
        tools, weights
            Schemas and weight overrides for this call, laid over the constructor's.
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
            For lengths that differ, a reference that is missing or cannot be read (naming
            its index), a bad setting; :class:`ToolCallParseError` for a prediction with
            ``on_parse_error="raise"``.

        Warns
        -----
        ToolCallWarning
            When more than half of the predictions of a corpus of at least
            :data:`PARSE_ERROR_WARNING_MIN` examples are unreadable (likely the wrong
            ``prediction_format``), and as the constructor does. The score never changes.

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
        run = self._run(tools, weights, reference_format, prediction_format, per_tool=per_tool,
                        details=return_details, warn=True)
        tally = Tally()
        details = []
        for score in self._scores(predictions, references, run, progress):
            tally.add(score)
            if return_details:
                details.append(score.to_dict())
        out = tally.result(self._signature(run, tally.digests), per_tool)
        n, errors = tally.num_examples, tally.num_parse_errors
        if mostly_unreadable(errors, n):
            warnings.warn(f"{errors} of {n} predictions could not be read (parse errors, scored as no calls): "
                          f"is prediction_format={run.prediction_format!r} right?", ToolCallWarning, stacklevel=2)
        if return_details:
            out["details"] = details
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
        return float(summarize(scores, signature="")["f1"])


def _where(index: int | None) -> str:
    """How an error names a reference: ``references[3]``, or ``references`` for a lone one."""
    return "references" if index is None else f"references[{index}]"


def _split_reference(reference: Any, index: int | None) -> tuple[Any, Any]:
    """``{"calls": ..., "tools": [...]}`` → (calls, its raw ``tools``); else (the reference, None)."""
    if isinstance(reference, ToolCallParseError):  # stored by the evaluate adapter
        raise reference.located(_where(index))
    if not isinstance(reference, Mapping):
        return reference, None
    calls = reference.get("calls")
    if not isinstance(calls, (list, str)) and type(calls).__module__ != "numpy":  # numpy: a datasets column
        return reference, None  # a call to a tool named "calls"
    return calls, reference.get("tools")


def _reader_context(toolset: ToolSet) -> Context:
    """What the text readers need of a tool set: a plain value built from it."""
    return Context.of(toolset)


def _digest(obj: Any) -> str:
    """Eight hex digits naming a JSON-like value (stable across runs and key order)."""
    try:
        text = json.dumps(obj, sort_keys=True, default=repr, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        text = _bounded_text(obj)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _bounded_text(obj: Any, depth: int = 0) -> str:
    """A deterministic rendering of data too deep (or odd) for ``json.dumps``; cut below 200
    levels, so such schemas differing only that deep share a digest."""
    if depth > 200:
        return "..."
    if isinstance(obj, Mapping):
        items = sorted((str(k), _bounded_text(v, depth + 1)) for k, v in obj.items())
        return "{" + ",".join(f"{k!r}:{v}" for k, v in items) + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + ",".join(_bounded_text(v, depth + 1) for v in obj) + "]"
    return repr(obj)


def _corpus(values: Any, name: str) -> Sequence[Any]:
    """``predictions`` / ``references`` as a sized sequence of examples: an iterator is read
    into a list; one text or one mapping (a single example passed alone) is refused by name."""
    if isinstance(values, (str, bytes, Mapping)):
        raise TypeError(
            f"{name}: expected a list with one entry per example, got a single {type(values).__name__}; "
            f"wrap one example in a list ([...]) or score it with metric(prediction, reference)"
        )
    return values if isinstance(values, Sized) else list(values)  # type: ignore[return-value]
