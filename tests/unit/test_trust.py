"""Issue 11, core items: numbers a user can trust on every input path.

Each test here failed on the code before the change it pins (exact merges, empty corpora,
one default canonicalizer, BFCL's empty accepted lists, warnings, threads, pickling, schema
errors, numpy and big integers).
"""

from __future__ import annotations

import pickle
import sys
import threading
import warnings
from typing import Any

import pytest

from toolcall_f1 import (
    AnyOf,
    Call,
    Counts,
    EmptyCorpusError,
    GoldCall,
    Tally,
    ToolCallMetric,
    ToolCallParseError,
    ToolCallWarning,
    compare_call,
    match_calls,
    summarize,
)
from ..property.strategies import deep_any_of

np = pytest.importorskip("numpy")

WEATHER = [{"name": "get_weather", "parameters": {"type": "object", "properties": {
    "city": {"type": "string"},
    "days": {"type": "integer", "importance": 0.7},
    "tags": {"type": "array", "items": {"type": "string"}},
    "where": {"type": "object", "properties": {"lat": {"type": "number"}}},
    "unit": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": "c"},
}, "required": ["city"]}}]


# --------------------------------------------------------------------------- counts


def test_counts_merge_exactly_in_any_grouping() -> None:
    weights = [0.7, 0.1, 0.7, 0.3, 1 / 3, 0.7, 0.1, 0.3]
    parts = [Counts(w, w / 2, 1 - w) for w in weights]
    whole = Counts.total(parts)
    assert Counts.total(parts[:6]) + Counts.total(parts[6:]) == whole
    for cut in range(len(parts) + 1):
        merged = Counts.total(parts[:cut]) + Counts.total(parts[cut:])
        assert (merged.tp, merged.fp, merged.fn) == (whole.tp, whole.fp, whole.fn)
    left = Counts()
    for p in parts:  # one at a time, the other way round
        left = p + left
    assert left == whole


def test_tallies_merge_to_one_pass() -> None:
    metric = ToolCallMetric("arg", weights={"f": {"weight": 1 / 3, "arguments": {"x": 0.7}}})
    preds = ["[f(x=1)]", "[f(x=2), g()]", "[]", "[f(x=1, y=0.1)]"] * 3
    refs = [[("f", {"x": 1})], [("f", {"x": 1})], [("g", {})], [("f", {"x": 1, "y": 0.1})]] * 3
    whole = metric.compute(preds, refs, per_tool=True)
    for cut in range(len(preds) + 1):
        a, b = Tally(), Tally()
        for s in metric.score_all(preds[:cut], refs[:cut]):
            a.add(s)
        for s in metric.score_all(preds[cut:], refs[cut:]):
            b.add(s)
        merged = pickle.loads(pickle.dumps(a)) + b
        assert merged.result(metric.signature(example_tools_digests=merged.digests), per_tool=True) == whole


# --------------------------------------------------------------------------- empty corpus


def test_an_empty_corpus_has_no_score() -> None:
    metric = ToolCallMetric()
    for call in (lambda: metric.compute([], []), lambda: metric.aggregate([]),
                 lambda: summarize([], signature="-"), lambda: Tally().result("-")):
        with pytest.raises(EmptyCorpusError, match="^nothing was added: a corpus of zero examples has no score$"):
            call()
    with pytest.raises(ValueError, match="nothing was added"):
        metric.compute([], [], return_details=True)
    # nothing expected and nothing predicted is still a perfect example
    r = metric.compute(["[]"], [[]])
    assert (r["f1"], r["exact_match"], r["num_examples"]) == (1.0, 1.0, 1)


# --------------------------------------------------------------------------- one default


