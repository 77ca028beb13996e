"""Every model family's own tool-call format, written as the model's chat template renders
it: single call, parallel calls, a call without arguments, nested and typed arguments, prose
around the calls, and a generation cut off inside a call (a parse error naming the family,
never "zero calls"). Each case is read through the family's named format and through
``"auto"``. Adversarial 100k-character inputs per family must finish (linear readers)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from toolcall_f1 import FORMATS, Call, ToolCallMetric, ToolCallParseError, parse_calls
from toolcall_f1.parsing import find_marker

W = Call("get_weather", {"city": "Paris", "days": 3})
T = Call("get_time", {})
N = Call("book", {"guest": {"name": "Ann", "tags": ["vip", "late"]}, "paid": False, "note": None})

DS = {k: f"<\uff5c{v}\uff5c>" for k, v in {
    "calls": "tool\u2581calls\u2581begin", "calls_end": "tool\u2581calls\u2581end", "call": "tool\u2581call\u2581begin",
    "call_end": "tool\u2581call\u2581end", "sep": "tool\u2581sep"}.items()}
DSML = "\uff5cDSML\uff5c"


def _j(value: object) -> str:
    return json.dumps(value)


def _py_value(v: object) -> str:
    return repr(v)


def _py(c: Call) -> str:
    return f"{c.name}(" + ", ".join(f"{k}={_py_value(v)}" for k, v in c.arguments.items()) + ")"


def _xml_raw(v: object) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def _gemma(v: object) -> str:
    if isinstance(v, str):
        return f'<|"|>{v}<|"|>'
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{_gemma(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(_gemma(x) for x in v) + "]"
    return json.dumps(v)


def _list_json(cs: list[Call], key: str = "arguments") -> str:
    return _j([{"name": c.name, key: dict(c.arguments)} for c in cs])


# How each family's chat template writes a list of calls (one assistant turn).
RENDER: dict[str, Callable[[list[Call]], str]] = {
    "hermes": lambda cs: "\n".join(f"<tool_call>\n{_j({'name': c.name, 'arguments': dict(c.arguments)})}\n</tool_call>" for c in cs),
    "qwen3_coder": lambda cs: "\n".join(
        "<tool_call>\n<function=" + c.name + ">\n"
        + "".join(f"<parameter={k}>\n{_xml_raw(v)}\n</parameter>\n" for k, v in c.arguments.items())
        + "</function>\n</tool_call>" for c in cs),
    "seed_oss": lambda cs: "<seed:think>The user wants tools.</seed:think>" + "".join(
        "<seed:tool_call>\n<function=" + c.name + ">\n"
        + "".join(f"<parameter={k}>{_xml_raw(v)}</parameter>\n" for k, v in c.arguments.items())
        + "</function>\n</seed:tool_call>" for c in cs),
    "glm45": lambda cs: "\n".join(
        f"<tool_call>{c.name}\n"
        + "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{_xml_raw(v)}</arg_value>\n" for k, v in c.arguments.items())
        + "</tool_call>" for c in cs),
    "harmony": lambda cs: "<|channel|>analysis<|message|>I should call a tool.<|end|>" + "".join(
        f"<|start|>assistant<|channel|>commentary to=functions.{c.name} <|constrain|>json<|message|>{_j(dict(c.arguments))}<|call|>"
        for c in cs),
    "deepseek": lambda cs: DS["calls"] + "".join(
        f"{DS['call']}function{DS['sep']}{c.name}\n```json\n{_j(dict(c.arguments))}\n```{DS['call_end']}" for c in cs)
        + DS["calls_end"],
    "deepseek_v31": lambda cs: DS["calls"] + "".join(
        f"{DS['call']}{c.name}{DS['sep']}{_j(dict(c.arguments))}{DS['call_end']}" for c in cs) + DS["calls_end"],
    "deepseek_v32": lambda cs: f"<{DSML}function_calls>\n" + "".join(
        f'<{DSML}invoke name="{c.name}">\n' + "".join(
            f'<{DSML}parameter name="{k}" string="{"true" if isinstance(v, str) else "false"}">{_xml_raw(v)}</{DSML}parameter>\n'
            for k, v in c.arguments.items()) + f"</{DSML}invoke>\n" for c in cs) + f"</{DSML}function_calls>",
    "kimi_k2": lambda cs: "<|tool_calls_section_begin|>" + "".join(
        f"<|tool_call_begin|>functions.{c.name}:{i}<|tool_call_argument_begin|>{_j(dict(c.arguments))}<|tool_call_end|>"
        for i, c in enumerate(cs)) + "<|tool_calls_section_end|>",
    "llama": lambda cs: "<|python_tag|>" + "; ".join(_j({"name": c.name, "parameters": dict(c.arguments)}) for c in cs) + "<|eom_id|>",
    "llama4": lambda cs: "<|python_start|>[" + ", ".join(_py(c) for c in cs) + "]<|python_end|>",
    "mistral": lambda cs: "[TOOL_CALLS]" + _list_json(cs) + "</s>",
    "mistral_args": lambda cs: "".join(f"[TOOL_CALLS]{c.name}[ARGS]{_j(dict(c.arguments))}" for c in cs) + "</s>",
    "mistral_call_id": lambda cs: "".join(f"[TOOL_CALLS]{c.name}[CALL_ID]a{i}b2c3d4e5[ARGS]{_j(dict(c.arguments))}" for i, c in enumerate(cs)),
    "granite": lambda cs: "<|tool_call|>" + _list_json(cs),
    "lfm2": lambda cs: "<|tool_call_start|>[" + ", ".join(_py(c) for c in cs) + "]<|tool_call_end|>",
    "phi4_mini": lambda cs: "functools" + _list_json(cs),
    "internlm2": lambda cs: "".join(
        f"<|action_start|><|plugin|>\n{_j({'name': c.name, 'parameters': dict(c.arguments)})}<|action_end|>\n" for c in cs),
    "jamba": lambda cs: "<tool_calls>" + _list_json(cs) + "</tool_calls>",
    "nemotron": lambda cs: "<TOOLCALL>" + _list_json(cs) + "</TOOLCALL>",
    "gemma4": lambda cs: "".join(f"<|tool_call>call:{c.name}{_gemma(dict(c.arguments))}<tool_call|>" for c in cs),
    "minimax_m2": lambda cs: "<think>Let me call the tools.</think>\n<minimax:tool_call>\n" + "".join(
        f'<invoke name="{c.name}">\n' + "".join(f'<parameter name="{k}">{_xml_raw(v)}</parameter>\n' for k, v in c.arguments.items())
        + "</invoke>\n" for c in cs) + "</minimax:tool_call>",
    "command_r": lambda cs: "<|START_THINKING|>I will use the tools.<|END_THINKING|><|START_ACTION|>" + _j(
        [{"tool_call_id": str(i), "tool_name": c.name, "parameters": dict(c.arguments)} for i, c in enumerate(cs)]) + "<|END_ACTION|>",
    "olmo3": lambda cs: "<function_calls>\n" + "\n".join(_py(c) for c in cs) + "\n</function_calls>",
    "functionary": lambda cs: ">>>all\nLet me look that up." + "".join(f">>>{c.name}\n{_j(dict(c.arguments))}" for c in cs),
    "functionary_v31": lambda cs: "".join(f"<function={c.name}>{_j(dict(c.arguments))}</function>" for c in cs),
    "gigachat3": lambda cs: "function call<|role_sep|>\n" + _j({"name": cs[0].name, "arguments": dict(cs[0].arguments)}) if len(cs) == 1 else "",
    "apertus": lambda cs: "<|inner_prefix|>Think first.<|inner_suffix|><|tools_prefix|>" + _j([{c.name: dict(c.arguments)} for c in cs]) + "<|tools_suffix|>",
    "xlam": lambda cs: _list_json(cs),
}
# the registry name each rendering is read with
FORMAT_OF = {"seed_oss": "seed_oss", "deepseek_v31": "deepseek_v31", "mistral_args": "mistral",
             "mistral_call_id": "mistral", "functionary_v31": "functionary"}

SHAPES = [("single", [W]), ("parallel", [W, T]), ("no-arguments", [T]), ("nested", [N])]
CASES = []
for fam in RENDER:
    for shape, cs in SHAPES:
        text = RENDER[fam](cs)
        if text:
            CASES.append(pytest.param(FORMAT_OF.get(fam, fam), text, cs, id=f"{fam}-{shape}"))
    CASES.append(pytest.param(FORMAT_OF.get(fam, fam), "Let me check that for you.\n" + RENDER[fam]([W]) + "\nI will report back.", [W], id=f"{fam}-prose"))


@pytest.mark.parametrize("fmt,text,expected", CASES)
def test_family_reads_its_template(fmt: str, text: str, expected: list[Call]) -> None:
    assert parse_calls(text, format=fmt) == expected
    assert parse_calls(text, format="auto") == expected


TRUNCATED = [pytest.param(FORMAT_OF.get(fam, fam), RENDER[fam]([W]), id=fam) for fam in RENDER if fam != "xlam"]


@pytest.mark.parametrize("fmt,text", TRUNCATED)
def test_cut_off_generation_is_a_parse_error_naming_the_family(fmt: str, text: str) -> None:
    cut = text[: text.index("Par") + 3]  # max_tokens reached inside the first call
    for reader in (fmt, "auto"):
        with pytest.raises(ToolCallParseError) as info:
            parse_calls(cut, format=reader)
        assert FORMATS[info.value.format] is FORMATS[fmt] or info.value.format in (fmt, "qwen3_coder", "glm45")
        assert "at character" in str(info.value)


MARKER_ONLY = [
    ("hermes", "<tool_call>\n</tool_call>"),
    ("qwen3_coder", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis"),
    ("harmony", "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json"),
    ("deepseek", DS["calls"]),
    ("kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"),
    ("mistral", "[TOOL_CALLS]"),
    ("gemma4", "<|tool_call>call:get_weather"),
    ("minimax_m2", "<minimax:tool_call>\n</minimax:tool_call>"),
    ("deepseek_v32", f"<{DSML}function_calls>\n</{DSML}function_calls>"),
    ("jamba", "<tool_calls></tool_calls>"),
    ("llama4", "<|python_start|><|python_end|>"),
    ("command_r", "<|START_ACTION|><|END_ACTION|>"),
]


@pytest.mark.parametrize("fmt,text", MARKER_ONLY, ids=[m[0] for m in MARKER_ONLY])
def test_marker_without_a_call_is_never_zero_calls(fmt: str, text: str) -> None:
    for reader in (fmt, "auto"):
        with pytest.raises(ToolCallParseError, match="at character"):
            parse_calls(text, format=reader)


def test_prose_without_markers_is_zero_calls_in_every_family() -> None:
    prose = "The weather in Paris is mild today; I do not need a tool for that."
    for fmt in FORMATS:
        if fmt not in ("json", "openai", "anthropic", "bfcl"):  # strict formats: prose is not a call list
            assert parse_calls(prose, format=fmt) == [], fmt


# --- values written as text in XML-style formats are typed by the tool's schema

TOOLS = [{"name": "lookup", "parameters": {"type": "object", "properties": {
    "code": {"type": "string"}, "n": {"type": "integer"}, "flag": {"type": "boolean"}, "opts": {"type": "object"}}}}]
TYPED = {
    "qwen3_coder": "<tool_call>\n<function=lookup>\n<parameter=code>\n007\n</parameter>\n<parameter=n>\n7\n</parameter>\n"
                   "<parameter=flag>\ntrue\n</parameter>\n<parameter=opts>\n{\"a\": 1}\n</parameter>\n</function>\n</tool_call>",
    "glm45": "<tool_call>lookup\n<arg_key>code</arg_key>\n<arg_value>007</arg_value>\n<arg_key>n</arg_key>\n<arg_value>7</arg_value>\n"
             "<arg_key>flag</arg_key>\n<arg_value>true</arg_value>\n<arg_key>opts</arg_key>\n<arg_value>{\"a\": 1}</arg_value>\n</tool_call>",
    "minimax_m2": '<minimax:tool_call>\n<invoke name="lookup">\n<parameter name="code">007</parameter>\n<parameter name="n">7</parameter>\n'
                  '<parameter name="flag">true</parameter>\n<parameter name="opts">{"a": 1}</parameter>\n</invoke>\n</minimax:tool_call>',
}


@pytest.mark.parametrize("fmt", sorted(TYPED))
def test_xml_values_are_typed_by_the_schema(fmt: str) -> None:
    expected = [Call("lookup", {"code": "007", "n": 7, "flag": True, "opts": {"a": 1}})]
    assert parse_calls(TYPED[fmt], format=fmt, tools=TOOLS) == expected
    assert parse_calls(TYPED[fmt], tools=TOOLS) == expected
    # without a schema: JSON when it parses ("007" does not), else text
    assert parse_calls(TYPED[fmt], format=fmt) == [Call("lookup", {"code": "007", "n": 7, "flag": True, "opts": {"a": 1}})]
    metric = ToolCallMetric(tools=TOOLS, prediction_format=fmt)
    assert metric(TYPED[fmt], expected).exact


def test_xml_text_value_that_is_not_json_stays_text() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=q>\nhello world\n</parameter>\n</function>\n</tool_call>"
    assert parse_calls(text) == [Call("f", {"q": "hello world"})]


# --- family specifics


@pytest.mark.parametrize("text", [
    '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris", "days": 3}<|call|>',
    '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris", "days": 3}<|call|>',
])
def test_harmony_recipient_before_or_after_the_channel(text: str) -> None:
    assert parse_calls(text) == [W] == parse_calls(text, format="gpt-oss")


@pytest.mark.parametrize("text,reason", [
    ('<|channel|>commentary{"city": "Paris"}', "cut off"),
    ("<|channel|>commentary to=functions", "cut off"),
    ("<|start|>assistant<|channel|>commentary to=functions.", "cut off"),
    ('<|channel|>analysis<|message|>Need a tool.<|end|> to=functions.get_weather', "cut off"),
    ('<|channel|>commentary<|message|>{"city": "Paris"}<|call|>', "names no recipient"),
    ('<|channel|>commentary <|constrain|>json<|message|>{"city": "Paris"}', "name no recipient"),
    ('<|channel|>commentary to=functions<|message|>{"city": "Paris"}<|call|>', "names no function"),
    ('<|channel|>commentary to=functions. <|message|>{"city": "Paris"}<|call|>', "names no function"),
])
def test_harmony_call_marker_without_a_complete_call_is_a_parse_error(text: str, reason: str) -> None:
    """These read as zero calls (an attacking review): a call began, none can be read."""
    for fmt in ("auto", "harmony"):
        with pytest.raises(ToolCallParseError, match=reason) as info:
            parse_calls(text, format=fmt)
        assert info.value.format == "harmony" and "at character" in str(info.value)


def test_harmony_preamble_and_builtin_tools_are_not_calls() -> None:
    assert parse_calls("<|channel|>commentary<|message|>Let me check the weather.<|end|>") == []
    assert parse_calls('<|channel|>commentary to=browser.search<|message|>{"query": "x"}<|call|>') == []


def test_every_family_followed_by_another_family_reads_both() -> None:
    """Two families in one text, and a plain call after a family's blocks (through ``auto``
    and the family's name): every call, in order — they were dropped silently."""
    misses = []
    for a, render in RENDER.items():
        first = render([W])
        for tail in ("\n[get_time()]", '\n{"name": "get_time", "arguments": {}}'):
            for fmt in ("auto", FORMAT_OF.get(a, a)):
                if parse_calls(first + tail, format=fmt) != [W, T]:
                    misses.append((a, tail, fmt))
        for b, then in RENDER.items():
            second = then([T])
            if second and parse_calls(first + "\n" + second) != [W, T]:
                misses.append((a, b))
    assert misses == []


