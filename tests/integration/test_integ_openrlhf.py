"""OpenRLHF's reward function (issue 24): ``toolcall_f1.integrations.openrlhf.reward_func``.

- *through OpenRLHF itself* (slow): OpenRLHF 0.11.2's ``SingleTurnAgentExecutor``
  (``openrlhf/utils/agent.py``) loads the file given as ``--remote_rm_url`` and scores each
  generated sample with its ``reward_func``; only the generation engine (vLLM, which does not
  install on a CPU machine) is replaced by canned token ids. OpenRLHF 0.11.2 pins
  ``deepspeed``, ``flash-attn`` (CUDA builds) and ``transformers==5.15.0``, so
  ``make install-test`` installs it with ``--no-deps`` into ``.make-stamps/openrlhf`` (its reward
  path imports only torch, transformers, sympy, pylatexenc and aiohttp);
- what OpenRLHF then does with the result, ``_process_response_into_experience`` in
  ``openrlhf/trainer/ppo_utils/samples_generator.py`` (it imports vLLM), is pinned from that
  source, as is the executor's call, so the contract stays checked where OpenRLHF is absent.
"""

from __future__ import annotations

import importlib.util
import json
import os
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric
from toolcall_f1.rewards import COMPONENTS, ToolCallReward, components

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
#: Where ``make install-test`` puts OpenRLHF 0.11.2 (``--no-deps``).
OPENRLHF_DIR = ROOT / ".make-stamps" / "openrlhf"
MODULE_FILE = ROOT / "toolcall_f1" / "integrations" / "openrlhf.py"

PROMPT = "weather in Paris =>"
#: (response words, label: JSON text or structured, with or without the example's tools)
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
GOLD = [{"name": "get_weather", "arguments": {"city": "Paris"}}]
SAMPLES = [
    ("[ get_weather ( city = 'Paris' ) ]", json.dumps(GOLD)),
    ("[ get_weather ( city = 'Paris' ) , get_weather ( city = 'Rome' ) ]", GOLD),  # call inflation
    ("[ get_weather ( city = 'Paris' , mood = 'sunny' ) ]", {"calls": GOLD, "tools": TOOLS}),
    ("[ get_weather ( city = 'Paris'", json.dumps(GOLD)),  # cut off
]
WORDS = {w for text, _ in SAMPLES for w in text.split()} | set(PROMPT.split())


def load_reward_func(path: Path) -> Callable[..., Any]:
    """OpenRLHF 0.11.2's ``SingleTurnAgentExecutor.__init__``: the file executed as module
    ``reward_func``, its ``reward_func`` taken."""
    spec = importlib.util.spec_from_file_location("reward_func", str(path))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reward_func  # type: ignore[no-any-return]


def as_experience_info(rewards_info: dict[str, Any]) -> dict[str, Any]:
    """OpenRLHF 0.11.2: what the executor keeps (``reward``, ``scores`` falling back to
    ``rewards``, ``extra_logs``) and how ``_process_response_into_experience`` turns it into
    the experience's ``info`` tensors."""
    reward_val = rewards_info.get("rewards")
    score_val = rewards_info.get("scores")
    if score_val is None:
        score_val = reward_val
    info = {"reward": torch.tensor([reward_val]), "score": torch.tensor([score_val])}
    for key, value in (rewards_info.get("extra_logs") or {}).items():
        if isinstance(value, torch.Tensor):
            value = value.flatten()[0].item()
        info[key] = torch.tensor([value])
    return info


def expected(reward: ToolCallReward, text: str, label: Any) -> tuple[float, dict[str, float]]:
    (value,), (score,) = reward.judge([text], [label])
    return value, components([score])


def check_info(info: dict[str, Any], reward: ToolCallReward, text: str, label: Any) -> None:
    value, parts = expected(reward, text, label)
    assert info["reward"].shape == (1,) and info["reward"].item() == pytest.approx(value, abs=1e-6)
    assert info["score"].item() == pytest.approx(value, abs=1e-6)
    assert sorted(k for k in info if k not in ("reward", "score")) == sorted(COMPONENTS)
    for key in COMPONENTS:
        assert info[key].shape == (1,) and info[key].item() == pytest.approx(parts[key], abs=1e-6), key


# --------------------------------------------------------------------------- pinned from the source


def test_the_calling_convention_pinned_from_openrlhfs_source() -> None:
    """Loaded by file path as OpenRLHF loads it, called with lists of one per sample."""
    reward_func = load_reward_func(MODULE_FILE)
    reward = ToolCallReward()
    for text, label in SAMPLES:
        query = PROMPT + " " + text + "</s>"  # the decoded prompt and response, special tokens kept
        info = as_experience_info(reward_func([query], [PROMPT], [label]))
        check_info(info, reward, " " + text + "</s>", label)
    got = reward_func([PROMPT + " " + t for t, _ in SAMPLES], [PROMPT] * 4, [lab for _, lab in SAMPLES])
    metric = ToolCallMetric()
    want = [metric(t, lab) for t, lab in SAMPLES]
    assert got["rewards"].tolist() == pytest.approx([0.0 if s.parse_error else s.f1 for s in want])
    assert got["rewards"].tolist() == pytest.approx([1.0, 2 / 3, 0.0, 0.0])
    assert got["extra_logs"]["extra_calls"].tolist() == [0.0, 1.0, 0.0, 0.0]
    assert got["extra_logs"]["hallucinated_args"].tolist() == [0.0, 0.0, 1.0, 0.0]  # the label's own tools
    assert got["extra_logs"]["parse_error_rate"].tolist() == [0.0, 0.0, 0.0, 1.0]


