"""evaluate's runtime state in the module: it pickles at every stage (before use, mid-accumulation,
after a compute, after a failed compute) and a failed compute leaves it usable.

What a copy pickled mid-accumulation holds: no examples. evaluate keeps added examples in an Arrow
cache file that the original has open and locked; a copy cannot share it, so it starts as a freshly
loaded module would (a UserWarning says how many examples it left behind) and the original keeps them.
"""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import dill
import pytest

import toolcall_f1
from toolcall_f1 import ToolCallMetric

PREDS = ['[search(q="cats"), delete_all()]', "[f()]", "[g(x=1)]"]
REFS = [[("search", {"q": "cats"}), ("answer", {"a": "meow"})], [("f", {})], [("g", {"x": 2})]]
UNREADABLE_REF = "[f("  # unbalanced: compute raises naming references[0]


def _round_trip(module, dumps=pickle.dumps, loads=pickle.loads):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the mid-accumulation warning has its own test
        return loads(dumps(module))


def _fail_once(module) -> None:
    with pytest.raises(toolcall_f1.ToolCallParseError, match=r"references\[\d+\]: python: unbalanced"):
        module.compute(predictions=["[f()]"], references=[UNREADABLE_REF])


@pytest.fixture
def expected() -> dict:
    return ToolCallMetric().compute(PREDS, REFS)


@pytest.mark.parametrize("dumps, loads", [(pickle.dumps, pickle.loads), (dill.dumps, dill.loads)],
                         ids=["pickle", "dill"])
def test_round_trip_at_every_stage_scores_as_an_unpickled_module(dumps, loads, expected, tmp_path) -> None:
    module = toolcall_f1.load(cache_dir=str(tmp_path))
    fresh_copy = _round_trip(module, dumps, loads)
    assert fresh_copy.compute(predictions=PREDS, references=REFS) == expected

    module.add_batch(predictions=PREDS, references=REFS)
    _round_trip(module, dumps, loads)
    assert module.compute() == expected  # pickling left the original's examples in place

    after_compute = _round_trip(module, dumps, loads)
    assert after_compute.compute(predictions=PREDS, references=REFS) == expected

    _fail_once(module)
    after_failure = _round_trip(module, dumps, loads)
    assert after_failure.compute(predictions=PREDS, references=REFS) == expected
    assert module.compute(predictions=PREDS, references=REFS) == expected


def test_copy_pickled_mid_accumulation_starts_empty_and_says_so(expected, tmp_path) -> None:
    module = toolcall_f1.load(cache_dir=str(tmp_path))
    module.add_batch(predictions=PREDS[:2], references=REFS[:2])
    with pytest.warns(UserWarning, match="holding 2 added examples: the copy starts with none"):
        copy = pickle.loads(pickle.dumps(module))
    assert len(copy) == 0 and len(module) == 2
    assert copy.compute.__self__ is copy  # its methods are bound to the copy, not to the original
    with pytest.raises(ValueError):
        copy.compute()  # nothing added to the copy: an empty corpus has no score
    copy.add_batch(predictions=PREDS, references=REFS)
    assert copy.compute() == expected
    module.add(prediction=PREDS[2], reference=REFS[2])
    assert module.compute() == expected


def test_a_fresh_or_computed_module_pickles_without_a_warning(tmp_path) -> None:
    module = toolcall_f1.load(cache_dir=str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        pickle.dumps(module)
        module.compute(predictions=PREDS, references=REFS)
        pickle.dumps(module)


@pytest.mark.parametrize("keep_in_memory", [False, True], ids=["cache-file", "in-memory"])
def test_compute_after_a_failed_compute_scores_and_leaves_no_cache_file(keep_in_memory, expected, tmp_path) -> None:
    module = toolcall_f1.load(cache_dir=str(tmp_path), keep_in_memory=keep_in_memory)
    module.add_batch(predictions=PREDS, references=REFS)
    _fail_once(module)  # the added examples and the bad one were read, then the compute raised
    assert module.data is None and module.filelocks is None
    assert list(Path(tmp_path).rglob("*.arrow")) == []  # evaluate left the read cache file behind
    assert module.compute(predictions=PREDS, references=REFS) == expected
    _fail_once(module)
    module.add_batch(predictions=PREDS, references=REFS)
    assert module.compute() == expected


def test_a_compute_failing_before_the_inputs_are_read_keeps_the_added_examples(expected, tmp_path) -> None:
    """A mismatched batch fails in add_batch, before evaluate reads anything: what was added
    stays, as with evaluate's own metrics."""
    module = toolcall_f1.load(cache_dir=str(tmp_path))
    module.add_batch(predictions=PREDS, references=REFS)
    with pytest.raises(ValueError, match="Mismatch in the number of predictions"):
        module.compute(predictions=PREDS, references=REFS[:1])
    assert module.compute() == expected


def test_datasets_map_with_num_proc_ships_a_used_module_to_its_workers(tmp_path) -> None:
    """datasets.map(num_proc=2) pickles the function, and the module it closes over, with dill
    for the workers; the module has computed and failed once before (it used not to pickle)."""
    datasets = pytest.importorskip("datasets")
    module = toolcall_f1.load(cache_dir=str(tmp_path))
    module.compute(predictions=PREDS, references=REFS)
    _fail_once(module)

    def score_each(row: dict) -> dict:
        refs = toolcall_f1.stored.loads(row["reference"])
        return {"f1": module.compute(predictions=[row["prediction"]], references=[refs])["f1"]}

    rows = datasets.Dataset.from_dict({"prediction": PREDS, "reference": [toolcall_f1.stored.dumps(r) for r in REFS]})
    scored = rows.map(score_each, num_proc=2)
    assert scored["f1"] == [ToolCallMetric().compute([p], [r])["f1"] for p, r in zip(PREDS, REFS)]


def test_a_compute_failing_in_finalize_after_a_computed_one_keeps_the_added_examples(expected, tmp_path,
                                                                                     monkeypatch) -> None:
    """A compute that returned leaves its cache files' names behind (evaluate's): a later compute
    failing before it reads the data back (a distributed rendez-vous timing out) must not delete
    the file now holding the examples added since (the attack review found it did)."""
    module = toolcall_f1.load(cache_dir=str(tmp_path))
    assert module.compute(predictions=PREDS, references=REFS) == expected
    module.add_batch(predictions=PREDS, references=REFS)

    def timed_out(*args, **kwargs):
        raise TimeoutError("rendez-vous")

    monkeypatch.setattr(module, "_get_all_cache_files", timed_out)
    with pytest.raises(TimeoutError):
        module.compute()
    assert len(list(Path(tmp_path).rglob("*.arrow"))) == 1  # the added examples' cache file


def test_a_shallow_copy_scores_its_own_examples(expected, tmp_path) -> None:
    # evaluate binds compute/add_batch/add to the instance: copy.copy's copy used the
    # original's, scoring the original's examples and emptying it
    import copy

    module = toolcall_f1.load(cache_dir=str(tmp_path))
    module.add_batch(predictions=PREDS, references=REFS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the copy starts with none: its own test
        shallow = copy.copy(module)
    assert shallow.compute.__self__ is shallow and shallow.add_batch.__self__ is shallow
    assert shallow.compute(predictions=PREDS, references=REFS) == expected
    assert module.compute() == expected
