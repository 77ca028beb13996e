"""The toolcall_f1 judge as a reward function for TRL's ``GRPOTrainer``.

:class:`ToolCallReward` scores each sampled completion against its example's gold calls with
the same reading, judging and weights as :class:`~toolcall_f1.ToolCallMetric`, so training
and evaluation agree. It is called the way TRL calls reward functions::

    reward(prompts=[...], completions=[...], completion_ids=[...], **dataset_columns) -> list[float]

where every dataset column other than ``prompt`` comes in as a list with one entry per
completion (TRL repeats each row ``num_generations`` times, consecutively), beside TRL's own
``trainer_state``, ``log_extra`` and ``log_metric``.

This module is an edge of the package: it never imports ``trl`` (or torch), so
``import toolcall_f1.rewards`` works without them; ``pip install toolcall_f1[rl]`` adds TRL.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from . import ArgumentRuleError, ArgumentRuleTypeError, Score, Settings, Tally, ToolCallMetric
from .values import content_key, loads_strict
from .settings import check_choice, keyword_error

__all__ = ["COMPONENTS", "SCORES", "ToolCallReward", "components"]

#: The per-completion numbers a reward can be: the example's F1, precision, recall (weighted,
#: at the chosen level), or 1.0/0.0 for an exact example (weights do not enter it): Nemotron
#: Tool-N1's binary reward, where ``"f1"`` is ToolRL's partial credit.
SCORES = ("f1", "exact", "precision", "recall")

#: What a reward logs beside its value (:func:`components`), so that reward hacking shows: F1,
#: precision and recall micro-averaged over the completions, and per completion the share that
#: was exactly right or could not be read, and the mean number of extra (unpaired) calls and of
#: calls to undeclared tools and undeclared arguments.
COMPONENTS = ("f1", "precision", "recall", "exact_match", "parse_error_rate", "extra_calls",
              "hallucinated_tools", "hallucinated_args")

#: The tools column read when present; any other name given must be in the dataset.
DEFAULT_TOOLS_COLUMN = "tools"

# The completion's messages that hold what the model wrote.
_ASSISTANT = "assistant"

_READERS: dict[str, Callable[[Score], float]] = {
    "f1": lambda s: s.f1,
    "exact": lambda s: 1.0 if s.exact else 0.0,
    "precision": lambda s: s.precision,
    "recall": lambda s: s.recall,
}


class ToolCallReward:
    """A GRPO reward: each completion's tool-call score against its example's gold calls.

    Parameters
    ----------
    level
        ``"call"`` (default: a call counts only when exactly right) or ``"arg"`` (partial
        credit per argument), as in :class:`~toolcall_f1.ToolCallMetric`.
    reward
        What each completion earns: ``"f1"`` (default; partial credit, as ToolRL), ``"exact"``
        (Nemotron Tool-N1's binary reward: 1.0 when every gold call is paired exactly and
        nothing else is called, else 0.0), ``"precision"`` or ``"recall"``. Weights apply to
        all but ``"exact"``.
    reference_column
        The dataset column holding each example's gold calls, in any reference shape the
        metric accepts: calls, a JSON or Python-syntax string, ``{"calls": ..., "tools":
        [...]}``, or BFCL possible answers with ``reference_format="bfcl"``. ``[]`` means no
        call is expected; a missing value (``None``) is an error, and so is text with no call
        in it, as in ``compute()``. A column of target replies (a text answer or a call) is
        read as replies when each is an assistant message, ``{"role": "assistant",
        "content": text}`` (prose there expects no call), as the Trainer helper reads labels.
    tools_column
        The dataset column holding each example's tool schemas (TRL tool datasets' ``tools``
        column): a list of schemas (dicts or JSON strings), one JSON string of that list, or
        ``None`` for none. They apply on top of the constructor's ``tools``. The default,
        ``"tools"``, is read when the dataset has it; any other name must be present.
    score
        ``reward``'s former name: give one of the two.
    parse_error_reward
        What a completion earns when its tool calls cannot be read (broken JSON in a
        ``<tool_call>`` block, a cut-off call, ...). Default 0.0.
    name
        The reward's ``__name__``, under which TRL logs it (``rewards/<name>/mean``).
        Default ``"toolcall_<level>_<reward>"``.
    **metric_settings
        The other fields of :class:`~toolcall_f1.Settings`, the metric's settings: ``tools``,
        ``weights``, ``rules`` (argument rules, SPEC §6b), ``canonicalizer``, ``matching``, ``name_canonicalizer``,
        ``prediction_format``, ``reference_format``.

    Rules, per completion: a completion that cannot be read earns ``parse_error_reward``;
    otherwise its score at ``level`` (nothing expected and nothing called earns 1.0; calling
    when nothing is expected earns 0.0, unless every such call has weight 0). A standard
    completion is text; a conversational one is a list of messages, and all its assistant
    messages are read together, in order: a message's calls are its ``tool_calls`` when it has
    any, else those written in its ``content`` (any supported format). Tool results and other
    roles are never read. With ``order="turns"`` (a reference ``{"turns": [...]}``) a completion
    is the list of per-turn outputs (or JSON text of it), read as ``compute()`` reads it; a
    conversational completion (a list of messages, each with a ``role``) gives one entry per
    assistant message, in order (SPEC §5b) — tool results and other roles are never entries.

    With ``log_metric`` (TRL ≥ 1.x passes it), each call also logs :data:`COMPONENTS` over its
    batch as ``<name>/<component>`` (:func:`components`): ``parse_error_rate``, the fraction
    that could not be read; ``extra_calls``, ``hallucinated_tools``, ``hallucinated_args``,
    means per completion; micro ``precision``, ``recall``, ``f1``; ``exact_match``. A policy
    that inflates its calls shows as falling precision and rising ``extra_calls``, one that
    games the format as a rising ``parse_error_rate``.

    The reward pickles (its settings, rebuilt on loading). Within one call, completions
    identical in text, reference and tools are scored once, and each distinct tools value
    is decoded once; the compiled schemas are the metric's own (cached by content).

    Raises
    ------
    ValueError
        For an unknown ``reward`` or metric setting, ``reward`` and ``score`` both given and
        different, a non-finite ``parse_error_reward``, or ``on_parse_error`` (a reward counts
        parse errors; it never raises on them).
    TypeError
        For a keyword that is no setting (naming the nearest one).

    Examples
    --------
    >>> reward = ToolCallReward()
    >>> reward.__name__
    'toolcall_call_f1'
    >>> reward(
    ...     prompts=["Weather in Paris?"] * 3,
    ...     completions=["[get_weather(city='Paris')]", "[get_weather(city='Rome')]", "[get_weather("],
    ...     completion_ids=[[1], [2], [3]],
    ...     reference=[[{"name": "get_weather", "arguments": {"city": "Paris"}}]] * 3,
    ... )
    [1.0, 0.0, 0.0]
    >>> ToolCallReward(reward="exact")(prompts=["p"] * 2, completions=["[f(x=1)]", "[f(x=1), g()]"],
    ...                                reference=["[f(x=1)]"] * 2)
    [1.0, 0.0]
    >>> ToolCallReward(reward="bleu")
    Traceback (most recent call last):
    ...
    ValueError: reward: unknown value 'bleu'; expected one of 'f1', 'exact', 'precision', 'recall'
    """

    __name__: str  # set per instance: the name TRL logs the reward under

    def __init__(
        self,
        level: str = "call",
        reward: str = "f1",
        *,
        reference_column: str = "reference",
        tools_column: str | None = DEFAULT_TOOLS_COLUMN,
        parse_error_reward: float = 0.0,
        name: str | None = None,
        score: str | None = None,
        **metric_settings: Any,
    ) -> None:
        if score is not None:  # the former name
            if reward not in ("f1", score):
                raise ValueError(f"reward={reward!r} and score={score!r}: score is reward's former name; give one")
            reward = score
        check_choice(reward, SCORES, "reward" if score is None else "score")
        for key in metric_settings:
            if key not in Settings.names():
                raise keyword_error("ToolCallReward()", key, Settings.names())
        if "on_parse_error" in metric_settings:
            raise ValueError(
                "on_parse_error: not a reward setting; a completion that cannot be read earns "
                "parse_error_reward"
            )
        for what, column in (("reference_column", reference_column), ("tools_column", tools_column)):
            if not (isinstance(column, str) and column) and not (what == "tools_column" and column is None):
                raise ValueError(f"{what}: expected a column name, got {column!r}")
        if isinstance(parse_error_reward, bool) or not isinstance(parse_error_reward, (int, float)) \
                or not math.isfinite(parse_error_reward):
            raise ValueError(f"parse_error_reward: expected a finite number, got {parse_error_reward!r}")
        self.level = level
        self.reward = reward
        self.reference_column = reference_column
        self.tools_column = tools_column
        self.parse_error_reward = float(parse_error_reward)
        self.metric_settings = dict(metric_settings)
        self.metric = ToolCallMetric.from_settings(Settings(level=level, **metric_settings))
        self.__name__ = name if name is not None else f"toolcall_{level}_{reward}"

    # -- pickling: the settings, not the compiled metric ----------------------------------

    def __getstate__(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "reward": self.reward,
            "reference_column": self.reference_column,
            "tools_column": self.tools_column,
            "parse_error_reward": self.parse_error_reward,
            "name": self.__name__,
            "metric_settings": self.metric_settings,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        settings = state.pop("metric_settings")
        self.__init__(**state, **settings)  # type: ignore[misc]

    def __repr__(self) -> str:
        return (
            f"ToolCallReward(level={self.level!r}, reward={self.reward!r}, name={self.__name__!r}, "
            f"reference_column={self.reference_column!r}, tools_column={self.tools_column!r})"
        )

    # -- the TRL protocol -------------------------------------------------------------------

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[float]:
        """One reward per completion, in order.

        Parameters
        ----------
        prompts
            The prompts (used only to name a row in error messages).
        completions
            Text, or lists of messages (conversational), one per completion.
        completion_ids
            Ignored (TRL passes the token ids).
        **kwargs
            The dataset's columns, one entry per completion (``reference_column`` required,
            ``tools_column`` read when present), and TRL's ``log_metric`` (used) and
            ``trainer_state``, ``log_extra`` (ignored).

        Returns
        -------
        list[float]
            One reward per completion.

        Raises
        ------
        ValueError
            For a missing column or one of the wrong length, a reference that cannot be read,
            or tools that are not schemas — naming the column and the row.
        TypeError
            For a completion that is neither text nor a list of messages.

        Examples
        --------
        >>> reward = ToolCallReward("arg")
        >>> reward(prompts=["p", "p"], completions=["[f(x=1, y=2)]", "[]"],
        ...        reference=["[f(x=1, y=3)]"] * 2)
        [0.6666666666666666, 0.0]
        >>> reward(prompts=["p"], completions=["[f(x=1)]"], answer=["[f(x=1)]"])
        Traceback (most recent call last):
        ...
        ValueError: ToolCallReward: column 'reference' is not among the columns passed to the reward (answer); set reference_column= to the dataset column to read
        """
        if completions is None:
            raise TypeError("ToolCallReward: completions= is required (TRL passes it)")
        n = len(completions)
        references = self._column(self.reference_column, kwargs, n, setting="reference_column")
        tools = self._tools_column(kwargs, n)
        rewards, scores = self.judge(completions, references, tools, prompts)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and n:
            for key, value in components(scores).items():
                log_metric(f"{self.__name__}/{key}", value)
        return rewards

    def judge(
        self, completions: Sequence[Any], references: Sequence[Any], tools: Sequence[Any] | None = None,
        prompts: Sequence[Any] | None = None,
    ) -> tuple[list[float], list[Score]]:
        """Each completion's reward and the :class:`~toolcall_f1.Score` it came from: what
        :meth:`__call__` returns and logs, and what the verl and OpenRLHF integrations report.

        Parameters
        ----------
        completions
            Text, or lists of messages (conversational), one per completion.
        references
            One reference per completion (any shape the reward's ``reference_column`` takes).
        tools
            One tools value per completion (as the ``tools_column`` takes them), or None.
        prompts
            Used only to name a row in error messages.

        Returns
        -------
        tuple[list[float], list[Score]]
            The rewards and the scores, in order; rows identical in completion, reference and
            tools are scored once (and share their score).

        Raises
        ------
        ValueError, TypeError
            As :meth:`__call__` does.

        Examples
        --------
        >>> rewards, scores = ToolCallReward().judge(["[f(x=1), g()]", "[f("], ["[f(x=1)]"] * 2)
        >>> rewards, [(s.tp, s.fp, s.fn) for s in scores], scores[1].parse_error is not None
        ([0.6666666666666666, 0.0], [(1.0, 1.0, 0.0), (0.0, 0.0, 1.0)], True)
        >>> ToolCallReward().judge(["[f()]"], [None])
        Traceback (most recent call last):
        ...
        ValueError: ToolCallReward: column 'reference', row 0: the reference is missing (None); write [] for an example where no call is expected
        """
        if len(references) != len(completions) or (tools is not None and len(tools) != len(completions)):
            raise ValueError(f"ToolCallReward.judge: expected one reference (and tools value) per completion "
                             f"({len(completions)}), got {len(references)}"
                             + ("" if tools is None else f" (and {len(tools)})"))
        rewards: list[float] = []
        scores: list[Score] = []
        decoded_tools: dict[Any, list[Mapping[str, Any]] | None] = {}
        done: dict[tuple[bytes | None, ...], tuple[float, Score]] = {}
        turns = self.metric.order == "turns"  # a completion: one entry per turn, as the metric reads it
        for row, completion in enumerate(completions):
            prediction = self._turn_entries(completion) if turns else self._prediction(completion, row)
            raw_tools = None if tools is None else tools[row]
            row_tools = None if raw_tools is None else self._tools(raw_tools, decoded_tools, row, prompts)
            key = _content_key(prediction, references[row], raw_tools)
            hit = done.get(key) if key is not None else None
            if hit is None:
                hit = self._reward(prediction, references[row], row_tools, row, prompts)
                if key is not None:
                    done[key] = hit
            rewards.append(hit[0])
            scores.append(hit[1])
        return rewards, scores

    # -- one completion -------------------------------------------------------------------

    def _reward(
        self, prediction: Any, reference: Any, tools: list[Mapping[str, Any]] | None, row: int,
        prompts: Sequence[Any] | None,
    ) -> tuple[float, Score]:
        """(reward, score) for one completion."""
        if reference is None:
            raise ValueError(
                f"ToolCallReward: column {self.reference_column!r}, {_where(row, prompts)}: the reference "
                "is missing (None); write [] for an example where no call is expected"
            )
        try:
            s = self.metric(prediction, reference, tools=tools, details=False)
        except (ArgumentRuleError, ArgumentRuleTypeError) as err:  # a rule (SPEC §6b), not the reference column
            raise err.located(f"ToolCallReward: {_where(row, prompts)}") from err.__cause__
        except ValueError as err:  # the reference (a prediction's parse error is counted)
            raise ValueError(
                f"ToolCallReward: column {self.reference_column!r}, {_where(row, prompts)}: {err}"
            ) from None
        if s.parse_error is not None:
            return self.parse_error_reward, s
        return _READERS[self.reward](s), s

    @staticmethod
    def _prediction(completion: Any, row: int) -> Any:
        """A completion as the metric reads it: text, or the assistant messages' calls."""
        if isinstance(completion, str):
            return completion
        if not isinstance(completion, (list, tuple)):
            raise TypeError(
                f"ToolCallReward: completions[{row}]: expected text or a list of messages, "
                f"got {type(completion).__name__}"
            )
        messages = []
        for j, message in enumerate(completion):
            if not isinstance(message, Mapping) or "role" not in message:
                raise TypeError(
                    f"ToolCallReward: completions[{row}][{j}]: expected a message with a 'role', "
                    f"got {type(message).__name__}"
                )
            if message["role"] == _ASSISTANT:
                messages.append(_assistant_message(message))
        return messages

    @staticmethod
    def _turn_entries(completion: Any) -> Any:
        """A completion under ``order="turns"``: a list of messages gives one entry per assistant
        message (tool results and other roles are no turn); any other completion is the entries."""
        if (isinstance(completion, (list, tuple)) and completion
                and all(isinstance(m, Mapping) and "role" in m for m in completion)):
            return [_assistant_message(m) for m in completion if m["role"] == _ASSISTANT]
        return completion

    # -- columns ----------------------------------------------------------------------------

    @staticmethod
    def _column(name: str, kwargs: Mapping[str, Any], n: int, *, setting: str) -> Sequence[Any]:
        """The dataset column ``name``: one value per completion."""
        if name not in kwargs:
            columns = ", ".join(sorted(k for k in kwargs if k not in _TRL_KWARGS)) or "none"
            raise ValueError(
                f"ToolCallReward: column {name!r} is not among the columns passed to the reward "
                f"({columns}); set {setting}= to the dataset column to read"
            )
        values = kwargs[name]
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or len(values) != n:
            got = f"{len(values)} values" if hasattr(values, "__len__") else type(values).__name__
            raise ValueError(f"ToolCallReward: column {name!r}: expected one value per completion ({n}), got {got}")
        return values

    def _tools_column(self, kwargs: Mapping[str, Any], n: int) -> Sequence[Any] | None:
        """The tools column, or None: when ``tools_column`` is None, or it is the default
        name and the dataset has no such column."""
        name = self.tools_column
        if name is None or (name == DEFAULT_TOOLS_COLUMN and name not in kwargs):
            return None
        return self._column(name, kwargs, n, setting="tools_column")

    def _tools(
        self, value: Any, decoded: dict[Any, list[Mapping[str, Any]] | None], row: int,
        prompts: Sequence[Any] | None,
    ) -> list[Mapping[str, Any]] | None:
        """One row's tools cell → a list of schemas or None; each distinct value read once."""
        key = value if isinstance(value, str) else content_key(value)
        if key is not None and key in decoded:
            return decoded[key]
        where = f"ToolCallReward: column {self.tools_column!r}, {_where(row, prompts)}"
        schemas = _read_tools(value, where)
        if schemas:
            try:  # a malformed schema: name the column and row, not only the tool
                ToolCallMetric.from_settings(Settings(tools=schemas))
            except ValueError as err:
                raise ValueError(f"{where}: {err}") from None
        if key is not None:
            decoded[key] = schemas
        return schemas



# TRL's own keyword arguments, which are not dataset columns.
_TRL_KWARGS = frozenset({"trainer_state", "log_extra", "log_metric", "environments"})


def components(scores: Iterable[Score]) -> dict[str, float]:
    """What a batch of completions' scores show beside their rewards: :data:`COMPONENTS`,
    read from their :class:`~toolcall_f1.Tally` (F1, precision and recall micro-averaged, as
    ``compute()`` reports them) and, for ``extra_calls``, their unpaired predicted calls.

    Parameters
    ----------
    scores
        One :class:`~toolcall_f1.Score` per completion (:meth:`ToolCallReward.judge`); one
        score gives that completion's own components.

    Returns
    -------
    dict[str, float]
        ``f1``, ``precision``, ``recall``; ``exact_match`` and ``parse_error_rate``, the
        shares of completions exactly right and unreadable; ``extra_calls``,
        ``hallucinated_tools`` and ``hallucinated_args``, means per completion.

    Raises
    ------
    EmptyCorpusError
        A ``ValueError``, for no scores.

    Examples
    --------
    >>> from toolcall_f1 import ToolCallMetric
    >>> m = ToolCallMetric(tools=[{"name": "f", "parameters": {"properties": {"x": {}}}}])
    >>> components([m("[f(x=1), f(x=1), g()]", "[f(x=1)]"), m("[f(", "[f(x=1)]")])
    {'f1': 0.4, 'precision': 0.3333333333333333, 'recall': 0.5, 'exact_match': 0.0, 'parse_error_rate': 0.5, 'extra_calls': 1.0, 'hallucinated_tools': 0.5, 'hallucinated_args': 0.0}
    >>> components([])
    Traceback (most recent call last):
    ...
    toolcall_f1.counting.EmptyCorpusError: nothing was added: a corpus of zero examples has no score
    """
    tally, extra = Tally(), 0
    for score in scores:
        tally.add(score)
        extra += len(score.unmatched_pred)
    result = tally.result("")
    n = result["num_examples"]
    return {
        "f1": result["f1"], "precision": result["precision"], "recall": result["recall"],
        "exact_match": result["exact_match"], "parse_error_rate": result["num_parse_errors"] / n,
        "extra_calls": extra / n, "hallucinated_tools": result["hallucinated_tools"] / n,
        "hallucinated_args": result["hallucinated_args"] / n,
    }


def _where(row: int, prompts: Sequence[Any] | None) -> str:
    """How errors name a row: its position in the batch, and the start of its prompt."""
    if prompts is None or row >= len(prompts):
        return f"row {row}"
    prompt = prompts[row]
    if isinstance(prompt, list) and prompt and isinstance(prompt[-1], Mapping):
        prompt = prompt[-1].get("content")  # conversational: the last message
    text = str(prompt)
    return f"row {row} (prompt {text[:60] + '...' if len(text) > 60 else text!r})"


def _assistant_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of an assistant message that hold its calls, read by the core's one rule (SPEC §2,
    "Messages": ``tool_calls`` when it has any, else a legacy ``function_call``, else its content)."""
    return {key: message[key] for key in ("role", "content", "tool_calls", "function_call") if key in message}


def _read_tools(value: Any, where: str) -> list[Mapping[str, Any]] | None:
    """A tools cell → a list of schema dicts (None for no schemas)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = _json(value, where)
        if value is None:
            return None
    if not isinstance(value, (list, tuple, Mapping)) and callable(getattr(value, "tolist", None)):
        value = value.tolist()  # a numpy array: a list column read back from Parquet (verl)
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{where}: expected a list of tool schemas (or its JSON), got {type(value).__name__}")
    schemas = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            item = _json(item, f"{where}, tool {i}")
        if not isinstance(item, Mapping):
            raise ValueError(f"{where}, tool {i}: expected a schema object, got {type(item).__name__}")
        schemas.append(item)
    return schemas or None


def _json(text: str, where: str) -> Any:
    """Tool schemas given as JSON text, read as the CLI reads them (a key given two values is an error)."""
    try:
        return loads_strict(text)
    except (ValueError, RecursionError) as err:  # DuplicateKeyError is a ValueError
        raise ValueError(f"{where}: invalid JSON ({err})") from None


def _content_key(prediction: Any, reference: Any, tools: Any) -> tuple[bytes | None, ...] | None:
    """A key under which two rows certainly score the same, or None (anything but plain data,
    numpy values included, is read each time, as the metric reads it)."""
    parts = tuple(map(content_key, (prediction, reference, tools)))
    return None if None in parts else parts
