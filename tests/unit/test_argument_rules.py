"""Argument rules, ``rules=`` and a parameter schema's ``"match"`` (SPEC §6b): the worked
examples of SPEC §9 as exact numbers, each rule's meaning, the order in which rules apply,
the callable's memo and the errors."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from toolcall_f1 import Call, ToolCallMetric, ToolCallWarning
from toolcall_f1.calls import GoldCall
from toolcall_f1.matching import Matcher
from toolcall_f1.rules import ArgumentRuleError, ArgumentRuleTypeError, validate_rules
from toolcall_f1.schema import compile_tools
from toolcall_f1.counting import count_example
from toolcall_f1.values import canon_default


def counts(pred: Any, gold: Any, rules: Any = None, level: str = "arg", **settings: Any) -> tuple[float, float, float, float]:
    result = ToolCallMetric(level, **settings).compute([pred], [gold], rules=rules)
    return result["tp"], result["fp"], result["fn"], result["exact_match"]


# --------------------------------------------------------------------------- SPEC §9


def test_spec_abs_tol() -> None:
    rules = {"f": {"x": {"abs_tol": 0.01}}}
    assert counts([("f", {"x": 1.005})], [("f", {"x": 1.0})], rules) == (2.0, 0.0, 0.0, 1.0)
    assert counts([("f", {"x": 1.005})], [("f", {"x": 1.0})]) == (1.0, 1.0, 1.0, 0.0)


def test_spec_unordered() -> None:
    rules = {"f": {"ids": "unordered"}}
    assert counts([("f", {"ids": [2, 1]})], [("f", {"ids": [1, 2]})], rules) == (2.0, 0.0, 0.0, 1.0)
    assert counts([("f", {"ids": [2, 1]})], [("f", {"ids": [1, 2]})]) == (1.0, 1.0, 1.0, 0.0)  # default: not


def test_spec_ignore() -> None:
    rules = {"f": {"rid": "ignore"}}
    assert counts([("f", {"q": "a", "rid": "1"})], [("f", {"q": "a", "rid": "9"})], rules) == (2.0, 0.0, 0.0, 1.0)


def test_spec_superset() -> None:
    rules = {"f": {"tags": "superset"}}
    assert counts([("f", {"tags": ["a", "b", "c"]})], [("f", {"tags": ["b", "a"]})], rules) == (2.0, 0.0, 0.0, 1.0)


def test_spec_subset() -> None:
    rules = {"f": {"flt": "subset"}}
    assert counts([("f", {"flt": {"a": 1}})], [("f", {"flt": {"a": 1, "b": 2}})], rules) == (2.0, 0.0, 0.0, 1.0)


def test_spec_star_ignore() -> None:
    rules = {"f": {"*": "ignore"}}
    assert counts([("f", {"x": 1})], [("f", {"y": 2})], rules) == (1.0, 0.0, 0.0, 1.0)


def test_spec_examples_at_call_level() -> None:
    assert counts([("f", {"x": 1.005})], [("f", {"x": 1.0})], {"f": {"x": {"abs_tol": 0.01}}}, "call") == (1, 0, 0, 1)
    assert counts([("f", {"x": 1})], [("f", {"y": 2})], {"f": {"*": "ignore"}}, "call") == (1, 0, 0, 1)


# --------------------------------------------------------------------------- each rule


@pytest.mark.parametrize(("rule", "pred", "gold", "agrees"), [
    ("unordered", [1, 2, 2], [2, 1, 2], True),
    ("unordered", [1, 1, 2], [1, 2, 2], False),  # a multiset: counts matter
    ("unordered", [1, 2], [1, 2, 3], False),  # one length
    ("unordered", [[1, 2]], [[2, 1]], False),  # nested lists stay ordered
    ("unordered", ["A ", "b"], ["B", "a"], True),  # elements by SPEC §4 (the canonicalizer)
    ("unordered", "x", "X", True),  # other values by §4
    ("subset", [1, 2], [2, 3, 1], True),
    ("subset", [1, 1], [1, 2], False),
    ("subset", {"a": 1}, {"b": 2}, False),
    ("subset", {}, {"b": 2}, True),
    ("superset", {"a": 1, "b": 2}, {"a": 1}, True),
    ("superset", {"a": 2, "b": 2}, {"a": 1}, False),
    ("superset", [1], [1, 2], False),
    ({"rel_tol": 0.1}, 105, 100, True),
    ({"rel_tol": 0.01}, 105, 100, False),
    ({"abs_tol": 0.5}, [1.2, {"k": 2.4}], [1.0, {"k": 2.0}], True),  # at every depth
    ({"abs_tol": 0.5}, [1.2, 3], [3, 1.2], False),  # lists in order
    ({"abs_tol": 1}, True, 1, False),  # a bool is never a number
    ({"abs_tol": 1}, True, True, True),
    ({"abs_tol": 1}, 10**400, 10**400, True),  # too large for a float: compared exactly (in fractions)
    ({"abs_tol": 1}, 10**400, 10**400 + 1, True),  # |p - g| = 1 <= abs_tol, exactly
    ({"abs_tol": 0.5}, 10**400, 10**400 + 1, False),
    ({"abs_tol": 0.1}, "Paris", "paris", True),  # other values by §4
])
def test_each_rule(rule: Any, pred: Any, gold: Any, agrees: bool) -> None:
    got = counts([("f", {"v": pred})], [("f", {"v": gold})], {"f": {"v": rule}})
    assert got == ((2.0, 0.0, 0.0, 1.0) if agrees else (1.0, 1.0, 1.0, 0.0))


def test_a_callable_rule_sees_plain_values_after_defaults_not_canonicalized() -> None:
    seen = []

    def judge(p: Any, g: Any) -> bool:
        seen.append((p, g))
        return str(p).lower() == str(g).lower()

    tools = [{"name": "f", "parameters": {"properties": {"unit": {"type": "string", "default": "Celsius"}}}}]
    assert counts([("f", {})], [("f", {"unit": "celsius"})], {"f": {"unit": judge}}, tools=tools) == (2, 0, 0, 1)
    assert seen == [("Celsius", "celsius")]


def test_types_are_checked_before_every_rule_but_ignore() -> None:
    tools = [{"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}]
    assert counts([("f", {"n": 1.0})], [("f", {"n": 1})], {"f": {"n": {"abs_tol": 1}}}, tools=tools) == (1, 1, 1, 0)
    assert counts([("f", {"n": 1.0})], [("f", {"n": 1})], {"f": {"n": lambda p, g: True}}, tools=tools) == (1, 1, 1, 0)
    assert counts([("f", {"n": "x"})], [("f", {"n": 1})], {"f": {"n": "ignore"}}, tools=tools) == (1, 0, 0, 1)


def test_ignore_is_never_missing_extra_or_filled_from_a_default() -> None:
    tools = [{"name": "f", "parameters": {"properties": {"q": {}, "rid": {"default": "0"}}, "required": ["q", "rid"]}}]
    rules = {"f": {"rid": "ignore"}}
    assert counts([("f", {"q": "a"})], [("f", {"q": "a", "rid": "9"})], rules, tools=tools) == (2, 0, 0, 1)  # not missing
    assert counts([("f", {"q": "a", "rid": "9"})], [("f", {"q": "a"})], rules, tools=tools) == (2, 0, 0, 1)  # not extra
    # unmatched calls: the ignored argument adds no FP or FN either (the name and q do)
    assert counts([("f", {"q": "a", "rid": "1"})], [], rules, tools=tools)[:3] == (0, 2, 0)
    assert counts([], [("f", {"q": "a", "rid": "9"})], rules, tools=tools)[:3] == (0, 0, 2)


def test_hallucination_counts_are_not_changed_by_rules() -> None:
    tools = [{"name": "f", "parameters": {"properties": {"q": {}}}}]
    metric = ToolCallMetric(tools=tools)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ToolCallWarning)
        plain = metric.compute([[("f", {"q": "a", "junk": 1})]], [[("f", {"q": "a"})]])
        ruled = metric.compute([[("f", {"q": "a", "junk": 1})]], [[("f", {"q": "a"})]], rules={"f": {"junk": "ignore"}})
    assert plain["hallucinated_args"] == ruled["hallucinated_args"] == 1
    assert (plain["exact_match"], ruled["exact_match"]) == (0.0, 1.0)


def test_bfcl_answers_a_rule_for_each_accepted_value() -> None:
    metric = ToolCallMetric("arg", reference_format="bfcl")
    gold = [{"f": {"x": [1.0, 2.0], "opt": ["", "a"]}}]
    rules = {"f": {"x": {"abs_tol": 0.1}, "opt": lambda p, g: True}}
    got = metric.compute([[("f", {"x": 2.05})]], [gold], rules=rules)
    assert (got["tp"], got["fp"], got["fn"], got["exact_match"]) == (2.0, 0.0, 0.0, 1.0)  # opt omitted: neither
    got = metric.compute([[("f", {"x": 1.5})]], [gold], rules=rules)
    assert (got["tp"], got["fp"], got["fn"]) == (1.0, 1.0, 1.0)


def test_a_nested_bfcl_answer_takes_tolerances_and_refuses_other_rules() -> None:
    metric = ToolCallMetric(reference_format="bfcl")
    gold = [{"f": {"d": [{"a": [1.0], "b": ["x"]}]}}]
    assert metric.compute([[("f", {"d": {"a": 1.05, "b": "x"}})]], [gold], rules={"f": {"d": {"abs_tol": 0.1}}})["f1"] == 1
    assert metric.compute([[("f", {"d": {"a": 1.05, "b": "x"}})]], [gold])["f1"] == 0
    with pytest.raises(ValueError, match=r"example 0: rules: tool 'f' argument 'd': rule Rule\('unordered'\) cannot"):
        metric.compute([[("f", {"d": {"a": 1.0, "b": "x"}})]], [gold], rules={"f": {"d": "unordered"}})


# --------------------------------------------------------------------------- which rule applies


def test_the_first_rule_that_applies_wins() -> None:
    tools = [{"name": "f", "parameters": {"properties": {"a": {"match": "ignore"}, "b": {"match": "ignore"}, "c": {}}}}]
    pred, gold = [("f", {"a": 1, "b": 1, "c": 1})], [("f", {"a": 2, "b": 2, "c": 2})]
    assert counts(pred, gold, None, tools=tools) == (1, 1, 1, 0)  # the schema's match: a and b ignored
    assert counts(pred, gold, {"f": {"a": "exact"}}, tools=tools) == (1, 2, 2, 0)  # rules[tool][arg] first
    assert counts(pred, gold, {"f": {"*": "exact"}}, tools=tools) == (1, 3, 3, 0)  # then "*", before the schema
    assert counts(pred, gold, {"f": {"*": "exact", "c": "ignore"}}, tools=tools) == (1, 2, 2, 0)


def test_tool_names_are_compared_after_the_name_canonicalizer() -> None:
    rules = {"math.f": {"x": "ignore"}}
    assert counts([("math_f", {"x": 1})], [("math_f", {"x": 2})], rules, name_canonicalizer="underscore") == (1, 0, 0, 1)
    assert counts([("math_f", {"x": 1})], [("math_f", {"x": 2})], rules) == (1, 1, 1, 0)


def test_call_rules_replace_the_constructors_entry_for_each_tool_they_name() -> None:
    metric = ToolCallMetric("arg", rules={"f": {"x": "ignore"}, "g": {"y": "ignore"}})
    preds = [[("f", {"x": 1, "z": 1}), ("g", {"y": 1})]]
    refs = [[("f", {"x": 2, "z": 2}), ("g", {"y": 2})]]
    got = metric.compute(preds, refs)
    assert (got["tp"], got["fp"], got["fn"]) == (2.0, 1.0, 1.0)  # f's z disagrees
    got = metric.compute(preds, refs, rules={"f": {"z": "ignore"}})  # f's entry replaced; g's kept
    assert (got["tp"], got["fp"], got["fn"]) == (2.0, 1.0, 1.0)  # f's x now disagrees, z ignored
    got = metric.compute(preds, refs, rules={"f": {"*": "ignore"}})
    assert (got["tp"], got["fp"], got["fn"]) == (2.0, 0.0, 0.0)
    assert metric.rules == {"f": {"x": "ignore"}, "g": {"y": "ignore"}}  # unchanged


def test_signature_names_rules_only_when_there_are_any() -> None:
    plain = ToolCallMetric().signature()
    assert "rules:" not in plain and plain == ToolCallMetric(rules={}).signature()
    a = ToolCallMetric(rules={"f": {"x": "ignore"}}).signature()
    b = ToolCallMetric(rules={"f": {"x": "unordered"}}).signature()
    assert "|rules:" in a and a != b and a.replace(a.split("|")[7] + "|", "") == plain
    c1 = ToolCallMetric(rules={"f": {"x": lambda p, g: p == g}}).signature()
    c2 = ToolCallMetric(rules={"f": {"x": lambda p, g: p != g}}).signature()
    assert c1 != c2  # a callable by its code
    assert ToolCallMetric().compute([[("f", {})]], [[("f", {})]], rules={"f": {"x": "ignore"}})["signature"] == a


# --------------------------------------------------------------------------- the callable's memo


def test_a_callable_is_called_once_per_distinct_pair_within_one_compute() -> None:
    calls: list[tuple[Any, Any]] = []

    def judge(p: Any, g: Any) -> bool:
        calls.append((p, g))
        return True

    metric = ToolCallMetric("arg", rules={"f": {"x": judge}})
    preds = [[("f", {"x": 1})], [("f", {"x": 1})], [("f", {"x": 1.0})], [("f", {"x": True})], [("f", {"x": 1}), ("f", {"x": 2})]]
    refs = [[("f", {"x": 5})], [("f", {"x": 5})], [("f", {"x": 5})], [("f", {"x": 5})], [("f", {"x": 5}), ("f", {"x": 5})]]
    assert metric.compute(preds, refs)["exact_match"] == 1.0
    assert sorted(map(repr, calls)) == sorted(map(repr, [(1, 5), (1.0, 5), (True, 5), (2, 5)]))  # 1, 1.0, true distinct
    calls.clear()
    metric.compute(preds, refs)  # a new computation: a new memo
    assert len(calls) == 4
    calls.clear()
    metric.compute(preds, refs, rules={"f": {"x": judge}})  # rules given with the call: the same
    assert len(calls) == 4


def test_a_callable_is_never_called_with_raw_model_text() -> None:
    calls: list[Any] = []
    metric = ToolCallMetric(rules={"f": {"x": lambda p, g: calls.append((p, g)) or True}})
    metric.compute(["[f(x='a'", "no call here", "[f(x='b')]"], [[("f", {"x": "a"})]] * 3)
    assert calls == [("b", "a")]


def test_a_large_group_under_rules_gives_the_general_paths_numbers() -> None:
    """The matcher's shortcuts (value keys, the exact-pair index, classes of calls) are pinned to
    the general path under rules: a rule's agreement has no value key."""
    preds = [Call("f", {"x": i + 0.001, "k": "p"}) for i in range(12)] + [Call("f", {"x": 0.001, "k": "p"})] * 8
    golds = [GoldCall.from_call(Call("f", {"x": float(i), "k": "g"})) for i in reversed(range(12))]
    for rules, exact_pairs in (({"f": {"x": {"abs_tol": 0.01}}}, 0), ({"f": {"x": {"abs_tol": 0.01}, "k": "ignore"}}, 12),
                               ({"f": {"x": lambda p, g: abs(p - g) < 0.01, "k": "ignore"}}, 12)):
        toolset = compile_tools([], {}, rules=validate_rules(rules))
        for level in ("call", "arg"):
            for matching in ("greedy", "optimal"):
                general = Matcher(matching, level, single=False, forced_exact=False, classes=False, keyed=False,
                                  exact_pairs=False)
                for details in (False, True):
                    fast, slow = (count_example(preds, golds, toolset, level=level, matching=matching, canon=canon_default,
                                                fill_defaults=True, details=details, matcher=m)
                                  for m in (None, general))
                    assert (fast.tp, fast.fp, fast.fn, fast.exact) == (slow.tp, slow.fp, slow.fn, slow.exact)
                    assert sum(r.exact for _, _, r in fast.pairs) == exact_pairs


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(("rules", "message"), [
    ({"f": {"x": "fuzzy"}}, "rules: tool 'f' argument 'x': unknown rule 'fuzzy'; expected one of 'exact'"),
    ({"f": {"x": {"abs_tol": -1}}}, "rules: tool 'f' argument 'x': abs_tol must be a finite number >= 0, got -1"),
    ({"f": {"x": {"rel_tol": float("inf")}}}, "rules: tool 'f' argument 'x': rel_tol must be a finite number >= 0"),
    ({"f": {"x": {"rel_tol": True}}}, "rules: tool 'f' argument 'x': rel_tol must be a finite number >= 0, got True"),
    ({"f": {"x": {"tol": 1}}}, "rules: tool 'f' argument 'x': unknown rule {'tol': 1}"),
    ({"f": {"x": {}}}, "rules: tool 'f' argument 'x': unknown rule {}"),
    ({"f": {"x": 3}}, "rules: tool 'f' argument 'x': unknown rule 3"),
    ({"f": "ignore"}, "rules: tool 'f': expected a mapping {argument: rule}, got 'ignore'"),
    ({1: {"x": "ignore"}}, "rules: tool names must be strings, got int 1"),
    ([("f", "x")], "rules: expected a mapping {tool: {argument: rule}}, got list"),
])
def test_bad_rules_are_value_errors_naming_tool_argument_and_rule(rules: Any, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        ToolCallMetric(rules=rules)
    assert str(caught.value).startswith(message)
    with pytest.raises(ValueError) as caught:
        ToolCallMetric().compute([[]], [[]], rules=rules)
    assert str(caught.value).startswith(message)


def test_a_schema_match_that_is_no_rule_is_a_value_error() -> None:
    tools = [{"name": "f", "parameters": {"properties": {"x": {"match": "fuzzy"}}}}]
    with pytest.raises(ValueError, match=r"rules: tool 'f' argument 'x' \(schema 'match'\): unknown rule 'fuzzy'"):
        ToolCallMetric(tools=tools)


def test_a_callable_that_raises_is_reported_naming_tool_argument_and_example() -> None:
    def broken(p: Any, g: Any) -> bool:
        raise KeyError("no model")

    metric = ToolCallMetric(rules={"f": {"x": broken}})
    with pytest.raises(ArgumentRuleError) as caught:
        metric.compute([[], [("f", {"x": 1})]], [[], [("f", {"x": 2})]])
    assert str(caught.value).startswith("example 1: rules: tool 'f' argument 'x': the rule custom:")
    assert "raised KeyError: 'no model'" in str(caught.value)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value.__cause__, KeyError)
    assert (caught.value.tool, caught.value.argument) == ("f", "x")


