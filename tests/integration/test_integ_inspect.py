"""toolcall_f1.integrations.inspect_ai through a real ``inspect_ai.eval``: the mockllm/model
provider answers each sample with canned tool calls (a multi-turn trajectory, tools executed by
inspect's own loop), and the scorer's metrics equal ``ToolCallMetric(**settings).compute`` on
the same calls — micro-averaged, not a mean of per-sample F1. No network."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric

# CI (and make test) installs the framework (the test extra): a missing one fails there, never skips
importlib.import_module("inspect_ai") if os.environ.get("CI", "") in ("true", "1", "yes") else pytest.importorskip("inspect_ai")
pytestmark = pytest.mark.usefixtures("offline_hub")  # no Hub, no network: tests/integration/conftest.py

from inspect_ai import Task, eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.model import (  # noqa: E402
    ChatCompletionChoice,
    ChatMessageAssistant,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.solver import generate, use_tools  # noqa: E402
from inspect_ai.tool import ToolCall, tool  # noqa: E402

from toolcall_f1.integrations.inspect_ai import tool_call_f1  # noqa: E402

from .test_readme_snippets import snippet  # noqa: E402


@tool
def get_weather() -> Any:
    async def execute(city: str) -> str:
        """The weather in a city.

        Args:
            city: The city.
        """
        return f"sunny in {city}"

    return execute


@tool
def search() -> Any:
    async def execute(q: str) -> str:
        """Search the web.

        Args:
            q: The query.
        """
        return f"results for {q}"

    return execute


USAGE = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # else mockllm counts tokens (a tokenizer)


def calls_output(*calls: tuple[str, dict[str, Any]], parse_error: str | None = None) -> ModelOutput:
    """One assistant turn making ``calls`` (mockllm's canned output, with usage set)."""
    if len(calls) == 1 and parse_error is None:
        out = ModelOutput.for_tool_call("mockllm/model", calls[0][0], calls[0][1])
    else:
        message = ChatMessageAssistant(content="", model="mockllm/model", source="generate", tool_calls=[
            ToolCall(id=f"call_{i}", function=name, arguments=args, parse_error=parse_error)
            for i, (name, args) in enumerate(calls)])
        out = ModelOutput(model="mockllm/model", choices=[ChatCompletionChoice(message=message, stop_reason="tool_calls")])
    out.usage = USAGE
    return out


def answer(text: str) -> ModelOutput:
    out = ModelOutput.from_content("mockllm/model", text)
    out.usage = USAGE
    return out


#: Per sample: its input, the model's turns, the gold (target text or metadata), and the
#: calls the trajectory holds as ``compute()`` is given them.
CASES: list[dict[str, Any]] = [
    {"input": "What is the weather in Paris?",  # also the README snippet's sample
     "turns": [calls_output(("get_weather", {"city": "Paris"})), answer("Sunny.")],
     "target": json.dumps([{"name": "get_weather", "arguments": {"city": "Paris"}}]),
     "calls": [("get_weather", {"city": "Paris"})]},
    {"input": "London weather, then search",  # two turns of calls: the trajectory, in order
     "turns": [calls_output(("get_weather", {"city": "London"})), calls_output(("search", {"q": "umbrellas"})),
               answer("Done.")],
     "target": json.dumps({"calls": [{"name": "get_weather", "arguments": {"city": "London"}},
                                     {"name": "search", "arguments": {"q": "raincoats"}}],
                           "tools": [{"name": "search", "parameters": {"type": "object", "properties": {
                               "q": {"type": "string"}}, "required": ["q"]}}]}),
     "calls": [("get_weather", {"city": "London"}), ("search", {"q": "umbrellas"})]},
    {"input": "just say hi",  # no call expected, none made: gold from metadata
     "turns": [answer("Hi!")], "metadata": {"reference": []}, "calls": []},
    {"input": "Tokyo and Oslo",  # two calls in one message, one extra; structured gold in metadata
     "turns": [calls_output(("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Oslo"}),
                            ("search", {"q": "flights"})), answer("Here.")],
     "metadata": {"reference": [{"name": "get_weather", "arguments": {"city": "Tokyo"}},
                                {"name": "get_weather", "arguments": {"city": "Oslo"}}]},
     "calls": [("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Oslo"}), ("search", {"q": "flights"})]},
    {"input": "broken call",  # inspect could not parse the model's call: a parse error, no calls
     "turns": [calls_output(("get_weather", {}), parse_error="Expecting value: line 1 column 9"), answer("Oops.")],
     "target": json.dumps([{"name": "get_weather", "arguments": {"city": "Rome"}}]),
     "calls": "[get_weather(city="},  # unreadable text: the same parse error for compute()
]


