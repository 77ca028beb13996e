"""ToolCallReward: every rule of issue 14, called exactly the way TRL's GRPOTrainer calls a
reward function (``prompts=``, ``completions=``, ``completion_ids=``, the dataset's columns,
``trainer_state``, ``log_extra`` and ``log_metric``)."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric
from toolcall_f1.rewards import COMPONENTS, SCORES, ToolCallReward, components

ROOT = Path(__file__).resolve().parents[2]

SEARCH_ANSWER = [{"name": "search", "arguments": {"q": "cats"}}, {"name": "answer", "arguments": {"a": "meow"}}]
WEATHER_TOOLS = [{
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "unit": {"type": "string", "default": "celsius"},
            },
            "required": ["city"],
        },
    },
}]


class Logs:
    """Stands in for TRL's ``log_metric`` / ``log_extra``: records what the reward logs."""

    def __init__(self) -> None:
        self.metrics: list[tuple[str, float]] = []
        self.extra: list[tuple[str, list[Any]]] = []

    def log_metric(self, name: str, value: float) -> None:
        self.metrics.append((name, value))

    def log_extra(self, column: str, values: list[Any]) -> None:
        self.extra.append((column, values))


class Rows(list):  # type: ignore[type-arg]
    """A column given row by row (any other value given to :func:`trl_call` is repeated)."""


def trl_call(reward: ToolCallReward, completions: list[Any], logs: Logs | None = None, **columns: Any) -> list[float]:
    """Call ``reward`` as GRPOTrainer._calculate_rewards does: one value per completion in
    every column, and TRL's own keyword arguments beside them."""
    n = len(completions)
    columns = {k: (list(v) if isinstance(v, Rows) else [v] * n) for k, v in columns.items()}
    logs = logs or Logs()
    return reward(
        prompts=[f"prompt {i}" for i in range(n)],
        completions=completions,
        completion_ids=[[1, 2, 3] for _ in range(n)],
        **columns,
        trainer_state=object(),
        log_extra=logs.log_extra,
        log_metric=logs.log_metric,
    )


# -- scores at each level (SPEC §9's worked examples) ---------------------------------------


@pytest.mark.parametrize(
    ("level", "score", "want"),
    [
        ("call", "f1", 0.5), ("call", "precision", 0.5), ("call", "recall", 0.5), ("call", "exact", 0.0),
        ("arg", "f1", 4 / 7), ("arg", "precision", 2 / 3), ("arg", "recall", 2 / 4), ("arg", "exact", 0.0),
    ],
)
def test_score_at_each_level(level: str, score: str, want: float) -> None:
    reward = ToolCallReward(level, score)
    got = trl_call(reward, ['[search(q="cats"), delete_all()]'], reference=SEARCH_ANSWER)
    assert got == [pytest.approx(want, abs=1e-15)]


@pytest.mark.parametrize("score", SCORES)
def test_exact_completion_earns_one(score: str) -> None:
    reward = ToolCallReward("arg", score)
    text = '<tool_call>{"name": "answer", "arguments": {"a": "meow"}}</tool_call>\n' \
           '<tool_call>{"name": "search", "arguments": {"q": "Cats"}}</tool_call>'
    assert trl_call(reward, [text], reference=SEARCH_ANSWER) == [1.0]


def test_partial_credit_per_argument() -> None:
    completions = ["[f(x=1, y=2)]", "[f(x=1, y=3)]", "[]"]
    assert trl_call(ToolCallReward("call"), completions, reference="[f(x=1, y=3)]") == [0.0, 1.0, 0.0]
    # arg level: name and x agree, y disagrees -> TP 2, FP 1, FN 1
    assert trl_call(ToolCallReward("arg"), completions, reference="[f(x=1, y=3)]") == [4 / 6, 1.0, 0.0]


def test_weights_apply() -> None:
    completions = ['[search(q="cats"), delete_all()]']
    ref = [{"name": "search", "arguments": {"q": "cats"}}]
    assert trl_call(ToolCallReward(), completions, reference=ref) == [2 / 3]
    heavy = ToolCallReward(weights={"delete_all": 10})
    assert trl_call(heavy, completions, reference=ref) == [2 / 12]  # 2TP / (2TP + FP 10)
    # "exact" ignores weights: a zero-weight extra call still makes the example inexact
    free = ToolCallReward(score="exact", weights={"delete_all": 0})
    assert trl_call(free, completions, reference=ref) == [0.0]
    assert trl_call(ToolCallReward(weights={"delete_all": 0}), completions, reference=ref) == [1.0]


