"""Structured inputs and plain values: the shapes ``coerce_structured`` reads, the paths BFCL
answer errors name, and the limits of ``plain_json`` / ``is_plain_json``."""

from __future__ import annotations

import re
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric
from toolcall_f1.calls import MAX_BYTES, AnyOf, Call, ToolCallParseError, bfcl_gold, coerce_structured, normalize_value
from toolcall_f1.values import is_plain_json, plain_json, strictly_identical

np = pytest.importorskip("numpy")


def _text(text: str) -> list[Call]:
    return [Call("said", {"text": text})]


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        ({"role": "assistant", "tool_calls": None}, []),
        ({"role": "assistant", "content": "hi"}, [Call("said", {"text": "hi"})]),
        ({"role": "user", "content": "[f()]"}, []),
        ({"type": "thinking", "thinking": "..."}, []),
        ({"type": "tool_use", "name": "f", "input": {"a": 1}}, [Call("f", {"a": 1})]),
        ({"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "tool_use", "name": "g"}]},
         [Call("g", {})]),
        ({"name": "f", "id": "c1"}, [Call("f", {})]),
        ({"name": "f", "arguments": "  "}, [Call("f", {})]),
        (("f", None), [Call("f", {})]),
        ({"f": '{"a": [1]}'}, [Call("f", {"a": [1]})]),
        (np.array([{"name": "f", "arguments": {"a": np.int64(2)}}], dtype=object), [Call("f", {"a": 2})]),
    ],
    ids=repr,
)
def test_structured_shapes(obj: Any, expected: list[Call]) -> None:
    assert coerce_structured(obj, parse_text=_text) == expected