def canned(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """mockllm's custom output: the sample's next turn, chosen by its input (order-free)."""
    first = next(m for m in messages if m.role == "user").text
    case = next(c for c in CASES if c["input"] == first)
    return case["turns"][sum(m.role == "assistant" for m in messages)]


def run(tmp_path: Path, epochs: int = 1, **settings: Any) -> Any:
    samples = [Sample(input=c["input"], target=c.get("target", ""), metadata=c.get("metadata"), id=i)
               for i, c in enumerate(CASES)]
    task = Task(dataset=samples, solver=[use_tools(get_weather(), search()), generate()],
                scorer=tool_call_f1(**settings))
    [log] = eval(task, model="mockllm/model", model_args={"custom_outputs": canned}, epochs=epochs,
                 log_dir=str(tmp_path / "logs"), display="none", max_samples=2)
    assert log.status == "success", log.error
    return log


def gold_of(case: dict[str, Any]) -> Any:
    return case["metadata"]["reference"] if "metadata" in case else case["target"]


@pytest.mark.slow
def test_the_scorer_in_a_real_eval_gives_compute_s_numbers(tmp_path: Path) -> None:
    log = run(tmp_path, epochs=2, level="arg")
    [scores] = log.results.scores
    got = {name: m.value for name, m in scores.metrics.items()}
    predictions = [c["calls"] for c in CASES] * 2  # every epoch's answers are examples
    want = ToolCallMetric("arg").compute(predictions, [gold_of(c) for c in CASES] * 2)
    assert got == {k: want[k] for k in ("f1", "precision", "recall", "exact_match")}
    assert want["num_parse_errors"] == 2 and 0 < want["f1"] < 1
    # each sample's score carries its counts: the micro F1 is not the mean of per-sample F1
    per_sample = [s.scores["tool_call_f1"] for s in log.samples]
    assert len(per_sample) == 2 * len(CASES)
    assert per_sample[0].metadata["parse_error"] is None
    broken = next(s.scores["tool_call_f1"] for s in log.samples if s.id == 4)
    assert broken.value["tp"] == 0 and "could not be parsed" in broken.metadata["parse_error"]
    one = ToolCallMetric("arg").compute([c["calls"] for c in CASES], [gold_of(c) for c in CASES])
    mean_f1 = sum(ToolCallMetric("arg")(c["calls"], gold_of(c)).f1 for c in CASES) / len(CASES)
    assert got["f1"] == one["f1"] and abs(mean_f1 - got["f1"]) > 0.01


@pytest.mark.slow
def test_call_level_default_and_the_trajectory_order(tmp_path: Path) -> None:
    log = run(tmp_path, order="strict")
    [scores] = log.results.scores
    want = ToolCallMetric(order="strict").compute([c["calls"] for c in CASES], [gold_of(c) for c in CASES])
    assert {name: m.value for name, m in scores.metrics.items()} == {
        k: want[k] for k in ("f1", "precision", "recall", "exact_match")}
    two_turns = next(s for s in log.samples if s.id == 1).scores["tool_call_f1"]
    # the answer: the trajectory's assistant messages as message dicts, their calls in order
    assert [c for m in json.loads(two_turns.answer) for c in m["tool_calls"]] == [
        {"name": "get_weather", "arguments": {"city": "London"}}, {"name": "search", "arguments": {"q": "umbrellas"}}]
    assert (two_turns.value["tp"], two_turns.value["fp"], two_turns.value["fn"]) == (1.0, 1.0, 1.0)


def test_a_sample_without_gold_is_an_error_naming_it(tmp_path: Path) -> None:
    task = Task(dataset=[Sample(input="just say hi", id="s1")], solver=[generate()], scorer=tool_call_f1())
    [log] = eval(task, model="mockllm/model", model_args={"custom_outputs": canned},
                 log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "error"
    assert "no gold calls" in str(log.error) or "no gold calls" in str(log.samples[0].error)


def test_an_unknown_setting_is_refused_when_the_scorer_is_made() -> None:
    with pytest.raises(TypeError, match="did you mean 'matching'"):
        tool_call_f1(matchng="optimal")


@pytest.mark.slow
def test_the_readme_snippet_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code = snippet('scorer=tool_call_f1(level="arg")')
    model = 'model="openai/gpt-4o-mini"'
    assert model in code
    monkeypatch.chdir(tmp_path)  # inspect writes its logs under ./logs
    scope: dict[str, Any] = {"get_weather": get_weather}
    local = 'model="mockllm/model", model_args={"custom_outputs": canned}, display="none"'
    exec(compile(code.replace(model, local), "README.md (inspect_ai snippet)", "exec"), {**scope, "canned": canned})
    assert capsys.readouterr().out.strip() == "1.0"


def test_importing_the_package_imports_no_framework() -> None:
    """``import toolcall_f1`` (and its integrations package) imports none of the frameworks."""
    import subprocess
    import sys

    code = ("import sys, toolcall_f1, toolcall_f1.integrations; "
            "print([m for m in ('inspect_ai', 'lm_eval', 'lighteval') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2], capture_output=True,
                         text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def score_of(messages: list[Any], reference: Any, **settings: Any) -> Any:
    """The scorer's score of one state holding ``messages`` (no eval: the scorer alone)."""
    import asyncio

    from inspect_ai.model import ModelName
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState

    state = TaskState(ModelName("mockllm/model"), sample_id="s", epoch=1, input="q", messages=messages,
                      metadata={"reference": reference})
    return asyncio.run(tool_call_f1(**settings)(state, Target("")))


def counts(score: Any) -> tuple[float, float, float, float]:
    return score.value["tp"], score.value["fp"], score.value["fn"], score.value["exact"]


def test_order_turns_reads_one_entry_per_user_turn() -> None:
    from inspect_ai.model import ChatMessageTool, ChatMessageUser

    two = ChatMessageAssistant(content="", tool_calls=[ToolCall(id="1", function="f", arguments={}),
                                                       ToolCall(id="2", function="g", arguments={})])
    assert counts(score_of([ChatMessageUser(content="q"), two], {"turns": [["f()", "g()"]]}, order="turns")) == (
        2.0, 0.0, 0.0, 1.0)
    # a turn's tool-call rounds are one entry; the next user message starts the next turn
    chat = [ChatMessageUser(content="q"),
            ChatMessageAssistant(content="", tool_calls=[ToolCall(id="1", function="f", arguments={"x": 1})]),
            ChatMessageTool(content="ok", tool_call_id="1"),
            ChatMessageAssistant(content="", tool_calls=[ToolCall(id="2", function="g", arguments={})]),
            ChatMessageTool(content="ok", tool_call_id="2"), ChatMessageAssistant(content="done"),
            ChatMessageUser(content="now h"),
            ChatMessageAssistant(content="", tool_calls=[ToolCall(id="3", function="h", arguments={})])]
    gold = {"turns": [["f(x=1)", "g()"], ["h()"]]}
    assert counts(score_of(chat, gold, order="turns")) == (3.0, 0.0, 0.0, 1.0)
    swapped = {"turns": [["h()"], ["f(x=1)", "g()"]]}
    assert counts(score_of(chat, swapped, order="turns")) == (0.0, 3.0, 3.0, 0.0)
    # a call inspect could not parse makes its turn unreadable, not the other turn
    chat[-1] = ChatMessageAssistant(content="", tool_calls=[ToolCall(id="3", function="h", arguments={},
                                                                     parse_error="bad JSON")])
    broken = score_of(chat, gold, order="turns")
    assert counts(broken) == (2.0, 0.0, 1.0, 0.0) and "could not be parsed" in broken.metadata["parse_error"]


def test_a_message_without_tool_calls_has_its_text_read_as_model_output() -> None:
    from inspect_ai.model import ChatMessageUser

    text = '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'
    messages = [ChatMessageUser(content="q"), ChatMessageAssistant(content=text)]
    reference = [{"name": "f", "arguments": {"x": 1}}]
    want = ToolCallMetric().compute([[{"role": "assistant", "content": text, "tool_calls": None}]], [reference])
    assert want["exact_match"] == 1.0
    score = score_of(messages, reference)
    assert counts(score) == (1.0, 0.0, 0.0, 1.0) and score.metadata["parse_error"] is None
    # unreadable text is a parse error, as compute() counts it
    assert score_of([ChatMessageAssistant(content="[f(x=")], reference).metadata["parse_error"] is not None
