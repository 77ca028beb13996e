"""A plain parameter schema's check is what ``type_check`` compiles it to (schema._param_spec's
short way for the commonest schema: pinned to the general path)."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric
from toolcall_f1.schema import KNOWN_TYPES, compile_tools, type_check

PLAIN = sorted(KNOWN_TYPES)


@pytest.mark.parametrize("name", PLAIN)
def test_a_plain_schemas_check_is_type_checks(name: str) -> None:
    schema = {"type": name, "description": "d", "default": None, "enum": [1]}
    spec = compile_tools([{"name": "f", "parameters": {"properties": {"x": schema}}}], {}).lookup("f")
    assert spec is not None
    check = spec.params["x"].check
    assert check is type_check(schema)
    for value in (1, 1.5, True, None, "s", [1], (1,), {"a": 1}):
        assert check(value) == type_check(schema)(value)


def test_schemas_with_subschemas_still_go_through_type_check() -> None:
    schema = {"type": "array", "items": {"type": "integer"}}
    spec = compile_tools([{"name": "f", "parameters": {"properties": {"x": schema}}}], {}).lookup("f")
    assert spec is not None
    check = spec.params["x"].check
    assert check([1, 2]) and not check([1, "2"])
    assert pickle.loads(pickle.dumps(check))([3]) and not pickle.loads(pickle.dumps(check))(["3"])


def test_a_plain_parameter_scores_as_a_declared_one_through_the_public_api() -> None:
    tools = [{"name": "f", "parameters": {"properties": {"x": {"type": "int"}, "y": {"type": "integer", "items": {}}}}}]
    metric = ToolCallMetric("arg", tools=tools)
    assert metric("[f(x=True, y=True)]", [("f", {"x": 1, "y": 1})]).tp == metric("[f(x=1.0, y=1.0)]", [("f", {"x": 1, "y": 1})]).tp


def test_errors_come_in_the_same_order_for_a_schema_with_two_faults() -> None:
    bad = {"name": "f", "parameters": {"properties": {"x": {"type": "array", "anyOf": 5, "importance": -1}}}}
    with pytest.raises(ValueError) as caught:
        compile_tools([bad], {})
    assert str(caught.value) == "tool 'f' parameter 'x': 'anyOf' must be a list of schemas, got int (at x)"
    bad_importance = {"name": "f", "parameters": {"properties": {"x": {"type": "string", "importance": -1}}}}
    with pytest.raises(ValueError, match="argument 'x' importance"):
        compile_tools([bad_importance], {})


def test_a_digest_hashes_json_dumps_sorted_text() -> None:
    import hashlib
    import json

    from toolcall_f1.settings import digest

    for value in ([{"name": "f", "description": "é", "parameters": {"b": 1, "a": [2.5, None, True]}}], {}, [],
                  {"z": {"y": "\u2028"}, "a": 1e300}):
        text = json.dumps(value, sort_keys=True, default=repr, ensure_ascii=True)
        assert digest(value) == hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def test_a_compiled_tool_set_pickles_and_keeps_its_named_tuples() -> None:
    from toolcall_f1.schema import ParamSpec, ToolSpec

    ts = compile_tools([{"name": "f", "importance": 2, "parameters": {"properties": {"x": {"type": "integer", "default": 3}},
                                                                       "required": ["x"]}}], {})
    spec = ts.lookup("f")
    assert type(spec) is ToolSpec and type(spec.params["x"]) is ParamSpec
    assert spec._asdict()["weight"] == 2.0 and spec.params["x"].default == 3 and spec.required == frozenset({"x"})
    back = pickle.loads(pickle.dumps(ts)).lookup("f")
    assert back is not None and repr(back).split(", check=")[0] == repr(spec).split(", check=")[0]


_GEMINI_DECLARATION = {"name": "f", "description": "Gemini's JSON Schema variant",
                       "parametersJsonSchema": {"type": "object", "properties": {"x": {"type": "integer"}},
                                                "required": ["x"]}}


@pytest.mark.parametrize("tools", [
    [_GEMINI_DECLARATION],
    [{"functionDeclarations": [_GEMINI_DECLARATION]}],
    [{"function_declarations": [{"name": "f", "parameters_json_schema": _GEMINI_DECLARATION["parametersJsonSchema"]}]}],
    # Gemini's OpenAPI-style schema, its types in the upper case of its Type enum
    [{"functionDeclarations": [{"name": "f", "parameters": {"type": "OBJECT", "properties": {"x": {"type": "INTEGER"}},
                                                            "required": ["x"]}}]}],
], ids=["parametersJsonSchema", "functionDeclarations", "snake_case", "upper-case types"])
def test_gemini_function_declarations_declare_their_parameters(tools: list[dict[str, Any]]) -> None:
    # parametersJsonSchema was not read: every declared argument counted as hallucinated, no
    # type checked (a silently wrong number); upper-case types warned and went unchecked
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric = ToolCallMetric(tools=tools)
        as_example = ToolCallMetric()
        ok, wrong_type = metric("[f(x=1)]", [("f", {"x": 1})]), metric('[f(x="1")]', [("f", {"x": 1})])
        own = as_example("[f(x=1, y=2)]", {"calls": [("f", {"x": 1})], "tools": tools})
    assert ok.exact and ok.hallucinated_args == 0
    assert not wrong_type.exact and wrong_type.hallucinated_args == 0
    assert own.hallucinated_args == 1 and not own.exact


def test_a_gemini_tool_object_that_is_not_a_list_of_declarations_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^tools\[1\]\.functionDeclarations: expected a list of function declarations, got int$"):
        ToolCallMetric(tools=[{"name": "g"}, {"functionDeclarations": 3}])
    with pytest.raises(ValueError, match=r"^tools\[0\]\.functionDeclarations\[0\]: a function schema needs a non-empty 'name' \(its keys: 'description'\)$"):
        ToolCallMetric(tools=[{"functionDeclarations": [{"description": "no name"}]}])


def test_gemini_sdk_dumps_read_as_declared() -> None:
    # the SDK's model_dump() writes every unset field as None: "parameters": None beside
    # parametersJsonSchema was read as no parameters (every argument "hallucinated")
    declaration = {"name": "f", "parameters": None, "description": None,
                   "parameters_json_schema": {"type": "object", "properties": {"a": {"type": "integer"}}}}
    tools = [{"google_search": None, "function_declarations": [declaration], "code_execution": None}]
    result = ToolCallMetric("arg", tools=tools).compute(["[f(a=1.0)]"], [[("f", {"a": 1})]])
    assert (result["f1"], result["hallucinated_args"]) == (0.5, 0)


def test_a_gemini_built_in_tool_declares_no_function() -> None:
    tools = [{"googleSearch": {}}, {"codeExecution": {}}, {"functionDeclarations": [{"name": "f"}]}]
    metric = ToolCallMetric(tools=tools)
    assert metric("[f()]", [("f", {})]).exact and metric("[google_search()]", []).hallucinated_tools == 1


def test_two_parameter_keys_are_refused_not_guessed() -> None:
    both = {"name": "f", "parameters": {"type": "object"}, "parametersJsonSchema": {"type": "object"}}
    with pytest.raises(ValueError, match=r"^tool 'f': both 'parameters' and 'parametersJsonSchema' declare its "
                                         r"parameters; give one$"):
        ToolCallMetric(tools=[both])
    with pytest.raises(ValueError, match="did you mean 'parametersJsonSchema'"):
        ToolCallMetric(tools=[{"name": "f", "parametersJsonSchem": {}}])


def test_nullable_allows_null() -> None:
    # OpenAPI's (and Gemini's) nullable: true adds null to the declared types
    import warnings

    tools = [{"name": "f", "parameters": {"type": "OBJECT", "properties": {
        "a": {"type": "INTEGER", "nullable": True}, "b": {"type": "integer", "nullable": False},
        "c": {"type": "TYPE_UNSPECIFIED"}}}}]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric = ToolCallMetric("arg", tools=tools)
    score = metric("[f(a=None, b=None, c=None)]", [("f", {"a": None, "b": None, "c": None})])
    assert [v.verdict for v in score.pairs[0][2].verdicts] == ["agree", "disagree", "agree"]
    assert not metric("[f(a='x')]", [("f", {"a": "x"})]).exact


def test_a_gold_value_breaking_its_declared_type_is_warned_once_per_argument() -> None:
    # SPEC §3 promised this warning; nothing raised it
    import warnings

    from toolcall_f1 import ToolCallWarning

    tools = [{"name": "f", "parameters": {"properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}}]
    metric = ToolCallMetric(tools=tools, reference_format="bfcl")
    refs = [[{"f": {"n": ["ticket_001"], "s": ["a"]}}], [{"f": {"n": ["ticket_002"], "s": ["", "b"]}}],
            [{"f": {"n": [1, "x"], "s": [""]}}]]  # one value of the type, or only the optional marker: winnable
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = metric.compute(["[f(n='ticket_001', s='a')]"] * 3, refs)
    messages = [str(w.message) for w in caught if issubclass(w.category, ToolCallWarning)]
    assert messages == ["references[0]: tool 'f' argument 'n': no accepted gold value is of its declared type "
                        "'integer', so no prediction can agree with it (check the reference or the schema; "
                        "warned once per tool and argument in a computation)"]
    assert result["exact_match"] == 0.0  # the type rule still applies
    with warnings.catch_warnings(record=True) as caught:  # a new computation warns again (the reading is remembered)
        warnings.simplefilter("always")
        metric.compute(["[f(n=1)]"], refs[:1])
    assert len([w for w in caught if issubclass(w.category, ToolCallWarning)]) == 1
