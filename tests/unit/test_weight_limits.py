"""SPEC §3: each field's weight is 0 or a normal float, and weights for unknown tools warn
(issue 26, item 8).

``w_t·w_a`` for a subnormal weight lost bits silently: ``weight=5e-324, a=0.5`` gave F1 1.0
where the exact value is 2/3. Such weights are refused, naming the tool and the argument.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric, ToolCallWarning, compare_call

GOLD = [{"name": "f", "arguments": {"a": 1, "b": 2}}]
PRED = "[f(a=1)]"


def _compute(**kwargs: Any) -> dict[str, Any]:
    return ToolCallMetric(level="arg", **kwargs).compute(predictions=[PRED], references=[GOLD])


@pytest.mark.parametrize(("weights", "message"), [
    ({"f": 5e-324}, r"weights: tool 'f' has weight 5e-324, below the smallest normal float \(2\.2250738585072014e-308\)"),
    ({"f": {"weight": 5e-324, "arguments": {"a": 0.5}}}, r"weights: tool 'f' has weight 5e-324"),  # the issue's case
    ({"f": {"arguments": {"b": 1e-310}}}, r"weights: tool 'f' argument 'b': its field weight 1\.0 × 1e-310 = 1e-310 "
     r"is below the smallest normal float"),
    ({"f": {"weight": 1e-200, "arguments": {"b": 1e-200}}}, r"tool 'f' argument 'b': its field weight 1e-200 × 1e-200 "
     r"= 0\.0"),  # a product that underflows to 0 is not a zero weight
    ({"f": sys.float_info.min / 2}, r"tool 'f' has weight"),
])
def test_a_subnormal_field_weight_is_a_value_error_naming_tool_and_argument(weights: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _compute(weights=weights)
    with pytest.raises(ValueError, match=message):  # compute()'s own weights
        ToolCallMetric(level="arg").compute(predictions=[PRED], references=[GOLD], weights=weights)
    with pytest.raises(ValueError, match=message):
        compare_call("f(a=1)", GOLD[0], weights=weights)


def test_a_subnormal_importance_in_a_schema_is_refused_too() -> None:
    tool = {"name": "f", "importance": 1e-300, "parameters": {"properties": {"a": {"importance": 1e-10}, "b": {}}}}
    with pytest.raises(ValueError, match=r"weights: tool 'f' argument 'a': its field weight 1e-300 × 1e-10"):
        ToolCallMetric(tools=[tool])
    with pytest.raises(ValueError, match=r"weights: tool 'f' has weight 5e-324"):
        ToolCallMetric(tools=[{"name": "f", "importance": 5e-324}])


@pytest.mark.parametrize("weights", [
    {"f": 0}, {"f": {"weight": 0, "arguments": {"b": 1e-310}}},  # a zero tool weight: every product is 0
    {"f": {"arguments": {"b": 0}}}, {"f": sys.float_info.min}, {"f": {"weight": 1e-150, "arguments": {"b": 1e-150}}},
    {"f": {"weight": 1e10, "arguments": {"b": 1e-310}}},  # a subnormal argument weight whose product is normal
])
def test_zero_and_normal_field_weights_are_accepted(weights: dict[str, Any]) -> None:
    assert 0 <= _compute(weights=weights)["f1"] <= 1


def test_field_weights_at_the_limit_keep_the_exact_ratio() -> None:
    """At the smallest tool weight accepted the scores are those of weight 1 (name, a agree; b missing)."""
    tiny = _compute(weights={"f": {"weight": sys.float_info.min, "arguments": {"a": 1.0, "b": 2.0}}})
    plain = _compute(weights={"f": {"arguments": {"a": 1.0, "b": 2.0}}})
    assert tiny["f1"] == plain["f1"] == pytest.approx(2 * 2 / (2 * 2 + 2))


def test_weights_for_a_tool_the_schemas_do_not_list_warn_naming_it() -> None:
    tools = [{"name": "get_weather", "parameters": {"properties": {"city": {}}}}]
    with pytest.warns(ToolCallWarning, match="weights: tool 'get_wether' is not among the tool schemas"):
        ToolCallMetric(tools=tools, weights={"get_wether": 3})
    metric = ToolCallMetric(tools=tools)
    with pytest.warns(ToolCallWarning, match="weights: tool 'get_wether' is not among the tool schemas"):
        metric.compute(predictions=["[]"], references=[[]], weights={"get_wether": 3})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ToolCallMetric(weights={"get_wether": 3})  # no schemas: nothing to check against