@pytest.mark.parametrize(
    ("obj", "reason"),
    [
        ({"role": "assistant", "tool_calls": "f()"}, "'tool_calls' must be a list"),
        ({"name": "f", "arguments": "null"}, "arguments of 'f' must be an object, got NoneType"),
        ({"name": " ", "arguments": {}}, "a call needs a non-empty string name, got ' '"),
        ({"a": 1, "b": 2}, "unrecognised call object with keys ['a', 'b']"),
        (["f(a=1)"], "a list of strings is not a list of calls"),
        ({"f": {"a": AnyOf(1)}}, "AnyOf (accepted values) belongs in a reference argument"),
        ({"f": {"a": {1, 2}}}, "a set is not a JSON value"),
        ({"f": {"a": 10**5000}}, "an integer of more than 4300 digits"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,  # the reason names the case
)
def test_structured_errors(obj: Any, reason: str) -> None:
    with pytest.raises(ToolCallParseError, match="^structured: " + re.escape(reason)):
        coerce_structured(obj)


def test_accepted_values_only_in_a_reference_argument() -> None:
    (call,) = coerce_structured({"f": {"a": AnyOf(1, np.int64(2))}}, gold=True)
    assert call.arguments["a"] == AnyOf(1, 2)
    with pytest.raises(ToolCallParseError, match="belongs in a reference argument"):
        coerce_structured({"f": {"a": [AnyOf(1)]}}, gold=True)


def test_bfcl_errors_name_the_call_and_parameter() -> None:
    with pytest.raises(ValueError, match=r"^reference\[1\]\.g\.y: expected a list of accepted values, got str 'x'$"):
        bfcl_gold([{"f": {"x": [1]}}, {"g": {"y": "x"}}])
    with pytest.raises(ValueError, match=r"^reference\[0\]: expected a single-key object"):
        bfcl_gold([{"f": {}, "g": {}}])
    nested = bfcl_gold([{"f": {"x": [[{"k": [1, ""]}, {"k": 2}]]}}])[0].arguments["x"]
    assert not nested.plain and not nested.optional
    assert bfcl_gold([{"f": {"x": ["", ""]}}])[0].arguments["x"] == AnyOf("", optional=True)


_SCALARS = {
    "0": 0, "-7": -7, "4300 digits": 10**4300 - 1, "4301 digits": 10**4300, "2.5": 2.5, "-0.0": -0.0,
    "nan": float("nan"), "inf": float("inf"), "True": True, "None": None, "x": "x", "é": "é",
    "string at the size limit": "a" * (MAX_BYTES - 2), "string over it": "a" * (MAX_BYTES - 1),
}


@pytest.mark.parametrize("value", list(_SCALARS.values()), ids=list(_SCALARS))
def test_bfcl_scalars_read_as_normalize_value_reads_them(value: Any) -> None:
    """BFCL accepted scalars skip the structured reader (a shortcut for speed): each must read
    exactly as normalize_value reads it, or fail with the same reason."""
    try:
        expected = normalize_value(value, fmt="bfcl")
    except ToolCallParseError as err:
        with pytest.raises(ToolCallParseError, match=re.escape(err.reason)):
            bfcl_gold([{"f": {"x": [value]}}])
        return
    (got,) = bfcl_gold([{"f": {"x": [value]}}])[0].arguments["x"].values
    assert strictly_identical(got, expected)


def _nested(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


def test_is_plain_json() -> None:
    assert is_plain_json({"a": [1, 2.5, None, ("x", True, {"b": []})]})
    assert is_plain_json(_nested(200)) and not is_plain_json(_nested(201))  # 200 levels are walked
    for value in ({"a": np.float64(1.0)}, [np.str_("x")], {1: "a"}, [b"x"], ({1},), [Call("f", {})]):
        assert not is_plain_json(value), value
    looped: list[Any] = []
    looped.append(looped)
    assert not is_plain_json(looped)


def test_plain_json() -> None:
    data = {"a": [1, ("x", {"b": None})]}
    assert plain_json(data) is data
    mixed = {"a": (np.int64(1), "x"), np.str_("k"): [np.array([1.5]), np.bool_(False)]}
    out = plain_json(mixed)
    assert out == {"a": (1, "x"), "k": [[1.5], False]}
    assert type(out["a"]) is tuple and type(next(iter(set(out) - {"a"}))) is str
    looped: list[Any] = [np.int64(1)]
    looped.append(looped)
    assert plain_json(looped)[0] == 1  # a value that holds itself is walked to the depth limit, not forever


def test_a_name_arguments_pair_written_as_json_says_how_to_write_a_call() -> None:
    # json.dumps turns Python's ("f", {...}) tuple into a list: the error says what to write
    with pytest.raises(ToolCallParseError, match=r'references\[0\]: .*\[name, arguments\] list is not a call.*"name"'):
        ToolCallMetric().compute([[]], [[["f", {"x": 1}]]])
    with pytest.raises(ToolCallParseError, match="a list of strings is not a list of calls"):
        ToolCallMetric().compute([[]], [[["f", "g"]]])


@pytest.mark.parametrize("n", [70_000, 124_999, 125_000, 200_000])
@pytest.mark.parametrize("dtype", ["int64", "float64", "bool", "<U1"])
def test_a_numpy_array_spends_the_size_budget_as_its_plain_value(n: int, dtype: str) -> None:
    # numpy exactly as plain: an array was charged 8 bytes an element before its copy and
    # again as the copy was walked, so np.arange(70_000) was "input larger than" MAX_BYTES
    # where the equal plain list scored 1.0
    np = pytest.importorskip("numpy")
    array = np.zeros(n, dtype=dtype) if dtype != "<U1" else np.full(n, "a")
    metric = ToolCallMetric()
    gold = [("f", {"x": array[:3].tolist()})]  # (a reference too large raises)
    as_numpy, as_plain = metric([("f", {"x": array})], gold), metric([("f", {"x": array.tolist()})], gold)
    assert (as_numpy.tp, as_numpy.fp, as_numpy.parse_error) == (as_plain.tp, as_plain.fp, as_plain.parse_error)
    assert MAX_BYTES == 1_000_000 and (as_plain.parse_error is None) == (n < 125_000 or dtype in ("bool", "<U1"))
    if n == 70_000:
        assert as_numpy.parse_error is None  # (before: too large)


def test_a_numpy_array_far_over_the_budget_is_refused_before_its_copy() -> None:
    np = pytest.importorskip("numpy")
    score = ToolCallMetric()([("f", {"x": np.zeros(10**8, dtype=np.int8)})], [("f", {"x": 1})])
    assert score.parse_error == f"predictions: structured: input larger than {MAX_BYTES} bytes"


def test_an_object_array_holding_itself_is_too_deep_not_a_crash() -> None:
    np = pytest.importorskip("numpy")
    itself = np.empty((), dtype=object)
    itself[()] = itself
    score = ToolCallMetric()([("f", {"x": itself})], [("f", {"x": 1})])
    assert score.parse_error == "predictions: structured: nested deeper than 64 levels"


@pytest.mark.parametrize("dtype", ["complex64", "datetime64[D]", "timedelta64[s]", "V1", "object"])
def test_a_numpy_array_of_any_kind_far_over_the_budget_is_refused_before_its_copy(dtype: str) -> None:
    # kinds without a least size were copied whole first (a 10^8-element complex array: 40 s, 4.6 GB)
    import tracemalloc

    np = pytest.importorskip("numpy")
    array = np.empty(10**7, dtype=dtype)
    metric = ToolCallMetric()
    tracemalloc.start()
    try:
        score = metric([("f", {"x": array})], [("f", {"x": 1})])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert score.parse_error == f"predictions: structured: input larger than {MAX_BYTES} bytes"
    assert peak < 10_000_000  # no copy: the array's plain list alone would take 80 MB
