"""Intervals and pass@k give the core's numbers through evaluate, streamed with ``add_batch``
(SPEC §8b: the groups travel as the references' ``"group"`` keys)."""

from __future__ import annotations

from typing import Any

import pytest

import toolcall_f1
from toolcall_f1 import ToolCallMetric

pytestmark = pytest.mark.usefixtures("offline_hub")

REFS = [{"calls": [{"name": "f", "arguments": {"x": i}}], "group": f"prompt-{i // 4}"} for i in range(48)]
PREDS = [f"[f(x={i if i % 4 else -1})]" for i in range(48)]


@pytest.fixture(scope="module")
def module() -> Any:
    return toolcall_f1.load(keep_in_memory=True)


def test_evaluate_streams_to_the_core_interval_and_pass_k(module: Any) -> None:
    want = ToolCallMetric("arg").compute(PREDS, REFS, confidence_level=0.9, n_resamples=400, seed=7, pass_k=(1, 2))
    for start in range(0, 48, 10):
        module.add_batch(predictions=PREDS[start:start + 10], references=REFS[start:start + 10])
    got = module.compute(level="arg", confidence_level=0.9, n_resamples=400, seed=7, pass_k=(1, 2))
    assert got["ci"] == want["ci"] and got["pass_k"] == want["pass_k"] and got["signature"] == want["signature"]
    assert "|groups:yes|" in got["signature"]


@pytest.mark.parametrize("keyword, value, expected", [
    ("seed", -1, "seed: expected a non-negative integer, got -1"),
    ("seed", 1.5, "seed: expected a non-negative integer, got 1.5"),
    ("n_resamples", 0, "n_resamples: expected a positive integer, got 0"),
    ("confidence_level", float("nan"), "confidence_level: expected a number between 0 and 1"),
])
def test_bad_resampling_keywords_are_named_in_compute_and_compare(keyword: str, value: Any, expected: str) -> None:
    """Never numpy's bare 'expected non-negative integer': the error names the keyword and what it takes."""
    import re

    kwargs = {"confidence_level": 0.9, keyword: value}
    with pytest.raises(ValueError, match=re.escape(expected)):
        toolcall_f1.ToolCallMetric().compute(["[f()]"] * 3, ["[f()]"] * 3, **kwargs)
    with pytest.raises(ValueError, match=re.escape(expected)):
        toolcall_f1.compare({"a": ["[f()]"] * 3, "b": ["[g()]"] * 3}, ["[f()]"] * 3, **kwargs)
