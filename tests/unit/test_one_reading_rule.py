"""Rules every reader follows alike (SPEC §2, "no silent misreads"):

- a key written twice — a JSON key, a keyword argument, a family's XML parameter — is one key
  when its values are identical, and a parse error when they differ (never the last value kept);
- a JSON error is labelled ``json`` wherever the JSON stands (a fence, prose), with its offset
  in the whole text;
- under ``"auto"``, a family marker inside a string of one JSON or Python value is data.
"""

from __future__ import annotations

import time

import pytest

from toolcall_f1 import Call, ToolCallMetric, ToolCallParseError, parse_calls

DSML = "\uff5cDSML\uff5c"


def _glm(v1: str, v2: str) -> str:
    return (f"<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>{v1}</arg_value>\n"
            f"<arg_key>a</arg_key>\n<arg_value>{v2}</arg_value>\n</tool_call>")


def _qwen3(v1: str, v2: str) -> str:
    return (f"<tool_call>\n<function=f>\n<parameter=a>\n{v1}\n</parameter>\n"
            f"<parameter=a>\n{v2}\n</parameter>\n</function>\n</tool_call>")


def _minimax(v1: str, v2: str) -> str:
    return (f'<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">{v1}</parameter>\n'
            f'<parameter name="a">{v2}</parameter>\n</invoke>\n</minimax:tool_call>')


def _dsml(v1: str, v2: str) -> str:
    return (f'<{DSML}function_calls>\n<{DSML}invoke name="f">\n'
            f'<{DSML}parameter name="a" string="false">{v1}</{DSML}parameter>\n'
            f'<{DSML}parameter name="a" string="false">{v2}</{DSML}parameter>\n'
            f"</{DSML}invoke>\n</{DSML}function_calls>")


def _olmo3_invoke(v1: str, v2: str) -> str:
    return (f'<function_calls>\n<invoke name="f">\n<parameter name="a">{v1}</parameter>\n'
            f'<parameter name="a">{v2}</parameter>\n</invoke>\n</function_calls>')


def _gemma4(v1: str, v2: str) -> str:
    return f"<|tool_call>call:f{{a:{v1},a:{v2}}}<tool_call|>"


def _gemma4_nested(v1: str, v2: str) -> str:
    return f"<|tool_call>call:f{{o:{{a:{v1},a:{v2}}}}}<tool_call|>"


def _olmo3_python(v1: str, v2: str) -> str:
    return f"<function_calls>\nf(a={v1}, a={v2})\n</function_calls>"


def _json_in_xml(v1: str, v2: str) -> str:  # the value of one parameter is JSON naming a key twice
    return f'<tool_call>\n<function=f>\n<parameter=o>\n{{"a": {v1}, "a": {v2}}}\n</parameter>\n</function>\n</tool_call>'


def _json_in_invoke(v1: str, v2: str) -> str:
    return f'<minimax:tool_call><invoke name="f"><parameter name="o">{{"a": {v1}, "a": {v2}}}</parameter></invoke></minimax:tool_call>'


def _json_in_dsml_string_false(v1: str, v2: str) -> str:
    return (f'<{DSML}function_calls><{DSML}invoke name="f"><{DSML}parameter name="o" string="false">'
            f'{{"a": {v1}, "a": {v2}}}</{DSML}parameter></{DSML}invoke></{DSML}function_calls>')


def _json_in_glm(v1: str, v2: str) -> str:
    return f'<tool_call>f\n<arg_key>o</arg_key>\n<arg_value>{{"a": {v1}, "a": {v2}}}</arg_value>\n</tool_call>'


#: (format, text maker, the call read when both values are 1)
REPEATS = [
    ("glm45", _glm, Call("f", {"a": 1})),
    ("qwen3_coder", _qwen3, Call("f", {"a": 1})),
    ("minimax_m2", _minimax, Call("f", {"a": 1})),
    ("deepseek_v32", _dsml, Call("f", {"a": 1})),
    ("olmo3", _olmo3_invoke, Call("f", {"a": 1})),
    ("olmo3", _olmo3_python, Call("f", {"a": 1})),
    ("gemma4", _gemma4, Call("f", {"a": 1})),
    ("gemma4", _gemma4_nested, Call("f", {"o": {"a": 1}})),
    ("qwen3_coder", _json_in_xml, Call("f", {"o": {"a": 1}})),
    ("minimax_m2", _json_in_invoke, Call("f", {"o": {"a": 1}})),
    ("deepseek_v32", _json_in_dsml_string_false, Call("f", {"o": {"a": 1}})),
    ("glm45", _json_in_glm, Call("f", {"o": {"a": 1}})),
]
IDS = [make.__name__.strip("_") for _, make, _ in REPEATS]


