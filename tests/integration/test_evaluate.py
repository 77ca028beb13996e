"""The real evaluate loader: load by path and by toolcall_f1.load(), offline; streaming;
a real two-process distributed run (num_process=2), including an empty shard."""

from __future__ import annotations

import json
import multiprocessing as mp
import random
import uuid
from pathlib import Path

import evaluate
import pytest

import toolcall_f1
from toolcall_f1 import AnyOf, Call, ToolCallMetric

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "conformance" / "bfcl_sample.jsonl"
FULL = ROOT.parent / "shared" / "conformance" / "bfcl_python.jsonl"
BFCL = dict(level="call", canonicalizer="bfcl", matching="optimal", reference_format="bfcl")


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


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


def test_compute_on_nothing_is_an_empty_corpus() -> None:
    with pytest.raises(ValueError, match="nothing was added: a corpus of zero examples has no score"):
        toolcall_f1.load().compute()


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
    """Plain data is stored as marshal bytes, other shapes as JSON; both read back exactly."""
    from toolcall_f1 import toolcall_f1 as adapter

    values = [
        "[f(x=0.6)]",
        [("f", {"x": 0.6, "y": -0.0, "z": 2**80, "s": "caf\u00e9 \ud800", "t": (1, [2.5e-300])})],
        {"calls": [{"f": {"x": [0.1, ""]}}], "tools": [{"name": "f", "parameters": {"type": "dict"}}]},
        None,
    ]
    for value in values:
        stored = adapter._encode(value)
        assert stored["__toolcall_f1__"] == "marshal"
        back = adapter._decode(stored)
        assert repr(back) == repr(value)
    call = [Call("f", {"x": 0.6})]
    stored = adapter._encode(call)
    assert stored["__toolcall_f1__"] == "json"
    assert adapter._decode(stored) == [{"name": "f", "arguments": {"x": 0.6}}]


def test_a_damaged_stored_input_is_an_error_not_a_crash() -> None:
    from toolcall_f1 import toolcall_f1 as adapter

    for data in ("not base64!", "AAAA", adapter._encode([1, 2])["data"][:-4]):
        with pytest.raises(ValueError, match="a stored toolcall_f1 input could not be read back"):
            adapter._decode({"__toolcall_f1__": "marshal", "data": data})
