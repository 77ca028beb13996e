"""Property tests for argument rules (SPEC §6b): ``"ignore"`` on an argument is deleting it
from both sides; scaling every weight changes no ratio under rules; a rule that can only
add agreement (tolerances, ``"unordered"``) never lowers TP at call level."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolcall_f1 import Call, ToolCallMetric

NAMES = st.sampled_from(["s", "t", "u"])
SMALL = st.sampled_from([1, 2, 1.0, 1.005, "a", "B", " b ", True, None, [1, 2], [2, 1], {"a": 1}, {"a": 1, "b": 2}])
ARGS = st.dictionaries(st.sampled_from(["q", "n", "k"]), SMALL, max_size=3)
CALL = st.builds(Call, NAMES, ARGS)
CALLS = st.lists(CALL, max_size=5)
EXAMPLES = st.lists(st.tuples(CALLS, CALLS), min_size=1, max_size=5)
WEIGHTS = st.fixed_dictionaries({n: st.sampled_from([0, 0.5, 1, 2, 3]) for n in ["s", "t", "u"]})
LEVEL = st.sampled_from(["call", "arg"])
MATCHING = st.sampled_from(["greedy", "optimal"])
RULE = st.sampled_from(["exact", "ignore", "unordered", "subset", "superset", {"abs_tol": 0.01}, {"rel_tol": 0.5}])
RULES = st.dictionaries(NAMES, st.dictionaries(st.sampled_from(["q", "n", "k", "*"]), RULE, max_size=3), max_size=3)
PROPS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KEYS = ("f1", "precision", "recall", "exact_match", "tp", "fp", "fn", "superset_match", "subset_match")


def _deleted(calls: list[Call], tool: str, arg: str) -> list[Call]:
    return [Call(c.name, {k: v for k, v in c.arguments.items() if not (c.name == tool and k == arg)}) for c in calls]


def _numbers(result: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(result[k] for k in KEYS)


@PROPS
@given(examples=EXAMPLES, level=LEVEL, matching=MATCHING, tool=NAMES, arg=st.sampled_from(["q", "n", "k"]),
       weights=WEIGHTS)
def test_ignore_equals_deleting_the_argument_from_both_sides(examples, level, matching, tool, arg, weights) -> None:
    metric = ToolCallMetric(level, matching=matching, weights=weights)
    preds, refs = [p for p, _ in examples], [g for _, g in examples]
    ignored = metric.compute(preds, refs, rules={tool: {arg: "ignore"}})
    deleted = metric.compute([_deleted(p, tool, arg) for p in preds], [_deleted(g, tool, arg) for g in refs])
    assert _numbers(ignored) == _numbers(deleted)


@PROPS
@given(examples=EXAMPLES, level=LEVEL, weights=WEIGHTS, rules=RULES, factor=st.sampled_from([2, 4, 0.5, 8]))
def test_scaling_all_weights_changes_no_ratio_under_rules(examples, level, weights, rules, factor) -> None:
    preds, refs = [p for p, _ in examples], [g for _, g in examples]
    a = ToolCallMetric(level, matching="optimal", weights=weights, rules=rules).compute(preds, refs)
    b = ToolCallMetric(level, matching="optimal", weights={k: v * factor for k, v in weights.items()},
                       rules=rules).compute(preds, refs)
    for key in ("f1", "precision", "recall", "exact_match"):
        assert a[key] == b[key]


@PROPS
@given(examples=EXAMPLES, rules=RULES)
def test_the_constructors_rules_and_the_calls_give_one_number(examples, rules) -> None:
    preds, refs = [p for p, _ in examples], [g for _, g in examples]
    a = ToolCallMetric("arg", rules=rules).compute(preds, refs)
    b = ToolCallMetric("arg").compute(preds, refs, rules=rules)
    c = ToolCallMetric("arg", rules=rules).compute(preds, refs, rules={t: {"*": "exact"} for t in "stu"})
    d = ToolCallMetric("arg").compute(preds, refs)
    assert a == b and _numbers(c) == _numbers(d)


@PROPS
@given(examples=EXAMPLES, matching=MATCHING, tool=NAMES,
       rule=st.sampled_from(["unordered", {"abs_tol": 0.01}, {"rel_tol": 0.5}]))
def test_a_looser_rule_never_loses_an_exact_pair_at_call_level_under_optimal(examples, matching, tool, rule) -> None:
    preds, refs = [p for p, _ in examples], [g for _, g in examples]
    plain = ToolCallMetric(matching="optimal").compute(preds, refs)
    loose = ToolCallMetric(matching="optimal").compute(preds, refs, rules={tool: {"*": rule}})
    assert loose["tp"] >= plain["tp"] and loose["exact_match"] >= plain["exact_match"]