# -- nothing expected, parse errors ---------------------------------------------------------


NO_CALL = ["", "[]", "I can't help with that.", [{"role": "assistant", "content": "No tool needed."}], []]


@pytest.mark.parametrize("score", SCORES)
@pytest.mark.parametrize("level", ["call", "arg"])
def test_nothing_expected_nothing_called_earns_one(level: str, score: str) -> None:
    assert trl_call(ToolCallReward(level, score), NO_CALL, reference=[]) == [1.0] * len(NO_CALL)


@pytest.mark.parametrize("score", SCORES)
@pytest.mark.parametrize("level", ["call", "arg"])
def test_calling_when_nothing_expected_earns_zero(level: str, score: str) -> None:
    completions = ["[f(x=1)]", [{"role": "assistant", "tool_calls": [{"type": "function", "function": {
        "name": "f", "arguments": {"x": 1}}}]}]]
    assert trl_call(ToolCallReward(level, score), completions, reference=Rows([[], "[]"])) == [0.0, 0.0]


BROKEN = [
    '<tool_call>{"name": "f", "arguments": {"x": 1</tool_call>',  # broken JSON in a tag
    "[f(x=1",  # cut off
    "[f(x=1+1)]",  # arithmetic
    [{"role": "assistant", "content": '<tool_call>{"name": "f",'}],  # conversational, cut off
]


@pytest.mark.parametrize("reference", [[{"name": "f", "arguments": {"x": 1}}], []], ids=["expected", "nothing-expected"])
def test_parse_error_earns_parse_error_reward(reference: Any) -> None:
    logs = Logs()
    reward = ToolCallReward(parse_error_reward=-0.5)
    got = trl_call(reward, [*BROKEN, "[f(x=1)]"], logs, reference=reference)
    assert got == [-0.5] * len(BROKEN) + [1.0 if reference else 0.0]
    logged = dict(logs.metrics)
    assert [name for name, _ in logs.metrics] == [f"toolcall_call_f1/{key}" for key in COMPONENTS]
    assert logged["toolcall_call_f1/parse_error_rate"] == len(BROKEN) / (len(BROKEN) + 1)
    assert logs.extra == []


def test_hostile_completion_is_a_parse_error_not_a_crash() -> None:
    hostile = ["<tool_call>" + "{" * 100_000, "[" * 100_000, "f(" * 50_000, '{"a":' * 50_000]
    assert trl_call(ToolCallReward(parse_error_reward=-1.0), hostile, reference="[f()]") == [-1.0] * 4


# -- conversational completions -------------------------------------------------------------


