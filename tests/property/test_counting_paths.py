"""A corpus without details is counted by a faster route that must give the same numbers.

``ToolCallMetric.compute`` without ``return_details`` remembers the references it has read
(by content), reports pairs for their exactness alone at call level, keys values once to
judge a large name group (``value_key``, ``judge_group``). Each of these is checked here against the
full computation, on random data rich in ties and near-misses.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolcall_f1 import ToolCallMetric
from toolcall_f1.calls import AnyOf, Call, GoldCall, bfcl_gold
from toolcall_f1.judge import FINE, judge_group, judge_pair
from toolcall_f1.matching import _group_units, _numbers
from toolcall_f1.schema import compile_tools
from toolcall_f1.values import KEYED_CANONICALIZERS, canon_bfcl, canon_default, canon_exact, value_key, values_equal

from .strategies import json_values

CANONS = [canon_default, canon_bfcl, canon_exact]


# --------------------------------------------------------------------------- value_key

def _variants(value: Any) -> st.SearchStrategy[Any]:
    """Values close to ``value``: other case and spacing, int for float, bool for int, tuples."""
    out: list[Any] = [value]
    if isinstance(value, str):
        out += [value.upper(), f" {value} ", value.replace(" ", "_"), value + "."]
    elif isinstance(value, bool):
        out += [int(value), not value]
    elif isinstance(value, int):
        out += [float(value), value + 1, bool(value)]
    elif isinstance(value, float):
        out += [-value] + ([int(value)] if value.is_integer() and abs(value) < 1e15 else [])
    elif isinstance(value, list):
        out += [tuple(value), list(reversed(value)), value[:-1]]
    elif isinstance(value, dict):
        out += [{k.upper(): v for k, v in value.items()}, dict(list(value.items())[:-1])]
    return st.sampled_from(out)


@settings(max_examples=400, deadline=None)
@given(pair=json_values.flatmap(lambda v: st.tuples(st.just(v), _variants(v))),
       canon=st.sampled_from(CANONS))
def test_value_key_equal_exactly_when_values_equal(pair: tuple[Any, Any], canon: Any) -> None:
    a, b = pair
    ka, kb = value_key(a, canon), value_key(b, canon)
    assert ka is not None and kb is not None
    assert (ka == kb) == values_equal(a, b, canon) == values_equal(b, a, canon), (a, b)
    if ka == kb:
        assert hash(ka) == hash(kb)


@settings(max_examples=200, deadline=None)
@given(a=json_values, b=json_values, canon=st.sampled_from(CANONS))
def test_value_key_on_unrelated_values(a: Any, b: Any, canon: Any) -> None:
    assert (value_key(a, canon) == value_key(b, canon)) == values_equal(a, b, canon)


def test_value_key_refuses_what_it_cannot_key() -> None:
    assert value_key(float("nan"), canon_exact) is None
    assert value_key([1, {"a": {1, 2}}], canon_exact) is None
    assert value_key({1: "x"}, canon_exact) is None
    nested: Any = []
    for _ in range(150):
        nested = [nested]
    assert value_key(nested, canon_exact) is None
    assert canon_default in KEYED_CANONICALIZERS and str.lower not in KEYED_CANONICALIZERS


# --------------------------------------------------------------------------- exact pairs

TOOLS = [
    {"name": "f", "importance": 2, "parameters": {"type": "object", "properties": {
        "a": {"type": "integer", "importance": 0.1},
        "b": {"type": "string", "default": "x"},
        "c": {"type": "number"},
        "d": {"type": "array", "items": {"type": "string"}},
        "e": {"type": "dict", "properties": {"k": {"type": "string"}}}}, "required": ["a"]}},
]
VALUES = {"a": [1, 2, 2.0, True], "b": ["x", "X ", "y"], "c": [0.5, 1, "1"], "d": [["p"], ["P", "q"], []],
          "e": [{"k": "v"}, {"k": "V"}, {"k": 1}]}


def _group(rng: random.Random, n: int, m: int) -> tuple[list[Call], list[GoldCall]]:
    def args() -> dict[str, Any]:
        return {k: rng.choice(v) for k, v in VALUES.items() if rng.random() < 0.5}

    pool = [args() for _ in range(3)]
    preds = [Call("f", dict(rng.choice(pool)) if rng.random() < 0.7 else args()) for _ in range(n)]
    golds = []
    for _ in range(m):
        raw = {k: [v] + ([rng.choice(VALUES[k])] if rng.random() < 0.3 else []) + ([""] if rng.random() < 0.2 else [])
               for k, v in (rng.choice(pool) if rng.random() < 0.7 else args()).items()}
        if rng.random() < 0.2:  # a BFCL nested answer for the dict argument
            raw["e"] = [{"k": ["v", "w"]}]
        golds.extend(bfcl_gold([{"f": raw}]) if rng.random() < 0.6 else [
            GoldCall("f", {k: AnyOf(*[x for x in v if x != ""] or [""], optional="" in v) for k, v in raw.items()
                           if not (k == "e" and isinstance(v[0], dict) and isinstance(v[0].get("k"), list))})])
    return preds, golds


@pytest.mark.parametrize("seed", range(6))
def test_judge_group_is_every_pair_judged_in_full(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(150):
        preds, golds = _group(rng, rng.randint(1, 6), rng.randint(1, 6))
        ts = compile_tools(TOOLS if rng.random() < 0.8 else [], {})
        tool = ts.by_key.get("f")
        wspec = ts.spec_for_weights("f")
        canon = rng.choice(CANONS + [str.lower])
        fill = rng.random() < 0.5
        units = _group_units(preds, golds, wspec)
        full = [[judge_pair(p, g, tool, wspec, canon, fill) for g in golds]
                for p in preds]
        keyed = judge_group(preds, golds, tool, wspec, canon, fill, units)
        expected = _numbers(full, units)
        assert keyed.exact.tolist() == expected.exact.tolist()
        assert keyed.exact.tolist() == [[all(v.verdict in FINE for v in r.verdicts) for r in row] for row in full]
        for got, want in zip((keyed.tp, keyed.fp, keyed.fn), (expected.tp, expected.fp, expected.fn)):
            assert got.tolist() == want.tolist()


# --------------------------------------------------------------------------- whole corpora

def _corpus(rng: random.Random, size: int) -> tuple[list[Any], list[Any]]:
    preds, refs = [], []
    shared_tools = copy.deepcopy(TOOLS)
    for _ in range(size):
        p, g = _group(rng, rng.randint(0, 4), rng.randint(0, 4))
        if rng.random() < 0.3:  # another tool, and calls to no declared tool
            p.append(Call(rng.choice(["g", "h"]), {"a": 1}))
        pred = [(c.name, dict(c.arguments)) for c in p]
        gold = [{c.name: {k: list(v.values) + ([""] if v.optional else []) for k, v in c.arguments.items()
                          if all(not hasattr(x, "fields") and not hasattr(x, "items") for x in v.values)}}
                for c in g]
        tools = shared_tools if rng.random() < 0.5 else copy.deepcopy(TOOLS)  # equal content, new objects
        refs.append({"calls": gold, "tools": tools} if rng.random() < 0.8 else gold)
        preds.append(pred)
    return preds, refs


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", ["call", "arg"])
@pytest.mark.parametrize("matching", ["greedy", "optimal"])
def test_streamed_counts_equal_the_detailed_ones(seed: int, level: str, matching: str) -> None:
    rng = random.Random(seed)
    preds, refs = _corpus(rng, 120)
    for canon in ("default", "bfcl", str.lower):
        metric = ToolCallMetric(level, matching=matching, canonicalizer=canon, reference_format="bfcl")
        detailed = metric.compute(preds, refs, per_tool=True, return_details=True)
        detailed.pop("details")
        for _ in range(2):  # the second run reads every reference from the memo
            assert metric.compute(preds, refs, per_tool=True) == detailed
        scores = metric.score_all(preds, refs)
        assert [s.exact for s in scores] == [
            metric.compute([p], [r])["exact_match"] == 1.0 for p, r in zip(preds, refs)
        ]


def test_remembered_references_follow_their_content() -> None:
    metric = ToolCallMetric(reference_format="bfcl")
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}}]
    ref = {"calls": [{"f": {"x": [1]}}], "tools": tools}
    assert metric.compute(["[f(x=1)]"], [ref])["exact_match"] == 1.0
    ref["calls"][0]["f"]["x"] = [2]  # the same objects, changed in place
    assert metric.compute(["[f(x=1)]"], [ref])["exact_match"] == 0.0
    tools[0]["parameters"]["properties"]["x"]["type"] = "string"
    ref["calls"][0]["f"]["x"] = [1]
    assert metric.compute(["[f(x=1)]"], [ref])["exact_match"] == 0.0  # 1 is no string now
    # the same reference under metrics with other constructor tools: not shared
    other = ToolCallMetric(reference_format="bfcl", tools=[{"name": "g"}])
    assert other.compute(["[f(x=1)]"], [ref])["signature"] != metric.compute(["[f(x=1)]"], [ref])["signature"]


def test_a_broken_reference_raises_every_time() -> None:
    metric = ToolCallMetric(reference_format="bfcl")
    bad = {"calls": [{"f": {"x": 1}}], "tools": []}
    for _ in range(2):
        with pytest.raises(ValueError, match=r"references\[0\]\[0\]\.f\.x: expected a list of accepted values"):
            metric.compute(["[f(x=1)]"], [bad])
    with pytest.raises(ValueError, match=r"references\[1\]: tools\[0\]: a function schema needs a non-empty 'name'"):
        metric.compute(["[]", "[]"], [[], {"calls": [], "tools": [{"description": "no name"}]}])


# --------------------------------------------------------------------------- compiled type checks

_TYPE_NAMES = ["string", "integer", "number", "boolean", "null", "any", "array", "object", "dict", "float",
               "tuple", "str", "int", "bool", "list", "weird"]
schemas = st.recursive(
    st.fixed_dictionaries({"type": st.sampled_from(_TYPE_NAMES)}) | st.just({}) | st.just("not a schema"),
    lambda inner: st.one_of(
        st.fixed_dictionaries({"type": st.sampled_from(["array", "tuple", "list"])}, optional={"items": inner}),
        st.fixed_dictionaries({"type": st.sampled_from(["object", "dict"])},
                              optional={"properties": st.dictionaries(st.sampled_from("abc"), inner, max_size=3)}),
        st.fixed_dictionaries({"type": st.lists(st.sampled_from(_TYPE_NAMES), min_size=1, max_size=3)}),
        st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}, optional={"type": st.sampled_from(_TYPE_NAMES)}),
    ),
    max_leaves=8,
)
values_with_keys = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner) | st.dictionaries(st.sampled_from("abcd"), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=500, deadline=None)
@given(schema=schemas, value=values_with_keys)
def test_compiled_type_check_is_type_ok(schema: Any, value: Any) -> None:
    from toolcall_f1.schema import type_check, type_ok

    assert type_check(schema)(value) == type_ok(value, schema)


_SCHEMA_X = [{"name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}}]


@pytest.mark.parametrize("reference", [
    {"calls": [("f", {"x": 1})], "tools": None},
    {"calls": [{"name": "f", "arguments": {"x": 1}}], "tools": {"name": "f"}},
    {"calls": [{"name": "f", "arguments": {"x": 1}}], "tools": [{"name": ""}]},
    {"calls": "[f(x=1)]", "tools": _SCHEMA_X},
    {"calls": "[f(1)]", "tools": _SCHEMA_X},
    {"calls": [{"name": "f", "arguments": {"x": 1}}], "tools": []},
    "[f(x=1)",
    [Call("f", {"x": 1})],
    42,
], ids=["tools-none", "tools-dict", "tool-unnamed", "text", "positional", "tools-empty", "broken-text",
        "call-objects", "a-number"])
def test_both_routes_read_a_reference_alike(reference: Any) -> None:
    """Results, signatures and error messages are the same with and without details."""
    metric = ToolCallMetric()
    outcomes = []
    for details in (True, False):
        try:
            result = metric.compute(["[f(x=1)]"], [reference], return_details=details)
            result.pop("details", None)
            outcomes.append(result)
        except ValueError as err:  # ToolCallParseError is a ValueError
            outcomes.append(f"{type(err).__name__}: {err}")
    assert outcomes[0] == outcomes[1]