def test_settings_and_errors() -> None:
    from toolcall_f1.integrations.openrlhf import OpenRLHFReward

    binary = OpenRLHFReward(reward="exact", parse_error_reward=-1.0)
    got = binary([PROMPT + " " + t for t, _ in SAMPLES], [PROMPT] * 4, [lab for _, lab in SAMPLES])
    assert got["rewards"].tolist() == [1.0, 0.0, 0.0, -1.0]
    with pytest.raises(ValueError, match=r"queries\[0\] does not begin with prompts\[0\]"):
        binary(["something else [f()]"], [PROMPT], ["[f()]"])
    with pytest.raises(ValueError, match=r"column 'labels', row 0 \(prompt 'weather in Paris =>'\): the reference is missing"):
        binary([PROMPT + " [f()]"], [PROMPT], [None])


# --------------------------------------------------------------------------- through OpenRLHF itself


@pytest.fixture
def openrlhf_agent(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """OpenRLHF 0.11.2's ``openrlhf.utils.agent`` from ``.make-stamps/openrlhf`` (or installed);
    on CI its absence is an error."""
    if OPENRLHF_DIR.is_dir():
        monkeypatch.syspath_prepend(str(OPENRLHF_DIR))
    try:
        from openrlhf.utils import agent
    except ImportError as err:
        if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
            pytest.fail(f"CI: OpenRLHF is required here (make install-test puts it in {OPENRLHF_DIR}): {err}")
        pytest.skip(f"OpenRLHF is not importable (make install-test puts it in {OPENRLHF_DIR}): {err}")
    from importlib.metadata import version

    assert version("openrlhf") == "0.11.2"
    yield agent


class CannedEngine:
    """Stands in for OpenRLHF's vLLM engine: ``generate`` returns the given token ids."""

    def __init__(self, token_ids: list[int]) -> None:
        self.token_ids = token_ids

    async def generate(self, prompt_token_ids: list[int], sampling_params: Any, multi_modal_data: Any = None) -> Any:
        out = types.SimpleNamespace(token_ids=self.token_ids, finish_reason="stop", logprobs=None)
        return types.SimpleNamespace(outputs=[out])


@pytest.mark.slow
def test_through_openrlhfs_single_turn_executor(openrlhf_agent: Any) -> None:
    import asyncio

    from .tiny_models import word_tokenizer

    tk = word_tokenizer(WORDS)
    executor = openrlhf_agent.SingleTurnAgentExecutor(remote_rm_url=str(MODULE_FILE))
    assert executor.reward_func is not None
    params = types.SimpleNamespace(max_tokens=32, logprobs=None)
    reward = ToolCallReward()
    for text, label in SAMPLES:
        ids = tk(text, add_special_tokens=False)["input_ids"] + [tk.eos_token_id]
        output = asyncio.run(executor.execute(PROMPT, label, params, 64, tk, CannedEngine(ids)))
        assert output["reward"] is not None, "OpenRLHF dropped the reward (it logs the reward function's error)"
        check_info(as_experience_info({"rewards": output["reward"], "scores": output["scores"],
                                       "extra_logs": output["extra_logs"]}), reward,
                   tk.decode(ids, skip_special_tokens=False), label)


# --------------------------------------------------------------------------- the README's snippets


def readme_block(language: str, marker: str) -> str:
    """The README's one ```<language> block (not a doctest) containing ``marker``."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(rf"```{language}\n(.*?)```", readme, re.S) if marker in b and ">>>" not in b]
    assert len(blocks) == 1, f"expected one README {language} block with {marker!r}, found {len(blocks)}"
    return blocks[0]


def test_the_readme_command_line_names_this_module() -> None:
    """The README's ``--remote_rm_url "$(python -c '...')"`` prints this module's file."""
    import re
    import subprocess
    import sys

    block = readme_block("bash", "openrlhf.cli.train_ppo_ray")
    (code,) = re.findall(r"\$\(python -c '([^']*)'\)", block)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()).resolve() == MODULE_FILE.resolve()
    assert "--label_key reference" in block


def test_the_readme_reward_file(tmp_path: Path) -> None:
    """The README's ``my_reward.py``, loaded as OpenRLHF loads a ``--remote_rm_url`` file."""
    path = tmp_path / "my_reward.py"
    path.write_text(readme_block("python", "# my_reward.py"), encoding="utf-8")
    reward_func = load_reward_func(path)
    reward = ToolCallReward(level="arg", reward="exact", parse_error_reward=-1.0)
    for text, label in SAMPLES:
        check_info(as_experience_info(reward_func([PROMPT + " " + text], [PROMPT], [label])), reward, text, label)
    got = reward_func([PROMPT + " " + t for t, _ in SAMPLES], [PROMPT] * 4, [lab for _, lab in SAMPLES])
    assert got["rewards"].tolist() == [1.0, 0.0, 0.0, -1.0]