def test_harmony_analysis_text_is_never_a_call_final_text_is_read() -> None:
    text = ('<|channel|>analysis<|message|>[get_weather(city="Rome")] would be wrong.<|end|>'
            '<|start|>assistant<|channel|>final<|message|>{"name": "get_weather", "arguments": {}}<|return|>')
    assert parse_calls(text) == [Call("get_weather", {})]
    prose = text.replace('{"name": "get_weather", "arguments": {}}', "It is sunny in Rome.")
    assert parse_calls(prose) == []


def test_llama_builtin_tool_call_names_the_tool() -> None:
    text = '<|python_tag|>brave_search.call(query="weather in Paris")<|eom_id|>'
    assert parse_calls(text) == [Call("brave_search", {"query": "weather in Paris"})]


def test_mistral_name_then_json_without_args_marker() -> None:
    assert parse_calls('[TOOL_CALLS]get_weather{"city": "Paris", "days": 3}') == [W]


def test_deepseek_v32_plain_tags_and_json_body() -> None:
    text = '<function_calls>\n<invoke name="get_weather">\n{"city": "Paris", "days": 3}\n</invoke>\n</function_calls>'
    assert parse_calls(text) == [W]


def test_olmo_function_calls_keep_every_line() -> None:
    text = "<function_calls>\nget_weather(city='Paris', days=3)\nget_time()\n</function_calls>"
    assert parse_calls(text) == [W, T] == parse_calls(text, format="olmo3")


