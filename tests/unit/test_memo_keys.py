"""A metric's memo is keyed by content, and only plain data has a content key (issue 12).

- ``content_key`` keys exact dict/list/tuple/str/int/float/bool/None and refuses anything
  else (numpy values, dict subclasses, objects that pickle as something other than what they
  read as): one pickle pass both checks and keys;
- a reference or tool set read from the memo scores as a fresh metric reads it, through the
  public API: mutated in place, shared by different references, or not plain data at all.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric
from toolcall_f1.values import content_key


class _Row(Mapping):
    """A dataset row read through its position in a table (as a lazy dataset hands rows out):
    it pickles as its position alone, so two tables' rows share their pickle bytes."""

    def __init__(self, table: list[dict[str, Any]] | None, i: int) -> None:
        self.table, self.i = table, i

    def __getitem__(self, key: str) -> Any:
        assert self.table is not None
        return self.table[self.i][key]

    def __iter__(self) -> Iterator[str]:
        assert self.table is not None
        return iter(self.table[self.i])

    def __len__(self) -> int:
        assert self.table is not None
        return len(self.table[self.i])

    def __reduce__(self) -> tuple[Any, ...]:
        return _Row, (None, self.i)


@pytest.mark.parametrize("value", [
    None, 1, 1.5, True, "x", [1, [2.0, ("a", None)]], {"a": {"b": [True]}}, {1: "non-string keys"}, (), [],
], ids=repr)
def test_plain_data_has_a_content_key(value) -> None:
    assert isinstance(content_key(value), bytes)


def test_what_is_not_plain_data_has_no_content_key() -> None:
    np = pytest.importorskip("numpy")

    class Tagged(dict):
        pass

    for value in (np.int64(1), [np.float64(1.0)], {"a": np.str_("x")}, np.array([1]), OrderedDict(a=1),
                  [Tagged(a=1)], _Row([{"calls": []}], 0), [lambda: 1], object()):
        assert content_key(value) is None, value


def test_a_reference_that_pickles_as_something_else_is_read_each_time() -> None:
    # the two rows pickle alike (their position): a memo keyed by those bytes scored the
    # second as the first (a silently wrong score)
    first = _Row([{"calls": [("f", {"x": 1})]}], 0)
    second = _Row([{"calls": [("f", {"x": 2})]}], 0)
    metric = ToolCallMetric()
    assert metric("[f(x=1)]", first).exact
    assert not metric("[f(x=1)]", second).exact
    assert metric("[f(x=2)]", second).exact


