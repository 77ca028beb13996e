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
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import Score, Settings, ToolCallMetric
from .plain import content_key, loads_strict
from .settings import keyword_error

__all__ = ["SCORES", "ToolCallReward"]

#: The per-completion numbers a reward can be: the example's F1, precision, recall (weighted,
#: at the chosen level), or 1.0/0.0 for an exact example (weights do not enter it).
SCORES = ("f1", "exact", "precision", "recall")

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
    score
        What each completion earns: ``"f1"`` (default), ``"exact"`` (1.0 when every gold
        call is matched exactly and nothing else is called, else 0.0), ``"precision"`` or
        ``"recall"``. Weights apply to all but ``"exact"``.
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
    parse_error_reward
        What a completion earns when its tool calls cannot be read (broken JSON in a
        ``<tool_call>`` block, a cut-off call, ...). Default 0.0.
    name
        The reward's ``__name__``, under which TRL logs it (``rewards/<name>/mean``).
        Default ``"toolcall_<level>_<score>"``.
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
    roles are never read.

    With ``log_metric`` (TRL ≥ 1.x passes it), each call also logs
    ``<name>/parse_error_rate``, the fraction of the batch that could not be read.

    The reward pickles (its settings, rebuilt on loading). Within one call, completions
    identical in text, reference and tools are scored once, and each distinct tools value
    is decoded once; the compiled schemas are the metric's own (cached by content).

    Raises
    ------
    ValueError
        For an unknown ``score`` or metric setting, a non-finite ``parse_error_reward``, or
        ``on_parse_error`` (a reward counts parse errors; it never raises on them).
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
    >>> ToolCallReward(score="bleu")
    Traceback (most recent call last):
    ...
    ValueError: score: unknown value 'bleu'; expected one of 'f1', 'exact', 'precision', 'recall'
    """

    __name__: str  # set per instance: the name TRL logs the reward under

    def __init__(
        self,
        level: str = "call",
        score: str = "f1",
        *,
        reference_column: str = "reference",
        tools_column: str | None = DEFAULT_TOOLS_COLUMN,
        parse_error_reward: float = 0.0,
        name: str | None = None,
        **metric_settings: Any,
    ) -> None:
        if score not in SCORES:
            raise ValueError(
                f"score: unknown value {score!r}; expected one of " + ", ".join(repr(s) for s in SCORES)
            )
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
        self.score = score
        self.reference_column = reference_column
        self.tools_column = tools_column
        self.parse_error_reward = float(parse_error_reward)
        self.metric_settings = dict(metric_settings)
        self.metric = ToolCallMetric.from_settings(Settings(level=level, **metric_settings))
        self.__name__ = name if name is not None else f"toolcall_{level}_{score}"

    # -- pickling: the settings, not the compiled metric ----------------------------------

    def __getstate__(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "score": self.score,
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
            f"ToolCallReward(level={self.level!r}, score={self.score!r}, name={self.__name__!r}, "
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
        rewards, parse_errors = self._rewards(completions, references, tools, prompts)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and n:
            log_metric(f"{self.__name__}/parse_error_rate", parse_errors / n)
        return rewards

    def _rewards(
        self, completions: Sequence[Any], references: Sequence[Any], tools: Sequence[Any] | None,
        prompts: Sequence[Any] | None,
    ) -> tuple[list[float], int]:
        """(one reward per completion, how many could not be read); rows identical in
        completion, reference and tools are scored once."""
        rewards: list[float] = []
        parse_errors = 0
        decoded_tools: dict[Any, list[Mapping[str, Any]] | None] = {}
        done: dict[tuple[bytes | None, ...], tuple[float, bool]] = {}
        for row, completion in enumerate(completions):
            prediction = self._prediction(completion, row)
            raw_tools = None if tools is None else tools[row]
            row_tools = None if raw_tools is None else self._tools(raw_tools, decoded_tools, row, prompts)
            key = _content_key(prediction, references[row], raw_tools)
            hit = done.get(key) if key is not None else None
            if hit is None:
                hit = self._reward(prediction, references[row], row_tools, row, prompts)
                if key is not None:
                    done[key] = hit
            rewards.append(hit[0])
            parse_errors += hit[1]
        return rewards, parse_errors

    # -- one completion -------------------------------------------------------------------

    def _reward(
        self, prediction: Any, reference: Any, tools: list[Mapping[str, Any]] | None, row: int,
        prompts: Sequence[Any] | None,
    ) -> tuple[float, bool]:
        """(reward, whether the completion failed to parse) for one completion."""
        if reference is None:
            raise ValueError(
                f"ToolCallReward: column {self.reference_column!r}, {_where(row, prompts)}: the reference "
                "is missing (None); write [] for an example where no call is expected"
            )
        try:
            s = self.metric(prediction, reference, tools=tools, details=False)
        except ValueError as err:  # the reference (a prediction's parse error is counted)
            raise ValueError(
                f"ToolCallReward: column {self.reference_column!r}, {_where(row, prompts)}: {err}"
            ) from None
        if s.parse_error is not None:
            return self.parse_error_reward, True
        return _READERS[self.score](s), False

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
