"""Issue 10: silent misreads and the reliability review — each case failed before."""

from __future__ import annotations

import json
import pickle
import time

import pytest

from toolcall_f1 import Call, ToolCallMetric, ToolCallParseError, parse_calls
from toolcall_f1.parsing import FORMATS, Context, register_format, unregister_format

F = Call("get_weather", {"city": "Paris"})
G = Call("get_time", {"tz": "UTC"})
A = Call("a", {"x": 1})
B = Call("b", {"y": 2})

SILENT_MISREADS = [
    ("prose before bare JSON", 'Here is the result: {"name": "get_weather", "parameters": {"city": "Paris"}} Anything else?', [F]),
    ("think block before a JSON list", '<think>\nThe user wants weather. Maybe [get_time(tz="UTC")]?\n</think>\n[{"name": "get_weather", "arguments": {"city": "Paris"}}]', [F]),
    ("prose before a Python list, no colon", "I will call [get_weather(city='Paris')] now.", [F]),
    ("two lists on a line", "[a(x=1)] and [b(y=2)]", [A, B]),
    ("OLMo function_calls block", "<function_calls>a(x=1)\nb(y=2)</function_calls>", [A, B]),
    ("JSON call followed by prose", '{"name": "get_weather", "arguments": {"city": "Paris"}}\nLet me know if you need more.', [F]),
    ("JSON list followed by prose", '[{"name": "a", "arguments": {"x": 1}}] That is all.', [A]),
    ("closing think only (opening tag in the prompt)", 'The user asks for weather, so [get_time(tz="UTC")] is wrong.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>', [F]),
    ("seed think", '<seed:think>call get_time?</seed:think>[get_weather(city="Paris")]', [F]),
    ("calls in two fences", "First:\n```python\n[a(x=1)]\n```\nThen:\n```python\n[b(y=2)]\n```", [A, B]),
    ("spaces around the call syntax", "[ a ( x = 1 ) , b ( y = 2 ) ]", [A, B]),
    ("JSON lines in prose", 'I will call two tools.\n{"name": "a", "arguments": {"x": 1}}\n{"name": "b", "arguments": {"y": 2}}', [A, B]),
]


@pytest.mark.parametrize("name,text,expected", SILENT_MISREADS, ids=[c[0] for c in SILENT_MISREADS])
def test_no_silent_misread(name: str, text: str, expected: list[Call]) -> None:
    assert parse_calls(text) == expected


def test_fence_sample_does_not_hide_a_real_tool_call() -> None:
    text = ("You could call it like this:\n```python\nimport requests\nrequests.get(url)\n```\n"
            'Calling it now.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>')
    assert parse_calls(text) == [F]


def test_a_fence_inside_a_json_string_is_data() -> None:
    code = "```python\nprint('hi')\n```"
    call = {"name": "run", "arguments": {"code": code}}
    pretty = json.dumps(call, indent=2)
    assert parse_calls(pretty) == [Call("run", {"code": code})]
    assert parse_calls("Sure:\n" + pretty + "\nDone.") == [Call("run", {"code": code})]


def test_calls_outside_fences_are_read_too() -> None:
    text = "Step one:\n```json\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n```\nAnd also [b(y=2)]"
    assert parse_calls(text) == [A, B]


@pytest.mark.parametrize("text", ["```" + "a" * 100_000, "[f(a=" + "0" * 99_000 + ")]", "```\n" + "a" * 100_000])
def test_former_quadratic_inputs_finish(text: str) -> None:
    start = time.perf_counter()
    try:
        parse_calls(text)
    except ToolCallParseError:
        pass
    assert time.perf_counter() - start < 10  # a hang guard (they took minutes), not a timing claim


