"""verl's custom reward function: :func:`compute_score` scores one response against its gold calls.

verl (checked against verl 0.9.1) loads it from its config,
``reward.custom_reward_function.path=pkg://toolcall_f1.integrations.verl`` (or this file's path)
and ``reward.custom_reward_function.name=compute_score``, wraps it so that
``reward.custom_reward_function.reward_kwargs`` are added to every call
(``verl/trainer/ppo/reward.py``, ``get_custom_reward_fn``), and its reward managers call it
once per response (``verl/experimental/reward_loop/reward_manager/naive.py``)::

    compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=..., **reward_kwargs)

``ground_truth`` is the dataset's ``reward_model.ground_truth`` (the gold calls, best as JSON
text in the Parquet file), ``extra_info`` its ``extra_info`` (``extra_info["tools"]``: the
example's tool schemas). The dict returned holds ``score`` (the reward) and the components of
:data:`toolcall_f1.rewards.COMPONENTS`, which verl gathers as ``reward_extra_info`` and logs;
every call returns the same keys (verl takes them from the first response of a batch).

The reward is :class:`~toolcall_f1.rewards.ToolCallReward`'s (``reward_kwargs`` are its
settings), so a verl run, a TRL run and ``compute()`` score alike. This module never imports verl;
its imports are absolute, so verl may also load it by file path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolcall_f1.values import content_key
from toolcall_f1.rewards import ToolCallReward, components

__all__ = ["VERL_KWARGS", "VerlReward", "compute_score"]

#: What verl's reward managers pass beside the four arguments when a reward router is set up;
#: not settings, so they are left out.
VERL_KWARGS = ("reward_router_address", "reward_model_tokenizer")


class VerlReward:
    """verl's ``compute_score``: one response's reward and its components, as a dict.

    Each distinct set of settings builds its :class:`~toolcall_f1.rewards.ToolCallReward`
    once (kept by this object), so its compiled schemas are reused from call to call.

    Examples
    --------
    >>> score = VerlReward()
    >>> out = score("toolcalls", '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>', '[{"name": "f", "arguments": {"x": 1}}]')
    >>> out["score"], out["precision"], out["parse_error_rate"]
    (1.0, 1.0, 0.0)
    """

    def __init__(self) -> None:
        self._rewards: dict[bytes, ToolCallReward] = {}

    def __call__(
        self, data_source: Any, solution_str: str, ground_truth: Any, extra_info: Mapping[str, Any] | None = None,
        **settings: Any,
    ) -> dict[str, float]:
        """Score ``solution_str`` against ``ground_truth``: ``{"score": reward, <components>}``.

        Parameters
        ----------
        data_source
            The example's ``data_source`` (not read: one reward for every source).
        solution_str
            The decoded response.
        ground_truth
            The gold calls: JSON text (what a Parquet column of strings holds), any reference
            shape of ``compute()``, or ``{"calls": [...], "tools": [...]}``; ``[]`` where no
            call is expected.
        extra_info
            The example's ``extra_info``; its ``"tools"`` (a list of schemas, or its JSON), when
            present, are the example's tools.
        **settings
            ``reward_kwargs``: :class:`~toolcall_f1.rewards.ToolCallReward`'s settings
            (``level``, ``reward``, ``parse_error_reward``, ``tools``, ``weights``, ...); verl's
            own :data:`VERL_KWARGS` are ignored.

        Returns
        -------
        dict[str, float]
            ``score``: by default the example's call-level F1, ``ToolCallMetric()(solution_str,
            ground_truth).f1``, except that a response whose calls cannot be read earns
            ``parse_error_reward`` (0.0), also where no call was expected (its F1 would be 1.0).
            Then each of :data:`~toolcall_f1.rewards.COMPONENTS` for this response.

        Raises
        ------
        ValueError
            For a reference that is missing or cannot be read, tools that are not schemas, or
            a bad setting; ``TypeError`` for a keyword that is no setting.

        Examples
        --------
        >>> out = compute_score("bfcl", "[get_weather(city='Paris'), get_time()]", "[get_weather(city='Paris')]")
        >>> out["score"], out["extra_calls"], out["exact_match"]
        (0.6666666666666666, 1.0, 0.0)
        >>> compute_score("bfcl", "[f()]", "[f()]", None, reward="exact", level="arg")["score"]
        1.0
        >>> compute_score("bfcl", "[f()]", None)
        Traceback (most recent call last):
        ...
        ValueError: ToolCallReward: column 'ground_truth', row 0: the reference is missing (None); write [] for an example where no call is expected
        """
        for key in VERL_KWARGS:
            settings.pop(key, None)
        reward = self.reward({key: _plain(value) for key, value in settings.items()})
        tools = extra_info.get("tools") if isinstance(extra_info, Mapping) else None
        (value,), (score,) = reward.judge([solution_str], [ground_truth], None if tools is None else [tools])
        return {"score": value, **components([score])}

    def reward(self, settings: Mapping[str, Any]) -> ToolCallReward:
        """The :class:`~toolcall_f1.rewards.ToolCallReward` of these settings (built once per
        distinct settings that are plain data).

        Raises
        ------
        ValueError, TypeError
            As :class:`~toolcall_f1.rewards.ToolCallReward` does.

        Examples
        --------
        >>> score = VerlReward()
        >>> score.reward({"level": "arg"}) is score.reward({"level": "arg"})
        True
        >>> score.reward({"levle": "arg"})
        Traceback (most recent call last):
        ...
        TypeError: ToolCallReward() got an unexpected keyword argument 'levle'; did you mean 'level'?
        """
        key = content_key(sorted(settings.items()))
        known = self._rewards.get(key) if key is not None else None
        if known is None:
            known = ToolCallReward(**{"reference_column": "ground_truth", **settings})  # errors name it
            if key is not None:
                self._rewards[key] = known
        return known


def _plain(value: Any) -> Any:
    """A setting as plain data: an OmegaConf list or mapping (what verl's Hydra config makes of
    ``reward_kwargs.tools`` or ``.weights``) as lists and dicts; anything else as it is."""
    if type(value).__module__.split(".")[0] != "omegaconf":
        return value
    from omegaconf import OmegaConf  # a verl dependency: present wherever such a value is

    return OmegaConf.to_container(value, resolve=True)


#: The function to name in verl's config (``custom_reward_function.name=compute_score``).
compute_score = VerlReward()
