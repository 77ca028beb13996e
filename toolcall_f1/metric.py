"""``ToolCallMetric``: one per-example pipeline and one corpus loop (SPEC §2–§8).

A metric holds one :class:`~toolcall_f1.settings.Settings` (``metric.settings``); a call's
keywords make a changed copy.

Every example travels one route (``ToolCallMetric._score``): its reference is read into gold
calls and the tool set they are judged with, its prediction into calls, and
:func:`~toolcall_f1.counting.count_example` matches and counts them into a
:class:`~toolcall_f1.counting.Score`. ``scores()`` yields them, one per example (the one corpus
loop); ``compute()`` folds them into a
:class:`~toolcall_f1.counting.Tally`, which divides once; details are a view of the same pass.
"""

from __future__ import annotations

import dataclasses
import functools
import pickle
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from itertools import starmap
from typing import Any, ClassVar, NamedTuple

from .calls import Call, GoldCall, ToolCallParseError, ToolCallWarning, bfcl_gold_plain, gold_calls
from .counting import Score, Tally, count_example, summarize
from .parsing import Context, read_any
from .schema import ToolSet, compile_tools, merge_plain_tools, validate_weights, warn_unknown_weights
from .resampling import Units, check_group, check_interval, interval, signature_parts
from .resampling import pass_k as pass_at_k
from .rules import (ArgumentRuleError, ArgumentRuleTypeError, check_picklable, refuse_nested, validate_rules,
                    warn_unknown_rules)
from .settings import VERSION, Settings, keyword_error, tools_value
from .settings import digest as content_digest
from .templates import TemplateReader, located
from .turns import combine, conversation, is_call_strings, not_a_conversation, turn_entries
from .values import (Canonicalizer, DuplicateKeyError, Memo, content_key, held_json, plain_json, resolve_canonicalizer,
                     resolve_name_canonicalizer)

__all__ = ["VERSION", "PARSE_ERROR_WARNING_MIN", "StructPadding", "ToolCallMetric"]

#: ``compute()`` warns that most predictions could not be read only from this many examples on:
#: in a smaller corpus "more than half" says little about the format setting.
PARSE_ERROR_WARNING_MIN = 10
#: A metric's :class:`~toolcall_f1.memo.Memo` of tool sets, references' own tools and references.
#: Small on purpose: it catches what repeats from one example to the next (answers sampled for
#: one prompt, BFCL's entries), while many trees of gold calls slow the garbage collector. An
#: example with its own tools fills two slots (the reference; its tools, kept with their
#: readers' context): 128 keeps 63 interleaved tool sets.
_MEMO_SIZE = 128
#: Inputs larger than this (as their content key's bytes) are read each time, not remembered.
_MEMO_MAX_BYTES = 65536


def mostly_unreadable(num_parse_errors: int, num_examples: int) -> bool:
    """Does a corpus look read with the wrong format: more than half of its predictions
    unreadable, in a corpus of at least :data:`PARSE_ERROR_WARNING_MIN` examples? The one rule
    behind ``compute()``'s warning and the CLI's."""
    return num_examples >= PARSE_ERROR_WARNING_MIN and num_parse_errors * 2 > num_examples


class _Run(NamedTuple):
    """One call's settings with what is compiled from them, made once: every example of the
    call is scored with them (a named tuple, cheap to build: one is made for every ``metric(pred, ref)``)."""

    settings: Settings
    toolset: ToolSet  # compiled from the settings' tools and weights
    canon: Canonicalizer  # the settings' canonicalizer, as a function
    per_tool: bool  # count per-tool rows
    details: bool  # at call level, judge each argument (not exactness alone)
    context: tuple[ToolSet, Context]  # a tool set and what the readers need of it, made once
    warned: set[tuple[str, str]]  # the (tool, argument) pairs whose unwinnable gold values were warned about


def _setting(name: str) -> Any:
    """A read-only attribute of the metric: one field of its :class:`Settings`."""
    return property(lambda self: getattr(self.settings, name), doc=f"The ``{name}`` of :attr:`ToolCallMetric.settings`.")