def test_qwen3_coder_without_the_tool_call_wrapper() -> None:
    assert parse_calls("<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>") == [W]


def test_closing_tag_inside_a_json_string_is_data() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"q": "</tool_call>"}}</tool_call>'
    assert parse_calls(text) == [Call("f", {"q": "</tool_call>"})]


# --- adversarial inputs: every reader is one linear pass (a quadratic one would not finish)

OPENERS = ["<tool_call>", "<function=", "<parameter=", "<|channel|>", "<|message|>", DS["call"], f"<{DSML}invoke name=\"",
           "<|tool_call_begin|>", "<|python_tag|>", "<|python_start|>", "[TOOL_CALLS]", "[TOOL_CALLS]f[ARGS]", "<|tool_call|>",
           "<|tool_call_start|>", "functools[", "<|action_start|><|plugin|>", "<tool_calls>", "<TOOLCALL>", "<|tool_call>call:f{",
           "<|\"|>", "<minimax:tool_call><invoke name=\"f\">", "<|START_ACTION|>", "<function_calls>", "\n>>>f\n",
           "function call{", "<|tools_prefix|>", "<think>", "</think>", "<arg_key>", "```", "[f(", "{\"name\": "]


def _adversarial(opener: str, size: int) -> list[str]:
    reps = max(1, size // max(1, len(opener)))
    return [opener * reps, opener + "a" * size, opener + "0" * size, opener + "{" * 60 + "}" * 60 + " " * size,
            opener + "[" * 30 + "x" * size]


@pytest.mark.parametrize("opener", OPENERS)
def test_adversarial_inputs_finish(opener: str) -> None:
    """Through ``auto`` and the family the opener announces; 100k and 200k characters."""
    hit = find_marker(opener + "x")
    readers = ["auto", "python"] + ([hit[0]] if hit else [])
    for size in (100_000, 200_000):
        for text in _adversarial(opener, size):
            for fmt in readers:
                start = time.perf_counter()
                try:
                    parse_calls(text, format=fmt)
                except ToolCallParseError:
                    pass
                assert time.perf_counter() - start < 10, (fmt, opener, size)  # a hang guard, not a timing claim


def test_every_reader_finishes_on_a_long_run_of_its_own_marker() -> None:
    for fmt in sorted({next(n for n, r in FORMATS.items() if r is reader) for reader in set(FORMATS.values())}):
        for text in ("<" * 100_000, "{" * 50 + "a" * 100_000, "[f(a=" + "0" * 99_000 + ")]", "```" + "a" * 100_000):
            start = time.perf_counter()
            try:
                parse_calls(text, format=fmt)
            except ToolCallParseError:
                pass
            assert time.perf_counter() - start < 10, fmt


@pytest.mark.parametrize("fmt", ["auto", "harmony"])
def test_harmony_final_channel_text_is_read_analysis_never(fmt: str) -> None:
    """gpt-oss prompted BFCL-style writes its calls as text in the final channel: they were
    dropped silently; what the analysis channel says is still never a call."""
    text = ("<|channel|>analysis<|message|>[g(y=2)] maybe<|end|><|start|>assistant<|channel|>final"
            "<|message|>Calling: [f(x=1)]<|return|>")
    assert parse_calls(text, format=fmt) == [Call("f", {"x": 1})]


# --- the error messages of the per-family readers' former doctests (their calls are format cases)

FAMILY_ERROR_MESSAGES = [
    ("hermes", '<tool_call>{"name": "f", "arguments": {"a": 1}</tool_call>',
     "hermes: invalid JSON at character 46: Expecting ',' delimiter (in '{\"name\": \"f\", \"arguments\": {\"a\": 1}</tool_call>')"),
    ("harmony", "<|channel|>commentary to=functions",
     "harmony: a message to a tool is cut off (no <|message|>) at character 0 (in '<|channel|>commentary to=functions')"),
]


@pytest.mark.parametrize("fmt,text,message", FAMILY_ERROR_MESSAGES, ids=[m[0] for m in FAMILY_ERROR_MESSAGES])
def test_a_family_error_names_the_family_and_the_offset(fmt: str, text: str, message: str) -> None:
    for reader in (fmt, "auto"):
        with pytest.raises(ToolCallParseError) as info:
            parse_calls(text, format=reader)
        assert str(info.value) == message


def test_a_family_named_reader_is_derived_from_its_block_function() -> None:
    """One row per family: the named reader reads the family's blocks and the plain text around them."""
    from toolcall_f1.reading import FAMILIES

    assert [f.name for f in FAMILIES][:3] == ["hermes", "qwen3_coder", "glm45"]
    hermes = next(f for f in FAMILIES if f.name == "hermes")
    assert FORMATS["hermes"] is FORMATS["qwen"] is hermes.read
    text = '[f(a=1)] <tool_call>{"name": "g", "arguments": {}}</tool_call>'
    assert parse_calls(text, format="hermes") == [Call("f", {"a": 1}), Call("g", {})]


# --- issue 26 item 3: every call after a Mistral marker is read; a marker that announces no call is an error

A_, B_ = Call("a", {}), Call("b", {})
MISTRAL_EVERY_CALL = [
    ("a second marker on the next line", "[TOOL_CALLS]a\n[TOOL_CALLS]b"),
    ("a second marker after arguments", "[TOOL_CALLS]a[ARGS]{}[TOOL_CALLS]b"),
    ("a second marker right after a name", "[TOOL_CALLS]a[TOOL_CALLS]b"),
]


@pytest.mark.parametrize("text", [c[1] for c in MISTRAL_EVERY_CALL], ids=[c[0] for c in MISTRAL_EVERY_CALL])
def test_mistral_reads_the_call_after_every_marker(text: str) -> None:
    for fmt in ("mistral", "auto"):
        assert parse_calls(text, format=fmt) == [A_, B_]


MARKER_WITHOUT_CALL = [
    ("qwen3_coder", "<seed:tool_call>"),
    ("qwen3_coder", "<seed:tool_call>\n</seed:tool_call>"),
    ("command_r", "Action:\n```"),
    ("mistral", '[TOOL_CALLS]a[ARGS]{}[TOOL_CALLS] and then?'),
]


@pytest.mark.parametrize("fmt,text", MARKER_WITHOUT_CALL)
def test_a_marker_that_announces_no_call_is_an_error_naming_the_family(fmt: str, text: str) -> None:
    for reader in (fmt, "auto"):
        with pytest.raises(ToolCallParseError, match="at character") as info:
            parse_calls(text, format=reader)
        assert info.value.format == fmt


# --- issue 26 item 6: Command R's Action: blocks, with CRLF line ends and more than one

ACTION_F = 'Action:\n```json\n[{"tool_name": "f", "parameters": {"a": 1}}]\n```'
ACTION_G = 'Action:\n```json\n[{"tool_name": "g", "parameters": {}}]\n```'


@pytest.mark.parametrize("text,expected", [
    (ACTION_F.replace("\n", "\r\n"), [Call("f", {"a": 1})]),
    (ACTION_F + "\nThen:\n" + ACTION_G, [Call("f", {"a": 1}), Call("g", {})]),
    ((ACTION_F + "\n" + ACTION_G).replace("\n", "\r\n"), [Call("f", {"a": 1}), Call("g", {})]),
], ids=["crlf", "two blocks", "two blocks crlf"])
def test_command_r_reads_every_action_block(text: str, expected: list[Call]) -> None:
    for fmt in ("command_r", "auto"):
        assert parse_calls(text, format=fmt) == expected


def test_a_mistral_name_cut_short_at_the_end_is_a_parse_error() -> None:
    """``[TOOL_CALLS]get_wea`` (max tokens reached inside the name) is no call to ``get_wea``
    when ``get_weather`` is declared; without schemas a bare name stays a call (vLLM's reading)."""
    tools = [{"name": "get_weather", "parameters": {"type": "object", "properties": {}}}]
    for fmt in ("mistral", "auto"):
        with pytest.raises(ToolCallParseError, match="'get_wea' is cut off") as info:
            parse_calls("[TOOL_CALLS]get_wea", format=fmt, tools=tools)
        assert info.value.format == "mistral"
        assert parse_calls("[TOOL_CALLS]get_weather", format=fmt, tools=tools) == [Call("get_weather", {})]
        assert parse_calls("[TOOL_CALLS]get_wea", format=fmt) == [Call("get_wea", {})]
        assert parse_calls("[TOOL_CALLS]get_wea\n[TOOL_CALLS]get_weather", format=fmt, tools=tools) == [
            Call("get_wea", {}), Call("get_weather", {})]


# --- issue 26 item 2: a parameter whose schema allows a string keeps the text written

OPTIONAL_STR = [
    {"type": ["string", "null"]},
    {"anyOf": [{"type": "string"}, {"type": "null"}]},  # Pydantic's Optional[str]
    {"oneOf": [{"type": "integer"}, {"type": "string"}]},
    {"type": ["integer", "string"]},
]


def _xml_forms(value: str) -> dict[str, str]:
    return {
        "qwen3_coder": f"<tool_call>\n<function=lookup>\n<parameter=code>\n{value}\n</parameter>\n</function>\n</tool_call>",
        "glm45": f"<tool_call>lookup\n<arg_key>code</arg_key>\n<arg_value>{value}</arg_value>\n</tool_call>",
        "minimax_m2": f'<minimax:tool_call>\n<invoke name="lookup">\n<parameter name="code">{value}</parameter>\n</invoke>\n</minimax:tool_call>',
        "deepseek_v32": (f'<{DSML}function_calls>\n<{DSML}invoke name="lookup">\n<{DSML}parameter name="code" string="true">'
                         f"{value}</{DSML}parameter>\n</{DSML}invoke>\n</{DSML}function_calls>"),
    }


def _lookup_tools(code_schema: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": "lookup", "parameters": {"type": "object", "properties": {"code": code_schema}}}]


@pytest.mark.parametrize("schema", OPTIONAL_STR, ids=str)
@pytest.mark.parametrize("fmt", ["qwen3_coder", "glm45", "minimax_m2", "deepseek_v32"])
def test_a_parameter_that_allows_a_string_keeps_the_text(fmt: str, schema: dict[str, Any]) -> None:
    text = _xml_forms("12345")[fmt]
    for f in (fmt, "auto"):
        assert parse_calls(text, format=f, tools=_lookup_tools(schema)) == [Call("lookup", {"code": "12345"})]
    nulls = "null" in str(schema)
    got = parse_calls(_xml_forms("null")[fmt], format=fmt, tools=_lookup_tools(schema))
    assert got == [Call("lookup", {"code": None if nulls else "null"})]


@pytest.mark.parametrize("fmt", ["qwen3_coder", "glm45", "minimax_m2"])
def test_a_parameter_without_string_reads_json_of_an_allowed_type_else_text(fmt: str) -> None:
    tools = _lookup_tools({"type": ["integer", "null"]})
    read = {v: parse_calls(_xml_forms(v)[fmt], format=fmt, tools=tools)[0].arguments["code"] for v in ("7", "null", "1.5", '"7"', "[1]")}
    assert read == {"7": 7, "null": None, "1.5": "1.5", '"7"': '"7"', "[1]": "[1]"}
    number = _lookup_tools({"anyOf": [{"type": "number"}, {"type": "boolean"}]})
    read = {v: parse_calls(_xml_forms(v)[fmt], format=fmt, tools=number)[0].arguments["code"] for v in ("7", "2.5", "true", "null")}
    assert read == {"7": 7, "2.5": 2.5, "true": True, "null": "null"}
    # no type declared, an undeclared parameter, no schema: JSON when it parses, else text
    for tools in (_lookup_tools({"description": "any"}), _lookup_tools({"type": "string"})[:0] or None,
                  [{"name": "lookup", "parameters": {"type": "object", "properties": {}}}]):
        assert parse_calls(_xml_forms("7")[fmt], format=fmt, tools=tools)[0].arguments["code"] == 7
