"""OpenRLHF's reward function: :data:`reward_func` scores each response against its label's gold calls.

OpenRLHF (checked against OpenRLHF 0.11.2) takes a Python file as ``--remote_rm_url``
(``openrlhf/utils/agent.py``, ``SingleTurnAgentExecutor``): it executes the file, takes its
``reward_func`` and calls it, per generated sample, as ``reward_func(queries, prompts, labels)``
with lists of one (the query is the decoded prompt and response, special tokens kept; the label
is the dataset's ``--label_key`` field). It reads ``rewards`` (the RL reward), ``scores`` (for
dynamic filtering) and ``extra_logs`` (logged beside them) from the dict returned, and turns
each into a tensor of one (``openrlhf/trainer/ppo_utils/samples_generator.py``).

Point ``--remote_rm_url`` at this file for the default settings, or at a file of your own that
sets ``reward_func = OpenRLHFReward(level="arg", reward="exact", ...)``. The reward is
:class:`~toolcall_f1.rewards.ToolCallReward`'s, so an OpenRLHF run, a TRL run and ``compute()``
score alike. This module never imports OpenRLHF (torch only when called, as OpenRLHF has it);
its imports are absolute, so it can be executed as a file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolcall_f1.rewards import COMPONENTS, ToolCallReward, components

__all__ = ["OpenRLHFReward", "reward_func", "response_of"]


def response_of(query: str, prompt: str, index: int) -> str:
    """The response in an OpenRLHF query: the query after its prompt.

    Raises
    ------
    TypeError
        For a query or prompt that is not text.
    ValueError
        For a query that does not begin with its prompt, naming the row.

    Examples
    --------
    >>> response_of("<|user|>Weather?<|assistant|>[get_weather(city='Paris')]<|end|>", "<|user|>Weather?<|assistant|>", 0)
    "[get_weather(city='Paris')]<|end|>"
    >>> response_of("Weather? [f()]", "Time?", 3)
    Traceback (most recent call last):
    ...
    ValueError: reward_func: queries[3] does not begin with prompts[3] ('Time?'); OpenRLHF passes each query as its prompt followed by the response
    """
    if not isinstance(query, str) or not isinstance(prompt, str):
        raise TypeError(f"reward_func: queries[{index}] and prompts[{index}]: expected text, got "
                        f"{type(query).__name__} and {type(prompt).__name__}")
    if not query.startswith(prompt):
        shown = prompt if len(prompt) <= 60 else prompt[:60] + "..."
        raise ValueError(f"reward_func: queries[{index}] does not begin with prompts[{index}] ({shown!r}); "
                         "OpenRLHF passes each query as its prompt followed by the response")
    return query[len(prompt):]


class OpenRLHFReward:
    """OpenRLHF's ``reward_func``: rewards, scores and their components, as tensors.

    Parameters
    ----------
    **settings
        :class:`~toolcall_f1.rewards.ToolCallReward`'s settings: ``level``, ``reward``
        (``"f1"``, ``"exact"``, ...), ``parse_error_reward``, and the metric's (``tools``,
        ``weights``, ``canonicalizer``, ...).

    Raises
    ------
    ValueError, TypeError
        As :class:`~toolcall_f1.rewards.ToolCallReward` does.

    Examples
    --------
    >>> reward = OpenRLHFReward(level="arg")
    >>> out = reward(["Q: [f(x=1, y=2)]"], ["Q: "], ['[{"name": "f", "arguments": {"x": 1, "y": 3}}]'])
    >>> out["rewards"].tolist(), out["extra_logs"]["precision"].tolist()
    ([0.6666666865348816], [0.6666666865348816])
    >>> OpenRLHFReward(reward="bleu")
    Traceback (most recent call last):
    ...
    ValueError: reward: unknown value 'bleu'; expected one of 'f1', 'exact', 'precision', 'recall'
    """

    def __init__(self, **settings: Any) -> None:
        self.reward = ToolCallReward(**{"reference_column": "labels", **settings})  # errors name the labels

    def __repr__(self) -> str:
        return f"OpenRLHFReward({self.reward!r})"

    def __call__(self, queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any]) -> dict[str, Any]:
        """Score each response (its query after its prompt) against its label.

        Parameters
        ----------
        queries
            Each prompt followed by its response, as OpenRLHF decodes them.
        prompts
            The prompts, as OpenRLHF passed them to generation.
        labels
            The gold calls of each sample (``--label_key``): JSON text, structured calls, or
            ``{"calls": [...], "tools": [...]}`` with the example's schemas; ``[]`` where no
            call is expected.

        Returns
        -------
        dict
            ``rewards`` and ``scores`` (the same values: what the reward gives each response)
            and ``extra_logs``, each of :data:`~toolcall_f1.rewards.COMPONENTS` per response:
            float32 tensors of one value per query.

        Raises
        ------
        ValueError
            For lists of different lengths, a query that does not begin with its prompt, a
            label that is missing or cannot be read.

        Examples
        --------
        >>> out = reward_func(["Q: [f()]", "Q: [f("], ["Q: "] * 2, ["[f()]", "[f()]"])
        >>> out["rewards"].tolist(), out["extra_logs"]["parse_error_rate"].tolist()
        ([1.0, 0.0], [0.0, 1.0])
        >>> reward_func(["Q: [f()]"], ["Q: "], [])
        Traceback (most recent call last):
        ...
        ValueError: reward_func: expected one prompt and one label per query (1), got 1 and 0
        """
        import torch

        if not len(prompts) == len(labels) == len(queries):
            raise ValueError(f"reward_func: expected one prompt and one label per query ({len(queries)}), "
                             f"got {len(prompts)} and {len(labels)}")
        responses = [response_of(q, p, i) for i, (q, p) in enumerate(zip(queries, prompts))]
        rewards, scores = self.reward.judge(responses, labels, prompts=prompts)
        parts = [components([s]) for s in scores]
        values = torch.tensor(rewards, dtype=torch.float32)
        return {
            "rewards": values,
            "scores": values.clone(),
            "extra_logs": {key: torch.tensor([p[key] for p in parts], dtype=torch.float32) for key in COMPONENTS},
        }


#: The function OpenRLHF takes from the file given as ``--remote_rm_url`` (default settings).
reward_func = OpenRLHFReward()
