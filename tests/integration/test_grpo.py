"""ToolCallReward inside a real ``trl.GRPOTrainer`` run on CPU: a tiny GPT-2 and a word-level
tokenizer built here (no Hub download), a dataset with ``prompt``, ``reference`` and ``tools``
columns, two steps with ``num_generations=2``."""

from __future__ import annotations

import json
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")
datasets = pytest.importorskip("datasets")
trl = pytest.importorskip("trl")

from toolcall_f1 import ToolCallMetric  # noqa: E402
from toolcall_f1.rewards import COMPONENTS, ToolCallReward, components  # noqa: E402

from .tiny_models import tiny_gpt2, word_tokenizer  # noqa: E402

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
]
# prompt -> gold calls; the model's words are spaced (the tokenizer splits on whitespace)
EXAMPLES = [
    ("weather in Paris =>", "[get_weather(city='Paris')]"),
    ("time in Rome =>", "[get_time(city='Rome')]"),
    ("weather in Oslo =>", "[get_weather(city='Oslo')]"),
    ("hello =>", "[]"),
]
WORDS = sorted(
    {w for prompt, _ in EXAMPLES for w in prompt.split()}
    | {"[", "]", "(", ")", "=", ",", "get_weather", "get_time", "city", "'Paris'", "'Rome'", "'Oslo'", "ok"}
)


pytestmark = pytest.mark.usefixtures("offline_hub")  # no Hub, no network: tests/integration/conftest.py


class RecordingReward(ToolCallReward):
    """The reward, keeping what each call received and returned."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.calls: list[dict[str, Any]] = []

    def __call__(self, prompts: Any = None, completions: Any = None, completion_ids: Any = None,
                 **kwargs: Any) -> list[float]:
        rewards = super().__call__(prompts=prompts, completions=completions, completion_ids=completion_ids, **kwargs)
        self.calls.append({"prompts": list(prompts), "completions": list(completions),
                           "completion_ids": [list(map(int, ids)) for ids in completion_ids],
                           "columns": {k: list(v) for k, v in kwargs.items() if k in ("reference", "tools")},
                           "trl_kwargs": sorted(k for k in kwargs if k not in ("reference", "tools")),
                           "rewards": rewards})
        return rewards


@pytest.mark.slow
@pytest.mark.parametrize("conversational", [False, True], ids=["standard", "conversational"])
def test_grpo_trainer_two_steps(tmp_path: Any, one_thread: None, conversational: bool) -> None:
    tk = word_tokenizer(WORDS, padding_side="left")
    if conversational:  # the prompts are messages, the completions assistant messages
        tk.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}"
    model = tiny_gpt2(tk, n_embd=16)
    train = datasets.Dataset.from_list([
        {"prompt": [{"role": "user", "content": p}] if conversational else p, "reference": ref,
         "tools": json.dumps(TOOLS)}
        for p, ref in EXAMPLES
    ])
    reward = RecordingReward(level="arg", parse_error_reward=-1.0)
    args = trl.GRPOConfig(
        output_dir=str(tmp_path / "out"), per_device_train_batch_size=4, num_generations=2,
        max_completion_length=8, max_steps=2, learning_rate=1e-3, beta=0.0, logging_steps=1,
        report_to=[], use_cpu=True, bf16=False, gradient_checkpointing=False, save_strategy="no", disable_tqdm=True,
        dataloader_num_workers=0, seed=0,
    )
    trainer = trl.GRPOTrainer(model=model, reward_funcs=[reward], args=args, train_dataset=train,
                              processing_class=tk)
    trainer.train()

    assert reward.calls, "the trainer never called the reward"
    by_prompt = {(json.dumps([{"role": "user", "content": p}]) if conversational else p): ref for p, ref in EXAMPLES}
    metric = ToolCallMetric("arg", tools=TOOLS)
    for call in reward.calls:
        n = len(call["completions"])
        assert n == 4 and len(call["prompts"]) == n and call["rewards"] and len(call["rewards"]) == n
        # the trainer's completions: the decoded completion ids, scored against each row's columns
        texts = tk.batch_decode(call["completion_ids"], skip_special_tokens=True)
        if conversational:
            assert call["completions"] == [[{"role": "assistant", "content": t}] for t in texts]
        else:
            assert call["completions"] == texts
        prompts = [json.dumps(p) if conversational else p for p in call["prompts"]]
        assert call["columns"]["reference"] == [by_prompt[p] for p in prompts]
        assert call["columns"]["tools"] == [json.dumps(TOOLS)] * n
        assert "trainer_state" in call["trl_kwargs"]
        assert call["prompts"][0] == call["prompts"][1] and call["prompts"][2] == call["prompts"][3]
        for text, ref, got in zip(texts, call["columns"]["reference"], call["rewards"]):
            s = metric(text, ref)
            assert got == (-1.0 if s.parse_error else s.f1), text

    # logged under the reward's name: the mean of what it returned, step by step
    logged = [h for h in trainer.state.log_history if "rewards/toolcall_arg_f1/mean" in h]
    assert len(logged) == 2
    for entry, call in zip(logged, reward.calls):
        assert entry["rewards/toolcall_arg_f1/mean"] == pytest.approx(sum(call["rewards"]) / 4, abs=1e-6)
        if "log_metric" in call["trl_kwargs"]:  # TRL passes it since early 2026 (huggingface/trl#5233)
            assert "toolcall_arg_f1/parse_error_rate" in entry
            # every component, as the batch's own scores give it (TRL logs it as a float32)
            texts = tk.batch_decode(call["completion_ids"], skip_special_tokens=True)
            want = components([metric(t, ref) for t, ref in zip(texts, call["columns"]["reference"])])
            for key in COMPONENTS:
                assert entry[f"toolcall_arg_f1/{key}"] == pytest.approx(want[key], abs=1e-6), key


@pytest.mark.slow
def test_grpo_with_the_binary_reward(tmp_path: Any, one_thread: None) -> None:
    """reward="exact" (Tool-N1's binary reward) in a real run: 1.0 exactly when the completion is
    exactly right, and its components logged beside it."""
    tk = word_tokenizer(WORDS, padding_side="left")
    train = datasets.Dataset.from_list([{"prompt": p, "reference": ref, "tools": json.dumps(TOOLS)}
                                        for p, ref in EXAMPLES])
    reward = RecordingReward(reward="exact")
    args = trl.GRPOConfig(
        output_dir=str(tmp_path / "out"), per_device_train_batch_size=4, num_generations=2,
        max_completion_length=8, max_steps=1, learning_rate=1e-3, beta=0.0, logging_steps=1,
        report_to=[], use_cpu=True, bf16=False, gradient_checkpointing=False, save_strategy="no", disable_tqdm=True,
        dataloader_num_workers=0, seed=0,
    )
    trainer = trl.GRPOTrainer(model=tiny_gpt2(tk, n_embd=16), reward_funcs=[reward], args=args, train_dataset=train,
                              processing_class=tk)
    trainer.train()
    (call,) = reward.calls
    metric = ToolCallMetric(tools=TOOLS)
    scores = [metric(text, ref) for text, ref in zip(call["completions"], call["columns"]["reference"])]
    assert call["rewards"] == [1.0 if s.exact else 0.0 for s in scores]
    (entry,) = [h for h in trainer.state.log_history if "rewards/toolcall_call_exact/mean" in h]
    want = components(scores)
    for key in COMPONENTS:
        assert entry[f"toolcall_call_exact/{key}"] == pytest.approx(want[key], abs=1e-6), key
