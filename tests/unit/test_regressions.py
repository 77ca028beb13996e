"""Regressions found in review: each test names the rule it protects."""

from __future__ import annotations

import sys
import time

import pytest

from toolcall_f1 import AnyOf, Call, ToolCallMetric, ToolCallParseError, parse_calls
from toolcall_f1.values import canonicalizer_name


@pytest.mark.parametrize(
    "text",
    ["a\n" + "\n" * 40_000 + "b", "Sure.\n" + " \n" * 80_000 + "Done.", "`" * 999_000, "```\n" * 100_000],
    ids=["blank-lines", "space-lines", "backticks", "fence-lines"],
)
def test_degenerate_output_is_read_in_linear_time(text: str) -> None:
    """§2 limits: never a hang. (Not a timing assertion: a quadratic scan would not finish.)"""
    start = time.perf_counter()
    try:
        parse_calls(text)
    except ToolCallParseError:
        pass
    assert time.perf_counter() - start < 60  # generous bound against a hang only


@pytest.mark.parametrize(
    "text",
    [
        '```\n[TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}}]\n```',
        'Here:\n```\n<|python_tag|>{"name": "f", "parameters": {"a": 1}}\n```',
        '```\n<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>\n```',
        '<tool_call>\n```json\n{"name": "f", "arguments": {"a": 1}}\n```\n</tool_call>',
    ],
)
def test_tagged_formats_inside_fences(text: str) -> None:
    assert parse_calls(text) == [Call("f", {"a": 1})]


def test_prose_starting_with_a_bracket_is_zero_calls() -> None:
    assert parse_calls("[Note] I cannot help with that.") == []
    with pytest.raises(ToolCallParseError):
        parse_calls("[f(a=1)")


def test_greedy_ranks_weight_sums_exactly() -> None:
    tools = [{"name": "f", "parameters": {"type": "dict", "properties": {
        "a": {"importance": 0.1}, "b": {"importance": 0.3}, "c": {"importance": 0.2}}}}]
    s = ToolCallMetric("arg", tools=tools)("[f(a=2, b=1, c=2), f(a=1, b=2, c=1)]", "[f(b=2, c=2), f(a=1, b=1, c=1)]")
    assert s.tp == pytest.approx(2.6) and s.fn == pytest.approx(0.5)


def test_custom_canonicalizers_have_distinct_signatures() -> None:
    assert canonicalizer_name(lambda s: s) != canonicalizer_name(lambda s: s.lower())


def test_tool_names_are_exact_strings() -> None:
    metric = ToolCallMetric()
    assert not metric([{"name": "f ", "arguments": {}}], [("f", {})]).exact
    assert not metric([Call("f ", {})], [("f", {})]).exact


def test_size_limit_counts_utf8_bytes() -> None:
    with pytest.raises(ToolCallParseError, match="byte limit"):
        parse_calls('[f(a="' + "é" * 600_000 + '")]')


def test_any_of_only_in_references() -> None:
    with pytest.raises(ToolCallParseError, match="AnyOf"):
        parse_calls([Call("f", {"x": AnyOf(1, 2)})])
    r = ToolCallMetric().compute([[Call("f", {"x": AnyOf(1, 2)})]], [[("f", {"x": 1})]])
    assert r["num_parse_errors"] == 1
    assert ToolCallMetric()([("f", {"x": 2})], [Call("f", {"x": AnyOf(1, 2)})]).exact


@pytest.mark.parametrize("name", ["function", "tool_calls", "name", "type", "content", "input"])
def test_bfcl_single_key_calls_to_any_tool_name(name: str) -> None:
    assert parse_calls({name: {"a": 1}}) == [Call(name, {"a": 1})]


