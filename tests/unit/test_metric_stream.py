"""The one corpus loop (ToolCallMetric._scores): checks made when the stream is made, errors
to on_error, the Arrow-padding warning at the caller's line, and a reference's own tools'
readers' context remembered by the metric (same scores as a fresh metric per example)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric

TOOLS = [{"name": "f", "parameters": {"properties": {"x": {"type": "integer"}, "y": {"type": "string"}}}}]
PADDED = [[{"name": "a", "arguments": {"x": 1, "y": None}}], [{"name": "b", "arguments": {"x": None, "y": "s"}}]]


def test_positional_arguments_read_through_a_references_own_tools_every_time() -> None:
    refs = [{"calls": [("f", {"x": 1, "y": "a"})], "tools": TOOLS}] * 3 + [{"calls": [("f", {"x": 2})], "tools": TOOLS[:1]}]
    preds = ["[f(1, 'a')]", "[f(1, 'b')]", "[f(1, 'a')]", "[f(2)]"]
    metric = ToolCallMetric("arg")
    streamed = [(s.tp, s.fp, s.fn, s.exact) for s in metric.scores(preds, refs)]
    alone = [(s.tp, s.fp, s.fn, s.exact) for s in (ToolCallMetric("arg")(p, r) for p, r in zip(preds, refs))]
    assert streamed == alone == [(3.0, 0.0, 0.0, True), (2.0, 1.0, 1.0, False), (3.0, 0.0, 0.0, True), (2.0, 0.0, 0.0, True)]
    assert metric.compute(preds, refs)["tp"] == sum(t for t, *_ in alone)


def test_the_streams_checks_are_made_when_it_is_made() -> None:
    metric = ToolCallMetric()
    with pytest.raises(ValueError, match="differ in length: 2 vs 1"):
        metric.scores(["[]", "[]"], [[]])
    with pytest.raises(TypeError, match="predictions: expected a list"):
        metric.scores("[]", [[]])


def test_on_error_skips_the_example_and_raising_stops_the_stream() -> None:
    metric = ToolCallMetric()
    seen: list[int] = []
    got = [s.tp for s in metric.scores(["[f()]"] * 3, ["[f(", None, "[f()]"], on_error=lambda i, e: seen.append(i))]
    assert got == [1.0] and seen == [0, 1]

    def stop(i: int, err: Exception) -> None:
        raise RuntimeError(f"stop at {i}")

    with pytest.raises(RuntimeError, match="stop at 0"):
        list(metric.scores(["[f()]"], ["[f("], on_error=stop))


def _warned_at(run: Any) -> list[int]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    return [w.lineno for w in caught if w.filename == __file__]


def test_the_padding_warning_names_the_caller_as_before() -> None:
    """compute() and score_all() warn at the line calling them; scores() at the line calling
    the code that iterates it (stacklevel 3 from the loop, as the loop always had it)."""
    metric = ToolCallMetric()
    preds = ["[]", "[]"]
    here = test_the_padding_warning_names_the_caller_as_before.__code__.co_firstlineno
    assert _warned_at(lambda: metric.compute(preds, PADDED)) == [here + 6]
    assert _warned_at(lambda: metric.score_all(preds, PADDED)) == [here + 7]

    def loop() -> None:
        for _ in metric.scores(preds, PADDED):
            pass

    assert _warned_at(loop) == [_warned_at.__code__.co_firstlineno + 3]
    assert _warned_at(lambda: list(metric.scores(preds, PADDED, on_error=print))) == [_warned_at.__code__.co_firstlineno + 3]
