"""The real evaluate loader: load by path and by toolcall_f1.load(), offline; streaming;
a real two-process distributed run (num_process=2), including an empty shard."""

from __future__ import annotations

import json
import multiprocessing as mp
import random
import shutil
import sys
import uuid
from pathlib import Path

import evaluate
import numpy as np
import pytest

import toolcall_f1
from toolcall_f1 import AnyOf, Call, ToolCallMetric

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "conformance" / "bfcl_sample.jsonl"
FULL = ROOT.parent / "shared" / "conformance" / "bfcl_python.jsonl"
BFCL = dict(level="call", canonicalizer="bfcl", matching="optimal", reference_format="bfcl")


def _records(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _core(records: list[dict], **kwargs) -> dict:
    """The core API on per-example-tools references: the numbers evaluate must reproduce."""
    metric = ToolCallMetric(**kwargs)
    refs = [{"calls": r["reference"], "tools": r["tools"]} for r in records]
    return metric.compute([r["prediction"] for r in records], refs)


def _via_evaluate(module, records: list[dict], **kwargs) -> dict:
    refs = [{"calls": r["reference"], "tools": r["tools"]} for r in records]
    return module.compute(predictions=[r["prediction"] for r in records], references=refs, **kwargs)


def test_evaluate_load_from_repo_root(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    module = evaluate.load("toolcall_f1")
    records = _records(SAMPLE)
    assert _via_evaluate(module, records, **BFCL) == _core(records, **BFCL)


def test_toolcall_f1_load_from_another_directory(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    module = toolcall_f1.load()
    records = _records(FULL if FULL.exists() else SAMPLE)
    result = _via_evaluate(module, records, **BFCL)
    assert result == _core(records, **BFCL)
    if FULL.exists():
        assert result["exact_match"] == 3641 / 8000


def test_config_name_selects_level() -> None:
    arg = toolcall_f1.load("arg")
    result = arg.compute(predictions=[[("f", {"x": 1, "y": 2})]], references=[[("f", {"x": 1, "y": 3})]])
    assert (result["tp"], result["fp"], result["fn"]) == (2.0, 1.0, 1.0)
    assert result["signature"].startswith("level:arg|")
    with pytest.raises(ValueError, match="config_name"):
        toolcall_f1.load("token")


def test_every_input_shape_streams_through_json_feature() -> None:
    module = toolcall_f1.load()
    preds = [
        '[get_time(tz="UTC")]',                          # raw text
        "[]",                                            # JSON-looking text stays text
        '{"name": "get_time", "arguments": {"tz": "UTC"}}',
        [Call("get_time", {"tz": "UTC"})],               # Call objects
        [("get_time", {"tz": "UTC"})],                   # (name, args) tuples
        {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "get_time", "arguments": '{"tz": "UTC"}'}}]},
    ]
    refs = [[("get_time", {"tz": "UTC"})]] * 5 + [[Call("get_time", {"tz": AnyOf("UTC", "GMT")})]]
    result = module.compute(predictions=preds, references=refs, return_details=True)
    assert [d["exact"] for d in result["details"]] == [True, False, True, True, True, True]
    assert result == ToolCallMetric().compute(preds, refs, return_details=True)


def test_a_none_prediction_is_zero_calls_through_add_as_through_add_batch() -> None:
    refs = [[("f", {})], []]
    expected = ToolCallMetric().compute([None, None], refs)
    one_by_one = toolcall_f1.load()
    for ref in refs:
        one_by_one.add(prediction=None, reference=ref)
    batch = toolcall_f1.load()
    batch.add_batch(predictions=[None, None], references=refs)
    assert one_by_one.compute() == batch.compute() == expected
    assert expected["recall"] == 0.0 and expected["exact_match"] == 0.5