def openai_call(name: str, arguments: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


def test_conversational_tool_calls_and_content() -> None:
    ref = [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    completions = [
        # what TRL's parse_response gives: tool_calls with arguments as a dict
        [{"role": "assistant", "content": "", "tool_calls": [openai_call("get_weather", {"city": "Paris"})]}],
        # arguments as a JSON string (OpenAI's wire shape)
        [{"role": "assistant", "tool_calls": [openai_call("get_weather", '{"city": "paris"}')]}],
        # no response parser: the calls are in the content, in any supported format
        [{"role": "assistant", "content": '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'}],
        [{"role": "assistant", "content": "```python\n[get_weather(city='Paris')]\n```"}],
        [{"role": "assistant", "content": "Let me check.", "tool_calls": None},
         {"role": "assistant", "content": "[get_weather(city='Paris')]", "tool_calls": None}],
        [{"role": "assistant", "content": [{"type": "text", "text": "[get_weather(city='Paris')]"}]}],
        [{"role": "assistant", "content": "[get_weather(city='Rome')]"}],
    ]
    assert trl_call(ToolCallReward(), completions, reference=ref) == [1.0] * 6 + [0.0]


def test_several_assistant_messages_are_read_together() -> None:
    ref = [{"name": "f", "arguments": {"x": 1}}, {"name": "g", "arguments": {}}]
    turn = [
        {"role": "assistant", "content": "", "tool_calls": [openai_call("f", {"x": 1})]},
        # a tool result is never read as a call, whatever it holds
        {"role": "tool", "name": "f", "content": "[g(), h(z=2)]"},
        {"role": "assistant", "content": "<tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>"},
        {"role": "user", "content": "[h(z=3)]"},
    ]
    first_only = turn[:2]
    assert trl_call(ToolCallReward(), [turn, first_only], reference=ref) == [1.0, 2 / 3]
    # arg level: the second message's g() is one name field; f(x=1) two
    assert trl_call(ToolCallReward("arg", "recall"), [first_only], reference=ref) == [2 / 3]


def test_tool_calls_win_over_content() -> None:
    # a message's calls are its tool_calls when it has any; its content is then prose
    message = {"role": "assistant", "content": "I'll call [f(x=2)]", "tool_calls": [openai_call("f", {"x": 1})]}
    assert trl_call(ToolCallReward(), [[message]], reference="[f(x=1)]") == [1.0]


def test_same_reading_as_the_metric() -> None:
    # the reward of each completion is exactly the metric's score of that example
    metric = ToolCallMetric("arg", tools=WEATHER_TOOLS)
    completions = [
        "[get_weather(city='Paris', days=3)]",
        "[get_weather(city='Paris', days=3.0)]",
        "[get_weather(city='Paris', unit='celsius', days=3)]",
        "[get_weather(city='paris')]",
        "[get_weather(city='Paris', days=3), get_weather(city='Rome')]",
        "[get_weather(city='Paris'",
        "",
    ]
    ref = "[get_weather(city='Paris', days=3)]"
    for score in SCORES:
        want = [(s.parse_error is None) * getattr(s, score) if score != "exact" else float(s.exact)
                for s in (metric(c, ref) for c in completions)]
        got = trl_call(ToolCallReward("arg", score, tools=WEATHER_TOOLS), completions, reference=ref)
        assert got == want, score


# -- references ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reference",
    [
        [{"name": "f", "arguments": {"x": 1}}],
        '[{"name": "f", "arguments": {"x": 1}}]',
        "[f(x=1)]",
        {"name": "f", "arguments": {"x": 1}},
        [("f", {"x": 1})],
        {"calls": "[f(x=1)]", "tools": []},
        {"role": "assistant", "tool_calls": [openai_call("f", '{"x": 1}')]},
    ],
    ids=["dicts", "json", "python", "one-dict", "tuples", "calls+tools", "openai-message"],
)
def test_any_reference_shape(reference: Any) -> None:
    assert trl_call(ToolCallReward(), ["[f(x=1)]", "[f(x=2)]"], reference=reference) == [1.0, 0.0]


def test_bfcl_references() -> None:
    # BFCL possible answers: lists of accepted values, "" marks an optional parameter
    answer = [{"calc_area": {"base": [10], "height": [5], "unit": ["", "units"]}}]
    reward = ToolCallReward(reference_format="bfcl", canonicalizer="bfcl", matching="optimal")
    completions = ["[calc_area(base=10, height=5)]", "[calc_area(base=10, height=5, unit='units')]",
                   "[calc_area(base=10, height=6)]"]
    assert trl_call(reward, completions, reference=answer) == [1.0, 1.0, 0.0]
    assert trl_call(reward, completions, reference=json.dumps(answer)) == [1.0, 1.0, 0.0]


def test_reference_column_name() -> None:
    reward = ToolCallReward(reference_column="gold")
    assert trl_call(reward, ["[f()]"], gold="[f()]", reference="[g()]") == [1.0]


# -- per-example tools ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "tools",
    [WEATHER_TOOLS, json.dumps(WEATHER_TOOLS), [json.dumps(t) for t in WEATHER_TOOLS]],
    ids=["dicts", "json-string", "json-strings"],
)
def test_tools_column_applies_types_defaults_and_positions(tools: Any) -> None:
    completions = [
        "[get_weather(city='Paris', days=3.0)]",  # 3.0 is not an integer
        "[get_weather(city='Paris', days=3, unit='celsius')]",  # the default
        "[get_weather('Paris', 3)]",  # positional arguments, named by the schema
    ]
    ref = "[get_weather(city='Paris', days=3)]"
    assert trl_call(ToolCallReward(), completions, reference=ref, tools=tools) == [0.0, 1.0, 1.0]
    # without schemas: 3.0 == 3, no default to fill, positions cannot be named
    assert trl_call(ToolCallReward(parse_error_reward=-1.0), completions, reference=ref) == [1.0, 0.0, -1.0]


def test_tools_per_row() -> None:
    completions = ["[get_weather(city='Paris', days=3.0)]"] * 2
    got = trl_call(ToolCallReward(), completions, reference="[get_weather(city='Paris', days=3)]",
                   tools=Rows([WEATHER_TOOLS, None]))
    assert got == [0.0, 1.0]


