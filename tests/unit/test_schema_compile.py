"""A plain parameter schema's check is what ``type_check`` compiles it to (schema._param_spec's
short way for the commonest schema: pinned to the general path)."""

from __future__ import annotations

import pickle

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