def test_bfcl_prediction_mode_sees_text_not_parsed_json() -> None:
    """datasets.Json would re-read JSON-looking text as JSON; the adapter keeps it text."""
    module = toolcall_f1.load()
    text = '[{"name": "f", "arguments": {}}]'
    result = module.compute(predictions=[text], references=[[("f", {})]], prediction_format="bfcl")
    assert result["num_parse_errors"] == 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_add_and_add_batch_splits_equal_one_shot(seed: int) -> None:
    records = _records(SAMPLE)
    preds = [r["prediction"] for r in records]
    refs = [{"calls": r["reference"], "tools": r["tools"]} for r in records]
    one_shot = toolcall_f1.load().compute(predictions=preds, references=refs, **BFCL, per_tool=True)
    rng = random.Random(seed)
    module = toolcall_f1.load()
    i = 0
    while i < len(preds):
        if rng.random() < 0.3:
            module.add(prediction=preds[i], reference=refs[i])
            i += 1
        else:
            n = rng.randint(0, 40)
            module.add_batch(predictions=preds[i : i + n], references=refs[i : i + n])
            i += n
    assert module.compute(**BFCL, per_tool=True) == one_shot


@pytest.mark.parametrize("second", [False, True], ids=["first", "second"])
def test_compute_on_nothing_is_an_error_saying_so(second: bool) -> None:
    module = toolcall_f1.load()
    if second:
        module.compute(predictions=["[f()]"], references=[[("f", {})]])
    with pytest.raises(ValueError, match="nothing was added"):
        module.compute()


# ----------------------------------------------------------------------------- distributed


def _rank(rank: int, preds, refs, mode: str, experiment_id: str, cache_dir: str, queue) -> None:
    try:
        module = toolcall_f1.load(num_process=2, process_id=rank, experiment_id=experiment_id, cache_dir=cache_dir)
        if mode == "compute":
            result = module.compute(predictions=preds, references=refs, level="arg")
        else:
            for p, r in zip(preds, refs):
                module.add(prediction=p, reference=r)
            result = module.compute(level="arg")
        queue.put((rank, result, None))
    except Exception as err:  # report any failure to the parent test  # noqa: BLE001
        queue.put((rank, None, repr(err)))


def _run_distributed(shards, mode: str, cache_dir: str) -> list:
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    experiment_id = f"test-{uuid.uuid4().hex}"
    procs = [ctx.Process(target=_rank, args=(rank, p, r, mode, experiment_id, cache_dir, queue)) for rank, (p, r) in enumerate(shards)]
    for proc in procs:
        proc.start()
    results = sorted((queue.get(timeout=240) for _ in procs), key=lambda t: t[0])
    for proc in procs:
        proc.join(timeout=60)
    assert [err for _, _, err in results] == [None, None]
    return [res for _, res, _ in results]


@pytest.mark.slow
@pytest.mark.parametrize(
    "mode,split",
    [("compute", "half"), ("add", "rank1-empty"), ("add", "rank0-empty")],
)
def test_two_process_run_equals_one_process(tmp_path, mode: str, split: str) -> None:
    records = _records(SAMPLE)[:60]
    preds = [r["prediction"] for r in records]
    refs = [{"calls": r["reference"], "tools": r["tools"]} for r in records]
    single = ToolCallMetric("arg").compute(preds, refs)
    cut = {"half": 30, "rank1-empty": 60, "rank0-empty": 0}[split]
    shards = [(preds[:cut], refs[:cut]), (preds[cut:], refs[cut:])]
    rank0, rank1 = _run_distributed(shards, mode, str(tmp_path / "cache"))
    assert rank1 is None
    assert rank0 == single