def test_compare_call_uses_the_metrics_default_canonicalizer() -> None:
    pred, gold = Call("f", {"city": "  new   YORK "}), GoldCall.from_call(Call("f", {"city": "New York"}))
    assert compare_call(pred, gold).exact
    assert ToolCallMetric()([pred], [("f", {"city": "New York"})]).exact
    assert match_calls([pred], [("f", {"city": "New York"})])[0]
    assert not compare_call(pred, gold, canonicalizer="exact").exact
    with pytest.warns(DeprecationWarning, match="canonicalizer="):  # the old name still works
        assert not compare_call(pred, gold, canon="exact").exact
    preds, golds = [pred, Call("f", {"city": "New York"})], [("f", {"city": "New York"}), ("f", {"city": "x"})]
    with pytest.warns(DeprecationWarning, match="canonicalizer="):
        old_name = match_calls(preds, golds, matching="optimal", canon="exact")
    assert old_name == match_calls(preds, golds, matching="optimal", canonicalizer="exact")
    assert old_name != match_calls(preds, golds, matching="optimal")  # the setting is read


def test_compare_call_takes_the_metrics_settings() -> None:
    tools = [{"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}]
    pred, gold = Call("f", {"n": "2"}), Call("f", {"n": 2})
    result = compare_call(pred, gold, tools=tools, weights={"f": {"arguments": {"n": 3}}})
    assert (result.exact, result.errors, result.verdicts[0].reason) == (False, 6.0, "type")
    assert ToolCallMetric("arg", tools=tools, weights={"f": {"arguments": {"n": 3}}})([pred], [gold]).fp == 3.0
    assert not compare_call(pred, gold).exact and compare_call(Call("f", {"n": 2}), gold, tools=tools).exact


# --------------------------------------------------------------------------- BFCL [] answers


@pytest.mark.parametrize("level", ["call", "arg"])
def test_bfcl_empty_accepted_lists_accept_nothing(level: str) -> None:
    metric = ToolCallMetric(level, reference_format="bfcl", canonicalizer="bfcl", matching="optimal")
    top = [{"f": {"a": [], "b": [1]}}]
    given = metric("[f(a=1, b=1)]", top)
    omitted = metric("[f(b=1)]", top)
    assert not given.exact and not omitted.exact
    verdicts = {v.name: v.verdict for v in omitted.pairs[0][2].verdicts}
    assert verdicts == {"a": "missing", "b": "agree"}
    assert {v.name: v.verdict for v in given.pairs[0][2].verdicts} == {"a": "disagree", "b": "agree"}
    if level == "arg":
        assert (omitted.tp, omitted.fp, omitted.fn) == (2.0, 0.0, 1.0)
    nested = [{"record": {"r": [{"start": [], "end": ["x"]}]}}]
    assert not metric("[record(r={'start': 1, 'end': 'x'})]", nested).exact
    assert not metric("[record(r={'end': 'x'})]", nested).exact
    assert metric.compute(["[f(b=1)]", "[record(r={'end': 'x'})]"], [top, nested])["exact_match"] == 0.0


# --------------------------------------------------------------------------- warnings


def _caught(fn: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught if issubclass(w.category, ToolCallWarning)]


def test_warnings_for_silent_mistakes_never_change_the_score() -> None:
    assert any("tool 'get_wether' is not among the tool schemas" in m
               for m in _caught(lambda: ToolCallMetric(tools=WEATHER, weights={"get_wether": 2})))
    assert any("has no parameter 'cty'" in m for m in _caught(
        lambda: ToolCallMetric(tools=WEATHER, weights={"get_weather": {"arguments": {"cty": 2}}})))
    assert any("has no parameter 'cty'" in m for m in _caught(
        lambda: ToolCallMetric().compute(["[]"], [[]], tools=WEATHER, weights={"get_weather": {"arguments": {"cty": 2}}})))
    typo = [{"name": "f", "parameters": {"properties": {"n": {"type": "integr"}}}}]
    assert any("unknown type 'integr'" in m for m in _caught(lambda: ToolCallMetric(tools=typo)))
    twice = [{"name": "f", "parameters": {"properties": {"a": {}}}}, {"name": "f", "parameters": {"properties": {"b": {}}}}]
    assert any("two schemas are named 'f'" in m for m in _caught(lambda: ToolCallMetric(tools=twice)))
    assert _caught(lambda: ToolCallMetric(tools=WEATHER, weights={"get_weather": {"weight": 2, "arguments": {"city": 3}}})) == []
    # more than half of the predictions are parse errors: likely the wrong format (from 10 examples)
    preds, refs = ["f(a=1)", "[f(a=1", "[f(a=1", "[f(a=1"] * 3, [[("f", {"a": 1})]] * 12
    messages = _caught(lambda: ToolCallMetric(prediction_format="bfcl").compute(preds, refs))
    assert any("9 of 12 predictions could not be read" in m and "'bfcl'" in m for m in messages)
    assert _caught(lambda: ToolCallMetric().compute((preds[:2] + ["[f(a=1)]"] * 2) * 3, refs)) == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quiet = ToolCallMetric(prediction_format="bfcl").compute(preds, refs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning is never an error by default, and never a number
        with pytest.raises(ToolCallWarning):
            ToolCallMetric(prediction_format="bfcl").compute(preds, refs)
    assert (quiet["f1"], quiet["num_parse_errors"]) == (0.4, 9)


# --------------------------------------------------------------------------- threads, pickles


def test_metrics_in_threads_share_nothing_that_breaks() -> None:
    import toolcall_f1

    for module in vars(toolcall_f1).values():  # no module-level cache left to share
        for name in ("_CACHE", "_DIGESTS", "_GOLDS", "_EXAMPLE_TOOLS", "_FRACTIONS"):
            assert not isinstance(getattr(module, name, None), dict), (module, name)
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            metric = ToolCallMetric()
            for i in range(400):
                k = i if i % 2 else 0  # one tool list again and again (cache hits), and new ones (evictions)
                tools = [{"name": f"f{t}_{k}", "parameters": {"properties": {"x": {"type": "integer"}}}}]
                ref = {"calls": f"[f{t}_{k}(x={i})]", "tools": tools}
                assert metric(f"[f{t}_{k}(x={i})]", ref).exact
                assert metric.compute([f"[f{t}_{k}(x={i})]"], [ref])["exact_match"] == 1.0
        except BaseException as err:  # noqa: BLE001 - reported to the main thread
            errors.append(err)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: races show up
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []


def test_a_metric_that_has_scored_pickles_and_scores_the_same() -> None:
    metric = ToolCallMetric("arg", tools=WEATHER, weights={"get_weather": 2})
    preds = ["[get_weather(city='Paris', days=3, tags=['a'], where={'lat': 1.5})]", "[get_weather(city=1)]"]
    refs = [[("get_weather", {"city": "paris", "days": 3, "tags": ["a"], "where": {"lat": 1.5}})],
            {"calls": "[get_weather(city='x')]", "tools": WEATHER}]
    before = metric.compute(preds, refs, per_tool=True, return_details=True)
    copy = pickle.loads(pickle.dumps(metric))
    assert copy.compute(preds, refs, per_tool=True, return_details=True) == before
    assert metric.compute(preds, refs, per_tool=True, return_details=True) == before


# --------------------------------------------------------------------------- schemas


def test_schema_errors_name_the_field() -> None:
    deep = [{"name": "f", "parameters": {"properties": {"x": deep_any_of(500)}}}]
    with pytest.raises(ValueError, match=r"tool 'f' parameter 'x': unions .* deeper than 64"):
        ToolCallMetric(tools=deep)
    with pytest.raises(ValueError, match=r"references\[0\]: tool 'f' parameter 'x'"):
        ToolCallMetric().compute(["[f(x=1)]"], [{"calls": "[f(x=1)]", "tools": deep}])
    loop: dict[str, Any] = {"type": "object"}
    loop["properties"] = {"next": loop}
    with pytest.raises(ValueError, match=r"tool 'f' parameter 'x': the schema contains itself \(at x\.next\)"):
        ToolCallMetric(tools=[{"name": "f", "parameters": {"properties": {"x": loop}}}])
    union_loop: dict[str, Any] = {"anyOf": []}
    union_loop["anyOf"].append(union_loop)
    with pytest.raises(ValueError, match="contains itself"):
        match_calls([("f", {"x": 1})], [("f", {"x": 1})], tools=[{"name": "f", "parameters": {"properties": {"x": union_loop}}}])
    with pytest.raises(ValueError, match="tools: expected a list of function schemas, got int"):
        ToolCallMetric(tools=5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="weights: tool names must be strings, got int 1"):
        ToolCallMetric(weights={1: 2}, name_canonicalizer="underscore")  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="argument names must be strings"):
        ToolCallMetric(weights={"f": {"arguments": {2: 1}}})
    with pytest.raises(ValueError, match="'required' must be a list of parameter names"):
        ToolCallMetric(tools=[{"name": "f", "parameters": {"properties": {"a": {}}, "required": [["a"]]}}])
    # 64 nested unions are fine, and so are thousands of nested properties
    ok = [{"name": "f", "parameters": {"properties": {"x": deep_any_of(60)}}}]
    assert ToolCallMetric(tools=ok)("[f(x=1)]", "[f(x=1)]").exact
    # a subschema shared by both members of 19 nested unions is 2**20 paths: checking a value
    # walked them all (seconds, exponentially more with each level); it is refused up front
    shared: dict[str, Any] = {"type": "integer"}
    for _ in range(19):
        shared = {"anyOf": [shared, shared]}
    with pytest.raises(ValueError, match="tool 'f' parameter 'x': the schema has more than 100000 subschemas"):
        ToolCallMetric(tools=[{"name": "f", "parameters": {"properties": {"x": shared}}}])


# --------------------------------------------------------------------------- paths agree


def test_numpy_values_read_as_the_equal_plain_values() -> None:
    metric = ToolCallMetric("arg", tools=WEATHER)
    plain_pred = [("get_weather", {"city": "Paris", "days": 3, "tags": ["a", "b"], "where": {"lat": 1.5}})]
    plain_ref = [{"name": "get_weather", "arguments": {"city": "paris", "days": 3, "tags": ["a", "b"],
                                                         "where": {"lat": 1.5}, "unit": "C"}}]
    numpy_pred = [("get_weather", {"city": np.str_("Paris"), "days": np.int64(3), "tags": np.array(["a", "b"]),
                                   "where": {"lat": np.float32(1.5)}})]
    numpy_ref = np.array([{"name": "get_weather", "arguments": {
        "city": "paris", "days": np.array(3), "tags": np.array(["a", "b"], dtype=object),
        "where": {"lat": np.float64(1.5)}, "unit": np.str_("C")}}], dtype=object)
    expected = metric.compute([plain_pred], [plain_ref], return_details=True)
    got = metric.compute([numpy_pred], [numpy_ref], return_details=True)
    assert got == expected and expected["exact_match"] == 1.0
    assert repr(got["details"]) == repr(expected["details"])  # plain ints, not numpy scalars
    assert metric(Call("get_weather", {"city": "paris", "days": np.int64(3)}), plain_ref).tp == \
        metric(Call("get_weather", {"city": "paris", "days": 3}), plain_ref).tp
    assert ToolCallMetric()(np.str_("[f(a=1)]"), [("f", {"a": 1})]).exact
    assert ToolCallMetric()([("f", {"a": np.bool_(True)})], [("f", {"a": True})]).exact
    assert not ToolCallMetric()([("f", {"a": np.bool_(True)})], [("f", {"a": 1})]).exact
    bfcl = ToolCallMetric(reference_format="bfcl")
    assert bfcl("[f(a=[1, 2])]", np.array([{"f": {"a": np.array([np.array([1, 2])], dtype=object)}}], dtype=object)).exact
    tools_np = np.array(WEATHER, dtype=object)
    assert ToolCallMetric(tools=tools_np)("[get_weather('Paris')]", "[get_weather(city='paris')]").exact
    assert ToolCallMetric(weights={"f": np.float64(2.0)})("[f()]", "[]").fp == 2.0


def test_numpy_cannot_pass_for_other_content_in_the_cache() -> None:
    """numpy arrays marshal as raw bytes: array([1]) int64 and array([1, 0]) int32 share them."""
    metric = ToolCallMetric()
    a = [{"name": "f", "arguments": {"x": np.array([1], dtype=np.int64)}}]
    b = [{"name": "f", "arguments": {"x": np.array([1, 0], dtype=np.int32)}}]
    assert metric.compute(["[f(x=[1])]", "[f(x=[1])]"], [a, b])["exact_match"] == 0.5
    assert metric.compute(["[f(x=[1, 0])]", "[f(x=[1, 0])]"], [a, b])["exact_match"] == 0.5


def test_big_integers_are_parse_errors_everywhere() -> None:
    big = 10**5000
    metric = ToolCallMetric()
    r = metric.compute([[Call("f", {"a": big})]], [[("f", {"a": 1})]])
    assert r["num_parse_errors"] == 1
    with pytest.raises(ToolCallParseError, match="more than 4300 digits"):
        metric([("f", {"a": 1})], [Call("f", {"a": big})])
    with pytest.raises(ToolCallParseError, match="more than 4300 digits"):
        ToolCallMetric(reference_format="bfcl")("[f(a=1)]", [{"f": {"a": [big]}}])
    assert metric.compute(['[{"name": "f", "arguments": {"a": ' + "9" * 5000 + "}}]"], [[("f", {"a": 1})]])["num_parse_errors"] == 1
    ok = 10**4299
    assert metric([("f", {"a": ok})], [("f", {"a": ok})]).exact


def test_match_calls_accepts_accepted_values_as_the_metric_does() -> None:
    gold = [("f", {"a": AnyOf(1, 2)})]
    pairs, up, ug = match_calls([("f", {"a": 2})], gold)
    assert len(pairs) == 1 and not up and not ug
    assert ToolCallMetric()([("f", {"a": 2})], gold).exact


# --------------------------------------------------------------------------- reading references


def test_read_reference_and_its_cache() -> None:
    tools = [{"name": "f", "parameters": {"properties": {"x": {"type": "integer"}}}}]
    metric = ToolCallMetric()
    golds, toolset = metric.read_reference({"calls": "[f(1)]", "tools": tools})
    assert golds == [GoldCall.from_call(Call("f", {"x": 1}))] and toolset.lookup("f") is not None
    with pytest.raises(ToolCallParseError, match=r"references\[4\]"):
        metric.read_reference("[f(", index=4)
    # more distinct references than the cache holds: every one still reads by its content
    n = 3 * metric._memo.size
    preds = [f"[f(x={i})]" for i in range(n)] * 2
    refs = [{"calls": f"[f(x={i})]", "tools": tools} for i in range(n)] * 2
    assert metric.compute(preds, refs)["exact_match"] == 1.0
    assert len(metric._memo) <= metric._memo.size
    shifted = metric.compute(preds[1:] + preds[:1], refs)
    assert shifted["exact_match"] == 0.0


def test_content_keys_are_stable_and_linear() -> None:
    # marshal's newer formats mark objects by reference count: the same reference, once the
    # metric held parts of it, got other bytes (every memo lookup missed); its older formats
    # write a shared object once per parent (a schema of doubling unions: exponential)
    import json

    from toolcall_f1.values import content_key

    text = '[{"name": "search", "arguments": {"query": "query", "n": [1.5, 1.5]}}]'
    reference = json.loads(text)
    before = content_key(reference)
    held = [reference[0], reference[0]["arguments"], reference[0]["arguments"]["n"]]
    assert content_key(reference) == before == content_key(json.loads(text)) and held
    assert content_key([1]) != content_key([1.0]) != content_key([True])
    schema: dict = {"type": "integer"}
    for _ in range(60):
        schema = {"anyOf": [schema, schema]}
    assert len(content_key(schema) or b"") < 10_000


def test_datasets_numpy_columns_score_exactly_as_plain_python() -> None:
    datasets = pytest.importorskip("datasets")
    rows = [
        {"prediction": "[get_weather(city='Paris', days=3)]",
         "reference": [{"name": "get_weather", "arguments": {"city": "paris", "days": 3}}],
         "tools": WEATHER, "answer": [{"get_weather": {"city": ["paris"], "days": [3, 4], "unit": ["c", ""]}}]},
        {"prediction": "[get_weather(city='Rome', tags=['a'], where={'lat': 1.5})]",
         "reference": [{"name": "get_weather", "arguments": {"city": "Rome", "tags": ["a"], "where": {"lat": 2.5}}}],
         "tools": WEATHER, "answer": [{"get_weather": {"city": ["rome"], "days": [], "unit": ["c", ""]}}]},
        {"prediction": "no call", "reference": [], "tools": WEATHER, "answer": []},
    ]
    # the same rows as plain Python (Arrow fills absent struct fields with None: both see that)
    rows = datasets.Dataset.from_list(rows).to_list()
    ds = datasets.Dataset.from_list(rows).with_format("numpy")
    assert type(ds["reference"][0]).__module__ == "numpy"  # the inputs really are numpy
    for level in ("call", "arg"):
        metric = ToolCallMetric(level, weights={"get_weather": {"weight": 1 / 3, "arguments": {"days": 0.7}}})
        plain = metric.compute([r["prediction"] for r in rows],
                               [{"calls": r["reference"], "tools": r["tools"]} for r in rows],
                               per_tool=True, return_details=True)
        assert plain["num_examples"] == 3 and (level == "call" or plain["tp"] > 0)
        got = metric.compute(ds["prediction"], [{"calls": r, "tools": t} for r, t in zip(ds["reference"], ds["tools"])],
                             per_tool=True, return_details=True)
        assert got == plain and repr(got) == repr(plain)
        row_by_row = [metric(ds[i]["prediction"], ds[i]["reference"], tools=ds[i]["tools"]) for i in range(len(rows))]
        assert [(s.tp, s.fp, s.fn) for s in row_by_row] == [(d["tp"], d["fp"], d["fn"]) for d in plain["details"]]
        bfcl = ToolCallMetric(level, reference_format="bfcl", tools=WEATHER)
        assert bfcl.compute(ds["prediction"], ds["answer"]) == bfcl.compute([r["prediction"] for r in rows],
                                                                             [r["answer"] for r in rows])


def test_float32_values_read_as_the_decimal_they_hold() -> None:
    """A float32 column (datasets, numpy) holding 0.1 is 0.1, not 0.10000000149011612: the
    shortest decimal that is the same number in float32, through the core and evaluate alike."""
    import numpy as np

    import toolcall_f1

    pred = ["[f(a=0.1, b=[0.2, 2.5])]"]
    gold = [[("f", {"a": np.float32(0.1), "b": np.array([0.2, 2.5], dtype=np.float32)})]]
    assert ToolCallMetric().compute(pred, gold)["f1"] == 1.0
    assert toolcall_f1.load().compute(predictions=pred, references=gold)["f1"] == 1.0
    assert ToolCallMetric().compute(pred, [[("f", {"a": np.float16(0.1), "b": [0.2, 2.5]})]])["f1"] == 1.0


def test_calls_gold_calls_and_scores_pickle() -> None:
    # they hold read-only argument views (mappingproxy), which pickle refused: a Score could not
    # come back from a process pool (ProcessPoolExecutor.map(metric, preds, refs))
    from toolcall_f1 import AnyOf, Call

    call = Call("f", {"a": [1, {"b": 2}]})
    again = pickle.loads(pickle.dumps(call))
    assert again == call and type(again.arguments) is type(call.arguments)
    bfcl = ToolCallMetric("arg", reference_format="bfcl")("[f(a={'x': 1}, u='c')]", [{"f": {"a": [{"x": [1, 2]}], "u": ["c", ""]}}])
    plain = ToolCallMetric("arg")("[f(u='c')]", [Call("f", {"u": AnyOf("c", "celsius", optional=True)})])
    for score in (bfcl, plain):
        back = pickle.loads(pickle.dumps(score))
        assert repr(back) == repr(score) and back.counts == score.counts
        assert type(back.golds[0].arguments) is type(score.golds[0].arguments)
