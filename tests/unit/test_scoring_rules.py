"""SPEC §2–§8 rules, table-driven: schemas, types, defaults, required, weights, matching."""

from __future__ import annotations

import pytest

from toolcall_f1 import AnyOf, Call, ToolCallMetric, ToolCallParseError, match_calls

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "importance": 2,
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "importance": 3},
                "unit": {"type": "string", "default": "celsius"},
                "days": {"type": "integer"},
            },
            "required": ["city"],
        },
    },
}
DELETE = {"name": "delete_account", "importance": 10, "parameters": {"type": "dict", "properties": {"user": {"type": "string"}}, "required": ["user"]}}


def s(pred, gold, level="call", **kw):
    ctor = {k: kw.pop(k) for k in ("canonicalizer", "matching", "name_canonicalizer", "reference_format", "prediction_format") if k in kw}
    return ToolCallMetric(level, **ctor)(pred, gold, **kw)


# ----------------------------------------------------------------------------- types


@pytest.mark.parametrize(
    "value,exact",
    [
        (3, True),
        (3.0, False),  # integer rejects a float even when equal
        (True, False),  # never a bool for an integer
        ("3", False),
    ],
    ids=["int", "float-for-int", "bool-for-int", "str-for-int"],
)
def test_integer_type_rule(value, exact) -> None:
    assert s([("get_weather", {"city": "Paris", "days": value})], [("get_weather", {"city": "Paris", "days": 3})], tools=[WEATHER]).exact is exact


