"""The schema type rule (SPEC §3): compiled checks against the rule read node by node.

``type_ok`` and every ``ParamSpec.check`` are one compiled rule (``schema.type_check``).
Here it is checked against ``_reference_type_ok``: the same rule written the plain way,
walking the schema for every value (what ``type_ok`` was before the rule was compiled).
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolcall_f1.schema import TYPE_ALIASES, type_check, type_ok
from .strategies import deep_any_of

_PYTHON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": (int, float), "boolean": bool,
                                 "null": type(None), "array": (list, tuple), "object": Mapping}


def _reference_type_ok(value: Any, schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return True
    members = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(members, (list, tuple)) and members:
        if not any(_reference_type_ok(value, m) for m in members):
            return False
    declared = schema.get("type")
    if declared is None:
        return True
    names = list(declared) if isinstance(declared, (list, tuple)) else [declared]
    return any(_name_ok(value, name, schema) for name in names)


def _name_ok(value: Any, name: Any, schema: Mapping[str, Any]) -> bool:
    if not isinstance(name, str):
        return True
    name = TYPE_ALIASES.get(name, name)
    if name not in _PYTHON_TYPES:
        return True  # "any", and names nobody knows
    if not isinstance(value, _PYTHON_TYPES[name]) or (isinstance(value, bool) and name in ("integer", "number")):
        return False
    items, props = schema.get("items"), schema.get("properties")
    if name == "array" and items is not None:
        return all(_reference_type_ok(v, items) for v in value)
    if name == "object" and isinstance(props, Mapping):
        return all(_reference_type_ok(v, props[k]) for k, v in value.items() if k in props)
    return True


_NAMES = ["string", "integer", "number", "boolean", "null", "any", "array", "object", "dict", "float",
          "tuple", "str", "int", "bool", "list", "weird"]
_name_or_odd = st.sampled_from(_NAMES) | st.sampled_from([None, 5, ["x"]])
schemas = st.recursive(
    st.fixed_dictionaries({"type": _name_or_odd}) | st.just({}) | st.just("not a schema") | st.just({"items": 3}),
    lambda inner: st.one_of(
        st.fixed_dictionaries({"type": st.sampled_from(["array", "tuple", "list"])},
                              optional={"items": inner | st.just([{"type": "string"}])}),
        st.fixed_dictionaries({"type": st.sampled_from(["object", "dict"])},
                              optional={"properties": st.dictionaries(st.sampled_from("abc"), inner, max_size=3)}),
        st.fixed_dictionaries({"type": st.lists(_name_or_odd, max_size=3) | st.tuples(_name_or_odd)},
                              optional={"items": inner}),
        st.fixed_dictionaries({st.sampled_from(["anyOf", "oneOf"]): st.lists(inner, max_size=3)},
                              optional={"type": st.sampled_from(_NAMES)}),
        st.fixed_dictionaries({"anyOf": st.just([]), "oneOf": st.lists(inner, min_size=1, max_size=2)}),
    ),
    max_leaves=10,
)
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner) | st.dictionaries(st.sampled_from("abcd"), inner,
                                                                                  max_size=3),
    max_leaves=10,
)


@settings(max_examples=1500, deadline=None)
@given(schema=schemas, value=values)
def test_the_compiled_rule_is_the_rule(schema: Any, value: Any) -> None:
    expected = _reference_type_ok(value, schema)
    assert type_ok(value, schema) == expected
    check = type_check(schema)
    assert pickle.loads(pickle.dumps(check))(value) == expected  # pickled before first use
    assert check(value) == expected
    assert pickle.loads(pickle.dumps(check))(value) == expected  # and after


def test_unions_deeper_than_64_levels_raise_when_a_value_reaches_them() -> None:
    assert type_ok(1, deep_any_of(64)) and not type_ok("x", deep_any_of(64))
    with pytest.raises(ValueError, match="unions \\(anyOf/oneOf\\) nested deeper than 64 levels"):
        type_ok(1, deep_any_of(65))
    union_loop: dict[str, Any] = {"anyOf": []}
    union_loop["anyOf"].append(union_loop)
    with pytest.raises(ValueError, match="nested deeper than 64 levels"):
        type_ok(1, union_loop)


def test_subschemas_are_compiled_as_values_reach_them() -> None:
    loop: dict[str, Any] = {"type": "array"}
    loop["items"] = loop  # a schema that contains itself: values are finite
    assert type_ok([[], [[]]], loop) and not type_ok([[1]], loop)
    deep: dict[str, Any] = {"type": "integer"}
    for _ in range(5000):
        deep = {"type": "object", "properties": {"x": deep}}
    check = type_check(deep)
    assert check({"x": {"x": {}}}) and not check({"x": {"x": 1}}) and not check({"x": []})
