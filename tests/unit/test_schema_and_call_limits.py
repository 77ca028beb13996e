"""Session 6 trust gaps in schemas and call reading: each test failed on the code before.

- one union-depth rule for the constructor's check and the compiled check (a schema that
  passes construction never raises when a value reaches it);
- tool sets must pickle, so schemas nested deeper than any value are refused up front;
- a call object with arguments but no name is a parse error, not a call to ``arguments``;
- a JSON object (or Python dict) giving a key two values is a parse error naming the key, as
  Python's ``f(a=1, a=2)`` is (the identical value twice is one key, as ``f(a=1, a=1)``).
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric, ToolCallParseError, parse_calls, type_ok
from toolcall_f1.calls import coerce_structured, load_json
from toolcall_f1.schema import compile_tools


def _tools(schema: Any) -> list[dict[str, Any]]:
    return [{"name": "f", "parameters": {"type": "object", "properties": {"x": schema}}}]


def _unions(levels: int, inner: Any) -> Any:
    for _ in range(levels):
        inner = {"anyOf": [inner, {"type": "null"}]}
    return inner


def _properties(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


# --------------------------------------------------------------------------- unions: one rule


def test_a_union_64_deep_is_refused_at_construction_whatever_its_members() -> None:
    innermost = {"anyOf": [5]}  # a member that is not a schema: nothing to walk into
    with pytest.raises(ValueError, match=r"tool 'f' parameter 'x': unions \(anyOf/oneOf\) nested deeper than 64"):
        ToolCallMetric(tools=_tools(_unions(64, innermost)))
    metric = ToolCallMetric(tools=_tools(_unions(63, innermost)))  # one level less: built, and it works
    assert metric("[f(x=1)]", "[f(x=1)]").exact


def test_union_depth_is_counted_across_items_by_both_checks() -> None:
    too_deep = _unions(40, {"type": "array", "items": _unions(30, {"type": "integer"})})
    with pytest.raises(ValueError, match="unions"):
        ToolCallMetric(tools=_tools(too_deep))
    with pytest.raises(ValueError, match=r"unions \(anyOf/oneOf\) nested deeper than 64 levels"):
        type_ok([1], too_deep)  # the compiled check restarted its count at items
    fits = _unions(40, {"type": "array", "items": _unions(24, {"type": "integer"})})
    assert ToolCallMetric(tools=_tools(fits))("[f(x=[1])]", "[f(x=[1])]").exact
    assert type_ok([1], fits) and not type_ok(["a"], fits)


# --------------------------------------------------------------------------- pickling


def test_schemas_deeper_than_any_value_are_refused_and_the_deepest_accepted_pickles() -> None:
    metric = ToolCallMetric(tools=_tools(_properties(63)))
    value = "{}"
    for _ in range(10):
        value = "{'x': " + value + "}"
    assert metric(f"[f(x={value})]", f"[f(x={value})]").exact
    copy = pickle.loads(pickle.dumps(metric))
    assert copy(f"[f(x={value})]", f"[f(x={value})]").exact
    toolset = compile_tools(_tools(_properties(63)), {})
    assert pickle.loads(pickle.dumps(toolset)).lookup("f") is not None
    for levels in (64, 65, 3000):  # 3000 levels: built before, then pickling raised RecursionError
        with pytest.raises(ValueError, match=r"tool 'f' parameter 'x': items/properties nested deeper than 64"):
            ToolCallMetric(tools=_tools(_properties(levels)))
        with pytest.raises(ValueError, match=r"references\[0\]: tool 'f' parameter 'x': items/properties"):
            ToolCallMetric().compute(["[f()]"], [{"calls": "[f()]", "tools": _tools(_properties(levels))}])


# --------------------------------------------------------------------------- call objects without a name


@pytest.mark.parametrize("key", ["arguments", "parameters"])  # SPEC §2's {"name", "arguments" | "parameters"}
def test_a_call_object_without_a_name_is_a_parse_error(key: str) -> None:
    with pytest.raises(ToolCallParseError, match=f"a call object with {key!r} needs a \"name\""):
        coerce_structured([{key: {}}])
    with pytest.raises(ToolCallParseError, match=r"predictions\[0\]: .*needs a \"name\""):
        ToolCallMetric(on_parse_error="raise").compute([f'[{{"{key}": {{"a": 1}}}}]'], ["[]"])
    with pytest.raises(ToolCallParseError, match=r"references\[0\]: .*needs a \"name\""):
        ToolCallMetric().compute(["[]"], [[{key: {"a": 1}}]])
    score = ToolCallMetric()(f'{{"{key}": {{"a": 1}}}}', "[]")  # counted as a parse error, not a call
    assert (score.parse_error is not None, score.fp) == (True, 0)


def test_single_key_calls_and_a_tool_named_arguments_still_read() -> None:
    assert coerce_structured({"get_weather": {"city": "Paris"}})[0].name == "get_weather"
    assert [c.name for c in coerce_structured([{"input": {"a": 1}}, {"args": {}}])] == ["input", "args"]
    (call,) = coerce_structured({"name": "arguments", "arguments": {"a": 1}})
    assert (call.name, dict(call.arguments)) == ("arguments", {"a": 1})


# --------------------------------------------------------------------------- duplicate JSON keys


def test_a_json_object_giving_a_key_two_values_is_a_parse_error_naming_the_key() -> None:
    with pytest.raises(ToolCallParseError, match="json: duplicate key 'a' with different values"):
        load_json('{"a": 1, "b": {"a": 1, "a": 2}}')
    with pytest.raises(ToolCallParseError, match="duplicate key 'a'"):
        load_json('{"a": 1, "a": 1.0}')  # 1 and 1.0 differ, as in f(a=1, a=1.0)
    assert load_json('{"a": 1, "b": {"a": 2}}') == {"a": 1, "b": {"a": 2}}  # the same key at two levels is fine
    assert load_json('{"a": [1], "a": [1]}') == {"a": [1]}  # the identical value twice is one key, as f(a=1, a=1)
    pred = '{"name": "f", "arguments": {"a": 1, "a": 2}}'
    with pytest.raises(ToolCallParseError, match=r"predictions\[0\]: .*duplicate key 'a'"):
        ToolCallMetric(on_parse_error="raise").compute([pred], ["[f(a=2)]"])
    assert ToolCallMetric()(pred, "[f(a=2)]").parse_error is not None  # was f(a=2): the last value, silently
    for python in ("[{'name': 'f', 'arguments': {'a': 1, 'a': 2}}]", "[f(a={'b': 1, 'b': 2})]"):  # a dict literal
        assert "duplicate key" in (ToolCallMetric(prediction_format="python")(python, "[f(a=2)]").parse_error or "")
        assert ToolCallMetric()(python, "[f(a=2)]").parse_error is not None
    assert ToolCallMetric()("[f(a={'b': 1, 'b': 1})]", "[f(a={'b': 1})]").exact
    for reader in ("hermes", "auto"):
        score = ToolCallMetric(prediction_format=reader)(f"<tool_call>{pred}</tool_call>", "[f(a=2)]")
        assert score.parse_error is not None and "duplicate key 'a'" in score.parse_error
    ref = [{"name": "f", "arguments": '{"a": 1, "a": 2}'}]  # a reference's arguments as JSON text
    with pytest.raises(ToolCallParseError, match=r"references\[0\]: .*duplicate key 'a'"):
        ToolCallMetric().compute(["[f(a=2)]"], [ref])
    with pytest.raises(ToolCallParseError, match="duplicate key 'x'"):
        ToolCallMetric(reference_format="bfcl").compute(["[f(x=1)]"], ['[{"f": {"x": [1], "x": [2]}}]'])


@pytest.mark.parametrize("obj", [{"function": {"arguments": "{}"}}, {"type": "function", "function": {"parameters": {}}}],
                         ids=["bare-function", "typed-function"])
def test_an_openai_function_object_without_a_name_is_a_parse_error(obj: dict[str, Any]) -> None:
    # was a call to a tool named "function", its arguments object read as an argument
    with pytest.raises(ToolCallParseError, match='a "function" object with arguments needs a "name"'):
        coerce_structured([obj])
    assert coerce_structured([{"function": {"x": 1}}])[0].name == "function"  # BFCL's {name: {args}} shape


def test_a_call_object_giving_two_different_argument_objects_is_a_parse_error() -> None:
    # was read with "arguments" and "parameters" silently dropped
    with pytest.raises(ToolCallParseError, match="call 'f' is given two different argument objects"):
        coerce_structured([{"name": "f", "arguments": {"a": 1}, "parameters": {"a": 2}}])
    assert coerce_structured([{"name": "f", "arguments": {"a": 1}, "parameters": {"a": 1}}])[0].arguments == {"a": 1}


@pytest.mark.parametrize("text", ['{"summary": "[lookup(id=1)]", "status": "ok", "status": "done"}',
                                  '{"a": "call: f(x=1)", "b": 1, "b": 2}'], ids=["call-in-a-string", "prose-call"])
def test_a_json_document_refused_for_a_duplicate_key_is_not_scanned_as_prose(text: str) -> None:
    # the refused document fell through to the prose scan, which read calls out of its strings
    score = ToolCallMetric()(text, "[]")
    assert (score.parse_error is not None, score.fp) == (True, 0.0)
    assert "duplicate key" in str(score.parse_error)


def test_the_duplicate_key_check_is_linear_in_the_nesting() -> None:
    # each object holding a repeated key compared every value with itself: size x depth
    # (160 KB nested 60 deep took 14 s; now each repeated key's values alone are compared)
    import time

    value = "[" + ",".join(["[1]"] * 40_000) + "]"
    for _ in range(60):
        value = f'{{"x": {value}, "y": 1, "y": 1}}'
    started = time.process_time()
    (call,) = parse_calls(f'{{"name": "f", "arguments": {value}}}', format="json")
    assert call.name == "f" and time.process_time() - started < 5  # a guard against a hang, not a benchmark


def test_a_metric_pickles_after_its_schemas_were_compiled_for_a_deep_value() -> None:
    # the checks compiled lazily for a 55-deep value (within every limit) made pickling recurse
    schema: Any = {"type": "integer"}
    value: Any = 1
    for _ in range(55):
        schema = {"anyOf": [{"type": "array", "items": schema}, {"type": "null"}]}
        value = [value]
    metric = ToolCallMetric("arg", tools=_tools(schema))
    assert metric.compute([[("f", {"x": value})]], [[("f", {"x": value})]])["f1"] == 1.0
    copy = pickle.loads(pickle.dumps(metric))
    assert copy.compute([[("f", {"x": value})]], [[("f", {"x": [value]})]])["f1"] == 0.5  # the name agrees, x not
