"""A ``datasets`` column of reference dicts (issue 26 item 11): Arrow stores it as one struct
type, adding every key seen in any row to every row as None, so a call to one tool carries
the other tools' arguments as None and the corpus scores F1 0.0 without a word. ``compute()``
(the core and the evaluate module) warns once, naming ``datasets.Json()`` and JSON strings;
ordinary data raises no such warning."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

import toolcall_f1
from toolcall_f1 import ToolCallMetric, ToolCallWarning

datasets = pytest.importorskip("datasets")
pytestmark = pytest.mark.usefixtures("offline_hub")

ROWS = [
    {"prediction": "[get_weather(city='Paris')]", "reference": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
    {"prediction": "[search(query='cats', limit=0.1)]",
     "reference": [{"name": "search", "arguments": {"query": "cats", "limit": 0.1}}]},
    {"prediction": "[book(flight='AF1')]", "reference": [{"name": "book", "arguments": {"flight": "AF1"}}]},
]


@pytest.fixture(scope="module")
def module() -> Any:
    return toolcall_f1.load(keep_in_memory=True)


def _padding_warnings(compute: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """``compute(*args, **kwargs)`` and the padding warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = compute(*args, **kwargs)
    return result, [str(w.message) for w in caught if issubclass(w.category, ToolCallWarning)
                    and "datasets (Arrow)" in str(w.message)]


def test_a_datasets_struct_column_of_references_warns_once(module: Any) -> None:
    ds = datasets.Dataset.from_list(ROWS)
    assert ds["reference"][0] == [{"name": "get_weather", "arguments": {"city": "Paris", "query": None, "limit": None,
                                                                        "flight": None}}]  # Arrow's padding
    for compute in (lambda: ToolCallMetric().compute(ds["prediction"], ds["reference"]),
                    lambda: module.compute(predictions=ds["prediction"], references=ds["reference"])):
        result, found = _padding_warnings(compute)
        assert result["f1"] == 0.0  # the padded Nones are expected arguments: why the warning matters
        assert len(found) == 1
        assert "datasets.Json()" in found[0] and "JSON strings" in found[0] and "None for" in found[0]
    ds.set_format("numpy")  # numpy arrays of dicts, as a numpy-format column gives them
    _, found = _padding_warnings(lambda: ToolCallMetric().compute(list(ds["prediction"]), ds["reference"]))
    assert len(found) == 1


def test_the_fixes_and_ordinary_data_raise_no_padding_warning(module: Any) -> None:
    as_json = datasets.Dataset.from_list([{**r, "reference": json.dumps(r["reference"])} for r in ROWS])
    declared = datasets.Dataset.from_list(ROWS, features=datasets.Features(
        {"prediction": datasets.Value("string"), "reference": datasets.List(datasets.Json())}))
    for ds in (as_json, declared):
        for result, found in (_padding_warnings(ToolCallMetric().compute, ds["prediction"], ds["reference"]),
                              _padding_warnings(module.compute, predictions=ds["prediction"],
                                                references=ds["reference"])):
            assert result["f1"] == 1.0 and found == []
    ordinary = [
        [[{"name": "get_weather", "arguments": {"city": "Paris", "unit": None}}],
         [{"name": "get_weather", "arguments": {"city": "Rome", "unit": "C"}}]],  # explicit nulls within one tool
        [[{"name": "a", "arguments": {"x": 1}}], [{"name": "b", "arguments": {"y": None}}]],  # other keys
        [[{"name": "a", "arguments": {"x": 1, "y": 2}}], [{"name": "b", "arguments": {"x": 3, "y": None}}],
         [{"name": "b", "arguments": {"x": None, "y": 4}}]],  # every tool sets every key somewhere
        [[{"name": "a", "arguments": {"x": 1, "y": None}}], [{"name": "b", "arguments": {"y": None, "x": 2}}]],  # order
    ]
    for refs in ordinary:
        _, found = _padding_warnings(ToolCallMetric().compute, ["[]"] * len(refs), refs)
        assert found == [], refs