def test_explicit_tools_column_is_required_default_is_optional() -> None:
    assert trl_call(ToolCallReward(), ["[f()]"], reference="[f()]") == [1.0]  # no "tools" column: fine
    assert trl_call(ToolCallReward(tools_column=None), ["[f()]"], reference="[f()]", tools="oops") == [1.0]
    with pytest.raises(ValueError, match=r"column 'functions' is not among the columns passed to the reward "
                                         r"\(reference\); set tools_column="):
        trl_call(ToolCallReward(tools_column="functions"), ["[f()]"], reference="[f()]")


# -- errors name the column and the row -----------------------------------------------------


def test_missing_reference_column() -> None:
    with pytest.raises(ValueError, match=r"column 'reference' is not among the columns passed to the reward "
                                         r"\(answer\); set reference_column="):
        trl_call(ToolCallReward(), ["[f()]"], answer="[f()]")


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("[f(x=1", r"unbalanced brackets"),
        (None, r"the reference is missing \(None\); write \[\] for an example where no call is expected"),
        (42, r"expected a call, got int 42"),
    ],
    ids=["unreadable", "none", "number"],
)
def test_malformed_reference_names_column_and_row(bad: Any, message: str) -> None:
    with pytest.raises(ValueError, match=r"^ToolCallReward: column 'reference', row 1 \(prompt 'prompt 1'\): .*" + message):
        trl_call(ToolCallReward(), ["[f()]", "[f()]"], reference=Rows(["[f()]", bad]))


def test_malformed_bfcl_reference() -> None:
    reward = ToolCallReward(reference_format="bfcl")
    with pytest.raises(ValueError, match=r"column 'reference', row 0 .*expected a list of accepted values"):
        trl_call(reward, ["[f(x=1)]"], reference=[{"f": {"x": 1}}])


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("[{", r"invalid JSON"),
        ('[{"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}, '
         '"properties": {"x": {"type": "string"}}}}]', r"duplicate key 'properties'"),  # was the second, silently
        (42, r"expected a list of tool schemas \(or its JSON\), got int"),
        ([42], r"tool 0: expected a schema object, got int"),
        ([{"name": "f", "parameters": {"type": "object"}, "importance": -1}], r"tool 'f' importance must be"),
    ],
    ids=["json", "duplicate-key", "number", "item", "bad-importance"],
)
def test_malformed_tools_name_column_and_row(bad: Any, message: str) -> None:
    with pytest.raises(ValueError, match=r"^ToolCallReward: column 'tools', row 1 \(prompt 'prompt 1'\).*" + message):
        trl_call(ToolCallReward(), ["[f()]", "[f()]"], reference="[f()]", tools=Rows([None, bad]))


def test_column_of_the_wrong_length() -> None:
    with pytest.raises(ValueError, match=r"column 'reference': expected one value per completion \(2\), got 1 values"):
        ToolCallReward()(prompts=["p", "p"], completions=["[]", "[]"], reference=["[]"])


