"""inspect_ai: a tool-call scorer whose metrics micro-average the counts of its scores.

:func:`tool_call_f1` is an ``@scorer``: it reads the sample's assistant messages as the core
reads message dicts (the whole trajectory, in order: each ``ToolCall``'s ``function`` and
``arguments``, or the text of a message without tool calls read as model output; under
``order="turns"`` one entry per user turn, :func:`trajectory`), scores them against the sample's gold calls with :class:`~toolcall_f1.ToolCallMetric`'s one
stream, and returns a ``Score`` whose value holds that sample's weighted counts
(``{"tp", "fp", "fn", "exact"}``). Its metrics :func:`f1`, :func:`precision`, :func:`recall`
and :func:`exact_match` sum those counts over the samples and divide once: the number
``ToolCallMetric(**settings).compute(...)`` gives for the same calls, never a mean of
per-sample F1.

The metrics take every epoch's score (``@metric(scores="unreduced")``): with ``epochs=k`` each
sample's k answers are k examples, as ``compute()`` over all of them counts them (a reducer
would reduce tp, fp and fn one by one, which ``max`` or ``mode`` would make meaningless).

This module imports ``inspect_ai``: ``pip install toolcall_f1[inspect]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import TaskState

from .. import Counts, Settings, ToolCallMetric, ToolCallParseError, prf

__all__ = ["COUNT_KEYS", "assistant_message", "exact_match", "f1", "gold_reference", "micro_scores", "precision",
           "recall", "tool_call_f1", "trajectory"]

#: The keys of a :func:`tool_call_f1` score's value: the sample's weighted counts and whether it
#: is exact (1.0 or 0.0).
COUNT_KEYS = ("tp", "fp", "fn", "exact")


def assistant_message(message: Any) -> dict[str, Any] | ToolCallParseError:
    """An inspect_ai assistant message as the message dict the core reads (SPEC §2, Messages):
    ``{"role": "assistant", "content": its text, "tool_calls": [{"name", "arguments"}, ...]}``
    — so a message without tool calls has its text read as model output, as ``compute()`` reads
    the same dict.

    A ``ToolCall`` inspect_ai could not parse (its ``parse_error`` is set) makes the message
    unreadable, as unreadable text is (SPEC §8: counted as a parse error, scored as no calls):
    the error is returned in place of the message.

    Parameters
    ----------
    message
        A ``ChatMessageAssistant``.

    Returns
    -------
    dict, or ToolCallParseError

    Examples
    --------
    >>> from inspect_ai.model import ChatMessageAssistant
    >>> from inspect_ai.tool import ToolCall
    >>> assistant_message(ChatMessageAssistant(content="", tool_calls=[ToolCall(id="1", function="f", arguments={"x": 1})]))
    {'role': 'assistant', 'content': '', 'tool_calls': [{'name': 'f', 'arguments': {'x': 1}}]}
    >>> assistant_message(ChatMessageAssistant(content="", tool_calls=[
    ...     ToolCall(id="1", function="f", arguments={}, parse_error="bad JSON")]))
    ToolCallParseError("inspect_ai: tool call 'f' could not be parsed: bad JSON")
    """
    calls: list[dict[str, Any]] = []
    for call in getattr(message, "tool_calls", None) or ():
        if call.parse_error is not None:
            return ToolCallParseError(f"tool call {call.function!r} could not be parsed: {call.parse_error}",
                                      format="inspect_ai")
        calls.append({"name": call.function, "arguments": call.arguments})
    return {"role": "assistant", "content": message.text, "tool_calls": calls}


def trajectory(messages: Iterable[Any], order: str = "any") -> Any:
    """The prediction of a conversation, as :class:`~toolcall_f1.ToolCallMetric` reads it: its
    assistant messages (:func:`assistant_message`; other roles — user, system, tool results —
    are never read).

    Under ``order="any"`` or ``"strict"`` it is the list of every assistant message, in order
    (their calls are the calls of the whole trajectory), or the parse error of the first one that
    cannot be read. Under ``order="turns"`` it is one entry per user turn (SPEC §5b): a user
    message that comes after an assistant message starts a new turn, and each entry is the list
    of the assistant messages of its turn (the model's replies and tool-call rounds up to the
    next user turn), or the parse error of the first of them that cannot be read (that turn
    cannot be read). Consecutive user messages are one turn; assistant messages before the
    first user message belong to the first turn.

    Parameters
    ----------
    messages
        ``ChatMessage`` objects (``state.messages``).
    order
        The metric's ``order`` setting.

    Returns
    -------
    list of message dicts, or ToolCallParseError; under ``"turns"`` a list of those, one per turn

    Examples
    --------
    >>> from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser
    >>> from inspect_ai.tool import ToolCall
    >>> chat = [ChatMessageUser(content="hi"),
    ...         ChatMessageAssistant(content="", tool_calls=[ToolCall(id="1", function="f", arguments={})]),
    ...         ChatMessageTool(content="ok", tool_call_id="1"), ChatMessageAssistant(content="[g()]"),
    ...         ChatMessageUser(content="and?"), ChatMessageAssistant(content="no call")]
    >>> [m["content"] for m in trajectory(chat)]
    ['', '[g()]', 'no call']
    >>> [[m["content"] for m in turn] for turn in trajectory(chat, order="turns")]
    [['', '[g()]'], ['no call']]
    """
    if order != "turns":
        flat = [assistant_message(m) for m in messages if getattr(m, "role", None) == "assistant"]
        return next((m for m in flat if isinstance(m, ToolCallParseError)), flat)
    turns: list[list[dict[str, Any] | ToolCallParseError]] = [[]]
    for message in messages:
        role = getattr(message, "role", None)
        if role == "user" and turns[-1]:
            turns.append([])
        elif role == "assistant":
            turns[-1].append(assistant_message(message))
    return [next((m for m in turn if isinstance(m, ToolCallParseError)), turn) for turn in turns]


def gold_reference(target: Target, metadata: Mapping[str, Any] | None) -> Any:
    """A sample's reference: ``metadata["reference"]`` when the sample has one (any reference
    shape, structured or text), else the target's text (JSON text of the calls, or of a
    ``{"calls", "tools"}`` object).

    Raises
    ------
    ValueError
        For a sample with neither (an empty target is no gold, not "no call": write ``[]``).

    Examples
    --------
    >>> gold_reference(Target('[{"name": "f", "arguments": {}}]'), {})
    '[{"name": "f", "arguments": {}}]'
    >>> gold_reference(Target(""), {"reference": [("f", {})]})
    [('f', {})]
    >>> gold_reference(Target(""), None)
    Traceback (most recent call last):
    ...
    ValueError: no gold calls: give the sample a target (JSON text of the calls, or of {"calls": ..., "tools": ...}) or metadata["reference"]; write [] where no call is expected
    """
    if metadata and "reference" in metadata:
        return metadata["reference"]
    text = target.text
    if text.strip():
        return text
    raise ValueError('no gold calls: give the sample a target (JSON text of the calls, or of {"calls": ..., '
                     '"tools": ...}) or metadata["reference"]; write [] where no call is expected')


def micro_scores(scores: list[SampleScore]) -> dict[str, float]:
    """The corpus numbers of :func:`tool_call_f1` scores: their weighted counts summed exactly
    (as :class:`~toolcall_f1.Tally` sums them), divided once; ``exact_match`` the share of
    exact samples. What the metrics :func:`f1`, :func:`precision`, :func:`recall` and
    :func:`exact_match` report.

    Raises
    ------
    ValueError
        For a score whose value does not hold :data:`COUNT_KEYS` (another scorer's), naming
        the sample.

    Examples
    --------
    >>> scores = [SampleScore(score=Score(value={"tp": 1.0, "fp": 0.0, "fn": 0.0, "exact": 1.0})),
    ...           SampleScore(score=Score(value={"tp": 0.0, "fp": 0.0, "fn": 1.0, "exact": 0.0}))]
    >>> {k: round(v, 4) for k, v in micro_scores(scores).items()}  # the mean of per-sample F1 would be 0.5
    {'f1': 0.6667, 'precision': 1.0, 'recall': 0.5, 'exact_match': 0.5}
    >>> round(f1()(scores), 4), exact_match()(scores)
    (0.6667, 0.5)
    >>> f1()([SampleScore(score=Score(value=1.0), sample_id=7)])
    Traceback (most recent call last):
    ...
    ValueError: sample 7: expected a score whose value holds tp, fp, fn, exact (from toolcall_f1's tool_call_f1() scorer), got 1.0
    """
    values: list[Mapping[str, Any]] = []
    for sample in scores:
        value = sample.score.value
        if not (isinstance(value, Mapping) and all(k in value for k in COUNT_KEYS)):
            raise ValueError(f"sample {sample.sample_id!r}: expected a score whose value holds "
                             f"{', '.join(COUNT_KEYS)} (from toolcall_f1's tool_call_f1() scorer), got {value!r}")
        values.append(value)
    counts = Counts.total(Counts(v["tp"], v["fp"], v["fn"]) for v in values)
    p, r, f = prf(counts.tp, counts.fp, counts.fn)
    exact = sum(float(v["exact"]) for v in values) / len(values) if values else 0.0
    return {"f1": f, "precision": p, "recall": r, "exact_match": exact}


@metric(scores="unreduced")
def f1() -> Metric:
    """Micro-averaged F1 over the samples: their weighted counts summed, then divided once (:func:`micro_scores`)."""

    def compute(scores: list[SampleScore]) -> float:
        return micro_scores(scores)["f1"]

    return compute


@metric(scores="unreduced")
def precision() -> Metric:
    """Micro-averaged precision over the samples (:func:`micro_scores`)."""

    def compute(scores: list[SampleScore]) -> float:
        return micro_scores(scores)["precision"]

    return compute


@metric(scores="unreduced")
def recall() -> Metric:
    """Micro-averaged recall over the samples (:func:`micro_scores`)."""

    def compute(scores: list[SampleScore]) -> float:
        return micro_scores(scores)["recall"]

    return compute


@metric(scores="unreduced")
def exact_match() -> Metric:
    """The share of samples whose calls are exactly the gold calls (SPEC §8; :func:`micro_scores`)."""

    def compute(scores: list[SampleScore]) -> float:
        return micro_scores(scores)["exact_match"]

    return compute


@scorer(metrics=[f1(), precision(), recall(), exact_match()])
def tool_call_f1(**settings: Any) -> Any:
    """A scorer of the sample's tool calls against its gold calls (BFCL-style judging,
    cost-weighted counts), with micro-averaged metrics.

    Parameters
    ----------
    **settings
        Any field of :class:`~toolcall_f1.Settings` (``level``, ``matching``, ``order``,
        ``tools``, ``weights``, canonicalizers, ``reference_format``...): the metric is
        ``ToolCallMetric.from_settings(Settings(**settings))``.

    Returns
    -------
    Scorer
        Scores each sample: its assistant messages (:func:`trajectory`: their tool calls, or the
        text of one without tool calls read as model output; one entry per user turn under
        ``order="turns"``) against :func:`gold_reference`. The score's value holds
        :data:`COUNT_KEYS`; its ``answer`` that prediction as JSON, its ``metadata`` the parse error (or None) and the
        counts of hallucinated tools and arguments.

    Raises
    ------
    TypeError, ValueError
        For a setting that is not a field, or a value it does not take (when the scorer is
        made); ``ValueError`` naming the sample for a reference that cannot be read.

    Examples
    --------
    >>> tool_call_f1(level="arg")  # doctest: +ELLIPSIS
    <function tool_call_f1.<locals>.score at ...>
    >>> tool_call_f1(levle="arg")
    Traceback (most recent call last):
    ...
    TypeError: Settings.replace() got an unexpected keyword argument 'levle'; did you mean 'level'?
    """
    tool_metric = ToolCallMetric.from_settings(Settings().replace(**settings))

    async def score(state: TaskState, target: Target) -> Score:
        prediction = trajectory(state.messages, tool_metric.settings.order)
        reference = gold_reference(target, state.metadata)
        try:
            result = next(tool_metric.scores([prediction], [reference], details=False))
        except (ValueError, TypeError) as err:
            raise ValueError(f"sample {state.sample_id!r}: {err}") from err
        value = {"tp": result.tp, "fp": result.fp, "fn": result.fn, "exact": 1.0 if result.exact else 0.0}
        answer = json.dumps(prediction, default=str)
        return Score(value=value, answer=answer,
                     explanation=f"tp={result.tp:g} fp={result.fp:g} fn={result.fn:g}"
                                 + ("" if result.parse_error is None else f"; {result.parse_error}"),
                     metadata={"parse_error": result.parse_error, "hallucinated_tools": result.hallucinated_tools,
                               "hallucinated_args": result.hallucinated_args})

    return score