@pytest.mark.parametrize(("fmt", "make", "call"), REPEATS, ids=IDS)
def test_a_key_given_two_different_values_is_a_parse_error_in_every_family(fmt, make, call) -> None:
    # GLM, MiniMax-M2, DSML, OLMo 3 <invoke> and Gemma 4 kept the last value (f(a=2)) silently;
    # JSON inside an XML value was kept as its raw text
    text = make("1", "2")
    for reader in (fmt, "auto"):
        with pytest.raises(ToolCallParseError, match=r"duplicate (parameter|argument|key) 'a' with different values at character \d+"):
            parse_calls(text, format=reader)
    score = ToolCallMetric(prediction_format=fmt)(text, [call])
    assert score.parse_error is not None and "duplicate" in score.parse_error


@pytest.mark.parametrize(("fmt", "make", "call"), REPEATS, ids=IDS)
def test_a_key_given_the_same_value_twice_is_one_key_in_every_family(fmt, make, call) -> None:
    # Qwen3-Coder refused even an identical repeat, unlike every other reader
    for reader in (fmt, "auto"):
        assert parse_calls(make("1", "1"), format=reader) == [call]


def test_one_and_one_point_zero_are_different_values() -> None:
    with pytest.raises(ToolCallParseError, match="duplicate parameter 'a'"):
        parse_calls(_glm("1", "1.0"), format="glm45")


def test_a_json_object_and_a_parameter_naming_the_same_key_follow_the_rule() -> None:
    same = '<minimax:tool_call><invoke name="f">{"a": 1}<parameter name="a">1</parameter></invoke></minimax:tool_call>'
    assert parse_calls(same) == [Call("f", {"a": 1})]
    with pytest.raises(ToolCallParseError, match="minimax_m2: duplicate parameter 'a'"):
        parse_calls(same.replace(">1</", ">2</"))  # the parameter's value replaced the object's
    qwen = "<function=f>{\"a\": 1}<parameter=a>1</parameter></function>"
    assert parse_calls(qwen) == [Call("f", {"a": 1})]


def test_a_sole_arguments_parameter_holding_json_that_names_a_key_twice_is_an_error() -> None:
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}]
    text = (f'<{DSML}function_calls><{DSML}invoke name="f"><{DSML}parameter name="arguments" string="true">'
            f'{{"a": 1, "a": 2}}</{DSML}parameter></{DSML}invoke></{DSML}function_calls>')
    assert parse_calls(text.replace('"a": 2', '"a": 1'), tools=tools) == [Call("f", {"a": 1})]
    with pytest.raises(ToolCallParseError, match="deepseek_v32: duplicate key 'a'"):
        parse_calls(text, tools=tools)  # was f(arguments='{"a": 1, "a": 2}'): its text kept


def test_xml_text_that_is_not_json_still_stays_text() -> None:
    text = _qwen3("NaN", "NaN").replace("<parameter=a>\nNaN\n</parameter>\n</function>", "</function>")
    assert parse_calls(text) == [Call("f", {"a": "NaN"})]


# --------------------------------------------------------------------------- JSON errors


@pytest.mark.parametrize(
    ("text", "offset"),
    [('```json\n{"name": "f", "arguments": {"a": 1, "a": 2}}\n```', 8),
     ('Here:\n```json\n  {"name": "f", "arguments": {"a": 1, "a": 2}}\n```\nok', 16),
     ('Calling it: {"name": "f", "arguments": {"a": 1, "a": 2}} now.', 12),
     ('\n\n  Calling it: {"name": "f", "arguments": {"a": 1, "a": 2}} now.', 16)],
    ids=["fence", "fence-after-prose", "prose", "prose-after-blank-lines"],
)
def test_fenced_or_inline_json_naming_a_key_twice_is_a_json_error_at_its_offset(text: str, offset: int) -> None:
    # it read "python: duplicate key 'a' with different values at character 0"
    assert text[offset] == "{"
    with pytest.raises(ToolCallParseError) as err:
        parse_calls(text)
    assert err.value.format == "json"
    assert str(err.value).startswith(f"json: duplicate key 'a' with different values at character {offset} ")


