"""The evaluate adapter's storage (:mod:`toolcall_f1.stored`): JSON data already plain is
written by ``json`` directly (a speed path); it must give the very text of the general path."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from toolcall_f1 import stored
from toolcall_f1.values import is_plain_json

_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
                     st.integers(min_value=2**13990, max_value=2**14010), st.just("__toolcall_f1__"))
_data = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner),
                            st.dictionaries(st.one_of(st.text(max_size=4), st.just("__toolcall_f1__")), inner,
                                            max_size=4)),
    max_leaves=16,
)


def _same(a, b) -> bool:
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return type(b) is dict and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=400, deadline=None)
@given(_data)
def test_the_direct_path_writes_the_text_of_the_general_path(value) -> None:
    text = stored.dumps(value)
    assert text == json.dumps(stored._to_json(value), allow_nan=True)
    assert _same(stored.loads(text), value)


def test_plain_records_take_the_direct_path_and_marked_ones_do_not() -> None:
    # the direct path is taken for what is_plain_json(value, tuples=False) accepts
    assert is_plain_json({"calls": [{"f": {"x": [1, 2.5, None, True]}}], "tools": []}, tuples=False)
    assert not is_plain_json([("f", {})], tuples=False)  # a tuple is marked
    assert not is_plain_json({1: "a"}, tuples=False) and not is_plain_json([10**5000], tuples=False)
    assert stored.loads(stored.dumps({"__toolcall_f1__": "tuple", "items": []})) == {
        "__toolcall_f1__": "tuple", "items": []}
