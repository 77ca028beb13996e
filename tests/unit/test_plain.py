"""The plain-JSON part of :mod:`toolcall_f1.values`: one rule for a repeated key in every
JSON the package decodes (SPEC §2), where the data error says the key comes again, the limits
of the one walker, numpy values read as the equal plain values, and content keys."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

import toolcall_f1
from toolcall_f1 import ToolCallMetric, ToolCallParseError, calls
from toolcall_f1.values import (
    JSON_DECODER,
    MAX_INT_BITS,
    WALK_DEPTH,
    WALK_NODES,
    DuplicateKeyError,
    content_key,
    is_plain_json,
    load_json,
    loads_strict,
    plain_json,
)

np = pytest.importorskip("numpy")

# --------------------------------------------------------------------------- one rule, one error

REPEATS = [
    # (id, JSON text, the value it reads as, or None when the key is given two values)
    ("same-int", '{"a": 1, "a": 1}', {"a": 1}),
    ("same-object", '{"a": {"x": [1, "y"]}, "b": 0, "a": {"x": [1, "y"]}}', {"a": {"x": [1, "y"]}, "b": 0}),
    ("three-times", '{"a": null, "a": null, "a": null}', {"a": None}),
    ("int-and-float", '{"a": 1, "a": 1.0}', None),
    ("bool-and-int", '{"a": true, "a": 1}', None),
    ("list-order", '{"a": [1, 2], "a": [2, 1]}', None),
    ("third-differs", '{"a": 1, "a": 1, "a": 2}', None),
    ("nested", '[{"k": {"a": "x", "a": "y"}}]', None),
    ("other-objects", '[{"a": 1}, {"a": 2}]', [{"a": 1}, {"a": 2}]),
]


@pytest.mark.parametrize(("text", "expected"), [r[1:] for r in REPEATS], ids=[r[0] for r in REPEATS])
def test_every_decoder_follows_one_rule_for_a_repeated_key(text: str, expected: Any) -> None:
    readers = [JSON_DECODER.decode, loads_strict, load_json]
    if expected is None:
        for read in readers:  # load_json: the reader's parse error, quoting the text
            with pytest.raises(ToolCallParseError, match=r"duplicate key 'a'"):
                read(text)
    else:
        assert [read(text) for read in readers] == [expected] * 3


def test_the_metric_reads_a_repeated_key_by_the_same_rule() -> None:
    metric = ToolCallMetric()
    assert metric('{"name": "f", "arguments": {"x": 1, "x": 1}}', "[f(x=1)]").exact
    assert metric("[f(x=1)]", '[{"name": "f", "arguments": {"x": 1, "x": 1}}]').exact
    score = metric('{"name": "f", "arguments": {"x": 1, "x": 2}}', "[f(x=1)]")
    assert score.parse_error is not None and "duplicate key 'x' with different values" in score.parse_error
    with pytest.raises(ValueError, match=r"^references: json: duplicate key 'x' with different values"):
        metric("[f(x=1)]", '[{"name": "f", "arguments": {"x": 1, "x": 2}}]')


def test_one_error_type_everywhere() -> None:
    assert toolcall_f1.DuplicateKeyError is calls.DuplicateKeyError is DuplicateKeyError
    assert toolcall_f1.loads_strict is loads_strict and calls.JSON_DECODER is JSON_DECODER
    assert issubclass(DuplicateKeyError, ToolCallParseError) and issubclass(DuplicateKeyError, ValueError)
    with pytest.raises(DuplicateKeyError) as err:
        JSON_DECODER.decode('{"a": 1, "a": 2}')
    assert (err.value.key, err.value.format, err.value.reason, err.value.line, err.value.column) == (
        "a", "json", "duplicate key 'a' with different values", None, None)
    assert str(err.value) == "json: duplicate key 'a' with different values"


POSITIONS = [
    # (id, text, key, line, column): the first key in the text given another value, where it comes again
    ("one-line", '{"a": 1, "b": 2, "a": 3}', "a", 1, 18),
    ("second-line", '[{"a": 1},\n {"a": 1, "b": 2, "a": 3}]', "a", 2, 19),
    ("after-an-identical-repeat", '{"a": 1, "a": 1, "b": 1, "b": 2}', "b", 1, 26),
    ("outer-first", '[1, {"x": {"y": 1}, "x": {"z": 1, "z": 2}}]', "x", 1, 21),
    ("inner-first", '{"x": {"z": 1, "z": 2}, "x": 1}', "z", 1, 16),
    ("crlf", '{\r\n  "a": 1,\r\n  "a": 2}', "a", 3, 3),
]


@pytest.mark.parametrize(("text", "key", "line", "column"), [p[1:] for p in POSITIONS], ids=[p[0] for p in POSITIONS])
def test_loads_strict_names_the_key_and_where_it_comes_again(text: str, key: str, line: int, column: int) -> None:
    with pytest.raises(DuplicateKeyError) as err:
        loads_strict(text)
    assert (err.value.key, err.value.line, err.value.column) == (key, line, column)
    assert str(err.value) == (f"duplicate key {key!r} (column {column}): "
                              "a JSON object names it twice, and only one of its values would be read")
    assert err.value.describe("tools").startswith(f"duplicate key {key!r} in tools (column {column}): ")


def test_a_repeat_before_other_errors_is_named_first() -> None:
    # the decoder meets the repeat before the broken end, and so does the walk that locates it
    for text in ('[{"a": 1, "a": 2}, tru', '[{"a": 1, "a": 2}, {"b": "\\x"}]'):
        with pytest.raises(DuplicateKeyError) as err:
            loads_strict(text)
        assert (err.value.key, err.value.line, err.value.column) == ("a", 1, 11), text
    unplaced = DuplicateKeyError("a", data=True)  # when the walk cannot say where: the key alone
    assert str(unplaced) == "duplicate key 'a': a JSON object names it twice, and only one of its values would be read"


def test_data_keeps_what_model_output_refuses() -> None:
    # NaN, Infinity, 1e999 in data are read as json.loads reads them (the core reports them where used)
    assert str(loads_strict('{"a": NaN, "b": 1e999}')) == str({"a": float("nan"), "b": float("inf")})
    for text in ('{"a": NaN}', '[1e999]'):
        with pytest.raises(ToolCallParseError, match="json: "):
            JSON_DECODER.decode(text)
    with pytest.raises(json.JSONDecodeError):
        loads_strict('{"a": }')


def test_a_duplicate_key_error_pickles_as_itself() -> None:
    for err in (DuplicateKeyError("a", "parameter", "glm45"), DuplicateKeyError("k", line=2, column=3, data=True)):
        back = pickle.loads(pickle.dumps(err))
        assert (type(back), str(back), back.key, back.line, back.column) == (
            DuplicateKeyError, str(err), err.key, err.line, err.column)


# --------------------------------------------------------------------------- the walker and its limits


def _nested(levels: int, leaf: Any = None) -> Any:
    value: Any = [] if leaf is None else leaf
    for _ in range(levels):
        value = [value]
    return value


LIMITS = [
    # (id, value, is it plain data)
    ("at-the-depth-limit", _nested(WALK_DEPTH), True),
    ("past-the-depth-limit", _nested(WALK_DEPTH + 1), False),
    ("a-scalar-below-the-last-level", _nested(WALK_DEPTH, 1), True),
    ("an-int-json-writes", [2 ** (MAX_INT_BITS - 1) - 1], True),
    ("an-int-too-long", [2 ** (MAX_INT_BITS - 1)], False),  # MAX_INT_BITS bits
]


@pytest.mark.parametrize(("value", "plain"), [x[1:] for x in LIMITS], ids=[x[0] for x in LIMITS])
def test_the_walker_s_limits(value: Any, plain: bool) -> None:
    assert is_plain_json(value) is plain
    assert plain_json(value) is value  # nothing to change: the same object, within the limits or not


def test_the_walker_s_container_limit() -> None:
    assert not is_plain_json([[]] * WALK_NODES)  # one more container than it visits
    assert is_plain_json([[1] * 100] * (WALK_NODES // 50))  # integers are not containers: 2,000,000 here


NOT_PLAIN = [
    ("numpy-scalar", {"a": np.float64(1.0)}), ("numpy-str", [np.str_("x")]), ("int-key", {1: "a"}),
    ("bytes", [b"x"]), ("set", ({1},)), ("dict-subclass", [type("D", (dict,), {})(a=1)]),
    ("object", [object()]),
]


@pytest.mark.parametrize("value", [x[1] for x in NOT_PLAIN], ids=[x[0] for x in NOT_PLAIN])
def test_what_is_not_plain_data(value: Any) -> None:
    assert not is_plain_json(value)


def test_tuples_are_plain_data_unless_written_as_json() -> None:
    assert is_plain_json([("f", {"x": 1})]) and not is_plain_json([("f", {"x": 1})], tuples=False)
    assert is_plain_json({"calls": [{"x": [1, 2.5, None, True, "s"]}]}, tuples=False)


NUMPY = [
    # (id, value with numpy in it, the plain value it reads as)
    ("int64", np.int64(3), 3),
    ("bool", np.bool_(True), True),
    ("str", np.str_("x"), "x"),
    ("float32-as-its-decimal", np.float32(0.1), 0.1),
    ("float16-array", np.array([0.1, 2.5], dtype=np.float16), [0.1, 2.5]),
    ("float64-exact", np.float64(0.1), 0.1),
    ("2d-array", np.array([[1, 2], [3, 4]]), [[1, 2], [3, 4]]),
    ("0d-array", np.array(7), 7),
    ("inside-a-tuple", ("f", {"x": np.int8(1)}), ("f", {"x": 1})),
    ("object-array", np.array([{"a": np.int64(1)}], dtype=object), [{"a": 1}]),
    ("numpy-key", {np.str_("k"): np.float32(1.5)}, {"k": 1.5}),
]


@pytest.mark.parametrize(("value", "expected"), [x[1:] for x in NUMPY], ids=[x[0] for x in NUMPY])
def test_numpy_values_read_as_the_equal_plain_values(value: Any, expected: Any) -> None:
    out = plain_json(value)
    assert out == expected and repr(out) == repr(expected)  # types too: a tuple stays a tuple, 0.1 is 0.1
    assert is_plain_json(out) and not is_plain_json(value)


def test_a_value_holding_itself_is_walked_to_the_limits_not_forever() -> None:
    looped: list[Any] = [np.int64(1)]
    looped.append(looped)
    assert plain_json(looped)[0] == 1 and not is_plain_json(looped)


# --------------------------------------------------------------------------- content keys

KEYS = [
    # (id, a, b, same key)
    ("equal-data", [{"x": 1}], [{"x": 1}], True),
    ("int-and-float", [{"x": 1}], [{"x": 1.0}], False),
    ("bool-and-int", [True], [1], False),
    ("tuple-and-list", [("f", {})], [["f", {}]], False),
    ("key-order", {"a": 1, "b": 2}, {"b": 2, "a": 1}, False),
]


@pytest.mark.parametrize(("a", "b", "same"), [k[1:] for k in KEYS], ids=[k[0] for k in KEYS])
def test_content_keys_tell_apart_what_could_read_differently(a: Any, b: Any, same: bool) -> None:
    ka, kb = content_key(a), content_key(b)
    assert ka is not None and kb is not None and (ka == kb) is same
    assert pickle.loads(ka) == a


def test_content_keys_refuse_anything_but_plain_data() -> None:
    for value in (np.int64(1), [np.float64(1.0)], {"a": np.str_("x")}, [lambda: 1], _nested(100_000)):
        assert content_key(value) is None
    assert content_key("x" * 100, max_bytes=10) is None and content_key("x" * 5, max_bytes=30) is not None