# --------------------------------------------------------------------------- markers inside strings


@pytest.mark.parametrize(
    ("text", "expected"),
    [('{"name": "f", "arguments": {"text": "wrap it in <tool_call> tags"}}', [Call("f", {"text": "wrap it in <tool_call> tags"})]),
     ('[{"name": "f", "arguments": {"text": "[TOOL_CALLS] and <|python_tag|>"}}]', [Call("f", {"text": "[TOOL_CALLS] and <|python_tag|>"})]),
     ("[f(text='<tool_call>{\"name\": \"g\"}</tool_call>')]", [Call("f", {"text": '<tool_call>{"name": "g"}</tool_call>'})]),
     ('```json\n{"name": "f", "arguments": {"q": "<|channel|>final"}}\n```', [Call("f", {"q": "<|channel|>final"})]),
     ('{"answer": "use <tool_call>", "score": 3}', [])],
    ids=["json-call", "json-list", "python-list", "fenced-json", "json-answer"],
)
def test_auto_reads_one_json_or_python_value_whose_strings_hold_a_marker(text: str, expected: list[Call]) -> None:
    # each was a parse error naming the family (hermes, mistral, harmony) whose marker stood in a string
    assert parse_calls(text) == expected
    assert ToolCallMetric()(text, expected).parse_error is None


def test_a_marker_outside_the_json_value_is_still_read() -> None:
    text = '{"name": "f", "arguments": {"t": "<tool_call>"}}\n<tool_call>{"name": "g", "arguments": {}}</tool_call>'
    assert parse_calls(text) == [Call("f", {"t": "<tool_call>"}), Call("g", {})]


@pytest.mark.parametrize("size", [100_000, 200_000])
def test_markers_inside_long_strings_finish(size: int) -> None:
    """A hang guard (a generous bound), not a timing claim: each value before a marker is
    measured once, and the scan resumes past it."""
    n = size // len("<tool_call>")
    texts = ['{"name": "f", "arguments": {"t": "' + "<tool_call>" * n + '"}}',
             '{"name": "f", "arguments": {"t": "' + "<tool_call>" * n,  # never closed
             "[f(t='" + "[TOOL_CALLS]" * (n // 2) + "')]",
             '[{"name": "f", "arguments": {"t": "' + '<tool_call>{"' * (n // 2),
             '{"name": "f", "arguments": {"t": "<tool_call>"}}\n' * (size // 50) + "<tool_call>{}</tool_call>",
             "f(a=1) " * (size // 7) + '<tool_call>{"name": "g"}</tool_call>',  # calls measured, none holds it
             'x(' * (size // 2) + "<tool_call>", '{"a": "' * (size // 7) + "<tool_call>",
             "a" * size + '\n<tool_call>{"name": "f", "arguments": {}}</tool_call>',  # a name's start was sought in every letter
             "The digest is " + "0f" * (size // 2) + '.\n<tool_call>{"name": "f", "arguments": {}}</tool_call>']
    for text in texts:
        start = time.perf_counter()
        try:
            parse_calls(text)
        except ToolCallParseError:
            pass
        assert time.perf_counter() - start < 10


QWEN_CALL = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"


@pytest.mark.parametrize(
    "prose",
    ["I'll check get_weather(Paris's forecast).\n", "find_contact(O'Brien):\n", "I will call get_weather(for Paris.\n"],
    ids=["apostrophe", "name-apostrophe", "unclosed"],
)
def test_prose_that_only_looks_like_a_call_around_a_marker_leaves_the_marker_live(prose: str) -> None:
    # the span from "get_weather(" to a later ")" (here "1)" and ":)") held the block, and the call was
    # lost silently: a span counts as a value only if it parses as one call
    text = prose + QWEN_CALL + "\nHere's the plan: 1) fetch 2) report :)\n)"
    assert parse_calls(text) == [Call("get_weather", {"city": "Paris"})]
    assert ToolCallMetric().compute([text], [[("get_weather", {"city": "Paris"})]])["f1"] == 1.0