@pytest.mark.parametrize("fmt", ["auto", "hermes", "kimi_k2", "nemotron"])
def test_prose_with_many_bracketed_words_and_json_calls_is_linear(fmt: str) -> None:
    """Every ``[word`` once re-scanned the rest of the line for each JSON call found: 400k
    characters took about 17 s (1 MB about 100 s). Found by an attacking review."""
    unit = '[see] {"name": "f", "arguments": {}} '
    text = unit * (400_000 // len(unit))
    start = time.perf_counter()
    calls = parse_calls(text, format=fmt)
    assert time.perf_counter() - start < 10  # a hang guard, not a timing claim
    assert calls == [Call("f", {})] * (400_000 // len(unit))


@pytest.mark.parametrize("before", ["[f(a=1)]", '{"name": "f", "arguments": {"a": 1}}', "Calling now:\n[f(a=1)]"])
def test_calls_before_a_family_marker_are_read_too(before: str) -> None:
    """Calls without markers before a family's block were dropped silently (an attacking review)."""
    text = before + '\n<tool_call>{"name": "g", "arguments": {}}</tool_call>'
    assert parse_calls(text) == [Call("f", {"a": 1}), Call("g", {})]


def test_run_of_zeros_reads_like_the_ast_reader() -> None:
    assert parse_calls("[f(a=" + "0" * 5_000 + ")]") == [Call("f", {"a": 0})]
    with pytest.raises(ToolCallParseError):
        parse_calls("[f(a=007)]")


@pytest.mark.parametrize("text", ["\ufeff[get_weather(city='Paris')]", '\u200b{"name": "get_weather", "arguments": {"city": "Paris"}}',
                                  "\ufeff\u200b <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>"])
def test_leading_bom_and_zero_width_space_are_stripped(text: str) -> None:
    assert parse_calls(text) == [F]


def test_chat_trace_prediction_reads_assistant_turns_only() -> None:
    trace = [
        {"role": "system", "content": "Answer with [f(a=1)] style calls."},
        {"role": "user", "content": "[get_time(tz='UTC')] please? Actually the weather."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"temp": 21, "unit": "C"}'},
    ]
    assert parse_calls(trace) == [F]
    assert ToolCallMetric()(trace, [("get_weather", {"city": "Paris"})]).exact


def test_unclosed_reasoning_ends_at_a_call_the_model_began() -> None:
    # Kimi-K2-Thinking and others call without closing <think>: the call is read ...
    text = '<think>I need the weather.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    assert parse_calls(text) == [F]
    # ... a cut-off one is an error, and reasoning cut off before any call is no call
    with pytest.raises(ToolCallParseError, match="hermes"):
        parse_calls('<think>\nI will call <tool_call>{"name": "get_weather"')
    assert parse_calls("<think>\nStill thinking about [get_time(tz='UTC')]") == []


def test_think_tag_inside_a_call_argument_is_data() -> None:
    text = '<tool_call>{"name": "echo", "arguments": {"s": "<think>x</think>"}}</tool_call>'
    assert parse_calls(text) == [Call("echo", {"s": "<think>x</think>"})]
    assert parse_calls('{"name": "echo", "arguments": {"s": "a </think> b"}}') == [Call("echo", {"s": "a </think> b"})]


def test_bfcl_mode_is_unchanged_by_the_new_readers() -> None:
    for text in ("\ufeff[f(a=1)]", "<think>x</think>[f(a=1)]", "I will call [f(a=1)]"):
        with pytest.raises(ToolCallParseError):
            parse_calls(text, format="bfcl")


def test_context_is_picklable_and_carries_parameter_schemas() -> None:
    ctx = pickle.loads(pickle.dumps(Context()))
    assert ctx.param_order("f") is None and ctx.param_schema("f", "a") is None  # type: ignore[misc]


def test_register_format_adds_a_reader_auto_finds_by_marker() -> None:
    def read_bang(text: str, ctx: Context) -> list[Call]:
        name = text.split("!!CALL ", 1)[1].split()[0]
        return [Call(name, {})]

    register_format("bang_test", read_bang, aliases=("bang_alias",), markers=["!!CALL "])
    try:
        assert parse_calls("Sure. !!CALL ping now") == [Call("ping", {})]
        assert parse_calls("!!CALL pong", format="bang_alias") == [Call("pong", {})]
    finally:
        unregister_format("bang_test")
    assert "bang_test" not in FORMATS and "bang_alias" not in FORMATS
    assert parse_calls("Sure. !!CALL ping now") == []


def test_unregistering_a_format_keeps_other_names_of_a_shared_reader() -> None:
    register_format("hermes_copy_test", FORMATS["hermes"])
    unregister_format("hermes_copy_test")
    assert "hermes" in FORMATS and "qwen" in FORMATS


# --- every call in the text, in order: the text around a family's blocks is read too

HERMES_G = '<tool_call>{"name": "g", "arguments": {}}</tool_call>'
MISTRAL_H = '[TOOL_CALLS][{"name": "h", "arguments": {"b": 2}}]'
FA, GC, HC = Call("f", {"a": 1}), Call("g", {}), Call("h", {"b": 2})

AROUND_BLOCKS = [
    ("a Python list after a block", HERMES_G + "\n[f(a=1)]", [GC, FA]),
    ("a JSON call after a block", HERMES_G + '\nAlso: {"name": "f", "arguments": {"a": 1}}', [GC, FA]),
    ("a Python list between two blocks", HERMES_G + "\n[f(a=1)]\n" + HERMES_G, [GC, FA, GC]),
    ("a second family after the first", HERMES_G + "\n" + MISTRAL_H, [GC, HC]),
    ("a second family before the first", MISTRAL_H + "\n" + HERMES_G, [HC, GC]),
    ("three families and a plain call", '<|python_start|>[f(a=1)]<|python_end|>\n' + HERMES_G + "\n[h(b=2)]\n<TOOLCALL>[{\"name\": \"g\", \"arguments\": {}}]</TOOLCALL>", [FA, GC, HC, GC]),
    ("Mistral runs split by prose", '[TOOL_CALLS]f{"a": 1} then, thinking again, [TOOL_CALLS]h{"b": 2}', [FA, HC]),
    ("a call after a Harmony call message", '<|channel|>commentary to=functions.g<|message|>{}<|call|>\n[f(a=1)]', [GC, FA]),
    ("a call between Harmony messages", '<|channel|>commentary to=functions.g<|message|>{}<|call|>\n[f(a=1)]\n<|start|>assistant<|channel|>commentary to=functions.h<|message|>{"b": 2}<|call|>', [GC, FA, HC]),
    ("prose after a block stays prose", HERMES_G + "\nI hope this helps (let me know). Note: see above.", [GC]),
    ("reasoning between blocks is never a call", HERMES_G + "\n<think>maybe [f(a=1)]?</think>\n[h(b=2)]\n<think>or [f(a=1)]", [GC, HC]),
    ("wrapped Qwen3-Coder calls, then a plain call", "<function=g>\n</function>\n</tool_call>\n<tool_call>\n<function=h>\n<parameter=b>\n2\n</parameter>\n</function>\n</tool_call>\n[f(a=1)]", [GC, HC, FA]),
]


@pytest.mark.parametrize("name,text,expected", AROUND_BLOCKS, ids=[c[0] for c in AROUND_BLOCKS])
def test_calls_around_a_family_block_are_read_in_order(name: str, text: str, expected: list[Call]) -> None:
    """Text after a family's blocks, and a second family's blocks, were dropped silently
    (``<tool_call>…</tool_call>\\n[f(a=1)]`` read only the block; an attacking review)."""
    assert parse_calls(text) == expected


def test_a_named_family_reads_plain_calls_around_its_blocks() -> None:
    assert parse_calls(HERMES_G + "\n[f(a=1)]", format="hermes") == [GC, FA]
    assert parse_calls("[f(a=1)]\n" + MISTRAL_H + "\nand [g()]", format="mistral") == [FA, HC, GC]


@pytest.mark.parametrize("text,family,at", [
    (HERMES_G + "\n[f(a=1+2)]", "python", None),
    (HERMES_G + "\n[TOOL_CALLS]", "mistral", "[TOOL_CALLS]"),
    (HERMES_G + '\n[TOOL_CALLS]{"name": broken', "mistral", "broken"),
    (HERMES_G + "\n" + HERMES_G.replace("{}}", "{}"), "hermes", "</tool_call>"),
    ("<function_calls>\nf(a=1)\n</function_calls>\n<minimax:tool_call>\n</minimax:tool_call>", "minimax_m2", "<minimax:"),
])
def test_a_broken_call_around_a_family_block_is_a_parse_error(text: str, family: str, at: str | None) -> None:
    """Never the calls of the block alone: the error names the family and, where it
    gives one, the offset in the whole text (``at``: the text found there)."""
    with pytest.raises(ToolCallParseError) as info:
        parse_calls(text)
    assert info.value.format == family
    if at is not None:
        assert f"at character {text.rindex(at)}" in str(info.value)


def test_reading_around_blocks_is_linear() -> None:
    """Many blocks of several families with calls and prose between them: 100k and 200k
    characters (each gap is read once, each family at most once per level)."""
    unit = (HERMES_G + "\n[f(a=1)] and prose (with parens)\n" + MISTRAL_H
            + '\n<|channel|>commentary to=functions.g<|message|>{}<|call|>\n<|tool_call>call:g{}<tool_call|>\n')
    for size in (100_000, 200_000):
        reps = size // len(unit)
        start = time.perf_counter()
        calls = parse_calls(unit * reps)
        assert time.perf_counter() - start < 10  # a hang guard, not a timing claim
        assert calls == [GC, FA, HC, GC, GC] * reps


MAX_TOOL = [{"name": "max", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}}]


def test_a_call_after_a_label_in_prose_is_a_call_attempt() -> None:
    """SPEC §2 reads calls "on a line inside prose, optionally after a label": ``Note: max(a, b)``
    is such a call (not a mention to ignore). Without the tool's schema its positional arguments
    cannot be named, so it is a parse error (the SPEC's rule), never zero calls; with the schema
    it is read. A call inside a sentence, with no label and no brackets, is prose."""
    with pytest.raises(ToolCallParseError, match="positional arguments to 'max'"):
        parse_calls("Note: max(a, b) returns the larger.")
    assert parse_calls("Note: max(a, b) returns the larger.", tools=MAX_TOOL) == [Call("max", {"a": "a", "b": "b"})]
    assert parse_calls("The function max(a, b) returns the larger.") == []


@pytest.mark.parametrize("fmt", ["auto", "json"])
@pytest.mark.parametrize("message", [{"role": "assistant", "content": "[f(a=2)]"},
                                     [{"role": "assistant", "content": '{"name": "f", "arguments": {"a": 2}}'}],
                                     {"role": "assistant", "content": "It is sunny."}],
                         ids=["python-content", "json-content", "prose-content"])
def test_a_message_as_json_text_reads_like_the_message_itself(fmt: str, message: object) -> None:
    # the text's content was never read: zero calls, where the decoded message gave the call
    assert parse_calls(json.dumps(message), format=fmt) == parse_calls(message, format="auto")


# --- issue 26 item 1: reasoning set aside wherever it stands (SPEC §2), a tag in a call's value is data

HERMES_F = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
REASONING_ANYWHERE = [
    ("a think block after a call hides a block of its family",
     HERMES_F + '\n<think>\nmaybe <tool_call>{"name": "g", "arguments": {}}</tool_call>\n</think>', "hermes", [FA]),
    ("a Mistral [THINK] block after a call",
     '[TOOL_CALLS]f{"a": 1}\n[THINK]or [TOOL_CALLS]g{}[/THINK]', "mistral", [FA]),
    ("an inline think block before the calls", "Okay. <think>[g(x=1)]</think>\n[f(a=1)]", "python", [FA]),
    ("an implicit </think> not on its own line", "So maybe [g(x=1)].</think>[f(a=1)]", "python", [FA]),
]


@pytest.mark.parametrize("text,fmt,expected", [c[1:] for c in REASONING_ANYWHERE], ids=[c[0] for c in REASONING_ANYWHERE])
def test_reasoning_is_set_aside_wherever_it_stands(text: str, fmt: str, expected: list[Call]) -> None:
    assert parse_calls(text) == expected
    assert parse_calls(text, format=fmt) == expected


REASONING_TAGS_AS_DATA = [
    ('[f(s="x <think>y</think>")]', [Call("f", {"s": "x <think>y</think>"})]),
    ('Sure: [f(s="a</think>")]', [Call("f", {"s": "a</think>"})]),
    (HERMES_F + '\n<tool_call>{"name": "g", "arguments": {"s": "<think>x</think>"}}</tool_call>',
     [FA, Call("g", {"s": "<think>x</think>"})]),
    (HERMES_F + "\n<tool_call>\n<function=g>\n<parameter=s>\n<think>x</think>\n</parameter>\n</function>\n</tool_call>",
     [FA, Call("g", {"s": "<think>x</think>"})]),
]


@pytest.mark.parametrize("text,expected", REASONING_TAGS_AS_DATA)
def test_a_reasoning_tag_inside_a_call_is_data(text: str, expected: list[Call]) -> None:
    assert parse_calls(text) == expected


# --- a list of calls written with spaces, after prose (noticed in session 8)

@pytest.mark.parametrize("fmt", ["auto", "python"])
def test_a_spaced_call_list_after_prose_is_read_like_the_unspaced_one(fmt: str) -> None:
    """``'Sure.\\n[ f ( x = 1 ) ]'`` read zero calls while ``'Sure.\\n[f(x=1)]'`` read the call."""
    f, g = Call("f", {"x": 1}), Call("g", {"y": 2})
    assert parse_calls("Sure.\n[ f ( x = 1 ) ]", format=fmt) == [f] == parse_calls("Sure.\n[f(x=1)]", format=fmt)
    assert parse_calls("I will call [ f (x=1) ] and then [ g ( y = 2 ) ].", format=fmt) == [f, g]
    # a bracket in prose that is no list of calls stays prose (it is read only when it is calls)
    assert parse_calls("See [Note (important)] here.\n[ g ( y = 2 ) ]", format=fmt) == [g]
    assert parse_calls("See [Note (important)] and [ref (2020)].", format=fmt) == []


@pytest.mark.parametrize("unit", ["[ a (x) ]\n", "Note [ a ( b ) ] c\n", "w (x) [ a ( b ) ]\n"])
def test_prose_with_many_spaced_brackets_is_linear(unit: str) -> None:
    text = "Sure.\n" + unit * (400_000 // len(unit))
    start = time.perf_counter()
    assert parse_calls(text) == []
    assert time.perf_counter() - start < 10  # a hang guard (a first fix took minutes), not a timing claim
