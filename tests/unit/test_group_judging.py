"""A name group judged in one call (``judge.judge_pairs``) and the matcher's names (issue 21).

``judge_pairs`` judges every pair of a group; it must judge each as ``judge_pair`` judges that
pair alone (in full and for exactness alone, with schemas, defaults and argument rules), and
raise the same error at the same pair. ``Matcher.match_example`` canonicalizes each distinct
name once and hands counting each name's (declared schema, weights): the same as
``ToolSet.lookup`` and ``ToolSet.spec_for_weights`` give, and the same pairs as ``match``.
"""

from __future__ import annotations

import pytest

from toolcall_f1.calls import AnyOf, Call, GoldCall, NestedAnswer
from toolcall_f1.judge import judge_pair, judge_pairs
from toolcall_f1.matching import Matcher
from toolcall_f1.rules import ArgumentRuleError, validate_rules
from toolcall_f1.schema import compile_tools
from toolcall_f1.values import canon_default, resolve_name_canonicalizer

TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {
    "x": {"type": "integer"}, "unit": {"type": "string", "default": "c"}, "tags": {"type": "array"}},
    "required": ["x"]}}]

PREDS = [Call("f", {"x": 1}), Call("f", {"x": "1", "unit": "C"}), Call("f", {"x": 2, "tags": ["a", "B"]}),
         Call("f", {"unit": "k", "extra": None}), Call("f", {})]
GOLDS = [GoldCall.from_call(Call("f", {"x": 1})),
         GoldCall("f", {"x": AnyOf(2, 1), "unit": AnyOf("c", optional=True)}),
         GoldCall("f", {"x": AnyOf(2), "tags": AnyOf(["b", "a"], ["a", "b"])}),
         GoldCall("f", {"unit": AnyOf("k", ""), "extra": AnyOf(None, optional=True)})]


def _args(toolset, fill):
    return toolset.lookup("f"), toolset.spec_for_weights("f"), canon_default, fill


@pytest.mark.parametrize("fill", [True, False], ids=["fill-defaults", "no-defaults"])
@pytest.mark.parametrize("exact_only", [False, True], ids=["full", "exact-only"])
@pytest.mark.parametrize("weights", [{}, {"f": {"weight": 2, "arguments": {"x": 3}}}], ids=["unweighted", "weighted"])
def test_a_group_judged_at_once_is_each_pair_judged_alone(fill: bool, exact_only: bool, weights: dict) -> None:
    toolset = compile_tools(TOOLS, weights)
    rows = judge_pairs(PREDS, GOLDS, *_args(toolset, fill), exact_only)
    assert rows == [[judge_pair(p, g, *_args(toolset, fill), exact_only) for g in GOLDS] for p in PREDS]
    assert len(rows) == len(PREDS) and all(len(row) == len(GOLDS) for row in rows)


def test_a_group_judged_at_once_under_rules_is_each_pair_judged_alone() -> None:
    rules = validate_rules({"f": {"tags": "unordered", "unit": "ignore", "x": {"abs_tol": 1}}})
    toolset = compile_tools(TOOLS, {}, rules=rules)
    for exact_only in (False, True):
        rows = judge_pairs(PREDS, GOLDS, *_args(toolset, True), exact_only)
        assert rows == [[judge_pair(p, g, *_args(toolset, True), exact_only) for g in GOLDS] for p in PREDS]


def test_a_nested_answer_under_a_rule_that_refuses_it_raises_as_pair_by_pair() -> None:
    toolset = compile_tools(TOOLS, {}, rules=validate_rules({"f": {"tags": "unordered"}}))
    gold = GoldCall("f", {"tags": AnyOf(NestedAnswer({"a": AnyOf(1)}))})
    with pytest.raises(ArgumentRuleError) as alone:
        judge_pair(PREDS[2], gold, *_args(toolset, True))
    with pytest.raises(ArgumentRuleError) as grouped:
        judge_pairs(PREDS, [GOLDS[0], gold], *_args(toolset, True))
    assert str(grouped.value) == str(alone.value)


def test_the_matcher_canonicalizes_each_name_once_and_hands_counting_its_tool() -> None:
    seen: list[str] = []
    underscore = resolve_name_canonicalizer("underscore")

    def canon(name: str) -> str:
        seen.append(name)
        return underscore(name)

    toolset = compile_tools(TOOLS + [{"name": "get_x", "parameters": {"type": "object", "properties": {}}}],
                            {"get.x": {"weight": 0.5}}, canon)
    preds = [Call("f", {"x": 1}), Call("get.x", {}), Call("f", {"x": 2}), Call("h", {})]
    golds = [GoldCall.from_call(Call("get_x", {})), GoldCall.from_call(Call("f", {"x": 2})),
             GoldCall.from_call(Call("f", {"x": 1}))]
    for matcher in (Matcher(), Matcher("optimal", "arg"), Matcher(single=False, forced_exact=False)):
        seen.clear()
        pairs, up, ug, named = matcher.match_example(preds, golds, toolset, canon=canon_default, fill_defaults=True)
        assert sorted(seen) == sorted({c.name for c in [*preds, *golds]})  # once per distinct name
        assert named == {name: (toolset.lookup(name), toolset.spec_for_weights(name)) for name in named}
        assert (pairs, up, ug) == matcher.match(preds, golds, toolset, canon=canon_default, fill_defaults=True)
        assert [(i, j) for i, j, _ in pairs] == [(0, 2), (1, 0), (2, 1)] and up == [3] and ug == []


def test_one_pair_whose_names_differ_only_in_spelling_is_one_group() -> None:
    toolset = compile_tools([], {"get_x": {"weight": 0.5}}, resolve_name_canonicalizer("underscore"))
    pairs, up, ug, named = Matcher().match_example([Call("get.x", {})], [GoldCall.from_call(Call("get_x", {}))],
                                                   toolset, canon=canon_default, fill_defaults=True)
    assert [(i, j, r.exact) for i, j, r in pairs] == [(0, 0, True)] and up == ug == []
    assert {name: spec.weight for name, (_, spec) in named.items()} == {"get.x": 0.5, "get_x": 0.5}
