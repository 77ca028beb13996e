"""Within one tool, a ``datasets`` column of reference dicts (issue 26 item 11, the part left):
Arrow pads every argument key seen in any row into every row as None, and float32 fields read
back changed; by the values alone that looks like explicit nulls, so the column's Arrow type is
what tells. ``compute()``, ``scores()`` and the evaluate module warn once, naming
``datasets.Json()`` and JSON strings; the fixes and ordinary columns raise no such warning."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

import toolcall_f1
from toolcall_f1 import ToolCallMetric, ToolCallWarning

datasets = pytest.importorskip("datasets")
pytestmark = pytest.mark.usefixtures("offline_hub")

ROWS = [  # one tool: Arrow adds "unit" to the first row as None
    {"prediction": "[get_weather(city='Paris')]", "reference": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
    {"prediction": "[get_weather(city='Rome', unit='C')]",
     "reference": [{"name": "get_weather", "arguments": {"city": "Rome", "unit": "C"}}]},
]
FLOATS = [{"prediction": "[f(a=0.1)]", "reference": [{"name": "f", "arguments": {"a": 0.1}}]}]
FLOAT32 = datasets.Features({"prediction": datasets.Value("string"), "reference": datasets.List(
    {"name": datasets.Value("string"), "arguments": {"a": datasets.Value("float32")}})})


def _arrow_warnings(compute: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = compute()
    return result, [str(w.message) for w in caught
                    if issubclass(w.category, ToolCallWarning) and "datasets (Arrow)" in str(w.message)]


@pytest.fixture(scope="module")
def module() -> Any:
    return toolcall_f1.load(keep_in_memory=True)


def test_padding_within_one_tool_warns_once(module: Any) -> None:
    ds = datasets.Dataset.from_list(ROWS)
    assert ds["reference"][0] == [{"name": "get_weather", "arguments": {"city": "Paris", "unit": None}}]
    metric = ToolCallMetric()
    for compute in (lambda: metric.compute(ds["prediction"], ds["reference"]),
                    lambda: [s.f1 for s in metric.scores(ds["prediction"], ds["reference"])],
                    lambda: module.compute(predictions=ds["prediction"], references=ds["reference"])):
        _, found = _arrow_warnings(compute)
        assert len(found) == 1, found
        assert "datasets.Json()" in found[0] and "JSON strings" in found[0]
        assert "1 gold call(s) hold None for an argument" in found[0]
    with pytest.warns(ToolCallWarning, match=r"datasets \(Arrow\)"):
        assert metric.compute(ds["prediction"], ds["reference"])["f1"] == 0.5  # the padded None, expected


def test_a_float32_field_warns_with_its_changed_value() -> None:
    ds = datasets.Dataset.from_list(FLOATS, features=FLOAT32)
    assert ds["reference"][0][0]["arguments"]["a"] == 0.10000000149011612
    result, found = _arrow_warnings(lambda: ToolCallMetric().compute(ds["prediction"], ds["reference"]))
    assert result["f1"] == 0.0 and len(found) == 1
    assert "reference[].arguments.a are stored as float32" in found[0] and "datasets.Json()" in found[0]


def test_the_fixes_and_unpadded_columns_raise_no_warning(module: Any) -> None:
    as_json = datasets.Dataset.from_list([{**r, "reference": json.dumps(r["reference"])} for r in ROWS])
    declared = datasets.Dataset.from_list(ROWS, features=datasets.Features(
        {"prediction": datasets.Value("string"), "reference": datasets.List(datasets.Json())}))
    same_keys = datasets.Dataset.from_list(FLOATS)  # a struct, but nothing padded and float64 kept
    for ds in (as_json, declared, same_keys):
        for compute in (lambda ds=ds: ToolCallMetric().compute(ds["prediction"], ds["reference"]),
                        lambda ds=ds: module.compute(predictions=ds["prediction"], references=ds["reference"])):
            result, found = _arrow_warnings(compute)
            assert result["f1"] == 1.0 and found == []
    _, found = _arrow_warnings(lambda: ToolCallMetric().compute([r["prediction"] for r in ROWS],
                                                                 [datasets.Dataset.from_list(ROWS)["reference"][0],
                                                                  ROWS[1]["reference"]]))
    assert found == []  # the same values as a plain list: explicit nulls, not told from padding


def test_the_arrow_type_is_read_without_the_values() -> None:
    ds = datasets.Dataset.from_list([{"reference": {"calls": [{"name": "f", "arguments": {"a": 1}}]}}])
    assert toolcall_f1.metric.StructPadding.arrow_struct(ds["reference"]) == (True, [])
    assert toolcall_f1.metric.StructPadding.arrow_struct([{"name": "f", "arguments": {"a": None}}]) == (False, [])
    assert toolcall_f1.metric.StructPadding.arrow_struct(datasets.Dataset.from_list(FLOATS, features=FLOAT32)
                                                         ["reference"]) == (True, ["reference[].arguments.a"])
