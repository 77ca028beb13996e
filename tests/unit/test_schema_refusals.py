"""SPEC §3 "Malformed schemas are refused, not guessed" (issue 26, item 9).

A schema the metric would misread — a property that is not a schema object, a ``type`` that is
no type name, a union that is not a list, a misspelled keyword — is a ValueError naming the
tool and the key: otherwise its declared arguments would silently count as hallucinated.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric, parse_calls
from toolcall_f1.schema import edit_distance


def _tool(parameters: Any, **extra: Any) -> dict[str, Any]:
    return {"name": "get_weather", "parameters": parameters, **extra}


def _props(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


MALFORMED = [
    pytest.param(_tool(_props(city="string")), r"tool 'get_weather': property 'city' must have a schema object "
                 r'such as \{"type": "string"\}, got \'string\'', id="property-not-an-object"),
    pytest.param(_tool(_props(city=None)), r"tool 'get_weather': property 'city' must have a schema object, got None",
                 id="property-None"),
    pytest.param(_tool(_props(n={"type": 5})), r"tool 'get_weather' parameter 'n': 'type' must be a type name "
                 r"or a list of type names, got 5 \(at n\)", id="type-a-number"),
    pytest.param(_tool(_props(n={"type": ["integer", 5]})), r"parameter 'n': 'type' must be a type name", id="type-list-mixed"),
    pytest.param(_tool(_props(n={"type": {"name": "integer"}})), r"parameter 'n': 'type' must be", id="type-a-dict"),
    pytest.param(_tool({"type": 5, "properties": {}}), r"tool 'get_weather': 'type' must be .* \(at parameters\)",
                 id="parameters-type"),
    pytest.param(_tool(_props(n={"anyOf": {"type": "integer"}})), r"parameter 'n': 'anyOf' must be a list of "
                 r"schemas, got dict \(at n\)", id="anyOf-a-dict"),
    pytest.param(_tool(_props(n={"oneOf": "integer"})), r"parameter 'n': 'oneOf' must be a list", id="oneOf-a-string"),
    pytest.param(_tool({"type": "object", "properties": ["city"]}), r"tool 'get_weather': 'properties' must be an "
                 r"object of parameter schemas, got list \(at parameters\)", id="properties-a-list"),
    pytest.param(_tool(_props(loc={"type": "object", "properties": "city"})), r"parameter 'loc': 'properties' must be "
                 r"an object .* \(at loc\)", id="nested-properties"),
    pytest.param(_tool(_props(loc={"type": "object", "properties": {"city": "string"}})),
                 r"parameter 'loc': property 'city' must have a schema object .* \(at loc\.properties\)",
                 id="nested-property-not-an-object"),
    pytest.param(_tool(_props(xs={"type": "array", "items": {"anyOf": [{"type": 1}]}})),
                 r"parameter 'xs': 'type' must be .* \(at xs\.items\.anyOf\[0\]\)", id="deep-in-a-union"),
    # near misses: the keyword itself is absent, the key is no schema keyword
    pytest.param({"name": "get_weather", "paramters": _props(city={"type": "string"})},
                 r"tool 'get_weather': unknown key 'paramters' \(in the function schema\): did you mean 'parameters'\?",
                 id="paramters"),
    pytest.param(_tool({"type": "object", "propertys": {"city": {"type": "string"}}}),
                 r"tool 'get_weather': unknown key 'propertys' \(at parameters\): did you mean 'properties'\?",
                 id="propertys"),
    pytest.param(_tool({**_props(city={"type": "string"}), "requried": ["city"]}),
                 r"unknown key 'requried' \(at parameters\): did you mean 'required'\?", id="requried"),
    pytest.param(_tool(_props(city={"tpye": "string"})), r"parameter 'city': unknown key 'tpye' \(at city\): did you "
                 r"mean 'type'\?", id="tpye"),
    pytest.param(_tool(_props(xs={"type": "array", "itmes": {"type": "string"}})),
                 r"parameter 'xs': unknown key 'itmes' \(at xs\): did you mean 'items'\?", id="itmes"),
    pytest.param(_tool(_props(city={"type": "string", "importnace": 3})),
                 r"parameter 'city': unknown key 'importnace' \(at city\): did you mean 'importance'\?", id="importnace"),
    pytest.param(_tool(_props(city={"type": "string"}), importanse=3),
                 r"tool 'get_weather': unknown key 'importanse' \(in the function schema\)", id="tool-importanse"),
    pytest.param({"type": "function", "function": {"name": "get_weather", "parameter": _props()}},
                 r"unknown key 'parameter' \(in the function schema\): did you mean 'parameters'\?", id="openai-parameter"),
]


@pytest.mark.parametrize(("tool", "message"), MALFORMED)
def test_a_malformed_schema_is_a_value_error_naming_tool_and_key(tool: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ToolCallMetric(tools=[tool])
    with pytest.raises(ValueError, match=message):  # a reference's own tools too, and the parser's
        ToolCallMetric().compute(predictions=["[get_weather()]"], references=[{"calls": [], "tools": [tool]}])
    with pytest.raises(ValueError, match=message):
        parse_calls("[get_weather(city='Paris')]", tools=[tool])


ACCEPTED = [
    pytest.param(_props(city={"type": "string", "title": "City", "examples": ["Paris"], "x-type": "city"}), id="title-x-"),
    pytest.param({**_props(city={"type": "string"}), "additionalProperties": False, "$defs": {}}, id="pydantic"),
    pytest.param(_props(city={"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}), id="optional"),
    pytest.param(_props(city={"type": ["string", "null"]}), id="type-list"),
    pytest.param(_props(when={"type": "string", "time": "utc", "format": "date-time"}), id="unknown-key-with-type"),
    pytest.param({**_props(city={"type": "string"}), "required": ["city"], "requires": "a key near 'required' "
                  "that is present"}, id="near-miss-of-a-present-keyword"),
    pytest.param(_props(city={"type": "string", "optional": True, "enum": ["Paris"]}), id="bfcl-optional"),
    pytest.param({"type": "dict", "properties": {"type": {"type": "string"}, "itmes": {"type": "integer"}}},
                 id="parameters-named-like-keywords"),
    pytest.param(_props(city={}), id="empty-schema"),
    pytest.param({}, id="no-properties"),
]


@pytest.mark.parametrize("parameters", ACCEPTED)
def test_well_formed_schemas_and_other_unknown_keys_are_accepted(parameters: dict[str, Any]) -> None:
    metric = ToolCallMetric(tools=[_tool(parameters)])
    assert metric("[get_weather()]", [{"name": "get_weather", "arguments": {}}]).exact


def test_a_misspelled_keyword_no_longer_makes_declared_arguments_hallucinated() -> None:
    """The issue's symptom: with ``paramters`` accepted, ``city`` counted as a hallucinated argument."""
    good = {"name": "get_weather", "parameters": _props(city={"type": "string"})}
    score = ToolCallMetric(tools=[good])("[get_weather(city='Paris')]", [{"name": "get_weather", "arguments": {"city": "Paris"}}])
    assert score.exact and score.hallucinated_args == 0
    with pytest.raises(ValueError, match="'paramters'"):
        ToolCallMetric(tools=[{"name": "get_weather", "paramters": _props(city={"type": "string"})}])


def test_one_of_is_checked_as_any_of() -> None:
    tool = _tool(_props(n={"oneOf": [{"type": "integer"}, {"type": "string"}]}))
    metric = ToolCallMetric(tools=[tool], level="call")
    gold = [{"name": "get_weather", "arguments": {"n": 1}}]
    assert metric("[get_weather(n=1)]", gold).exact  # matches both members: still accepted (not JSON Schema's "exactly one")
    assert not ToolCallMetric(tools=[_tool(_props(n={"oneOf": [{"type": "string"}]}))])("[get_weather(n=1)]", gold).exact


@pytest.mark.parametrize(("a", "b", "distance"), [
    ("paramters", "parameters", 1), ("propertys", "properties", 2), ("requried", "required", 1), ("tpye", "type", 1),
    ("ca", "abc", 2),  # unrestricted Damerau–Levenshtein (optimal string alignment would say 3)
    ("", "type", 4), ("type", "type", 0), ("title", "type", 3),
])
def test_edit_distance_is_damerau_levenshtein(a: str, b: str, distance: int) -> None:
    assert edit_distance(a, b) == edit_distance(b, a) == distance