@pytest.mark.parametrize("answer", [None, 1, "yes", np.float64(1.0)])
def test_a_callable_returning_no_bool_is_a_type_error(answer: Any) -> None:
    metric = ToolCallMetric(rules={"f": {"x": lambda p, g: answer}})
    with pytest.raises(ArgumentRuleTypeError, match=r"example 0: rules: tool 'f' argument 'x': the rule .* returned"):
        metric.compute([[("f", {"x": 1})]], [[("f", {"x": 2})]])
    assert isinstance(ArgumentRuleTypeError("m", "f", "x"), TypeError)


def test_numpy_bool_counts_as_a_bool() -> None:
    metric = ToolCallMetric(rules={"f": {"x": lambda p, g: np.bool_(p > g)}})
    assert metric.compute([[("f", {"x": 3})]], [[("f", {"x": 2})]])["f1"] == 1.0


def test_rules_for_undeclared_tools_or_arguments_warn_and_still_apply() -> None:
    tools = [{"name": "f", "parameters": {"properties": {"x": {}}}}]
    with pytest.warns(ToolCallWarning, match="rules: tool 'f' has no parameter 'y' \\(its rule still applies\\)"):
        metric = ToolCallMetric("arg", tools=tools, rules={"f": {"y": "ignore", "*": "exact"}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ToolCallWarning)
        got = metric.compute([[("f", {"x": 1, "y": 1})]], [[("f", {"x": 1, "y": 2})]])
    assert got["exact_match"] == 1.0
    with pytest.warns(ToolCallWarning, match="rules: tool 'g' is not among the tool schemas"):
        ToolCallMetric().compute([[]], [[]], tools=tools, rules={"g": {"x": "ignore"}})


def test_rules_reach_the_references_own_tools_and_their_match_keys() -> None:
    own = [{"name": "f", "parameters": {"properties": {"x": {"type": "number"}, "rid": {"match": "ignore"}}}}]
    refs = [{"calls": [("f", {"x": 1.0, "rid": "9"}), ("g", {"y": [1, 2]})], "tools": own}]
    preds = [[("f", {"x": 1.004, "rid": "1"}), ("g", {"y": [2, 1]})]]
    metric = ToolCallMetric("arg", rules={"f": {"x": {"abs_tol": 0.01}}, "g": {"y": "unordered"}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ToolCallWarning)
        got = metric.compute(preds, refs)
        plain = ToolCallMetric("arg").compute(preds, refs)
    assert (got["tp"], got["fp"], got["fn"], got["exact_match"]) == (4.0, 0.0, 0.0, 1.0)
    assert (plain["tp"], plain["fp"], plain["fn"]) == (2.0, 2.0, 2.0)  # x and y disagree; rid still ignored


# --------------------------------------------------------------------------- review fixes


def _own_tools_refs(n: int, gold: dict[str, Any]) -> list[dict[str, Any]]:
    """``n`` references of one call, each with its own (distinct) tools: a tool set per reference."""
    params = {"properties": {k: {} for k in gold}}
    return [{"calls": [{"name": "f", "arguments": gold}],
             "tools": [{"name": "f", "description": f"d{i}", "parameters": params}]} for i in range(n)]


def test_a_callable_is_called_once_per_pair_across_references_with_their_own_tools() -> None:
    calls = []

    def judge(p: Any, g: Any) -> bool:
        calls.append((p, g))
        return bool(p == g)

    preds = [[{"name": "f", "arguments": {"x": 1}}]] * 50
    result = ToolCallMetric(rules={"f": {"x": judge}}).compute(preds, _own_tools_refs(50, {"x": 1}))
    assert calls == [(1, 1)] and result["exact_match"] == 1.0


def test_a_callable_never_gets_another_callables_answer() -> None:
    # each reference's tools compile new rules; the tool sets of old ones are freed (the memo
    # once keyed by a rule's id, which a new rule could take: the other callable's answer)
    preds = [[{"name": "f", "arguments": {"x": 1, "y": 1}}]] * 300
    rules = {"f": {"x": lambda p, g: True, "y": lambda p, g: False}}
    result = ToolCallMetric(rules=rules).compute(preds, _own_tools_refs(300, {"x": 2, "y": 2}))
    assert (result["tp"], result["exact_match"]) == (0.0, 0.0)


@pytest.mark.parametrize("tolerance", [{"abs_tol": 0.5}, {"abs_tol": 0}, {"rel_tol": 1e-20}])
def test_a_tolerance_never_lets_unequal_ints_too_large_for_a_float_agree(tolerance: dict[str, float]) -> None:
    rules = {"f": {"id": tolerance}}
    assert counts([("f", {"id": 2 ** 60 + 1})], [("f", {"id": 2 ** 60})], rules)[3] == 0.0
    assert counts([("f", {"id": 2 ** 60 + 1})], [("f", {"id": float(2 ** 60)})], rules)[3] == 0.0  # the float exactly
    assert counts([("f", {"id": 2 ** 60})], [("f", {"id": 2 ** 60})], rules)[3] == 1.0
    assert counts([("f", {"id": 10 ** 400})], [("f", {"id": 10 ** 400 + 1})], {"f": {"id": {"abs_tol": 0.5}}})[3] == 0.0


def test_a_tolerance_compares_large_ints_within_it() -> None:
    assert counts([("f", {"id": 2 ** 60 + 1})], [("f", {"id": 2 ** 60})], {"f": {"id": {"abs_tol": 1}}})[3] == 1.0
    assert counts([("f", {"id": 10 ** 400 + 10 ** 390})], [("f", {"id": 10 ** 400})], {"f": {"id": {"rel_tol": 1e-9}}})[3] == 1.0


def test_two_rule_keys_that_are_one_tool_after_the_name_canonicalizer_are_a_value_error() -> None:
    rules = {"math_f": {"x": "ignore"}, "math.f": {"x": "exact"}}
    with pytest.raises(ValueError, match="'math_f' and 'math.f' are one tool"):
        ToolCallMetric(name_canonicalizer="underscore", rules=rules)
    with pytest.raises(ValueError, match="'math_f' and 'math.f' are one tool"):
        ToolCallMetric(name_canonicalizer="underscore").compute([[]], [[]], rules=rules)
    ToolCallMetric(rules=rules)  # distinct names without it


@pytest.mark.parametrize("value", [np.float32(0.01), np.int64(1), np.float64(0.5)])
def test_a_numpy_tolerance_is_its_plain_value(value: Any) -> None:
    assert counts([("f", {"x": 1.005})], [("f", {"x": 1.0})], {"f": {"x": {"abs_tol": value}}})[3] == 1.0


def test_a_tolerance_of_the_wrong_type_names_the_type() -> None:
    with pytest.raises(ValueError, match=r"abs_tol must be a number \(int or float\), got str '0.1'"):
        validate_rules({"f": {"x": {"abs_tol": "0.1"}}})


def _broken(p: Any, g: Any) -> bool:
    raise KeyError("no model")


def test_a_callable_that_raises_on_one_example_names_tool_and_argument_without_an_example() -> None:
    metric = ToolCallMetric(rules={"f": {"x": _broken}})
    with pytest.raises(ArgumentRuleError) as caught:
        metric([("f", {"x": 1})], [("f", {"x": 2})])
    assert str(caught.value).startswith("rules: tool 'f' argument 'x': the rule custom:")
    assert isinstance(caught.value.__cause__, KeyError)


def test_a_callable_that_raises_in_a_reward_names_the_row_and_the_rule_not_the_column() -> None:
    from toolcall_f1.rewards import ToolCallReward
    reward = ToolCallReward(rules={"f": {"x": _broken}})
    with pytest.raises(ArgumentRuleError) as caught:
        reward(completions=['[{"name": "f", "arguments": {"x": 1}}]'], reference=[[("f", {"x": 2})]])
    assert str(caught.value).startswith("ToolCallReward: row 0: rules: tool 'f' argument 'x': the rule custom:")
    assert "column" not in str(caught.value) and isinstance(caught.value.__cause__, KeyError)
    with pytest.raises(ArgumentRuleTypeError, match=r"^ToolCallReward: row 0: rules: tool 'f' argument 'x'"):
        ToolCallReward(rules={"f": {"x": lambda p, g: None}})(
            completions=['[{"name": "f", "arguments": {"x": 1}}]'], reference=[[("f", {"x": 2})]])


def test_pickling_a_metric_with_a_lambda_rule_names_rules_and_the_callable() -> None:
    import pickle
    with pytest.raises(pickle.PicklingError, match=r"^rules: tool 'f' argument 'x': the callable rule custom:.*lambda.* "
                                                   r"cannot be pickled"):
        pickle.dumps(ToolCallMetric(rules={"f": {"x": lambda p, g: True}}))
    again = pickle.loads(pickle.dumps(ToolCallMetric(rules={"f": {"x": _broken, "y": "ignore"}})))
    assert again.settings.rules["f"]["x"] is _broken


@pytest.mark.parametrize("rule", ["unordered", "subset", "superset", _broken])
def test_a_nested_bfcl_answer_under_a_rule_without_meaning_there_is_refused_whether_or_not_it_is_judged(rule: Any) -> None:
    metric = ToolCallMetric(reference_format="bfcl", rules={"f": {"d": rule}})
    nested = [{"f": {"d": [{"a": [1.0]}]}}]
    for pred in ([], [("g", {})], [("f", {"d": {"a": 1.0}})]):  # the tool not called, another called, both
        with pytest.raises(ArgumentRuleError, match=r"^example 1: rules: tool 'f' argument 'd': rule .* cannot compare"):
            metric.compute([[], pred], [[], nested])
    with pytest.raises(ArgumentRuleError, match=r"^rules: tool 'f' argument 'd'"):
        metric([], nested)
    plain = ToolCallMetric(reference_format="bfcl", rules={"f": {"d": "unordered" if rule is _broken else rule}})
    assert plain.compute([[("f", {"d": 1})]], [[{"f": {"d": [1]}}]])["f1"] == 1.0  # a plain answer: fine
