"""Session 7 trust gaps at the edges; each test failed (or hung) on the code before.

- per-tool rows asked of scores that counted none (``details=False``) are an error, never a
  silently empty table;
- two equal tool schemas built separately, sharing subschemas ("doubling" DAGs), are compared
  in linear time (``==`` took exponential time), and a comparison too large is an error;
- a schema is refused where values stop: no value can reach ``items``/``properties`` nested
  64 levels below the parameters object, so such a schema is refused when built;
- a type check does bounded work: a wide union against a large value is a parse error naming
  the parameter (a prediction's is counted as unreadable), not minutes of work.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest

import toolcall_f1.schema as schema_module
from toolcall_f1 import Call, Tally, ToolCallMetric, ToolCallParseError, ToolCallWarning, summarize
from toolcall_f1.schema import merge_tools

PREDS = ["[f(x=1), g()]", "[f(x=2)]", "[]", "[h(y=1)]"]
REFS = [[("f", {"x": 1}), ("g", {})], [("f", {"x": 1})], [], [("g", {})]]


# --------------------------------------------------------------------------- per-tool rows


def test_per_tool_rows_of_scores_without_them_are_an_error_naming_the_fix() -> None:
    metric = ToolCallMetric()
    quick = [metric(p, r, details=False) for p, r in zip(PREDS, REFS)]
    tally = Tally()
    for score in quick:
        tally.add(score)
    assert "per_tool" not in tally.result("-")  # not asked: the same numbers as ever
    message = r"per_tool=True: 3 of 4 examples were scored with details=False.*score them with details=True"
    with pytest.raises(ValueError, match=message):
        tally.result("-", per_tool=True)
    with pytest.raises(ValueError, match=message):
        summarize(quick, signature="-", per_tool=True)
    with pytest.raises(ValueError, match=r"1 of 4 examples"):  # merged tallies keep the count
        full = Tally()
        for score in [metric(p, r) for p, r in zip(PREDS[:3], REFS[:3])]:
            full.add(score)
        one = Tally()
        one.add(quick[3])
        (full + one).result("-", per_tool=True)


def test_every_core_route_to_per_tool_rows_gives_the_same_rows() -> None:
    metric = ToolCallMetric("arg")
    want = summarize([metric(p, r) for p, r in zip(PREDS, REFS)], signature="-", per_tool=True)["per_tool"]
    assert sorted(want) == ["f", "g", "h"] and want["h"]["fp"] == 2.0
    for details in (False, True):
        assert metric.compute(PREDS, REFS, per_tool=True, return_details=details)["per_tool"] == want
    empty = Tally()  # an example without calls has no rows, whatever it was scored with
    empty.add(metric("[]", [], details=False))
    assert empty.result("-", per_tool=True)["per_tool"] == {}


# --------------------------------------------------------------------------- duplicate schemas


def _doubling(levels: int, leaf: Any = "string") -> dict[str, Any]:
    """A schema whose every level holds the one below twice: 2**levels paths, levels+1 nodes."""
    node: dict[str, Any] = {"type": leaf}
    for _ in range(levels):
        node = {"type": "object", "properties": {"a": node, "b": node}}
    return {"name": "f", "parameters": node}


def test_equal_shared_schemas_built_apart_are_compared_in_linear_time() -> None:
    # == walked all 2**60 paths (60 levels: forever; 28 levels took 47 s)
    first, second = _doubling(60), _doubling(60)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        merged = merge_tools([first, second])
    assert len(merged) == 1 and merged[0] is second  # (the later one; no warning: they are equal)
    with pytest.warns(UserWarning, match="two schemas are named 'f' with different parameters"):
        merge_tools([_doubling(60), _doubling(60, leaf="integer")])


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ({"x": 1}, {"x": 1.0}, True),  # as == says
        ({"x": 1, "y": 2}, {"y": 2, "x": 1}, True),
        ({"x": [1, {"z": None}]}, {"x": [1, {"z": None}]}, True),
        ({"x": [1]}, {"x": (1,)}, False),
        ({"x": [1]}, {"x": {"0": 1}}, False),
        ({"x": [1, 2]}, {"x": [1]}, False),
        ({"x": {}}, {"x": {"y": 1}}, False),
        ({"x": "a"}, {"x": ["a"]}, False),
    ],
    ids=repr,
)
def test_schemas_compare_as_equality_says(a: Any, b: Any, same: bool) -> None:
    assert (a == b) is same
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        merge_tools([{"name": "f", "parameters": a}, {"name": "f", "parameters": b}])
    assert (not caught) is same


def test_a_comparison_too_large_warns_and_keeps_the_later_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    # the comparison only decides whether to warn: tools too large to compare are never refused
    monkeypatch.setattr(schema_module, "_COMPARE_NODES", 50)
    wide = {"name": "f", "parameters": {"properties": {f"p{i}": {"type": "string"} for i in range(100)}}}
    later = copy.deepcopy(wide)
    with pytest.warns(ToolCallWarning, match=r"two schemas are named 'f' .*too large to compare"):
        assert merge_tools([wide, later])[0] is later
    with pytest.warns(ToolCallWarning, match=r"too large to compare"):
        assert ToolCallMetric(tools=[wide, copy.deepcopy(wide)])("[f(p1='a')]", "[f(p1='a')]").tp == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert merge_tools([wide, wide]) == [wide]  # the same object: nothing to walk


# --------------------------------------------------------------------------- depth: one limit


def _nested(levels: int, leaf: Any = "s") -> tuple[dict[str, Any], Any]:
    """A parameter schema ``levels`` objects deep and a value reaching its innermost node."""
    schema: dict[str, Any] = {"type": "string"}
    value: Any = leaf
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
        value = {"a": value}
    return schema, value


def test_schemas_are_refused_exactly_where_values_stop() -> None:
    schema, value = _nested(63)  # the deepest schema built: a value reaches its innermost node
    metric = ToolCallMetric(tools=[{"name": "f", "parameters": {"properties": {"x": schema}}}])
    assert metric([Call("f", {"x": value})], [Call("f", {"x": value})]).exact
    _, wrong = _nested(63, leaf=1)  # a wrong type at the innermost node is seen
    assert not metric([Call("f", {"x": wrong})], [Call("f", {"x": wrong})]).exact
    schema, value = _nested(64)  # 64 levels: no value can be that deep, so the schema is refused
    with pytest.raises(ToolCallParseError, match="nested deeper than 64 levels"):
        ToolCallMetric(on_parse_error="raise")([Call("f", {"x": value})], [])
    with pytest.raises(ValueError, match=r"tool 'f' parameter 'x': items/properties nested deeper than 64 levels "
                                         r"\(at x(\.a){64}\)$"):
        ToolCallMetric(tools=[{"name": "f", "parameters": {"properties": {"x": schema}}}])


# --------------------------------------------------------------------------- unions: bounded work


def _wide_union(members: int) -> dict[str, Any]:
    return {"anyOf": [{"type": "array", "items": {"type": "string"}, "description": str(i)} for i in range(members)]}


def test_a_wide_union_against_a_large_value_is_an_error_naming_the_parameter(monkeypatch: pytest.MonkeyPatch) -> None:
    # 30,000 members against 1,000 elements took ~49 s; the check now stops at MAX_CHECK_STEPS
    monkeypatch.setattr(schema_module, "MAX_CHECK_STEPS", 20_000)
    tools = [{"name": "f", "parameters": {"properties": {"x": _wide_union(300)}}}]
    metric = ToolCallMetric(tools=tools)
    small = ["s"] * 9 + [1]  # 300 members x 10 elements: checked, and the type is wrong
    assert metric([Call("f", {"x": small})], [Call("f", {"x": small})]).fp == 1.0
    large = ["s"] * 99 + [1]  # 300 x 100 steps: over the budget
    message = r"tool 'f' parameter 'x': checking one value's type takes over 20,000 steps"
    with pytest.raises(ToolCallParseError, match=message):
        ToolCallMetric(tools=tools, on_parse_error="raise")([Call("f", {"x": large})], [Call("f", {"x": large})])
    # model output: counted as an unreadable prediction (never the whole run lost)
    score = metric([Call("f", {"x": large})], [Call("f", {"x": large})])
    assert (score.tp, score.fp, score.fn, score.parse_error is not None) == (0.0, 0.0, 1.0, True)
    result = metric.compute([[Call("f", {"x": large})], "[g()]"], [[Call("f", {"x": large})], [("g", {})]],
                            return_details=True)
    assert (result["num_parse_errors"], result["f1"]) == (1, 2 / 3)
    assert "predictions[0]: schema: tool 'f' parameter 'x'" in result["details"][0]["parse_error"]


def test_the_real_budget_fits_a_large_value_against_a_normal_union() -> None:
    # 100,000 elements against a 3-member union: well inside MAX_CHECK_STEPS, the same verdict as ever
    union = {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "null"}, {"type": "boolean"}]}}
    check = schema_module.type_check(union)
    assert check([1, None, True] * 33_333) and not check([1] * 99_999 + ["s"])
