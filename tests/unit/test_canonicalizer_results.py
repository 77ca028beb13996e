"""SPEC §4: a callable canonicalizer (or name canonicalizer) returns a ``str`` for every string;
anything else is a TypeError naming it (issue 26, item 10).

``lambda s: None`` made every pair of strings exact; a name canonicalizer returning a list
died with ``unhashable type: 'list'``.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from toolcall_f1 import Call, ToolCallMetric, compare_call, match_calls
from toolcall_f1.values import (CANONICALIZERS, NAME_CANONICALIZERS, resolve_canonicalizer,
                                resolve_name_canonicalizer)

PRED = "[get_weather(city='Paris')]"
GOLD = [{"name": "get_weather", "arguments": {"city": "Berlin"}}]


def none_of(text: str) -> Any:
    return None


@pytest.mark.parametrize("canon", [lambda s: None, lambda s: len(s), lambda s: s.encode(), none_of])
def test_a_value_canonicalizer_returning_no_str_is_a_type_error_naming_it(canon: Any) -> None:
    name = canon.__qualname__
    message = rf"canonicalizer {name} returned \w+ .* for 'Paris'; a canonicalizer must return a str for every string"
    with pytest.raises(TypeError, match=message):
        ToolCallMetric(canonicalizer=canon)(PRED, GOLD)  # was: exact (every string equal under None)
    with pytest.raises(TypeError, match=message):
        ToolCallMetric(canonicalizer=canon).compute(predictions=[PRED], references=[GOLD])
    with pytest.raises(TypeError, match=message):
        compare_call(Call("get_weather", {"city": "Paris"}), Call("get_weather", {"city": "Berlin"}), canonicalizer=canon)


@pytest.mark.parametrize("canon", [lambda s: [s], lambda s: None, lambda s: (s,)])
def test_a_name_canonicalizer_returning_no_str_is_a_type_error_naming_it(canon: Any) -> None:
    message = r"name_canonicalizer <lambda> returned \w+ .* for 'get_weather'; a name canonicalizer must return a str"
    with pytest.raises(TypeError, match=message):
        ToolCallMetric(name_canonicalizer=canon)(PRED, GOLD)
    with pytest.raises(TypeError, match=message):  # also where schemas are compiled
        ToolCallMetric(name_canonicalizer=canon, tools=[{"name": "get_weather"}])
    with pytest.raises(TypeError, match=message):
        match_calls([("get_weather", {"city": "Paris"})], GOLD, name_canonicalizer=canon)


def test_callables_returning_str_score_as_before() -> None:
    assert ToolCallMetric(canonicalizer=str.upper)("[f(a='x')]", [{"name": "f", "arguments": {"a": "X"}}]).exact
    assert not ToolCallMetric(canonicalizer=str.upper)(PRED, GOLD).exact
    assert ToolCallMetric(name_canonicalizer=str.lower)("[F()]", [{"name": "f", "arguments": {}}]).exact


def test_the_packages_own_canonicalizers_are_not_wrapped() -> None:
    """The check costs nothing on the defaults: they are returned as they are."""
    for name, fn in CANONICALIZERS.items():
        assert resolve_canonicalizer(name) is fn and resolve_canonicalizer(fn) is fn
    for name, fn in NAME_CANONICALIZERS.items():
        assert resolve_name_canonicalizer(name) is fn and resolve_name_canonicalizer(fn) is fn
    assert resolve_canonicalizer(None) is CANONICALIZERS["default"]


def test_a_checked_canonicalizer_pickles_and_keeps_the_signature() -> None:
    checked = resolve_canonicalizer(str.upper)
    assert pickle.loads(pickle.dumps(checked))("a") == "A"
    assert "canon:custom:str.upper" in ToolCallMetric(canonicalizer=str.upper).signature()