def test_number_accepts_int_and_bool_never_equals_number() -> None:
    tool = {"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "float"}}}}
    assert s([("f", {"x": 2})], [("f", {"x": 2.0})], tools=[tool]).exact
    assert not s([("f", {"x": True})], [("f", {"x": 1})]).exact


def test_type_error_even_when_reference_lists_the_value() -> None:
    tool = {"name": "f", "parameters": {"type": "dict", "properties": {"n": {"type": "integer"}}}}
    ref = [{"f": {"n": ["dontcare", 3]}}]
    assert not s([("f", {"n": "dontcare"})], ref, tools=[tool], reference_format="bfcl").exact
    assert s([("f", {"n": 3})], ref, tools=[tool], reference_format="bfcl").exact


def test_types_checked_inside_objects_and_arrays() -> None:
    tool = {"name": "f", "parameters": {"type": "dict", "properties": {
        "o": {"type": "dict", "properties": {"a": {"type": "integer"}}},
        "xs": {"type": "array", "items": {"type": "integer"}},
    }}}
    assert not s([("f", {"o": {"a": 1.0}})], [("f", {"o": {"a": 1}})], tools=[tool]).exact
    assert not s([("f", {"xs": [1, 2.0]})], [("f", {"xs": [1, 2]})], tools=[tool]).exact
    assert s([("f", {"xs": (1, 2)})], [("f", {"xs": [1, 2]})], tools=[tool]).exact


def test_union_and_any_types() -> None:
    tool = {"name": "f", "parameters": {"type": "dict", "properties": {
        "u": {"type": ["integer", "null"]}, "a": {"type": "any"}, "o": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    }}}
    assert s([("f", {"u": None, "a": [1], "o": 3})], [("f", {"u": None, "a": [1], "o": 3})], tools=[tool]).exact
    assert not s([("f", {"o": 3.5})], [("f", {"o": 3.5})], tools=[tool]).exact


# ----------------------------------------------------------------------------- defaults, required


def test_default_fills_an_omitted_argument() -> None:
    assert s([("get_weather", {"city": "Paris"})], [("get_weather", {"city": "Paris", "unit": "celsius"})], tools=[WEATHER]).exact
    assert s([("get_weather", {"city": "Paris", "unit": "Celsius"})], [("get_weather", {"city": "Paris"})], tools=[WEATHER]).exact
    assert not s([("get_weather", {"city": "Paris", "unit": "kelvin"})], [("get_weather", {"city": "Paris"})], tools=[WEATHER]).exact


def test_no_defaults_with_bfcl_references() -> None:
    tool = {"name": "f", "parameters": {"type": "dict", "properties": {"u": {"type": "string", "default": "c"}}}}
    sc = s([("f", {"u": "c"})], [{"f": {}}], tools=[tool], reference_format="bfcl")
    assert not sc.exact and [v.verdict for _, _, r in sc.pairs for v in r.verdicts] == ["extra"]


def test_required_argument_missing_even_if_gold_optional() -> None:
    ref = [{"get_weather": {"city": ["Paris", ""]}}]
    sc = s([("get_weather", {})], ref, tools=[WEATHER], reference_format="bfcl")
    assert not sc.exact
    assert s([("get_weather", {})], ref, reference_format="bfcl").exact  # no schema: optional


def test_optional_empty_value_counts_as_omitted() -> None:
    ref = [{"f": {"a": [1], "opt": ["x", ""]}}]
    assert s([("f", {"a": 1, "opt": ""})], ref, reference_format="bfcl").exact
    assert s([("f", {"a": 1, "opt": []})], ref, reference_format="bfcl").exact
    assert s([("f", {"a": 1})], ref, reference_format="bfcl").exact
    assert not s([("f", {"a": 1, "opt": "y"})], ref, reference_format="bfcl").exact


# ----------------------------------------------------------------------------- BFCL answers


def test_bfcl_nested_answers() -> None:
    ref = [{"book": {"guest": [{"name": ["Ann", "Anne"], "age": [30, ""]}], "rooms": [[{"n": [1]}, {"n": [2]}]]}}]
    good = ("book", {"guest": {"name": "anne"}, "rooms": [{"n": 1}, {"n": 2}]})
    assert s([good], ref, reference_format="bfcl").exact
    assert not s([("book", {"guest": {"name": "Ann", "x": 1}, "rooms": [{"n": 1}, {"n": 2}]})], ref, reference_format="bfcl").exact
    assert not s([("book", {"guest": {"name": "Ann"}, "rooms": [{"n": 2}, {"n": 1}]})], ref, reference_format="bfcl").exact


def test_bfcl_list_value_is_ordered() -> None:
    ref = [{"f": {"xs": [["a", "b"], ["b", "a", "c"]]}}]
    assert s([("f", {"xs": ["A", "B"]})], ref, reference_format="bfcl").exact
    assert not s([("f", {"xs": ["b", "a"]})], ref, reference_format="bfcl").exact


def test_bad_reference_raises_naming_index() -> None:
    metric = ToolCallMetric(reference_format="bfcl")
    with pytest.raises(ValueError, match=r"references\[1\]\[0\]\.f\.x: expected a list of accepted values"):
        metric.compute([[], []], [[{"f": {"x": [1]}}], [{"f": {"x": 1}}]])


def test_unreadable_text_reference_raises() -> None:
    with pytest.raises(ToolCallParseError, match=r"references\[0\]"):
        ToolCallMetric().compute(["[]"], ["[f(a=1"])


# ----------------------------------------------------------------------------- hallucinations


def test_hallucinated_tools_and_args_are_counted() -> None:
    r = ToolCallMetric(tools=[WEATHER]).compute(
        [[("get_weather", {"city": "Paris", "mood": "happy"}), ("launch", {})]],
        [[("get_weather", {"city": "Paris", "mood": "happy"})]],
    )
    assert (r["hallucinated_tools"], r["hallucinated_args"]) == (1, 1)
    assert (r["tp"], r["fp"], r["fn"]) == (2.0, 1.0, 0.0)  # the gold lists mood: it agrees
    r2 = ToolCallMetric().compute([[("launch", {"x": 1})]], [[]])
    assert (r2["hallucinated_tools"], r2["hallucinated_args"]) == (0, 0)  # no schema


# ----------------------------------------------------------------------------- weights


def test_schema_importance_weights() -> None:
    sc = s([("delete_account", {"user": "bob"})], [("delete_account", {"user": "alice"})], tools=[DELETE])
    assert (sc.tp, sc.fp, sc.fn) == (0, 10, 10)
    sc = s([("get_weather", {"city": "Rome"})], [("get_weather", {"city": "Paris"})], level="arg", tools=[WEATHER])
    assert (sc.tp, sc.fp, sc.fn) == (2, 6, 6)  # name w_t=2; city w_t*w_a = 2*3


def test_weights_override_entry_and_fallback() -> None:
    metric = ToolCallMetric("arg", tools=[WEATHER], weights={"get_weather": {"weight": 5}})
    sc = metric([("get_weather", {"city": "Rome"})], [("get_weather", {"city": "Paris"})])
    assert (sc.tp, sc.fp) == (5, 15)  # city importance 3 still applies
    sc = metric([("get_weather", {"city": "Rome"})], [("get_weather", {"city": "Paris"})], weights={"get_weather": {"arguments": {"city": 1}}})
    assert (sc.tp, sc.fp) == (2, 2)  # call weights replace the constructor's entry


@pytest.mark.parametrize("bad", [-1, float("inf"), float("nan"), "x", True])
def test_invalid_weights_name_the_tool(bad) -> None:
    with pytest.raises(ValueError, match="delete_all"):
        ToolCallMetric(weights={"delete_all": bad})


def test_scaling_weights_keeps_ratios() -> None:
    pred = [("f", {"x": 1}), ("g", {})]
    gold = [("f", {"x": 2}), ("h", {})]
    a = s(pred, gold, weights={"f": 1, "g": 2, "h": 3})
    b = s(pred, gold, weights={"f": 10, "g": 20, "h": 30})
    assert a.f1 == pytest.approx(b.f1)


def test_exact_match_ignores_weights() -> None:
    r = ToolCallMetric(weights={"noise": 0}).compute([[("f", {}), ("noise", {})]], [[("f", {})]])
    assert r["f1"] == 1.0 and r["exact_match"] == 0.0


# ----------------------------------------------------------------------------- per-example tools


def test_per_example_tools_layer_over_corpus_tools() -> None:
    heavy = dict(DELETE, importance=50)
    metric = ToolCallMetric(tools=[DELETE])
    plain = metric([("delete_account", {"user": "x"})], [("delete_account", {"user": "y"})])
    per_ex = metric([("delete_account", {"user": "x"})], {"calls": [("delete_account", {"user": "y"})], "tools": [heavy]})
    assert (plain.fp, per_ex.fp) == (10, 50)
    empty = metric([("delete_account", {"user": "x"})], {"calls": [("delete_account", {"user": "y"})], "tools": []})
    assert empty.fp == 10


def test_calls_key_with_dict_is_a_tool_named_calls() -> None:
    sc = s([("calls", {"a": 1})], {"calls": {"a": 1}})
    assert sc.exact


# ----------------------------------------------------------------------------- matching


def test_greedy_never_lets_a_weak_pair_steal_a_strong_one() -> None:
    pred = [("s", {"q": "a", "n": 1}), ("s", {"q": "a", "n": 2})]
    gold = [("s", {"q": "a", "n": 2}), ("s", {"q": "b", "n": 1})]
    pairs, _, _ = match_calls(pred, gold)
    assert (pairs[1][0].arguments["n"], pairs[1][1].arguments["n"].values[0]) == (2, 2)


def test_optimal_beats_greedy_on_overlapping_accepted_sets() -> None:
    # P0 accepts G0 or G1; P1 only G0. Greedy (lowest index first) takes P0-G0 and loses P1.
    gold = [{"f": {"x": [1, 2]}}, {"f": {"x": [1]}}]
    pred = [("f", {"x": 1}), ("f", {"x": 2})]
    greedy = s(pred, gold, reference_format="bfcl")
    optimal = s(pred, gold, reference_format="bfcl", matching="optimal")
    assert not greedy.exact and optimal.exact
    assert (optimal.tp, optimal.fp, optimal.fn) == (2, 0, 0)


def test_optimal_prefers_exact_pairs_for_zero_weight_tools() -> None:
    gold = [{"z": {"x": [1, 2]}}, {"z": {"x": [1]}}]
    pred = [("z", {"x": 1}), ("z", {"x": 2})]
    sc = ToolCallMetric(matching="optimal", reference_format="bfcl", weights={"z": 0})(pred, gold)
    assert sc.exact


def test_name_canonicalizer_underscore() -> None:
    pred, gold = [("math_factorial", {"number": 5})], [("math.factorial", {"number": 5})]
    assert not s(pred, gold).exact
    assert s(pred, gold, name_canonicalizer="underscore").exact


def test_calls_to_other_tools_never_pair() -> None:
    pairs, up, ug = match_calls([("a", {"x": 1})], [("b", {"x": 1})])
    assert pairs == [] and len(up) == 1 and len(ug) == 1


def test_gold_any_of_values_from_python() -> None:
    assert s([("f", {"u": "c"})], [Call("f", {"u": AnyOf("celsius", "c")})]).exact
    assert s([("f", {})], [Call("f", {"u": AnyOf("c", optional=True)})]).exact


# ----------------------------------------------------------------------------- parse errors in the metric


def test_parse_error_counts_and_scores_zero_calls() -> None:
    r = ToolCallMetric().compute(["[f(a=1"], [[("f", {"a": 1})]], return_details=True)
    assert (r["num_parse_errors"], r["tp"], r["fn"], r["exact_match"]) == (1, 0.0, 1.0, 0.0)
    assert "predictions[0]" in r["details"][0]["parse_error"]


def test_parse_error_raise_names_example_and_format() -> None:
    with pytest.raises(ToolCallParseError, match=r"predictions\[1\]: python: unbalanced") as info:
        ToolCallMetric(on_parse_error="raise").compute(["[]", "ok then\n[f(a=1"], [[], []])
    assert info.value.index == 1 and info.value.format == "python"


def test_signature_names_every_setting() -> None:
    sig = ToolCallMetric("arg", matching="optimal", canonicalizer="bfcl", name_canonicalizer="underscore", tools=[WEATHER]).signature()
    assert sig.startswith("level:arg|match:optimal|order:any|canon:bfcl|names:underscore|pred:auto|ref:auto|w:")
    assert sig.endswith("|v:0.1.0") and "w:none" not in sig
    other = ToolCallMetric("arg", matching="optimal", canonicalizer="bfcl", name_canonicalizer="underscore", tools=[DELETE]).signature()
    assert sig != other


def test_callable_canonicalizers() -> None:
    digits_only = lambda s: "".join(ch for ch in s if ch.isdigit())  # noqa: E731
    assert s([("f", {"d": "2021-01-28"})], [("f", {"d": "20210128"})], canonicalizer=digits_only).exact
    assert not s([("f", {"d": "2021-01-28"})], [("f", {"d": "20210128"})]).exact
    strip_ns = lambda name: name.rsplit(".", 1)[-1]  # noqa: E731
    assert s([("tools.search", {})], [("search", {})], name_canonicalizer=strip_ns).exact
    sig = ToolCallMetric(canonicalizer=digits_only, name_canonicalizer=strip_ns).signature()
    assert "canon:custom:" in sig and "names:custom:" in sig


def test_per_tool_rows_do_not_split_by_spelling() -> None:
    metric = ToolCallMetric(name_canonicalizer="underscore")
    r = metric.compute(["[math_factorial(number=5)]", "[math.factorial(number=3)]"],
                       ["[math.factorial(number=5)]", "[math_factorial(number=4)]"], per_tool=True)
    assert list(r["per_tool"]) == ["math_factorial"] and r["num_parse_errors"] == 0
    tools = [{"name": "math.factorial", "parameters": {"type": "dict", "properties": {"number": {"type": "integer"}}}}]
    r = ToolCallMetric(name_canonicalizer="underscore", tools=tools).compute(
        ["[math_factorial(number=5)]"], ["[math.factorial(number=5)]"], per_tool=True)
    assert list(r["per_tool"]) == ["math.factorial"] and r["per_tool"]["math.factorial"]["tp"] == 1.0