@pytest.mark.slow
def test_two_process_run_with_nothing_anywhere_is_an_error_on_rank_0(tmp_path) -> None:
    """Only a corpus empty on every rank is the error; rank 1 (empty too) just joins."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    experiment_id = f"test-{uuid.uuid4().hex}"
    args = ([], [], "add", experiment_id, str(tmp_path / "cache"), queue)
    procs = [ctx.Process(target=_rank, args=(rank, *args)) for rank in (0, 1)]
    for proc in procs:
        proc.start()
    results = sorted((queue.get(timeout=240) for _ in procs), key=lambda t: t[0])
    for proc in procs:
        proc.join(timeout=60)
    assert results[1] == (1, None, None)
    assert results[0][1] is None and "nothing was added" in results[0][2]


def test_adapter_reads_inputs_exactly_as_the_core_api() -> None:
    """Tuples inside argument values stay values; non-JSON data is the same parse error."""
    deep: list = []
    for _ in range(3000):
        deep = [deep]
    preds = [
        [Call("f", {"x": ("a", "b")})],
        [Call("f", {"x": ("a", None)})],
        [("f", {"x": {1, 2}})],
        [("f", {"x": b"raw"})],
        [("f", {"x": {1: 2}})],
        [("f", {"x": deep})],
        [("f", {"x": float("nan")})],
    ]
    refs = [[("f", {"x": ["a", "b"]})], [("f", {"x": ["a", None]})]] + [[("f", {"x": 1})]] * 5
    direct = ToolCallMetric().compute(preds, refs, return_details=True)
    via = toolcall_f1.load().compute(predictions=preds, references=refs, return_details=True)
    assert [d["exact"] for d in via["details"]] == [True, True, False, False, False, False, False]
    assert via["num_parse_errors"] == direct["num_parse_errors"] == 5
    assert [d["parse_error"] is None for d in via["details"]] == [d["parse_error"] is None for d in direct["details"]]
    assert {k: v for k, v in via.items() if k != "details"} == {k: v for k, v in direct.items() if k != "details"}


def test_stored_inputs_round_trip_exactly() -> None:
    """Every input is stored as JSON text and read back as it was: tuples stay tuples (a
    call or a value, as the core reads them), AnyOf and Call objects stay themselves, floats
    keep every bit, integers beyond json's 4,300 digits survive, a user key equal to the mark
    is data."""
    from toolcall_f1 import stored as adapter

    values = [
        "[f(x=0.6)]",
        '{"__toolcall_f1__": "tuple", "items": []}',
        [("f", {"x": 0.6, "y": -0.0, "z": 2**80, "s": "caf\u00e9 \ud800", "t": (1, [2.5e-300])})],
        {"calls": [{"f": {"x": [0.1, ""]}}], "tools": [{"name": "f", "parameters": {"type": "dict"}}]},
        [Call("f", {"x": ("a", {"b": 1})})],
        [Call("f", {"x": AnyOf(1, 2.5, optional=True)})],
        {"__toolcall_f1__": "tuple", "items": [1]},
        [{"name": "f", "arguments": {"n": 10**5000, "m": -(10**4400)}}],
        [{"name": "f", "arguments": {"x": float("nan"), "y": float("inf")}}],
        None,
    ]
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # repr() of the 5,000-digit integers below
    try:
        for value in values:
            text = adapter.dumps(value)
            assert isinstance(text, str) and text.isascii()
            json.loads(text)  # plain JSON text
            assert repr(adapter.loads(text)) == repr(value)
    finally:
        sys.set_int_max_str_digits(limit)


def test_numpy_values_become_plain_values_when_added() -> None:
    from toolcall_f1 import stored as adapter

    value = {"a": np.int64(3), "b": np.float32(0.5), "c": np.bool_(False), "d": np.array([[1, 2], [3, 4]]),
             "e": np.str_("x"), "f": np.array(["u", "v"]), "g": np.float64(0.1)}
    back = adapter.loads(adapter.dumps([("f", value)]))
    assert back == [("f", {"a": 3, "b": 0.5, "c": False, "d": [[1, 2], [3, 4]], "e": "x", "f": ["u", "v"], "g": 0.1})]
    assert [type(v) for v in back[0][1].values()] == [int, float, bool, list, str, list, float]


def test_numpy_through_evaluate_gives_what_the_core_gives() -> None:
    """An array of strings was stored as its raw UCS-4 bytes (F1 0.0, a parse error)."""
    module = toolcall_f1.load()
    result = module.compute(predictions=np.array(["[f(a=1)]"]), references=[[("f", {"a": 1})]])
    assert (result["f1"], result["num_parse_errors"]) == (1.0, 0)
    preds = [[("f", {"a": np.int64(1), "b": np.float64(0.5), "c": np.bool_(True), "d": np.array([1, 2])})]]
    refs = np.array([json.dumps([{"name": "f", "arguments": {"a": 1, "b": 0.5, "c": True, "d": [1, 2]}}])])
    result = module.compute(predictions=preds, references=refs, return_details=True)
    assert (result["f1"], result["exact_match"], result["num_parse_errors"]) == (1.0, 1.0, 0)
    plain = [[("f", {"a": 1, "b": 0.5, "c": True, "d": [1, 2]})]]
    assert result == ToolCallMetric().compute(plain, [str(r) for r in refs], return_details=True)


def test_datasets_numpy_format_columns() -> None:
    import datasets

    ds = datasets.Dataset.from_dict({
        "prediction": ["[f(a=1)]", "[f(a=2)]", "[g(b=[1, 2])]"],
        "reference": [[{"name": "f", "arguments": {"a": 1}}], [{"name": "f", "arguments": {"a": 1}}],
                      [{"name": "f", "arguments": {"a": 1}}]],
    }).with_format("numpy")
    result = toolcall_f1.load().compute(predictions=ds["prediction"], references=ds["reference"])
    assert (result["tp"], result["fp"], result["fn"], result["num_parse_errors"]) == (1.0, 2.0, 2.0, 0)


def test_a_huge_integer_reads_as_in_the_core() -> None:
    """json refuses integers over 4,300 digits: the adapter stores them as hex and hands the
    core the very integer, so both paths read it alike (whatever the core decides)."""
    big = 10**5000 + 7
    preds, refs = [[Call("f", {"n": big})], [("f", {"n": -big})]], [[("f", {"n": 1})], [("f", {"n": 1})]]
    direct = ToolCallMetric().compute(preds, refs, return_details=True)
    via = toolcall_f1.load().compute(predictions=preds, references=refs, return_details=True)
    assert via == direct


def test_parse_error_is_the_package_class() -> None:
    """evaluate used to import its own copy of the modules: another ToolCallParseError class."""
    module = toolcall_f1.load()
    with pytest.raises(toolcall_f1.ToolCallParseError, match=r"predictions\[0\]: python: unbalanced"):
        module.compute(predictions=["[f(a="], references=[[("f", {})]], on_parse_error="raise")
    adapter = sys.modules[type(module).__module__]
    assert adapter.toolcall_f1 is toolcall_f1


def test_evaluate_names_the_package_when_it_is_not_installed(monkeypatch, tmp_path) -> None:
    folder = tmp_path / "toolcall_f1"
    folder.mkdir()
    shutil.copy(ROOT / "toolcall_f1" / "toolcall_f1.py", folder / "toolcall_f1.py")
    monkeypatch.setitem(sys.modules, "toolcall_f1", None)  # import toolcall_f1 now fails
    with pytest.raises(ImportError, match=r"\['toolcall_f1'\] using 'pip install toolcall_f1'"):
        evaluate.load(str(folder))


def test_non_json_inputs_are_the_parse_errors_of_the_core() -> None:
    preds = [[("f", {"x": {1, 2}})], [("f", {"x": object()})], {1: "a"}]
    result = toolcall_f1.load().compute(predictions=preds, references=[[("f", {"x": 1})]] * 3, return_details=True)
    assert result["num_parse_errors"] == 3
    assert "a set is not a JSON value" in result["details"][0]["parse_error"]
    with pytest.raises(toolcall_f1.ToolCallParseError, match=r"references\[0\]: structured: bytes"):
        toolcall_f1.load().compute(predictions=["[]"], references=[[("f", {"x": b"1"})]])


def test_a_damaged_stored_input_is_an_error_saying_so() -> None:
    from toolcall_f1 import stored

    good = stored.dumps([("f", {"x": AnyOf(1, 2)})])
    for text in ("not json", good[:-3], '{"__toolcall_f1__": "nope"}', '{"__toolcall_f1__": "anyof", "values": []}'):
        with pytest.raises(ValueError, match="a stored toolcall_f1 input could not be read back"):
            stored.loads(text)


def test_a_misspelled_keyword_names_the_nearest_valid_one() -> None:
    """Issue 26 item 18: evaluate's bare TypeError named no option; the adapter names the
    unknown keyword and the nearest valid one (or lists them when none is near)."""
    metric = toolcall_f1.load()
    with pytest.raises(TypeError, match=r"^compute\(\) got an unexpected keyword argument 'per_tools'; "
                                        r"did you mean 'per_tool'\?$"):
        metric.compute(predictions=["[f()]"], references=[[("f", {})]], per_tools=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'zzz'; expected one of 'level', 'matching'"):
        metric.compute(predictions=["[f()]"], references=[[("f", {})]], zzz=1)