def test_positional_reference_uses_its_own_tools() -> None:
    tools = [{"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}}}]
    assert ToolCallMetric()("[f(x=1)]", {"calls": "[f(1)]", "tools": tools}).exact


def test_weights_follow_the_name_canonicalizer() -> None:
    schemas = [{"name": "math.factorial"}]
    fps = [
        ToolCallMetric(weights={"math_factorial": 5}, tools=t, name_canonicalizer="underscore")("[math_factorial()]", "[]").fp
        for t in (None, schemas)
    ]
    assert fps == [5.0, 5.0]


@pytest.mark.parametrize("weight", [10**400, 1e308, 1e200])
def test_huge_weights_are_value_errors(weight) -> None:
    with pytest.raises(ValueError, match="'f'"):
        ToolCallMetric(weights={"f": weight})
    with pytest.raises(ValueError, match="'f'"):
        ToolCallMetric(tools=[{"name": "f", "importance": weight}])


def test_bad_per_example_tools_name_the_reference() -> None:
    with pytest.raises(ValueError, match=r"references\[1\]"):
        ToolCallMetric().compute(["[f()]", "[f()]"], ["[f()]", {"calls": "[f()]", "tools": [42]}])


def test_deep_schemas_never_raise_recursion_errors() -> None:
    # 3000 levels scored once, but the metric holding them could not be pickled (RecursionError):
    # schemas nested deeper than any value (64 levels) are now a clear error up front
    deep: dict = {"type": "object"}
    for _ in range(3000):
        deep = {"type": "object", "properties": {"x": deep}}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"x": deep}}}]
    with pytest.raises(ValueError, match="tool 'f' parameter 'x': items/properties nested deeper than 64 levels"):
        ToolCallMetric(tools=tools)
    with pytest.raises(ValueError, match=r"references\[0\]: tool 'f' parameter 'x'"):
        ToolCallMetric().compute(["[f(x={})]"], [{"calls": "[f(x={})]", "tools": tools}])
    for _ in range(3000 - 63):
        deep = deep["properties"]["x"]
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"x": deep}}}]
    a = ToolCallMetric(tools=tools).compute(["[f(x={})]"], ["[f(x={})]"])
    b = ToolCallMetric().compute(["[f(x={})]"], [{"calls": "[f(x={})]", "tools": tools}])
    assert a["exact_match"] == b["exact_match"] == 1.0
    assert a["signature"] == ToolCallMetric(tools=tools).signature()


def test_signature_does_not_depend_on_where_tools_were_given() -> None:
    tools = [{"name": "f", "importance": 2}]
    a = ToolCallMetric(tools=tools).compute(["[f()]"], ["[f()]"])["signature"]
    b = ToolCallMetric().compute(["[f()]"], ["[f()]"], tools=tools)["signature"]
    assert a == b


@pytest.mark.parametrize(
    ("weights", "tp", "fp"),
    [
        # the name's weight: 10**308 units (1e-310 was used until SPEC §3 refused subnormal field weights)
        ({"f": {"arguments": {"a": sys.float_info.min}}}, 4.0, 2 * sys.float_info.min),
        ({"f": {"arguments": {"a": 1e-300, "b": 1e10}}}, 2 + 2e10, 2e-300),
        ({"f": {"arguments": {"a": 1e100, "b": 1e-300}}}, 2 + 2e100, 2e-300),
        ({"f": {"weight": 0, "arguments": {"a": 1e-20}}}, 0.0, 0.0),  # every factor but exactness is 0
    ],
)
def test_optimal_arg_level_with_weights_far_apart(weights: dict, tp: float, fp: float) -> None:
    # costs past float range (exact units of 1e-310) were turned into floats before being
    # scaled down (OverflowError), and a zero tool weight sent Python-int parts to int64
    preds = [[("f", {"a": 1, "b": 1}), ("f", {"a": 2, "b": 2})]]
    golds = [[("f", {"a": 1, "b": 2}), ("f", {"a": 2, "b": 1})]]
    result = ToolCallMetric("arg", matching="optimal", weights=weights).compute(preds, golds)
    assert (result["tp"], result["fp"], result["fn"]) == (tp, fp, fp)