def test_a_reference_mutated_in_place_is_read_by_its_new_content() -> None:
    metric = ToolCallMetric()
    reference = {"calls": [{"name": "f", "arguments": {"x": 1}}],
                 "tools": [{"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}}}]}
    assert metric("[f(x=1)]", reference).exact
    reference["calls"][0]["arguments"]["x"] = 1.0  # equal to 1, but not the same data
    reference["tools"][0]["parameters"]["properties"]["x"]["type"] = "number"
    fresh = ToolCallMetric()("[f(x=1)]", reference)
    again = metric("[f(x=1)]", reference)
    assert (again.tp, again.fp, again.fn, again.exact) == (fresh.tp, fresh.fp, fresh.fn, fresh.exact)
    reference["tools"][0]["importance"] = 3
    assert metric("[f(x=2)]", reference).fn == 3.0 == ToolCallMetric()("[f(x=2)]", reference).fn


def test_tools_shared_by_different_references_score_as_fresh_readings() -> None:
    np = pytest.importorskip("numpy")
    tools = [{"name": "f", "importance": 2, "parameters": {"properties": {"x": {"type": "integer"}, "y": {}}}}]
    numpy_tools = [{"name": "f", "importance": np.int64(5), "parameters": {"properties": {"x": {}, "y": {}}}}]
    refs = [{"calls": f"[f(x={i}, y={i + 1})]", "tools": t} for i in range(4) for t in (tools, numpy_tools, tools[:0])]
    preds = [f"[f(x={i}, y={i})]" for i in range(4) for _ in range(3)]
    metric = ToolCallMetric("arg", weights={"f": {"arguments": {"y": 7}}})
    remembered = [metric(p, r) for p, r in zip(preds * 2, refs * 2)]
    fresh = [ToolCallMetric("arg", weights={"f": {"arguments": {"y": 7}}})(p, r) for p, r in zip(preds * 2, refs * 2)]
    assert [(s.tp, s.fp, s.fn, s.tools_digest) for s in remembered] == [
        (s.tp, s.fp, s.fn, s.tools_digest) for s in fresh]
    assert {s.fn for s in remembered} == {14.0, 35.0, 7.0}  # tool weight 2, 5 (numpy, read as 5), 1; times y's 7


def _lazy_tools() -> list[dict[str, Any]]:
    union = {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]}
    return [{"name": "f", "parameters": {"type": "object", "properties": {"x": union}}}]


@pytest.mark.parametrize("where", ["call", "reference", "constructor"])
def test_tools_changed_in_place_after_use_do_not_change_later_scores(where: str) -> None:
    # union members compile when a value first reaches them: a tool set built on the caller's dicts
    # compiled the changed schema later, under the key of the original content (found by review)
    tools, original = _lazy_tools(), _lazy_tools()
    metric = ToolCallMetric(tools=tools) if where == "constructor" else ToolCallMetric()

    def score(pred: str, given: list[dict[str, Any]]) -> float:
        if where == "call":
            return metric(pred, pred, tools=given).tp
        if where == "reference":
            return metric(pred, {"calls": pred, "tools": given}).tp
        return metric(pred, pred).tp

    assert score("[f(x=1)]", tools) == 1.0
    tools[0]["parameters"]["properties"]["x"]["anyOf"][1]["items"]["type"] = "string"
    assert score("[f(x=[1])]", original) == 1.0 == ToolCallMetric()("[f(x=[1])]", "[f(x=[1])]", tools=original).tp


def test_a_calls_and_tools_dict_shares_its_tools_slot_with_others_over_the_same_tools() -> None:
    # {"calls", "tools"} is remembered by one key for the whole; its tools' key is the tool set's own
    # slot's: other calls over the same tools reuse the compiled tool set; a key a reference adds
    # that changes its reading ("turns") or tools that are not plain data are never a memo hit
    np = pytest.importorskip("numpy")
    tools = [{"name": "f", "importance": 2, "parameters": {"properties": {"x": {"type": "integer"}}}}]
    metric = ToolCallMetric()
    first = metric.read_reference({"calls": "[f(x=1)]", "tools": tools})
    second = metric.read_reference({"calls": "[f(x=2)]", "tools": [dict(tools[0])]})
    assert first[1] is second[1] and first[0] != second[0]
    assert metric.read_reference({"calls": "[f(x=1)]", "tools": tools, "note": "kept"})[0] == first[0]
    with pytest.raises(ValueError, match="turns"):
        metric.read_reference({"calls": "[f(x=1)]", "tools": tools, "turns": []})
    numpy_tools = [{"name": "f", "importance": np.int64(5), "parameters": {"properties": {"x": {}}}}]
    for given in (numpy_tools, tools, numpy_tools):
        score = metric("[f(x=2)]", {"calls": "[f(x=1)]", "tools": given})
        fresh = ToolCallMetric()("[f(x=2)]", {"calls": "[f(x=1)]", "tools": given})
        assert (score.fp, score.fn, score.tools_digest) == (fresh.fp, fresh.fn, fresh.tools_digest)


def test_interleaved_tool_sets_are_compiled_once_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """An example with its own tools fills two memo slots (the reference; its tools, kept with
    their readers' context): 60 tool sets cycling through a corpus compile once each (a memo
    that fills up empties itself: a corpus then compiles every example's tools again, 10x slower)."""
    import toolcall_f1.metric as metric_module

    compiled = []
    real = metric_module.compile_tools

    def counting(*args: Any, **kwargs: Any) -> Any:
        compiled.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(metric_module, "compile_tools", counting)
    tool_sets = [[{"name": f"t{k}", "parameters": {"properties": {"x": {"type": "integer"}}}}] for k in range(60)]
    refs = [{"calls": [{"name": f"t{i % 60}", "arguments": {"x": i % 60}}], "tools": tool_sets[i % 60]}
            for i in range(180)]
    preds = [f"[t{i % 60}(x={i % 60})]" for i in range(180)]
    metric = ToolCallMetric()
    before = len(compiled)  # the metric's own (empty) tool set
    assert metric.compute(preds, refs)["f1"] == 1.0
    assert len(compiled) - before == 60
