"""Reading model output: a table of realistic raw outputs per format, BFCL-mode strictness,
and hostile inputs that must become parse errors (or plain data), never a crash."""

from __future__ import annotations

import json

import pytest

from toolcall_f1 import FORMATS, Call, ToolCallMetric, ToolCallParseError, parse_calls

F1 = Call("get_weather", {"city": "Paris", "unit": "celsius"})
F2 = Call("get_time", {"tz": "Europe/Paris"})
NESTED = Call("book", {"guest": {"name": "Ann", "tags": ["vip", "late"]}, "nights": 2, "paid": False, "note": None})

REALISTIC = [
    # --- Python call syntax (BFCL prompt style)
    ("python", "[get_weather(city='Paris', unit='celsius'), get_time(tz='Europe/Paris')]", [F1, F2]),
    ("python", "get_weather(city='Paris', unit='celsius')", [F1]),
    ("python", "  \n[get_weather(city='Paris', unit='celsius')]\n\n", [F1]),
    ("python", "get_weather(city='Paris', unit='celsius'),\nget_time(tz='Europe/Paris')", [F1, F2]),
    ("python", "get_weather(city='Paris', unit='celsius')\nget_time(tz='Europe/Paris')", [F1, F2]),
    ("python", "`[get_weather(city='Paris', unit='celsius')]`", [F1]),
    ("python", "Sure! **Call**: [get_weather(city='Paris', unit='celsius')]\nLet me know.", [F1]),
    ("python", "I'll check both.\n\n1. get_weather(city='Paris', unit='celsius')\n2. get_time(tz='Europe/Paris')", [F1, F2]),
    ("python", "[book(guest={'name': 'Ann', 'tags': ['vip', 'late']}, nights=2, paid=False, note=None)]", [NESTED]),
    ("python", "[math.factorial(number=5)]", [Call("math.factorial", {"number": 5})]),
    ("python", "[f(x=-3, y=+2.5, z=(1, 2), w=celsius)]", [Call("f", {"x": -3, "y": 2.5, "z": [1, 2], "w": "celsius"})]),
    ("python", "[get_weather(\n    city='Paris',\n    unit='celsius',\n)]", [F1]),
    # --- JSON
    ("json", '[{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}]', [F1]),
    ("json", '{"name": "get_weather", "parameters": {"city": "Paris", "unit": "celsius"}}', [F1]),
    ("json", '[{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\", \\"unit\\": \\"celsius\\"}"}]', [F1]),
    ("json", '[{"get_weather": {"city": "Paris", "unit": "celsius"}}, {"get_time": "{\\"tz\\": \\"Europe/Paris\\"}"}]', [F1, F2]),
    ("json", '{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}', [F1, F2]),
    # --- OpenAI
    ("openai", json.dumps({"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps(F1.to_dict()["arguments"])}},
        {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": '{"tz": "Europe/Paris"}'}}]}), [F1, F2]),
    ("openai", json.dumps([{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}}]), [F1]),
    # --- Anthropic
    ("anthropic", json.dumps([{"type": "text", "text": "Checking the weather."},
                              {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris", "unit": "celsius"}}]), [F1]),
    ("anthropic", json.dumps({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "get_time", "input": {"tz": "Europe/Paris"}}]}), [F2]),
    # --- Hermes / Qwen
    ("hermes", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>\n<tool_call>\n{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}\n</tool_call>', [F1, F2]),
    ("hermes", 'Let me look that up.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}</tool_call>', [F1]),
    ("qwen", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}', [F1]),
    # --- Mistral
    ("mistral", '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}, {"name": "get_time", "arguments": {"tz": "Europe/Paris"}}]</s>', [F1, F2]),
    ("mistral", '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "unit": "celsius"}', [F1]),
    # --- Llama
    ("llama", '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris", "unit": "celsius"}}<|eom_id|>', [F1]),
    ("llama", '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris", "unit": "celsius"}}; {"name": "get_time", "parameters": {"tz": "Europe/Paris"}}', [F1, F2]),
    # --- fences with prose
    ("auto", 'Here is the call:\n```json\n[{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}]\n```\nI apologise if that is not what you wanted.', [F1]),
    ("auto", "```python\n[get_weather(city='Paris', unit='celsius')]\n```", [F1]),
    ("auto", "```\nget_weather(city='Paris', unit='celsius')\n```", [F1]),
    ("auto", "```tool_call\n{\"name\": \"get_time\", \"arguments\": {\"tz\": \"Europe/Paris\"}}\n```", [F2]),
    # --- no call at all
    ("auto", "The weather in Paris is mild today; no tool needed.", []),
    ("auto", "", []),
    ("auto", "[]", []),
    ("auto", "   ", []),
]


@pytest.mark.parametrize("fmt,text,expected", REALISTIC, ids=[f"{i}-{r[0]}" for i, r in enumerate(REALISTIC)])
def test_realistic_outputs(fmt: str, text: str, expected: list[Call]) -> None:
    assert parse_calls(text, format=fmt) == expected
    assert parse_calls(text, format="auto") == expected  # auto recovers every format


# Real-model styles, each read in both modes; None means a parse error.
REAL_MODELS = [
    ("call in backticks", "`get_weather(city='Paris', unit='celsius')`", [F1], [F1]),
    ("newlines, no brackets", "get_weather(city='Paris', unit='celsius')\nget_time(tz='Europe/Paris')", [F1, F2], None),
    ("comma-newline, no brackets", "get_weather(city='Paris', unit='celsius'),\nget_time(tz='Europe/Paris')", [F1, F2], [F1, F2]),
    ("fenced then apology", "```python\n[get_weather(city='Paris', unit='celsius')]\n```\nSorry, I hope this helps!", [F1], None),
    ("plain fence with tag", "```python\n[get_weather(city='Paris', unit='celsius')]\n```", [F1], None),
    ("list of call strings", '["get_weather(city=\'Paris\', unit=\'celsius\')"]', None, None),
    ("repeated identical keyword", "[get_weather(city='Paris', city='Paris', unit='celsius')]", [F1], [F1]),
    ("repeated keyword, other value", "[get_weather(city='Paris', city='Rome')]", None, None),
    ("repeated keyword 1 vs 1.0", "[f(n=1, n=1.0)]", None, None),
    ("function-calling list", '[{"math_factorial": "{\\"number\\": 5}"}]', [Call("math_factorial", {"number": 5})], None),
    ("JSON text", '[{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}]', [F2], None),
    ("prose around calls", "Sure.\n[get_time(tz='Europe/Paris')]\nDone.", [F2], None),
    ("bare BFCL list", "[get_time(tz='Europe/Paris')]", [F2], [F2]),
    ("arithmetic", "[f(x=2*3)]", None, None),
    ("subscript", "[f(x=data['sales'])]", None, None),
    ("call as value", "[f(x=g(y=1))]", None, None),
    ("ellipsis", "[f(x=...)]", None, None),
    ("dotted value", "[f(x=math.pi)]", None, None),
    ("set", "[f(x={1, 2})]", None, None),
    ("empty output", "", [], []),
]


@pytest.mark.parametrize("name,text,auto,bfcl", REAL_MODELS, ids=[r[0] for r in REAL_MODELS])
def test_real_model_styles_auto_and_bfcl(name: str, text: str, auto, bfcl) -> None:
    for fmt, expected in (("auto", auto), ("bfcl", bfcl)):
        if expected is None:
            with pytest.raises(ToolCallParseError):
                parse_calls(text, format=fmt)
        else:
            assert parse_calls(text, format=fmt) == expected, fmt


def test_bfcl_mode_reproduces_decode_failures_in_the_metric() -> None:
    gold = [("get_time", {"tz": "Europe/Paris"})]
    fenced = "```python\n[get_time(tz='Europe/Paris')]\n```"
    auto = ToolCallMetric().compute([fenced], [gold])
    strict = ToolCallMetric(prediction_format="bfcl").compute([fenced], [gold])
    assert (auto["exact_match"], auto["num_parse_errors"]) == (1.0, 0)
    assert (strict["exact_match"], strict["num_parse_errors"]) == (0.0, 1)


def test_structured_predictions_read_the_same_in_every_mode() -> None:
    message = {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "get_time", "arguments": '{"tz": "Europe/Paris"}'}}]}
    for fmt in FORMATS:
        assert parse_calls(message, format=fmt) == [F2]


TOOLS = [{"name": "get_weather", "parameters": {"type": "dict", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}}}]


def test_positional_arguments_need_the_schema() -> None:
    assert parse_calls("get_weather('Paris', 'celsius')", tools=TOOLS) == [F1]
    assert parse_calls("get_weather('Paris', unit='celsius')", tools=TOOLS) == [F1]
    with pytest.raises(ToolCallParseError, match="need the tool's schema"):
        parse_calls("get_weather('Paris')")
    with pytest.raises(ToolCallParseError, match="takes 2 parameters, 3 positional"):
        parse_calls("get_weather('Paris', 'c', 3)", tools=TOOLS)
    dotted = [{"name": "math.factorial", "parameters": {"type": "dict", "properties": {"number": {"type": "integer"}}}}]
    assert parse_calls("math_factorial(5)", tools=dotted, name_canonicalizer="underscore") == [Call("math_factorial", {"number": 5})]


def test_positional_arguments_in_the_metric_use_per_example_tools() -> None:
    ref = {"calls": [("get_weather", {"city": "Paris", "unit": "celsius"})], "tools": TOOLS}
    assert ToolCallMetric()("[get_weather('Paris', 'celsius')]", ref).exact


def test_parse_error_carries_format_and_snippet() -> None:
    with pytest.raises(ToolCallParseError) as info:
        parse_calls('<tool_call>{"name": "f", "arguments": {"a": 1}</tool_call>')
    err = info.value
    assert err.format == "hermes" and err.snippet.startswith('{"name"') and isinstance(err, ValueError)


def test_unknown_format_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="format: unknown value 'yaml'"):
        parse_calls("f()", format="yaml")


HOSTILE = [
    "[" * 100_000,
    "[" * 200 + "]" * 200,
    "{" * 500,
    "[f(x=" + "[" * 100 + "]" * 100 + ")]",
    "[f(x=" + "9" * 10_000 + ")]",
    '{"name": "f", "arguments": {"x": ' + "9" * 10_000 + "}}",
    '{"name": "f", "arguments": {"x": NaN}}',
    '{"name": "f", "arguments": {"x": Infinity}}',
    "[f(x=1e400)]",
    '{"name": "f", "arguments": {"x": "a\x00b"}}',
    "[f(x='\x00\x01\x02')]",
    '{"name": "f", "arguments": {"x": "\\ud800"}}',
    "[f(x='\ud800')]",
    "[f(x='" + "a" * 1_100_000 + "')]",
    "x" * 2_000_000,
    "__import__('os').system('echo pwned')",
    "[f(x=__import__('os').system('echo pwned'))]",
    "[f(x=(lambda: 1)())]",
    "[f(x=open('/etc/passwd').read())]",
    "[f(x=[i for i in range(10**9)])]",
    "[f(x=10**10**10)]",
    "<tool_call>" * 1000,
    "[TOOL_CALLS]" * 1000,
    "```" * 1000,
    "\x00\x01\x02",
    "[f(a=1)" * 1000,
    ")" * 1000,
    "'" * 1001,
    '"' * 1001,
    "[f(" + "a=1," * 50_000 + ")]",
]


@pytest.mark.parametrize("text", HOSTILE, ids=[f"hostile-{i}" for i in range(len(HOSTILE))])
def test_hostile_input_is_a_parse_error_or_data(text: str) -> None:
    for fmt in FORMATS:
        try:
            calls = parse_calls(text, format=fmt)
        except ToolCallParseError:
            continue
        assert isinstance(calls, list) and all(isinstance(c, Call) for c in calls)
    result = ToolCallMetric().compute([text], [[("f", {"x": 1})]])
    assert result["num_examples"] == 1


@pytest.mark.parametrize("text,fmt", [
    ("[f(a='\ud800')]", "python"), ("f(a='\udfff')", "python"), ("Sure:\n[f(a='\ud800')]", "python"),
    ("<|tool_call_start|>[f(a='\ud800')]<|tool_call_end|>", "lfm2"), ("<function_calls>\nf(a='\ud800')\n</function_calls>", "olmo3"),
])
def test_a_lone_surrogate_in_python_syntax_is_a_clear_parse_error(text: str, fmt: str) -> None:
    """It was a codec message ("'utf-8' codec can't encode ..."): now the character is named."""
    with pytest.raises(ToolCallParseError, match=r"invalid character U\+D[89A-F][0-9A-F]{2} \(a lone surrogate, offset \d+ in the call\)") as info:
        parse_calls(text)
    assert info.value.format == fmt and "codec" not in str(info.value)


def test_a_lone_surrogate_in_a_json_string_is_data() -> None:
    """JSON allows it (``"\\ud800"``), as in a Python string escape: a value, scored as such."""
    assert parse_calls('{"name": "f", "arguments": {"a": "\\ud800"}}') == [Call("f", {"a": "\ud800"})]
    assert parse_calls("[f(a='\\ud800')]") == [Call("f", {"a": "\ud800"})]


@pytest.mark.parametrize("text,expected", [
    ("[]\n\nNo tool fits the request (none of them match).", []),
    ("[]\nNo tool is needed.", []),
    ("[]\n[f(a=1)]", [Call("f", {"a": 1})]),
])
def test_an_empty_list_on_its_own_line_then_prose(text: str, expected: list[Call]) -> None:
    """``[]`` (no call) then an explanation with parentheses was a parse error (found by the
    two-formats property test)."""
    assert parse_calls(text) == expected


# --- issue 26 item 13: a structured answer is not a call (when schemas are known)

ANSWER_TOOLS = [{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]
ANSWERS = [
    '{"name": "Marie Curie"}',
    '{"capital": "Lima"}',
    '{"answer": "Paris"}',
    '{"name": "Marie Curie", "born": 1867}',
    '{"type": "person", "name": "Alice"}',
    '{"result": {"capital": "Lima"}}',
    '[{"name": "Alice"}, {"name": "Bob"}]',
    'Here it is: {"name": "Alice"}',
    'Sure!\n```json\n{"name": "Marie Curie", "field": "physics"}\n```',
]


@pytest.mark.parametrize("text", ANSWERS)
def test_a_structured_answer_is_zero_calls_when_schemas_are_known(text: str) -> None:
    assert parse_calls(text, tools=ANSWER_TOOLS) == []
    if text.startswith(("{", "[")):
        assert parse_calls(text, format="json", tools=ANSWER_TOOLS) == []
    score = ToolCallMetric(tools=ANSWER_TOOLS)(text, [])
    assert (score.f1, score.parse_error) == (1.0, None)


def test_json_naming_a_listed_tool_or_holding_arguments_stays_a_call() -> None:
    tools = ANSWER_TOOLS
    assert parse_calls('{"name": "get_weather"}', tools=tools) == [Call("get_weather", {})]
    assert parse_calls('{"get_weather": {"city": "Paris"}}', tools=tools) == [Call("get_weather", {"city": "Paris"})]
    assert parse_calls('{"name": "search", "arguments": {"q": "x"}}', tools=tools) == [Call("search", {"q": "x"})]
    assert parse_calls('{"name": "search", "parameters": {}}', format="json", tools=tools) == [Call("search", {})]
    assert parse_calls('[{"name": "get_weather"}, {"name": "Alice"}]', tools=tools) == [Call("get_weather", {}), Call("Alice", {})]
    # without schemas, as before: a bare name is a call, a lone key with a text value a parse error
    assert parse_calls('{"name": "Marie Curie"}') == [Call("Marie Curie", {})]
    with pytest.raises(ToolCallParseError):
        parse_calls('{"capital": "Lima"}')