@pytest.mark.parametrize(
    ("completion", "message"),
    [(42, r"completions\[0\]: expected text or a list of messages, got int"),
     (["[f()]"], r"completions\[0\]\[0\]: expected a message with a 'role', got str")],
)
def test_completion_of_the_wrong_type(completion: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        trl_call(ToolCallReward(), [completion], reference="[]")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"score": "bleu"}, r"score: unknown value 'bleu'"),
        ({"level": "token"}, r"level: unknown value 'token'"),
        ({"on_parse_error": "raise"}, r"on_parse_error: not a reward setting"),
        ({"parse_error_reward": float("nan")}, r"parse_error_reward: expected a finite number"),
        ({"reference_column": ""}, r"reference_column: expected a column name"),
        ({"matching": "best"}, r"matching: unknown value"),
    ],
)
def test_bad_settings(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ToolCallReward(**kwargs)


# -- name, pickling, batches, import --------------------------------------------------------


def test_name() -> None:
    assert ToolCallReward().__name__ == "toolcall_call_f1"
    assert ToolCallReward("arg", "recall").__name__ == "toolcall_arg_recall"
    assert ToolCallReward(name="tool_use").__name__ == "tool_use"


def test_pickles() -> None:
    reward = ToolCallReward("arg", "precision", tools=WEATHER_TOOLS, weights={"get_weather": 2},
                            parse_error_reward=-1.0, reference_column="gold", name="r")
    clone = pickle.loads(pickle.dumps(reward))
    assert clone.__name__ == "r" and clone.reference_column == "gold"
    completions = ["[get_weather('Paris', 3.0)]", "[get_weather(", "[get_weather(city='Paris', days=3)]"]
    want = trl_call(reward, completions, gold="[get_weather(city='Paris', days=3)]")
    assert want == [2 / 3, -1.0, 1.0]
    assert trl_call(clone, completions, gold="[get_weather(city='Paris', days=3)]") == want


def test_a_grpo_batch_equals_each_row_scored_alone() -> None:
    # groups of num_generations completions share a reference; identical completions repeat
    groups = [
        ("[f(x=1)]", ["[f(x=1)]", "[f(x=2)]", "[f(x=1)]", "[f(x="]),
        ("[g(), f(x=1)]", ["[g()]", "[g(), f(x=1)]", "[g()]", "[]"]),
        ("[]", ["[]", "[f(x=1)]", "[]", "no call"]),
    ]
    completions = [c for _, cs in groups for c in cs]
    references = [ref for ref, cs in groups for _ in cs]
    reward = ToolCallReward("arg", parse_error_reward=-1.0)
    batch = trl_call(reward, completions, reference=Rows(references))
    alone = [trl_call(reward, [c], reference=r)[0] for c, r in zip(completions, references)]
    assert batch == alone
    assert batch == [1.0, 0.5, 1.0, -1.0, 0.5, 1.0, 0.5, 0.0, 1.0, 0.0, 1.0, 1.0]


def test_import_needs_no_trl() -> None:
    code = textwrap.dedent(
        """
        import sys

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("trl", "torch", "transformers"):
                    raise ImportError(f"blocked: {name}")
                return None

        sys.meta_path.insert(0, Block())
        from toolcall_f1.rewards import ToolCallReward
        print(ToolCallReward()(prompts=["p"], completions=["[f()]"], reference=["[f()]"]))
        assert "trl" not in sys.modules and "torch" not in sys.modules
        """
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[1.0]"


def test_benchmark_script_runs() -> None:
    # benchmarks/bench_rewards.py at its smallest size: it runs and every reward column agrees
    # with the metric (never a timing assertion)
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_rewards.py"), "--records", "40", "--batch", "16",
         "--generations", "4", "--repeat", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "completions/s" in out.stdout
    compared = [line for line in out.stdout.splitlines() if "reward, " in line and "identical" not in line]
    assert len(compared) == 3 and all(line.rstrip().endswith(" yes |") for line in compared), out.stdout


def test_rows_with_numpy_values_are_never_keyed_by_their_raw_bytes():
    """marshal writes np.float64(1.0) and np.int64(4607182418800017408) as the same 8 bytes:
    the per-call memo of identical rows must not take one reference for the other."""
    import numpy as np

    one = [{"name": "f", "arguments": {"x": np.float64(1.0)}}]
    big = [{"name": "f", "arguments": {"x": np.int64(4607182418800017408)}}]
    reward = ToolCallReward("arg")
    assert reward(prompts=["p", "p"], completions=["[f(x=1.0)]"] * 2, reference=[one, big]) == [1.0, 0.5]


# -- reward="exact" | "f1" and the logged components (issue 24, TRL) ---------------------------


def test_exact_is_tool_n1s_binary_reward() -> None:
    """1.0 only when every gold call is paired exactly and nothing else is called."""
    ref = "[f(x=1), g(y=2)]"
    completions = ["[g(y=2), f(x=1)]", "[f(x=1)]", "[f(x=1), g(y=2), h()]", "[f(x=1), g(y=3)]", "[f(x=1), g(y=2)"]
    assert trl_call(ToolCallReward(reward="exact"), completions, reference=ref) == [1.0, 0.0, 0.0, 0.0, 0.0]
    partial = trl_call(ToolCallReward(reward="f1"), completions, reference=ref)
    assert partial == [1.0, 2 / 3, 0.8, 0.5, 0.0]  # ToolRL's partial credit, on the same completions
    assert ToolCallReward(reward="exact").__name__ == "toolcall_call_exact"


def test_score_is_rewards_former_name() -> None:
    assert trl_call(ToolCallReward(score="exact"), ["[f(), g()]"], reference="[f()]") == [0.0]
    assert ToolCallReward("arg", score="recall").__name__ == "toolcall_arg_recall"
    with pytest.raises(ValueError, match="score is reward's former name; give one"):
        ToolCallReward(reward="exact", score="recall")
    with pytest.raises(ValueError, match="score: unknown value 'bleu'"):
        ToolCallReward(score="bleu")
    restored = pickle.loads(pickle.dumps(ToolCallReward("arg", reward="exact", parse_error_reward=-1.0)))
    assert (restored.level, restored.reward, restored.__name__) == ("arg", "exact", "toolcall_arg_exact")


def test_logged_components_show_call_inflation_and_format_gaming() -> None:
    """A batch that inflates its calls and games the format: the reward's components say so,
    and they are the batch's micro counts (compute() over the same completions)."""
    tools = json.dumps(WEATHER_TOOLS)
    ref = "[get_weather(city='Paris')]"
    completions = [
        "[get_weather(city='Paris')]",
        "[get_weather(city='Paris'), get_weather(city='Rome'), get_weather(city='Oslo')]",  # inflation
        "[get_weather(city='Paris', mood='happy'), get_time()]",  # an undeclared argument and tool
        "<tool_call>{\"name\": \"get_weather\"",  # cut off: a parse error
    ]
    logs = Logs()
    rewards = trl_call(ToolCallReward(name="r"), completions, logs, reference=ref, tools=tools)
    logged = dict(logs.metrics)
    assert sorted(logged) == sorted(f"r/{key}" for key in COMPONENTS)
    whole = ToolCallMetric(tools=WEATHER_TOOLS).compute(completions, [ref] * 4)
    assert logged["r/precision"] == whole["precision"] == 2 / 6  # tp 1+1, fp 0+2+2, fn 0+0+1+1
    assert logged["r/recall"] == whole["recall"] == 2 / 4
    assert logged["r/f1"] == whole["f1"]
    assert logged["r/exact_match"] == whole["exact_match"] == 0.25
    assert logged["r/parse_error_rate"] == whole["num_parse_errors"] / 4 == 0.25
    assert logged["r/extra_calls"] == (0 + 2 + 1 + 0) / 4  # a wrong pair is no extra call: unpaired ones only
    assert logged["r/hallucinated_tools"] == 1 / 4 and logged["r/hallucinated_args"] == 1 / 4
    assert rewards[0] == 1.0 and rewards[3] == 0.0


def test_components_of_one_score_are_that_example() -> None:
    m = ToolCallMetric("arg")
    s = m("[f(x=1, y=2), g()]", "[f(x=1, y=3)]")
    got = components([s])
    assert (got["precision"], got["recall"], got["f1"]) == (s.precision, s.recall, s.f1)
    assert got["exact_match"] == 0.0 and got["extra_calls"] == 1.0 and got["parse_error_rate"] == 0.0
    assert components([m("[f(x=1, y=3)]", "[f(x=1, y=3)]")])["exact_match"] == 1.0


def test_judge_returns_each_rows_score_and_checks_lengths() -> None:
    rewards, scores = ToolCallReward("arg").judge(["[f(x=1)]", "[f(x=1)]", "[]"], ["[f(x=1)]"] * 3)
    assert rewards == [1.0, 1.0, 0.0] and scores[0] is scores[1]  # identical rows are scored once
    assert [(s.tp, s.fp, s.fn) for s in scores] == [(2.0, 0.0, 0.0), (2.0, 0.0, 0.0), (0.0, 0.0, 2.0)]
    with pytest.raises(ValueError, match=r"expected one reference \(and tools value\) per completion \(2\), got 1"):
        ToolCallReward().judge(["[f()]", "[f()]"], ["[f()]"])


def test_order_turns_reads_each_assistant_message_of_a_conversation_as_a_turn() -> None:
    """A tool result is never a turn: [assistant, tool, assistant] is two turns."""
    completion = [{"role": "assistant", "content": "[f(x=1)]"}, {"role": "tool", "content": "ok"},
                  {"role": "assistant", "content": "[g()]"}]
    gold = {"turns": [["f(x=1)"], ["g()"]]}
    assert ToolCallReward(order="turns", reward="exact")(completions=[completion], reference=[gold]) == [1.0]
    assert ToolCallReward(order="turns")(completions=[completion], reference=[gold]) == [1.0]
    swapped = {"turns": [["g()"], ["f(x=1)"]]}
    assert ToolCallReward(order="turns")(completions=[completion], reference=[swapped]) == [0.0]
    # per-turn outputs given directly are read as compute() reads them
    assert ToolCallReward(order="turns")(completions=[["[f(x=1)]", "[g()]"]], reference=[gold]) == [1.0]