class ToolCallMetric:
    """Tool-call correctness (BFCL AST match) as a cost-weighted, micro-averaged metric.

    The constructor's keywords make the metric's :class:`~toolcall_f1.settings.Settings`
    (``metric.settings``; each is also an attribute: ``metric.level``...); ``compute()`` and
    ``metric(...)`` keywords make a changed copy for one call.

    Parameters
    ----------
    level
        ``"call"`` (default): a call is a TP only on an exact match; ``"arg"``: partial credit
        per argument (the name and each argument are fields).
    canonicalizer
        ``"default"`` (None), ``"bfcl"``, ``"exact"`` or a callable ``str -> str``.
    tools
        Tool schemas (OpenAI or BFCL form; or JSON text holding them): types, required,
        defaults, importance weights.
    weights
        ``{tool: w}`` or ``{tool: {"weight": w, "arguments": {arg: w}}}``; overrides importance.
    rules
        Argument rules ``{tool: {arg: rule}}`` (``"*"``: every argument of the tool without
        its own): ``"exact"``, ``"ignore"``, ``"unordered"``, ``"subset"``, ``"superset"``,
        ``{"abs_tol": x}``, ``{"rel_tol": y}`` or a callable ``(p, g) -> bool`` (README,
        "Argument rules"; SPEC §6b).
    matching
        ``"greedy"`` (default: best-first pairs) or ``"optimal"`` (the fewest FP+FN; README, "Inputs").
    order
        ``"any"`` (default: the calls as a multiset), ``"strict"`` (pairs keep both orders) or
        ``"turns"`` (a reference ``{"turns": [...]}``, a prediction with one entry per turn; calls
        pair only within a turn; README, "Order, turns and argument rules").
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

    level = _setting("level")
    matching = _setting("matching")
    order = _setting("order")
    canonicalizer = _setting("canonicalizer")
    name_canonicalizer = _setting("name_canonicalizer")
    prediction_format = _setting("prediction_format")
    reference_format = _setting("reference_format")
    on_parse_error = _setting("on_parse_error")
    tools = _setting("tools")
    weights = _setting("weights")
    rules = _setting("rules")

    def __init__(
        self,
        level: str = "call",
        *,
        canonicalizer: str | Canonicalizer | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        matching: str = "greedy",
        order: str = "any",
        name_canonicalizer: str | Callable[[str], str] | None = None,
        prediction_format: Any = "auto",
        reference_format: str = "auto",
        on_parse_error: str = "count",
        grammar: Any = None,
        rules: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self._setup(Settings(
            level=level, matching=matching, order=order, canonicalizer=canonicalizer, name_canonicalizer=name_canonicalizer,
            prediction_format=prediction_format, reference_format=reference_format, on_parse_error=on_parse_error,
            tools=grammar if tools is None else tools, weights=weights, rules=rules,
        ))
        warn_unknown_weights(self._toolset, self.settings.weights)
        warn_unknown_rules(self._toolset, self.settings.rules)

    @classmethod
    def from_settings(cls, settings: Settings) -> ToolCallMetric:
        """The metric of a :class:`~toolcall_f1.settings.Settings` (what the edges build).

        Raises
        ------
        ValueError
            For a malformed schema (naming the tool).

        Warns
        -----
        ToolCallWarning
            As the constructor does.

        Examples
        --------
        >>> ToolCallMetric.from_settings(Settings(level="arg")).signature()
        'level:arg|match:greedy|order:any|canon:default|names:exact|pred:auto|ref:auto|w:none|v:0.1.0'
        """
        metric = cls.__new__(cls)
        metric._setup(settings)
        warn_unknown_weights(metric._toolset, settings.weights)
        warn_unknown_rules(metric._toolset, settings.rules)
        return metric

    def _setup(self, settings: Settings) -> None:
        """Keep ``settings`` and compile what every call uses: the canonicalizer, the tool set."""
        self.settings = settings
        self._memo = Memo(_MEMO_SIZE)
        self._canon = resolve_canonicalizer(settings.canonicalizer)
        name_fn = resolve_name_canonicalizer(settings.name_canonicalizer)
        self._toolset = compile_tools(settings.tools, settings.weights, name_fn, cache=self._memo, rules=settings.rules)
        self._context = (self._toolset, Context.of(self._toolset))

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its memo (a new metric starts with an empty one); a callable rule that
        pickle cannot save is a clear error (:func:`~toolcall_f1.rules.check_picklable`)."""
        check_picklable(self.settings.rules)
        state = self.__dict__.copy()
        del state["_memo"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._memo = Memo(_MEMO_SIZE)

    # -- settings ------------------------------------------------------------------------

    def _run(self, overrides: Mapping[str, Any], *, per_tool: bool = True, details: bool = True,
             warn: bool = False) -> _Run:
        """A call's settings: the metric's, changed by the ``overrides`` that are not None
        (``tools`` and ``weights`` laid over the metric's by name), with their tool set;
        remembered by the overrides' content. ``warn``: warn about weights for undeclared
        tools when the call's settings make a new tool set."""
        given = {k: v for k, v in overrides.items() if v is not None}
        if not given:  # (callable rules: the computation's own memo of their answers, SPEC §6b)
            if not self._toolset.callable_rules:
                return _Run(self.settings, self._toolset, self._canon, per_tool, details, self._context, set())
            toolset = self._toolset.for_computation()
            return _Run(self.settings, toolset, self._canon, per_tool, details, (toolset, Context.of(toolset)), set())
        slot = _overrides_slot(given)
        hit = None if slot is None else self._memo.get(slot)
        if hit is None:
            hit = self._changed(given)
            if slot is not None:
                self._memo.put(slot, hit)
        settings, toolset, canon, context = hit
        if warn and toolset is not self._toolset:
            warn_unknown_weights(toolset, settings.weights)
            warn_unknown_rules(toolset, settings.rules)
        if toolset.callable_rules:  # (the computation's own memo of their answers, SPEC §6b)
            toolset = toolset.for_computation()
            context = (toolset, Context.of(toolset))
        return _Run(settings, toolset, canon, per_tool, details, context, set())

    def _changed(self, given: dict[str, Any]) -> tuple[Settings, ToolSet, Canonicalizer, tuple[ToolSet, Context]]:
        """(the changed settings, their tool set, their canonicalizer, the readers' context)
        for :meth:`_run`."""
        settings = self.settings.replace(**{k: v for k, v in given.items() if k not in ("tools", "weights", "rules")})
        layered: dict[str, Any] = {}
        if "weights" in given:
            layered["weights"] = {**settings.weights, **validate_weights(given["weights"])}
        if "rules" in given:
            layered["rules"] = {**settings.rules, **validate_rules(given["rules"])}
        if "tools" in given:
            layered["tools"] = merge_plain_tools(settings.tools, tools_value(plain_json(given["tools"])))
        settings = settings.replace(**layered) if layered else settings
        name_fn = resolve_name_canonicalizer(settings.name_canonicalizer)
        toolset = compile_tools(settings.tools, settings.weights, name_fn, cache=self._memo,  # the same content's
                                rules=settings.rules)
        context = self._context if toolset is self._toolset else (toolset, Context.of(toolset))
        return settings, toolset, resolve_canonicalizer(settings.canonicalizer), context

    def signature(
        self,
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        rules: Mapping[str, Any] | None = None,
        prediction_format: Any = None,
        order: str | None = None,
        reference_format: str | None = None,
        example_tools_digests: Iterable[str] = (),
    ) -> str:
        """A short string naming every setting that changes the number (sacrebleu-style):
        :meth:`Settings.signature <toolcall_f1.settings.Settings.signature>` of the call's settings.

        Examples
        --------
        >>> ToolCallMetric().signature()
        'level:call|match:greedy|order:any|canon:default|names:exact|pred:auto|ref:auto|w:none|v:0.1.0'
        """
        run = self._run(dict(tools=tools, weights=weights, rules=rules, prediction_format=prediction_format,
                             reference_format=reference_format, order=order))
        return run.settings.signature(example_tools_digests)

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
        run = self._run(dict(reference_format=reference_format, tools=tools, weights=weights))
        golds, toolset, _, _ = self._read_reference(reference, index, run)
        return list(golds), toolset

    def _read_reference(self, reference: Any, index: int | None, run: _Run,
                        ) -> tuple[list[GoldCall], ToolSet, str, Context]:
        """A reference → (gold calls, the tool set they are judged with, its own tools' digest,
        the readers' context of that tool set),
        remembered by its :func:`~toolcall_f1.values.content_key` (one key for the whole of it; a
        ``{"calls", "tools"}`` dict's tools also in a slot of their own): consecutive examples often share it."""
        if reference is None:
            raise ValueError(f"{_where(index)}: the reference is missing (None); "
                             "write [] for an example where no call is expected")
        key = content_key(reference, _MEMO_MAX_BYTES)  # one pass over the whole reference: a hit costs that
        slot = ("reference", key, run.settings.reference_format, run.toolset)  # a ToolSet hashes by identity
        hit = None if key is None else self._memo.get(slot)
        if hit is not None:
            if hit[4]:
                _warn_unwinnable(hit[4], index, run.warned)
            return hit[:4]  # type: ignore[no-any-return]
        # {"calls": ..., "tools": [...]} → its calls and raw tools (also as JSON text holding the
        # object, SPEC §2; other text is left to the reader, which reads JSON text as the value
        # it holds and reports a key given two values); anything else is the calls. Its tools
        # are keyed apart in their own slot (references sharing their tools share the tool set)
        calls: Any = reference
        raw_tools: Any = None
        if isinstance(reference, ToolCallParseError):  # stored by the evaluate adapter
            raise reference.located(_where(index))
        if isinstance(reference, str) and reference.lstrip(_BLANK)[:1] == "{":
            try:
                calls = held_json(reference)
            except DuplicateKeyError:
                pass
        if isinstance(calls, Mapping):
            turns = calls.get("turns")
            if isinstance(turns, list) or type(turns).__module__ == "numpy":
                raise ValueError(not_a_conversation(_where(index)))  # SPEC §5b: under another order
            held = calls.get("calls")
            if isinstance(held, (list, str)) or type(held).__module__ == "numpy":  # numpy: a datasets column
                raw_tools, calls = calls.get("tools"), held  # (else a call to a tool named "calls")
        toolset, digest, ctx = run.toolset, "", run.context[1]
        if raw_tools is not None:
            toolset, digest, ctx = self._example_toolset(raw_tools, index, run)
        calls = calls if key is not None else plain_json(calls)
        fmt = run.settings.reference_format
        try:
            if fmt == "bfcl":
                golds = bfcl_gold_plain(calls, _where(index))
            else:
                golds = gold_calls(read_any(calls, fmt, ctx, gold=True))
        except ToolCallParseError as err:
            raise err.located(_where(index), index) from None
        if toolset.ruled:  # a nested BFCL answer under a rule without meaning there: refused on reading (SPEC §6b)
            try:
                refuse_nested(golds, toolset.rules_of)
            except ArgumentRuleError as err:
                raise (err if index is None else err.located(f"example {index}")) from None
        unwinnable = _unwinnable(golds, toolset) if toolset.has_schema else ()
        if unwinnable:
            _warn_unwinnable(unwinnable, index, run.warned)
        if key is not None:
            self._memo.put(slot, (golds, toolset, digest, ctx, unwinnable))
        return golds, toolset, digest, ctx

    def _example_toolset(self, raw_tools: Any, index: int | None, run: _Run) -> tuple[ToolSet, str, Context]:
        """A reference's own tools → (the tool set they make over the call's, their digest, its
        readers' context), remembered by content (this slot names it: compiled without a second
        key): references often share their tools (one agent's tools for every task; BFCL's categories)."""
        key = content_key(raw_tools, _MEMO_MAX_BYTES)
        slot = ("example tools", key, run.toolset)
        hit = None if key is None else self._memo.get(slot)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        # a private copy (the key's bytes loaded back): the tool set compiles subschemas when a
        # value first reaches them, and the caller may change these dicts before then
        raw_tools = _example_tools_value(pickle.loads(key) if key is not None else plain_json(raw_tools), index)
        try:
            if not isinstance(raw_tools, list):
                raise ValueError("'tools' must be a list of function schemas")
            example_tools = merge_plain_tools(raw_tools)
            # (over no tools of the call's, the example's own layer is the merge: no second pass)
            merged = merge_plain_tools(run.settings.tools, example_tools) if run.settings.tools else example_tools
            toolset = (compile_tools(merged, run.settings.weights, run.toolset.name_canon, extends=run.toolset)
                       if example_tools else run.toolset)
        except ValueError as err:
            raise ValueError(f"{_where(index)}: {err}") from None
        digest = content_digest(example_tools) if example_tools else ""
        ctx = run.context[1] if toolset is run.toolset else _reader_context(toolset)
        if key is not None:
            self._memo.put(slot, (toolset, digest, ctx))
        return toolset, digest, ctx

    def _read_prediction(self, prediction: Any, ctx: Context, fmt: Any, index: int | None, mode: str,
                         entry: int | None = None) -> tuple[list[Call], str | None]:
        """A prediction (or its ``entry``: a turn, under ``order="turns"``) → (calls, the parse
        error's message or None), read with ``ctx`` (what the readers need of the example's
        tool set: made once per tool set, beside it); with ``"raise"`` it raises. A
        :class:`ToolCallParseError` given as the prediction (stored by the adapter) is that error."""
        if type(prediction) is not str and isinstance(prediction, str):
            prediction = str(prediction)  # numpy's str_ (a datasets column in numpy format)
        try:
            if isinstance(prediction, ToolCallParseError):
                raise prediction
            if isinstance(fmt, TemplateReader):  # its cross-check's warning names the example
                with located("predictions" if index is None else f"predictions[{index}]"):
                    return read_any(prediction, fmt, ctx), None
            return read_any(prediction, fmt, ctx), None
        except ToolCallParseError as err:
            return [], self._unreadable(err, index, mode, entry)

    def _unreadable(self, err: ToolCallParseError, index: int | None, mode: str, entry: int | None = None) -> str:
        """The message of a prediction's (or its ``entry``'s) parse error, counted; with
        ``"raise"`` it is raised."""
        where = "predictions" if index is None else f"predictions[{index}]"
        located = err.located(where if entry is None else f"{where}[{entry}]", index)
        if mode == "raise":
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
        rules: Mapping[str, Any] | None = None,
        reference_format: str | None = None,
        prediction_format: Any = None,
        order: str | None = None,
        index: int | None = None,
        details: bool = True,
        **unexpected: Any,
    ) -> Score:
        """Score one example: a prediction (calls or text) against a reference.

        Parameters
        ----------
        pred
            The prediction: model-output text or structured calls.
        gold
            The reference: calls, text, a BFCL answer (``reference_format="bfcl"``) or
            ``{"calls": ..., "tools": [...]}`` with per-example schemas (either as JSON text
            too); ``[]`` where no call is expected.
        tools, weights, rules, reference_format, prediction_format, order
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
        TypeError
            For a keyword it does not take (:meth:`compute`'s rule).

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
        if unexpected:
            raise _unexpected("ToolCallMetric.__call__()", unexpected, ToolCallMetric.__call__)
        run = self._run(dict(tools=tools, weights=weights, rules=rules, reference_format=reference_format,
                             prediction_format=prediction_format, order=order), per_tool=details, details=details)
        return self._score(pred, gold, index, run)

    def _score(self, pred: Any, gold: Any, index: int | None, run: _Run) -> Score:
        """The one per-example pipeline: reference, prediction, matching, counts."""
        settings = run.settings
        if settings.order == "turns":
            return self._score_turns(pred, gold, index, run)
        golds, toolset, digest, ctx = self._read_reference(gold, index, run)
        mode = settings.on_parse_error
        preds, error = self._read_prediction(pred, ctx, settings.prediction_format, index, mode)

        def count(preds: list[Call], error: str | None) -> Score:  # (a ** of a dict, or a partial: ~1 µs more)
            return count_example(
                preds, golds, toolset, level=settings.level, matching=settings.matching, order=settings.order,
                canon=run.canon, fill_defaults=settings.reference_format != "bfcl", parse_error=error,
                tools_digest=digest, per_tool_counts=run.per_tool, details=run.details)

        try:
            score = count(preds, error)
        except ToolCallParseError as err:  # a predicted value too large to type-check (schema.MAX_CHECK_STEPS)
            return count([], self._unreadable(err, index, mode))
        except (ArgumentRuleError, ArgumentRuleTypeError) as err:  # an argument rule failed: name the example
            if index is None:  # one example (metric(p, g)): the tool and argument say where
                raise
            raise err.located(f"example {index}") from err.__cause__
        if error is not None and settings.prediction_format != "auto" and _no_call_text(pred, toolset):
            score = dataclasses.replace(score, attempted=False)  # SPEC §8b: prose, not an attempt to call
        return score

    # -- order="turns" (SPEC §5b) ---------------------------------------------------------

    def _score_turns(self, pred: Any, gold: Any, index: int | None, run: _Run) -> Score:
        """``order="turns"``: the conversation's turns read, each prediction entry scored
        against its turn alone (an entry not given: zero calls; entries past the last turn:
        turns with no gold calls), the example :func:`~toolcall_f1.turns.combine` of them."""
        turns, raw_tools = conversation(gold, _where(index))
        talk, digest = self._conversation_run(raw_tools, index, run)
        read = [self._read_turn(turn, index, talk) for turn in turns]
        entries, unreadable = turn_entries(pred, "predictions" if index is None else f"predictions[{index}]")
        error = None if unreadable is None else self._unreadable(unreadable, index, run.settings.on_parse_error)
        scores = []
        for k in range(max(len(read), len(entries))):
            golds, toolset, own, fill, ctx = read[k] if k < len(read) else ([], talk.toolset, "", True, talk.context[1])
            entry = entries[k] if k < len(entries) else _UNREACHED
            scores.append(self._score_turn(entry, error, golds, (toolset, ctx), own, fill, (index, k), talk))
        return combine(scores, len(turns), digest)

    def _conversation_run(self, raw_tools: Any, index: int | None, run: _Run) -> tuple[_Run, str]:
        """(the call's run with a conversation's own ``tools`` laid over its tools, by name as
        a reference's own tools are — so each turn's own tools are laid over both —, their digest)."""
        if raw_tools is None:
            return run, ""
        toolset, digest, ctx = self._example_toolset(raw_tools, index, run)
        if toolset is run.toolset:
            return run, digest
        key = content_key(raw_tools, _MEMO_MAX_BYTES)
        slot = ("conversation", key, id(run.settings))  # the settings kept in the value: their id stays theirs
        hit = None if key is None else self._memo.get(slot)
        if hit is None or hit[0] is not run.settings:
            own = _example_tools_value(plain_json(raw_tools), index)
            hit = run.settings, run.settings.replace(tools=merge_plain_tools(run.settings.tools, own))
            if key is not None:
                self._memo.put(slot, hit)
        return run._replace(settings=hit[1], toolset=toolset, context=(toolset, ctx)), digest

    def _read_turn(self, turn: Any, index: int | None, run: _Run,
                   ) -> tuple[list[GoldCall], ToolSet, str, bool, Context]:
        """One reference turn → (gold calls, their tool set, its own tools' digest, whether
        defaults are filled, the tool set's readers' context): a list of strings (BFCL's multi-turn ground truth) is the
        Python-syntax calls they hold, plain values whatever ``reference_format`` says (also as
        a turn's ``{"calls": [...], "tools": [...]}``)."""
        texts, raw_tools = turn, None
        if isinstance(turn, Mapping) and is_call_strings(turn.get("calls")):
            texts, raw_tools = turn["calls"], turn.get("tools")
        if not is_call_strings(texts):
            golds, toolset, digest, context = self._read_reference(turn, index, run)
            return golds, toolset, digest, run.settings.reference_format != "bfcl", context
        toolset, digest, context = ((run.toolset, "", run.context[1]) if raw_tools is None
                                    else self._example_toolset(raw_tools, index, run))
        try:
            calls = [call for text in texts for call in read_any(str(text), "python", context, gold=True)]
        except ToolCallParseError as err:
            raise err.located(_where(index), index) from None
        return [GoldCall.from_call(c) for c in calls], toolset, digest, True, context

    def _score_turn(self, entry: Any, error: str | None, golds: list[GoldCall], context: tuple[ToolSet, Context],
                    digest: str, fill: bool, at: tuple[int | None, int], run: _Run) -> Score:
        """One turn (``at``: the example's index, the turn's; ``context``: its tool set and that
        set's readers' context): its prediction entry read (a list of strings one text at a
        time: one that cannot be read makes the turn unreadable) and counted against its gold calls."""
        (index, k), mode, fmt = at, run.settings.on_parse_error, run.settings.prediction_format
        toolset, ctx = context
        preds: list[Call] = []
        if error is None and entry is not _UNREACHED:
            for text in entry if is_call_strings(entry) else (entry,):
                calls, error = self._read_prediction(text, ctx, fmt, index, mode, k)
                if error is not None:
                    preds = []
                    break
                preds += calls
        count = functools.partial(
            count_example, golds=golds, toolset=toolset, level=run.settings.level, matching=run.settings.matching,
            canon=run.canon, fill_defaults=fill, tools_digest=digest, per_tool_counts=run.per_tool, details=run.details)
        try:
            score = count(preds, parse_error=error)
        except ToolCallParseError as err:  # a predicted value too large to type-check
            return count([], parse_error=self._unreadable(err, index, mode, k))
        if error is not None and fmt != "auto" and entry is not _UNREACHED:
            texts = entry if is_call_strings(entry) else (entry,)
            if all(_no_call_text(text, toolset) for text in texts):
                score = dataclasses.replace(score, attempted=False)  # SPEC §8b: prose, not an attempt
        return score

    def scores(
        self,
        predictions: Iterable[Any],
        references: Iterable[Any],
        *,
        on_error: Callable[[int, Exception], None] | None = None,
        progress: bool = False,
        details: bool = True,
        per_tool: bool | None = None,
        **settings_overrides: Any,
    ) -> Iterator[Score]:
        """Every example's :class:`Score`, in order, as it is scored: the one corpus loop
        (``compute()`` folds it into a :class:`~toolcall_f1.counting.Tally`; the command line
        streams files through it).

        Parameters
        ----------
        predictions, references
            One entry per example. Sized sequences are checked to be of one length before
            anything is scored; iterators are streamed (never held), one entry of each taken
            per example (predictions first), their lengths checked when one runs out.
        on_error
            Called as ``on_error(index, error)`` when an example raises a ``ValueError`` or
            ``TypeError`` — a reference that cannot be read or is missing, per-example tools
            that are not schemas, and (with ``on_parse_error="raise"``) a prediction that
            cannot be read (its ``error.where`` says ``predictions[i]``). Returning skips the
            example (no score is yielded for it); raising stops the stream. Without it the
            error is raised, as ``compute()`` raises it.
        progress
            Show a progress bar (tqdm) on stderr.
        details, per_tool
            As :meth:`__call__`'s ``details`` (default: with details); ``per_tool`` counts
            per-tool rows (default: as ``details``).
        **settings_overrides
            Any :class:`~toolcall_f1.settings.Settings` field for these examples: ``tools``
            and ``weights`` are laid over the metric's by tool name, the others replace its.

        Returns
        -------
        Iterator[Score]
            Settings are checked, and sized inputs' lengths, when it is made.

        Raises
        ------
        ValueError
            For lengths that differ or a bad setting (and as ``on_error`` says);
            ``TypeError`` for one text or mapping given as a whole corpus, or an unknown setting.

        Examples
        --------
        >>> m = ToolCallMetric()
        >>> [s.exact for s in m.scores(["[f()]", "[g()]"], [[("f", {})], []])]
        [True, False]
        >>> bad = []
        >>> [s.tp for s in m.scores(["[f()]", "[f()]"], ["[f(", "[f()]"], on_error=lambda i, e: bad.append((i, str(e))))]
        [1.0]
        >>> bad
        [(0, "references[0]: python: unbalanced brackets (in '[f(')")]
        >>> next(m.scores(["[f()]"], ["[f("]))
        Traceback (most recent call last):
        ...
        toolcall_f1.calls.ToolCallParseError: references[0]: python: unbalanced brackets (in '[f(')
        """
        run = self._run(settings_overrides, per_tool=details if per_tool is None else per_tool, details=details,
                        warn=True)
        return self._scores(predictions, references, run, progress, on_error, stream=True)

    def _scores(self, predictions: Iterable[Any], references: Iterable[Any], run: _Run, progress: bool,
                on_error: Callable[[int, Exception], None] | None = None, *, stream: bool = False) -> Iterator[Score]:
        """The one corpus loop (:meth:`scores`, :meth:`score_all` and :meth:`compute` read it):
        each example's pair taken — one text or one mapping (a single example passed alone)
        refused by name, sized inputs of one length, an iterator read into a list (the lengths
        checked before anything is scored) or with ``stream`` taken as the pairs are, a progress
        bar, the references watched (:class:`StructPadding`: its warning when they run out) —
        and scored by :meth:`_score`, its errors to ``on_error`` (the example then skipped).
        The checks are made now; :meth:`_score` is called by the iterator itself (no frame of
        this module between the caller and the example's pipeline)."""
        for values, name in ((predictions, "predictions"), (references, "references")):
            if isinstance(values, (str, bytes, Mapping)):
                raise TypeError(
                    f"{name}: expected a list with one entry per example, got a single {type(values).__name__}; "
                    f"wrap one example in a list ([...]) or score it with metric(prediction, reference)"
                )
        given = references  # as given: a ``datasets`` column's Arrow type is looked at once
        if not stream:
            predictions = predictions if isinstance(predictions, Sized) else list(predictions)
            references = references if isinstance(references, Sized) else list(references)
        total = None
        if isinstance(predictions, Sized) and isinstance(references, Sized):
            total = len(predictions)
            if total != len(references):
                raise ValueError(f"predictions and references differ in length: {total} vs {len(references)}")
            pairs: Iterable[tuple[Any, Any]] = zip(predictions, references)
        else:
            pairs = _zip_checked(iter(predictions), iter(references))
        if progress:
            from tqdm.auto import tqdm  # an optional dependency, needed only here

            pairs = tqdm(pairs, total=total, desc="toolcall_f1", unit="ex")
        examples = StructPadding().watch(pairs, given, run, warn=True)  # (pred, gold, index, run)
        if on_error is None:
            return starmap(self._score, examples)
        return filter(None, starmap(functools.partial(self._skipping, on_error), examples))  # (a Score is true)

    def _skipping(self, on_error: Callable[[int, Exception], None], pred: Any, gold: Any, index: int,
                  run: _Run) -> Score | None:
        """:meth:`_score`, its ``ValueError`` or ``TypeError`` given to ``on_error`` (then None:
        the example is skipped; ``on_error`` raising stops the stream)."""
        try:
            return self._score(pred, gold, index, run)
        except (ValueError, TypeError) as err:
            on_error(index, err)
            return None

    def score_all(
        self,
        predictions: Sequence[Any],
        references: Sequence[Any],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        rules: Mapping[str, Any] | None = None,
        reference_format: str | None = None,
        prediction_format: Any = None,
        order: str | None = None,
        progress: bool = False,
    ) -> list[Score]:
        """Every example's :class:`Score` (with details): the stream of :meth:`scores` as a
        list (an iterator read first, so lengths are checked before anything is scored).

        Raises
        ------
        ValueError
            As :meth:`compute` does.

        Examples
        --------
        >>> [s.exact for s in ToolCallMetric().score_all(["[f()]", "[g()]"], [[("f", {})], []])]
        [True, False]
        """
        run = self._run(dict(tools=tools, weights=weights, rules=rules, reference_format=reference_format,
                             prediction_format=prediction_format, order=order), warn=True)
        return list(self._scores(predictions, references, run, progress))

    def compute(
        self,
        predictions: Sequence[Any],
        references: Sequence[Any],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        weights: Mapping[str, Any] | None = None,
        rules: Mapping[str, Any] | None = None,
        reference_format: str | None = None,
        prediction_format: Any = None,
        order: str | None = None,
        per_tool: bool = False,
        return_details: bool = False,
        progress: bool = False,
        confidence_level: float | None = None,
        n_resamples: int = 1000,
        seed: int = 12345,
        groups: Sequence[Any] | None = None,
        pass_k: Sequence[int] | None = None,
        **unexpected: Any,
    ) -> dict[str, Any]:
        """Score a corpus: the dict of SPEC §8, from one pass of the stream of :meth:`scores`
        folded into a :class:`~toolcall_f1.counting.Tally`, each score dropped once added
        (its details kept if asked).

        Parameters
        ----------
        predictions, references
            One entry per example, same length (any shape of SPEC §2); a reference is never
            None (``[]`` where no call is expected).
        tools, weights
            Schemas and weight overrides for this call, laid over the constructor's.
        rules
            Argument rules for this call (SPEC §6b), laid over the constructor's by tool: a tool
            named here takes these rules in place of the constructor's.
        reference_format, prediction_format
            Override the constructor's formats for this call.
        order
            Override the constructor's ``order`` for this call (``"any"``, ``"strict"`` or ``"turns"``).
        per_tool, return_details
            Add ``per_tool`` and ``details`` to the result.
        progress
            Show a progress bar (tqdm) on stderr.
        confidence_level, n_resamples, seed
            Add ``ci``: percentile bootstrap intervals of F1, precision, recall and exact match
            at this level, from ``n_resamples`` resamples of the examples' counts drawn with
            ``numpy.random.default_rng(seed)`` (SPEC §8b; nothing is scored twice). The
            signature gains ``ci:…|n:…|seed:…``.
        groups
            One string or integer per example: examples of one group (samples of one prompt,
            turns of one conversation) are resampled together. Without it, a reference's
            ``"group"`` key (on a dict holding ``"calls"``) gives the groups.
        pass_k
            Add ``pass_k``: pass@k and pass^k for each k, averaged over the groups (needs groups).

        Returns
        -------
        dict
            ``f1, precision, recall, exact_match, tp, fp, fn, num_examples,
            num_parse_errors, hallucinated_tools, hallucinated_args, signature`` (+ optional;
            under ``order="turns"`` also ``turn_exact_match``).

        Raises
        ------
        EmptyCorpusError
            A :class:`ValueError`, for zero examples: a corpus of zero examples has no score.
        ValueError
            For lengths that differ, a reference that is missing or cannot be read (naming
            its index), a bad setting; :class:`ToolCallParseError` for a prediction with
            ``on_parse_error="raise"``.
        TypeError
            For a keyword it does not take: a constructor setting (``level``, ``matching``,
            the canonicalizers, ``on_parse_error``: the same for every call) is named as one,
            else the nearest keyword it takes.

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
        >>> ToolCallMetric().compute([[]], [[]], level="arg")
        Traceback (most recent call last):
        ...
        TypeError: ToolCallMetric.compute(): 'level' is a constructor setting, the same for every call: ToolCallMetric(level='arg')
        """
        if unexpected:
            raise _unexpected("ToolCallMetric.compute()", unexpected, ToolCallMetric.compute)
        run = self._run(dict(tools=tools, weights=weights, rules=rules, reference_format=reference_format,
                             prediction_format=prediction_format, order=order), per_tool=per_tool, details=return_details, warn=True)
        units, keys = None, None
        if confidence_level is not None or pass_k is not None or groups is not None:
            if confidence_level is not None:
                check_interval(confidence_level, n_resamples, seed)
                confidence_level, n_resamples, seed = plain_json([confidence_level, n_resamples, seed])  # numpy's too
            predictions = predictions if isinstance(predictions, Sized) else list(predictions)
            references = references if isinstance(references, Sized) else list(references)
            units, keys = Units(), unit_keys(groups, references)
        tally = Tally()
        details = []
        for i, score in enumerate(self._scores(predictions, references, run, progress)):
            tally.add(score)
            if units is not None:
                units.add(score.tp, score.fp, score.fn, score.exact, keys[i])  # type: ignore[index]
            if return_details:
                details.append(score.to_dict())
        extra = ([] if units is None or confidence_level is None
                 else signature_parts(f"ci:{confidence_level}", n_resamples, seed, units.grouped))
        settings = run.settings
        signature = settings.signature(tally.digests, extra) if tally.digests or extra else settings.base_signature
        out = tally.result(signature, per_tool)
        if units is not None and confidence_level is not None:
            out["ci"] = interval(units, confidence_level, n_resamples, seed)
        if units is not None and pass_k is not None:
            if not units.grouped:
                raise ValueError("pass_k needs groups: pass groups= (one per example) or give each reference a "
                                 '"group" key ({"calls": [...], "group": "prompt-7"})')
            out["pass_k"] = pass_at_k(units.groups(), pass_k)
        n, errors = tally.num_examples, tally.num_parse_errors
        if errors and mostly_unreadable(errors, n):
            warnings.warn(f"{errors} of {n} predictions could not be read (parse errors, scored as no calls): "
                          f"is prediction_format={settings.prediction_format!r} right?", ToolCallWarning, stacklevel=2)
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



@dataclasses.dataclass(slots=True)
class StructPadding:
    """Watches a corpus's references for the mark of an Arrow struct column (issue 26 item
    11): ``datasets`` stores a column of dicts as one struct type, so every key seen in any
    row is added to every row as None — a call then carries arguments its row never had, as
    None, and float32 fields read back changed (0.1 as 0.10000000149011612): it scores wrong
    without any error.

    Two rules, chosen to raise no false alarm on ordinary data:

    * *across tools*, read from the values alone: every structured gold call (``{"name",
      "arguments": {...}}``, also OpenAI's ``function`` form) of the corpus has the same
      argument keys in the same order, and some tool's calls all hold None for a key that
      another tool's calls set;
    * *within a tool*, where padding cannot be told from explicit nulls by the values: the
      references are a ``datasets`` column (``Dataset[...]``, given as such) whose Arrow type
      holds the calls' arguments as a struct, and some gold argument holds None or some
      argument field is a float32. The type is looked at once (:meth:`arrow_struct`); each
      call costs one look for None among its argument values.

    :meth:`watch` looks at the references as the corpus loop takes them; when they run out,
    :attr:`marked` says whether the corpus bears the mark.

    Examples
    --------
    >>> padding = StructPadding()
    >>> refs = [[{"name": "a", "arguments": {"x": 1, "y": None}}], [{"name": "b", "arguments": {"x": None, "y": "s"}}]]
    >>> _ = list(padding.watch([(None, r) for r in refs]))
    >>> padding.marked, padding.tool, padding.key
    (True, 'a', 'y')
    >>> other = StructPadding()
    >>> _ = list(other.watch([(None, [{"name": "a", "arguments": {"x": 1}}]), (None, [{"name": "b", "arguments": {"y": None}}])]))
    >>> other.marked
    False
    """

    MAX_TOOLS: ClassVar[int] = 1000  # tools followed at most (the rest are not)

    #: Whether the references are a ``datasets`` column whose Arrow type holds the calls'
    #: arguments as a struct, and the argument fields it stores as float32 (:meth:`arrow_struct`).
    struct: bool = False
    float32: list[str] = dataclasses.field(default_factory=list)
    keys: tuple[str, ...] | None = None  # the argument keys of every call so far
    uniform: bool = True
    set_keys: dict[str, set[str]] = dataclasses.field(default_factory=dict)  # tool → the keys its calls give a value (not None)
    nulls: int = 0  # gold arguments holding None (counted where the type is a struct)
    marked: bool = False  # what watch() found: the corpus bears the mark
    across: bool = False  # ... by the rule across tools, for this tool and key
    tool: str = ""
    key: str = ""

    @staticmethod
    def arrow_struct(references: Any) -> tuple[bool, list[str]]:
        """Whether ``references`` are a ``datasets`` column whose Arrow type holds calls'
        ``arguments`` as a struct (its keys padded across rows), and the argument fields it
        stores as float32 (or float16). ``(False, [])`` for anything else."""
        if not type(references).__module__.startswith("datasets"):
            return False, []
        found: list[bool] = []
        narrow: list[str] = []

        def walk(feature: Any, inside: bool, path: str) -> None:
            if isinstance(feature, Mapping):
                for key, sub in feature.items():
                    if key == "arguments" and isinstance(sub, Mapping):
                        found.append(True)
                    walk(sub, inside or key == "arguments", f"{path}.{key}" if path else str(key))
            elif hasattr(feature, "feature"):  # List / Sequence / LargeList
                walk(feature.feature, inside, path + "[]")
            elif inside and getattr(feature, "dtype", None) in ("float32", "float16"):
                narrow.append(path)

        walk(getattr(references, "features", None), False, str(getattr(references, "column_name", "")))
        return bool(found), narrow

    @classmethod
    def warn_column(cls, references: Any, stacklevel: int = 2) -> None:
        """Warn now if ``references``, a ``datasets`` column about to be stored as text (the
        evaluate module's ``add_batch``), bears the mark within a tool; the rule across
        tools is left to ``compute()``, which sees the values read back. A column of any
        other type is not read."""
        padding = cls(*cls.arrow_struct(references))
        if not padding.struct:
            return
        for _ in padding.watch((None, reference) for reference in references):
            pass
        if padding.marked and not padding.across:
            warnings.warn(padding.message(), ToolCallWarning, stacklevel=stacklevel + 1)

    def watch(self, pairs: Iterable[tuple[Any, Any]], references: Any = None, *extra: Any,
              warn: bool = False) -> Iterator[tuple[Any, ...]]:
        """Each ``(prediction, reference)`` pair as it is taken, as ``(prediction, reference,
        index, *extra)`` (the corpus loop's arguments of one example), its reference looked at
        after (anything but structured calls is passed over); when they run out, :attr:`marked`
        is set, and with ``warn`` a marked corpus warns (:meth:`message`) to the code iterating
        the loop's caller. ``references``: the corpus as given (a ``datasets`` column's Arrow type
        is looked at first)."""
        if type(references).__module__.startswith("datasets"):
            self.struct, self.float32 = self.arrow_struct(references)
        for index, (prediction, reference) in enumerate(pairs):
            yield (prediction, reference, index, *extra)
            if not self.uniform:
                continue
            if type(reference).__module__ == "numpy":
                reference = plain_json(reference)
            if type(reference) is dict or isinstance(reference, Mapping):
                calls = reference.get("calls")
                reference = calls if isinstance(calls, (list, tuple)) else [reference]
            if not isinstance(reference, (list, tuple)):
                continue
            for call in reference:  # (an exact dict is told from other mappings first: the common case, and fast)
                if not (type(call) is dict or isinstance(call, Mapping)):
                    continue
                function = call.get("function")
                if function is not None and (type(function) is dict or isinstance(function, Mapping)):
                    call = function
                args, name = call.get("arguments"), call.get("name")
                if not (isinstance(name, str) and (type(args) is dict or isinstance(args, Mapping))):
                    continue
                if self.struct and None in args.values():
                    self.nulls += 1
                keys = tuple(args)
                if self.keys is None:
                    self.keys = keys
                elif keys != self.keys:
                    self.uniform = False
                    break
                given = self.set_keys.get(name)
                if given is None and len(self.set_keys) < self.MAX_TOOLS:
                    given = self.set_keys[name] = set()
                if given is not None:
                    given.update([k for k, v in args.items() if v is not None])
        if self.uniform and self.keys is not None and len(self.set_keys) >= 2:  # the rule across tools
            set_anywhere: set[str] = set().union(*self.set_keys.values())
            for tool, given in self.set_keys.items():
                for key in self.keys:
                    if not self.across and key not in given and key in set_anywhere:
                        self.tool, self.key, self.across = tool, key, True
        self.marked = self.across or self.struct and bool(self.nulls or self.float32)
        if warn and self.marked:  # (1: here; 2: the frame iterating the loop, compute(); 3: its caller)
            warnings.warn(self.message(), ToolCallWarning, stacklevel=3)

    def message(self) -> str:
        """The warning, naming what was seen (after :meth:`watch`) and the fix."""
        fix = "Store references as JSON strings (json.dumps) or declare the column datasets.Json()."
        if self.across:
            n = len(self.keys or ())
            return (f"the references look like a datasets (Arrow) column of dicts: every gold call's arguments carry "
                    f"the same {n} keys, and every call to {self.tool!r} holds None for {self.key!r}, which another "
                    "tool's calls set. Arrow stores such a column as one struct type, adding every key seen in any row "
                    "to every row as None (and float32 fields change value), so these calls expect None arguments and "
                    "the score is wrong. " + fix)
        seen = []
        if self.nulls:
            seen.append(f"{self.nulls} gold call(s) hold None for an argument, as Arrow pads every key seen in any row "
                        "into every row (a row's padded None is read as an expected None argument)")
        if self.float32:
            seen.append(f"argument field(s) {', '.join(self.float32)} are stored as float32 and read back changed "
                        "(0.1 as 0.10000000149011612)")
        return ("the references are a datasets (Arrow) column of dicts whose calls' arguments are one struct type: "
                + "; ".join(seen) + ". The score is wrong for those calls. " + fix)


def _unexpected(where: str, given: Mapping[str, Any], method: Callable[..., Any]) -> TypeError:
    """The error for keywords ``method`` does not take: a constructor setting (a field no call
    may change, :meth:`Settings.names`) is named as one, else the nearest keyword it takes."""
    import inspect

    name, value = next(iter(given.items()))
    if name in Settings.names():
        return TypeError(f"{where}: {name!r} is a constructor setting, the same for every call: "
                         f"ToolCallMetric({name}={value!r})")
    takes = [p.name for p in inspect.signature(method).parameters.values() if p.kind is p.KEYWORD_ONLY]
    return keyword_error(where, name, takes)


def _where(index: int | None) -> str:
    """How an error names a reference: ``references[3]``, or ``references`` for a lone one."""
    return "references" if index is None else f"references[{index}]"


def _no_call_text(prediction: Any, toolset: ToolSet) -> bool:
    """Is a prediction that a named format could not read one that ``"auto"`` reads as no
    call (prose, or a message whose content is prose: an abstention, SPEC §8b), rather than an
    attempt to call? The same rule for text and for text inside a message (one input, one number)."""
    try:
        return not read_any(prediction, "auto", _reader_context(toolset))
    except ToolCallParseError:
        return False


def reference_group(reference: Any, index: int) -> Any:
    """A reference's ``"group"`` (SPEC §8b): read only on a dict holding ``"calls"`` or
    ``"turns"`` (elsewhere ``{"group": {args}}`` is a call to a tool named ``group``); None
    counts as absent. Such a dict given as JSON text (SPEC §2, "JSON text") is read as the dict."""
    if isinstance(reference, str) and reference.lstrip(" \t\r\n\ufeff")[:1] == "{":
        try:
            reference = held_json(reference)
        except ValueError:
            return None  # reading the reference reports it, naming the example
    if isinstance(reference, Mapping) and ("calls" in reference or "turns" in reference):
        group = reference.get("group")
        return None if group is None else check_group(group, f"references[{index}]")
    return None


def unit_keys(groups: Sequence[Any] | None, references: Iterable[Any]) -> list[Any]:
    """Each example's unit key for resampling (SPEC §8b, "Units"): ``groups`` (one string or
    integer per example), else the references' ``"group"`` keys, else None (each example is
    its own unit).

    Raises
    ------
    ValueError
        For ``groups`` of another length than the corpus, a group that is no string or
        integer, or references of which some have a group and some do not (naming the first
        without one).

    Examples
    --------
    >>> unit_keys(None, [{"calls": [], "group": "a"}, {"calls": [], "group": 2}])
    ['a', 2]
    >>> unit_keys(None, [[], []])
    [None, None]
    >>> unit_keys(None, [{"calls": [], "group": "a"}, []])
    Traceback (most recent call last):
    ...
    ValueError: references[1]: has no "group" while references[0] has one: every reference has a group or none does
    """
    references = list(references)
    if groups is not None:
        groups = list(groups)
        if len(groups) != len(references):
            raise ValueError(f"groups: {len(groups)} entries for {len(references)} examples; give one per example")
        return [check_group(g, f"groups[{i}]") for i, g in enumerate(groups)]
    keys = [reference_group(r, i) for i, r in enumerate(references)]
    given = [i for i, k in enumerate(keys) if k is not None]
    if given and len(given) < len(keys):
        missing = next(i for i, k in enumerate(keys) if k is None)
        raise ValueError(f'references[{missing}]: has no "group" while references[{given[0]}] has one: '
                         "every reference has a group or none does")
    return keys


_BLANK = " \t\r\n\ufeff"  # what may stand before JSON text's first character


def _example_tools_value(raw_tools: Any, index: int | None) -> Any:
    """A reference's own ``tools``: JSON text holding a list (or an object) is that value."""
    try:
        return held_json(raw_tools)
    except DuplicateKeyError as err:
        raise ValueError(f"{_where(index)}: {err.describe('tools')}") from None


def _unwinnable(golds: Sequence[GoldCall], toolset: ToolSet) -> tuple[tuple[str, str, Any], ...]:
    """``(tool, argument, declared type)`` of every gold argument that no prediction can agree
    with: each of its accepted values breaks the type its schema declares (SPEC §3: BFCL's
    multi-turn data has ``ticket_id='ticket_001'`` for an integer). A nested answer, and a value
    too large to check, are not judged here."""
    found = []
    for gold in golds:
        tool = toolset.lookup(gold.name)
        if tool is None:
            continue
        for key, accepted in gold.arguments.items():
            param = tool.params.get(key)
            if param is None or not accepted.plain or not accepted.values:  # (only BFCL's optional marker "")
                continue
            try:
                if not any(param.check(value) for value in accepted.values):
                    found.append((tool.name, key, param.schema.get("type")))
            except ToolCallParseError:
                continue
    return tuple(found)


def _warn_unwinnable(unwinnable: Iterable[tuple[str, str, Any]], index: int | None,
                     warned: set[tuple[str, str]]) -> None:
    """A :class:`ToolCallWarning` for each unwinnable gold argument (:func:`_unwinnable`) not
    warned about yet in this computation (``warned``): the type rule still applies."""
    for tool, key, declared in unwinnable:
        if (tool, key) in warned:
            continue
        warned.add((tool, key))
        warnings.warn(f"{_where(index)}: tool {tool!r} argument {key!r}: no accepted gold value is of its declared "
                      f"type {declared!r}, so no prediction can agree with it (check the reference or the schema; "
                      "warned once per tool and argument in a computation)", ToolCallWarning, stacklevel=5)


def _reader_context(toolset: ToolSet) -> Context:
    """What the text readers need of a tool set: a plain value built from it."""
    return Context.of(toolset)


def _zip_checked(predictions: Iterator[Any], references: Iterator[Any]) -> Iterator[tuple[Any, Any]]:
    """Streamed pairs, a prediction taken before its reference; when one side runs out
    first, the rest of the other is counted for the error."""
    n = 0
    for pred in predictions:
        gold = next(references, _END)
        if gold is _END:
            raise ValueError(f"predictions and references differ in length: {n + 1 + sum(1 for _ in predictions)} vs {n}")
        yield pred, gold
        n += 1
    rest = sum(1 for _ in references)
    if rest:
        raise ValueError(f"predictions and references differ in length: {n} vs {n + rest}")


_END = object()
_UNREACHED = object()  # a turn the prediction does not reach: zero predicted calls


def _overrides_slot(given: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """The memo slot of a call's overrides: each by its content (an object that is not
    plain data, such as a callable or a template reader, by identity: the changed settings
    remembered there hold it); None when one cannot be keyed."""
    parts = []
    for name, value in given.items():
        key: Any = content_key(value, _MEMO_MAX_BYTES)
        if key is None:
            if not (callable(value) or isinstance(value, TemplateReader)):
                return None
            key = ("object", id(value))
        parts.append((name, key))
    return ("settings", *parts)
