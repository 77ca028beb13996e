"""make_compute_metrics with transformers' Trainer: the logged numbers are the metric's.

Everything is built locally — a word-level tokenizer from the ``tokenizers`` library and
tiny T5 / GPT-2 models from a config — and trained a few steps on CPU; no hub is reached
(network connections are refused for the whole module). The unit tests drive the callable
with hand-made ``EvalPrediction``s; the ``slow`` ones run ``Seq2SeqTrainer`` end to end and
compare its ``eval_*`` numbers with ``ToolCallMetric().compute`` on the decoded outputs.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")
pytest.importorskip("evaluate")

import toolcall_f1  # noqa: E402
from toolcall_f1 import ToolCallMetric, ToolCallWarning  # noqa: E402
from toolcall_f1.trainer import (  # noqa: E402
    COMPUTE_OPTIONS,
    STRIP_MODES,
    ToolCallComputeMetrics,
    loggable,
    make_compute_metrics,
    token_rows,
)

from .tiny_models import tiny_gpt2, word_tokenizer  # noqa: E402

EvalPrediction = transformers.EvalPrediction

NUMERIC = (
    "f1",
    "precision",
    "recall",
    "exact_match",
    "tp",
    "fp",
    "fn",
    "num_examples",
    "num_parse_errors",
    "hallucinated_tools",
    "hallucinated_args",
    "superset_match",
    "subset_match",
)

# prompt -> calls, written with a space between tokens (the tokenizer splits on whitespace;
# Python call syntax does not mind the spaces)
EXAMPLES = [
    ("weather in Paris =>", "[ get_weather ( city = 'Paris' ) ]"),
    ("weather in Rome =>", "[ get_weather ( city = 'Rome' ) ]"),
    ("time in Tokyo =>", "[ get_time ( city = 'Tokyo' ) ]"),
    ("weather in Oslo , time in Lima =>", "[ get_weather ( city = 'Oslo' ) , get_time ( city = 'Lima' ) ]"),
]
EVAL = [*EXAMPLES, ("time in Paris =>", "[ get_time ( city = 'Paris' ) ]")]
WORDS = sorted({w for prompt, calls in EVAL for w in f"{prompt} {calls}".split()} | {"###", "noise"})


# -- isolation: no Hub, no network (tests/integration/conftest.py) ----------------------------

pytestmark = [
    pytest.mark.usefixtures("offline_hub"),
    # these tests score rows without EvalPrediction.inputs on purpose: the metric's expected
    # warning (asserted where it is the subject: test_auto_without_inputs_says_the_prompt_is_scored_too)
    pytest.mark.filterwarnings("ignore:strip_prompt='auto'. EvalPrediction.inputs is not set:UserWarning"),
]


@pytest.fixture(scope="module")
def metric_module() -> Any:
    """One evaluate module for the unit tests (loading takes a second or two)."""
    return toolcall_f1.load(keep_in_memory=True)


# -- a tiny tokenizer -------------------------------------------------------------------


@pytest.fixture(scope="module")
def tok() -> Any:
    return word_tokenizer(WORDS)


def ids(tk: Any, text: str) -> list[int]:
    return list(tk(text)["input_ids"])


def batch(rows: list[list[int]], *, fill: int = -100, left: bool = False) -> np.ndarray:
    """Rows padded with ``fill`` to one width (on the right, or the left)."""
    width = max(len(r) for r in rows)
    pad = [[fill] * (width - len(r)) for r in rows]
    return np.array([p + r if left else r + p for r, p in zip(rows, pad)], dtype=np.int64)


def expected(predictions: list[Any], references: list[Any], **kwargs: Any) -> dict[str, Any]:
    return ToolCallMetric().compute(predictions, references, **kwargs)


def assert_same_numbers(metrics: dict[str, Any], want: dict[str, Any], prefix: str = "") -> None:
    for key in NUMERIC:
        assert metrics[prefix + key] == want[key], key  # exactly, not approximately


# Predictions with two partial hits, a wrong call, and a parse error; golds as text.
PREDS = [
    "[ get_weather ( city = 'Paris' ) ]",
    "[ get_weather ( city = 'Oslo' ) ]",
    "[ get_time ( city = 'Tokyo' ) , get_time ( city = 'Lima' ) ]",
    "[ get_weather ( city = city",
]
GOLDS = [
    "[ get_weather ( city = 'Paris' ) ]",
    "[ get_weather ( city = 'Rome' ) ]",
    "[ get_time ( city = 'Tokyo' ) ]",
    "[ get_weather ( city = 'Oslo' ) , get_time ( city = 'Lima' ) ]",
]


# -- decoding -----------------------------------------------------------------------------


def test_ignore_index_tuple_outputs_and_labels(tok: Any, metric_module: Any) -> None:
    preds = batch([ids(tok, p) for p in PREDS])  # right-padded with -100, as Trainer does
    labels = batch([ids(tok, g) for g in GOLDS])
    hidden = np.zeros((len(PREDS), 3, 2))
    compute_metrics = make_compute_metrics(tok, metric=metric_module)
    texts, refs = compute_metrics.decode(EvalPrediction(predictions=(preds, hidden), label_ids=labels))
    assert texts == PREDS and refs == GOLDS
    scores = compute_metrics(EvalPrediction(predictions=(preds, hidden), label_ids=labels))
    want = expected(PREDS, GOLDS)
    assert want["num_parse_errors"] == 1 and 0 < want["f1"] < 1
    assert_same_numbers(scores, want)
    decisions = {f"call_decision/{k}" for k, v in want["call_decision"].items() if v is not None}
    assert set(scores) == set(NUMERIC) | decisions  # numbers only: no signature
    assert all(scores[k] == want["call_decision"][k.partition("/")[2]] for k in decisions)
    assert compute_metrics.signature == want["signature"]


def test_replacing_ignore_index_by_pad_decodes_the_same(tok: Any) -> None:
    preds = batch([ids(tok, p) for p in PREDS])
    by_pad = tok.batch_decode(np.where(preds == -100, tok.pad_token_id, preds), skip_special_tokens=True)
    compute_metrics = make_compute_metrics(tok, metric=ToolCallMetric(), references=GOLDS)
    assert compute_metrics.decode((preds, preds))[0] == by_pad


def test_logits_are_argmaxed(tok: Any, metric_module: Any) -> None:
    rows = batch([ids(tok, p) for p in PREDS], fill=tok.pad_token_id)
    logits = np.eye(len(tok), dtype=np.float32)[rows] * 5.0  # (batch, length, vocab)
    labels = batch([ids(tok, g) for g in GOLDS])
    scores = make_compute_metrics(tok, metric=metric_module)(EvalPrediction(predictions=logits, label_ids=labels))
    assert_same_numbers(scores, expected(PREDS, GOLDS))


def test_torch_tensors_lists_and_per_batch_arrays(tok: Any) -> None:
    rows = [ids(tok, p) for p in PREDS]
    labels = batch([ids(tok, g) for g in GOLDS])
    want = expected(PREDS, GOLDS)
    compute_metrics = make_compute_metrics(tok, metric=ToolCallMetric())
    as_tensor = torch.tensor(batch(rows))
    assert_same_numbers(compute_metrics((as_tensor, torch.tensor(labels))), want)
    assert_same_numbers(compute_metrics((rows, labels.tolist())), want)  # ragged list of rows
    # eval_do_concat_batches=False: one array per batch, each of its own width
    per_batch = [batch(rows[:2]), batch(rows[2:])]
    assert_same_numbers(compute_metrics((per_batch, [labels[:2], labels[2:]])), want)
    bf16_logits = torch.nn.functional.one_hot(torch.tensor(batch(rows, fill=0)), len(tok)).to(torch.bfloat16)
    assert_same_numbers(compute_metrics((bf16_logits, labels)), want)


@pytest.mark.parametrize(
    "value, message",
    [
        (np.array([1, 2, 3]), "got shape (3,)"),
        (np.zeros((1, 2, 3, 4)), "got shape (1, 2, 3, 4)"),
        (np.array([[0.5, 1.0]]), "expected integer token ids"),
        (None, "got None"),
    ],
    ids=["1-d", "4-d", "float-ids", "none"],
)
def test_token_rows_rejects_what_is_not_ids(value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        token_rows(value)


# -- batch_eval_metrics ---------------------------------------------------------------------


def test_batches_give_the_one_shot_numbers(tok: Any, metric_module: Any) -> None:
    refs = [
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        [{"name": "get_weather", "arguments": {"city": "Rome"}}],
        "[get_time(city='Tokyo')]",
        [("get_weather", {"city": "Oslo"}), ("get_time", {"city": "Lima"})],
    ]
    rows = [ids(tok, p) for p in PREDS]
    dummy_labels = np.zeros(7)  # with references=, the labels are not read at all
    compute_metrics = make_compute_metrics(tok, references=refs, metric=metric_module)
    one_shot = compute_metrics((batch(rows), np.zeros((4, 1), dtype=np.int64)))
    want = expected(PREDS, refs)
    assert_same_numbers(one_shot, want)
    for _ in range(2):  # the state is reset after each corpus
        assert compute_metrics((batch(rows[:1]), dummy_labels), compute_result=False) == {}
        assert compute_metrics((batch(rows[1:3]), np.zeros((2, 1))), compute_result=False) == {}
        last = compute_metrics((torch.tensor(batch(rows[3:])), dummy_labels), compute_result=True)
        assert last == one_shot


def test_batches_from_labels(tok: Any, metric_module: Any) -> None:
    compute_metrics = make_compute_metrics(tok, metric=metric_module, level="arg", per_tool=True)
    for start, stop in ((0, 3), (3, 4)):
        pred = batch([ids(tok, p) for p in PREDS[start:stop]])
        labels = batch([ids(tok, g) for g in GOLDS[start:stop]])
        scores = compute_metrics(EvalPrediction(predictions=pred, label_ids=labels), compute_result=stop == 4)
    want = ToolCallMetric("arg").compute(PREDS, GOLDS, per_tool=True)
    assert_same_numbers(scores, want)
    assert scores["per_tool/get_time/f1"] == want["per_tool"]["get_time"]["f1"]
    assert compute_metrics.last_result is not None
    assert compute_metrics.last_result["per_tool"] == want["per_tool"]


@pytest.mark.parametrize("core", [True, False], ids=["core", "evaluate"])
def test_a_label_without_a_call_expects_no_call(tok: Any, metric_module: Any, core: bool) -> None:
    """A decoded label is the model's target reply: a text answer there is an example where no
    call is expected (as prose in a prediction), not the error a bare reference text gives."""
    preds, golds = [PREDS[0], "noise ###", PREDS[0]], [GOLDS[0], "noise ###", "noise"]
    compute_metrics = make_compute_metrics(tok, metric=ToolCallMetric() if core else metric_module)
    scores = compute_metrics(EvalPrediction(predictions=batch([ids(tok, p) for p in preds]),
                                            label_ids=batch([ids(tok, g) for g in golds])))
    assert_same_numbers(scores, expected(preds, [GOLDS[0], [], []]))
    assert scores["fp"] == 1.0 and scores["exact_match"] == 2 / 3
    with pytest.raises(ValueError, match=r"references\[1\]: auto: no call can be read from this reference text"):
        ToolCallMetric().compute(preds, golds)  # the same texts given as references


def test_wrong_number_of_references_raises_and_resets(tok: Any) -> None:
    rows = [ids(tok, p) for p in PREDS]
    compute_metrics = make_compute_metrics(tok, references=GOLDS[:3], metric=ToolCallMetric())
    with pytest.raises(ValueError, match=r"references: 3 given, but the evaluation reached example 3"):
        compute_metrics((batch(rows), batch(rows)))
    compute_metrics = make_compute_metrics(tok, references=GOLDS + GOLDS[:1], metric=ToolCallMetric())
    compute_metrics((batch(rows[:2]), batch(rows[:2])), compute_result=False)
    with pytest.raises(ValueError, match=r"references: 5 given, but the evaluation produced 4"):
        compute_metrics((batch(rows[2:]), batch(rows[2:])), compute_result=True)
    # the failed corpus is gone: the next evaluation starts at example 0
    ok = make_compute_metrics(tok, references=GOLDS, metric=ToolCallMetric())
    ok((batch(rows[:2]), batch(rows[:2])), compute_result=False)
    with pytest.raises(ValueError):
        ok((np.array([1, 2]), None), compute_result=False)
    assert_same_numbers(ok((batch(rows), batch(rows))), expected(PREDS, GOLDS))


# -- prompt stripping (decoder-only) -----------------------------------------------------------


def decoder_only_batch(tk: Any, items: list[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """What generate() returns for a decoder-only model: [left-padded prompt, answer, pad]."""
    prompts = batch([ids(tk, p) for p, _ in items], fill=tk.pad_token_id, left=True)
    answers = batch([ids(tk, a) + [tk.eos_token_id] for _, a in items], fill=tk.pad_token_id)
    return np.concatenate([prompts, answers], axis=1), prompts


@pytest.mark.parametrize("mode", ["inputs", "auto", True])
def test_strip_prompt_by_inputs(tok: Any, mode: Any) -> None:
    items = [(p, a) for (p, _), a in zip(EXAMPLES, PREDS)]
    first, first_inputs = decoder_only_batch(tok, items[:3])
    second, second_inputs = decoder_only_batch(tok, items[3:])
    compute_metrics = make_compute_metrics(tok, references=GOLDS, strip_prompt=mode, metric=ToolCallMetric())
    # one-shot: the Trainer concatenates batches, padding every array with -100
    width = max(first.shape[1], second.shape[1])

    def widen(a: np.ndarray) -> np.ndarray:
        return np.pad(a, ((0, 0), (0, width - a.shape[1])), constant_values=-100)

    preds = np.concatenate([widen(first), widen(second)])
    inputs = np.concatenate([widen(first_inputs), widen(second_inputs)])
    labels = np.zeros((4, 1), dtype=np.int64)
    assert compute_metrics.decode(EvalPrediction(preds, labels, inputs=inputs))[0] == PREDS
    assert_same_numbers(compute_metrics(EvalPrediction(preds, labels, inputs=inputs)), expected(PREDS, GOLDS))
    # batch_eval_metrics: EvalPrediction.inputs is the whole batch dict, as tensors
    compute_metrics(
        EvalPrediction(torch.tensor(first), torch.tensor(labels[:3]),
                       inputs={"input_ids": torch.tensor(first_inputs), "attention_mask": None}),
        compute_result=False,
    )
    last = compute_metrics(
        EvalPrediction(torch.tensor(second), torch.tensor(labels[3:]), inputs={"input_ids": torch.tensor(second_inputs)}),
        compute_result=True,
    )
    assert_same_numbers(last, expected(PREDS, GOLDS))


def test_strip_prompt_inputs_is_strict_and_auto_is_not(tok: Any) -> None:
    # an encoder-decoder output does not begin with the (encoder) input
    preds = batch([[tok.pad_token_id, *ids(tok, p)] for p in PREDS])
    inputs = batch([ids(tok, p) for p, _ in EXAMPLES])
    labels = batch([ids(tok, g) for g in GOLDS])
    strict = make_compute_metrics(tok, strip_prompt="inputs", metric=ToolCallMetric())
    with pytest.raises(ValueError, match=r"predictions\[0\]: does not begin with its prompt"):
        strict(EvalPrediction(preds, labels, inputs=inputs))
    with pytest.raises(ValueError, match="include_for_metrics=\\['inputs'\\]"):
        strict(EvalPrediction(preds, labels))
    auto = make_compute_metrics(tok, metric=ToolCallMetric())
    assert auto.decode(EvalPrediction(preds, labels, inputs=inputs))[0] == PREDS
    assert_same_numbers(auto(EvalPrediction(preds, labels, inputs=inputs)), expected(PREDS, GOLDS))
    with pytest.raises(ValueError, match="inputs: 3 rows for 4 prediction rows"):
        auto(EvalPrediction(preds, labels, inputs=inputs[:3]))


def test_strip_prompt_by_lengths(tok: Any) -> None:
    items = [(p, a) for (p, _), a in zip(EXAMPLES, PREDS)]
    lengths = [len(ids(tok, p)) for p, _ in items]
    first, _ = decoder_only_batch(tok, items[:2])
    second, _ = decoder_only_batch(tok, items[2:])
    compute_metrics = make_compute_metrics(tok, references=GOLDS, prompt_lengths=lengths, metric=ToolCallMetric())
    assert compute_metrics.strip_prompt == "lengths"
    compute_metrics((first, np.zeros((2, 1))), compute_result=False)  # offsets index the lengths
    assert_same_numbers(compute_metrics((second, np.zeros((2, 1)))), expected(PREDS, GOLDS))
    too_long = make_compute_metrics(tok, references=GOLDS[:2], prompt_lengths=[99, 1], metric=ToolCallMetric())
    with pytest.raises(ValueError, match=r"predictions\[0\]: .* shorter than prompt_lengths\[0\] = 99"):
        too_long((first, np.zeros((2, 1))))


def test_strip_prompt_by_marker(tok: Any) -> None:
    texts = [f"{p} ### noise ### {a}" for (p, _), a in zip(EXAMPLES, PREDS)]
    labels = [f"{p} ### {g}" for (p, _), g in zip(EXAMPLES, GOLDS)]
    texts[1] = PREDS[1]  # no marker: kept whole
    compute_metrics = make_compute_metrics(tok, response_marker="###", metric=ToolCallMetric())
    assert compute_metrics.strip_prompt == "marker"
    preds, refs = compute_metrics.decode((batch([ids(tok, t) for t in texts]), batch([ids(tok, t) for t in labels])))
    assert [p.strip() for p in preds] == PREDS and [r.strip() for r in refs] == GOLDS
    scores = compute_metrics((batch([ids(tok, t) for t in texts]), batch([ids(tok, t) for t in labels])))
    assert_same_numbers(scores, expected(preds, refs))
    assert_same_numbers(scores, expected(PREDS, GOLDS))  # the parser ignores the leading space


def test_strip_prompt_by_labels_for_teacher_forced_logits(tok: Any) -> None:
    # causal LM, plain Trainer: labels = prompt masked with -100, then the answer;
    # the logit at t predicts token t + 1
    prompt, answer = ids(tok, EXAMPLES[0][0]), ids(tok, EXAMPLES[0][1]) + [tok.eos_token_id]
    labels = np.array([[-100] * len(prompt) + answer])
    predicted_next = np.array([prompt[1:] + answer + [tok.pad_token_id]])
    logits = np.eye(len(tok), dtype=np.float32)[predicted_next]
    compute_metrics = make_compute_metrics(tok, strip_prompt="labels", label_shift=1, metric=ToolCallMetric())
    preds, refs = compute_metrics.decode(EvalPrediction(logits, labels))
    assert preds == refs == [EXAMPLES[0][1]]
    assert compute_metrics(EvalPrediction(logits, labels))["exact_match"] == 1.0


def test_strip_prompt_none_keeps_everything(tok: Any) -> None:
    full, inputs = decoder_only_batch(tok, [(EXAMPLES[0][0], PREDS[0])])
    compute_metrics = make_compute_metrics(tok, strip_prompt=False, metric=ToolCallMetric())
    preds, _ = compute_metrics.decode(EvalPrediction(full, full, inputs=inputs))
    assert preds == [f"{EXAMPLES[0][0]} {PREDS[0]}"]


# -- options ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"levle": "arg"}, TypeError, "unknown compute option 'levle'"),
        ({"level": "token"}, ValueError, "level: unknown value 'token'"),
        ({"matching": "best"}, ValueError, "matching: unknown value 'best'"),
        ({"weights": {"f": -1}}, ValueError, "f"),
        ({"strip_prompt": "prefix"}, ValueError, "strip_prompt: unknown value 'prefix'"),
        ({"strip_prompt": "lengths"}, ValueError, "needs prompt_lengths"),
        ({"strip_prompt": "marker"}, ValueError, "needs response_marker"),
        ({"prompt_lengths": [1], "response_marker": "#"}, ValueError, "not both"),
        ({"prompt_lengths": [1], "strip_prompt": "inputs"}, ValueError, "only used with strip_prompt='lengths'"),
        ({"prompt_lengths": [-1]}, ValueError, r"prompt_lengths\[0\]"),
        ({"response_marker": ""}, ValueError, "response_marker"),
        ({"label_shift": 1}, ValueError, "only used with strip_prompt='labels'"),
        ({"metric": ToolCallMetric(), "level": "arg"}, ValueError, "level: set it on the ToolCallMetric"),
        ({"metric": object()}, TypeError, "metric: expected"),
    ],
    ids=[
        "typo", "level", "matching", "weights", "strip-mode", "lengths-missing", "marker-missing",
        "lengths-and-marker", "lengths-unused", "negative-length", "empty-marker", "shift-unused",
        "core-setup-option", "not-a-metric",
    ],
)
def test_invalid_options_fail_at_construction(
    tok: Any, metric_module: Any, kwargs: dict[str, Any], error: type, message: str
) -> None:
    kwargs = {"metric": metric_module, **kwargs}
    with pytest.raises(error, match=message):
        make_compute_metrics(tok, **kwargs)


def test_strip_modes_listed() -> None:
    assert STRIP_MODES == ("auto", "none", "inputs", "lengths", "marker", "labels")


def test_core_metric_and_evaluate_module_agree(tok: Any, metric_module: Any) -> None:
    preds, labels = batch([ids(tok, p) for p in PREDS]), batch([ids(tok, g) for g in GOLDS])
    core = make_compute_metrics(tok, metric=ToolCallMetric("arg", matching="optimal"), per_tool=True)
    module = make_compute_metrics(tok, metric=metric_module, level="arg", matching="optimal", per_tool=True)
    assert core((preds, labels)) == module((preds, labels))
    assert core.signature == module.signature


def test_compute_options_are_the_evaluate_modules_compute_keywords() -> None:
    """One vocabulary: make_compute_metrics takes exactly what the evaluate module's compute
    takes (both from the Settings table), and the core's signatures agree with the table."""
    import inspect

    from toolcall_f1 import Settings
    from toolcall_f1.settings import CORPUS_OPTIONS, OUTPUT_OPTIONS

    assert COMPUTE_OPTIONS == Settings.names() + OUTPUT_OPTIONS + CORPUS_OPTIONS
    core = {name for method in (ToolCallMetric.__init__, ToolCallMetric.compute)
            for name, p in inspect.signature(method).parameters.items()
            if p.kind is not p.VAR_KEYWORD}  # (compute's **unexpected only words the TypeError)
    # groups= is the core's alone: elsewhere a reference's "group" key gives the groups (SPEC §8b)
    assert set(COMPUTE_OPTIONS) == core - {"self", "predictions", "references", "grammar", "groups"}
    module = toolcall_f1.load(keep_in_memory=True)
    defaults = make_defaults()
    assert sorted(defaults) == sorted(COMPUTE_OPTIONS)
    assert module.compute(predictions=["[f()]"], references=["[f()]"], **defaults)["f1"] == 1.0
    with pytest.raises(TypeError, match="unexpected keyword argument 'levl'; did you mean 'level'"):
        module.compute(predictions=["[f()]"], references=["[f()]"], levl="arg")


def make_defaults() -> dict[str, Any]:
    """Every compute option at its default."""
    return {"level": "call", "matching": "greedy", "order": "any", "canonicalizer": None, "name_canonicalizer": None,
            "prediction_format": "auto", "reference_format": "auto", "on_parse_error": "count", "tools": None,
            "weights": None, "rules": None, "per_tool": False, "return_details": False, "progress": False,
            "confidence_level": None, "n_resamples": 1000, "seed": 12345, "pass_k": None}


def _numpy_references() -> list[Any]:
    """GOLDS as a datasets numpy-format column of call dicts (object arrays of numpy strings)."""
    import datasets

    rows = [[{"name": c.name, "arguments": dict(c.arguments)} for c in toolcall_f1.parse_calls(g)] for g in GOLDS]
    return datasets.Dataset.from_dict({"reference": rows}).with_format("numpy")["reference"]


@pytest.mark.parametrize("shape", ["array-of-text", "numpy-column"])
def test_numpy_references_read_as_their_plain_values(tok: Any, metric_module: Any, shape: str) -> None:
    preds = batch([ids(tok, p) for p in PREDS])
    labels = batch([ids(tok, g) for g in GOLDS])
    refs = np.array(GOLDS) if shape == "array-of-text" else _numpy_references()
    want = make_compute_metrics(tok, metric=metric_module, references=GOLDS)((preds, labels))
    assert (want["num_parse_errors"], want["tp"], want["fp"], want["fn"]) == (1, 2.0, 2.0, 3.0)
    got = make_compute_metrics(tok, metric=metric_module, references=refs)((preds, labels))
    assert got == want
    if shape == "numpy-column" and not hasattr(toolcall_f1.calls, "plain_json"):
        pytest.skip("the core reads numpy arrays as lists from branch trustcore on")
    core = make_compute_metrics(tok, metric=ToolCallMetric(), references=refs)((preds, labels))
    assert core == want


def test_loggable_drops_text_and_flattens_per_tool() -> None:
    result = expected(PREDS, GOLDS, per_tool=True, return_details=True)
    flat = loggable(result)
    assert "signature" not in flat and "details" not in flat and "per_tool" not in flat
    assert flat["per_tool/get_weather/recall"] == result["per_tool"]["get_weather"]["recall"]
    assert all(isinstance(v, (int, float)) for v in flat.values())


def test_returns_a_trainer_compatible_callable(tok: Any) -> None:
    import inspect

    compute_metrics = make_compute_metrics(tok, metric=ToolCallMetric())
    assert isinstance(compute_metrics, ToolCallComputeMetrics)
    # Trainer checks this before accepting batch_eval_metrics=True
    assert "compute_result" in inspect.signature(compute_metrics).parameters
    with pytest.raises(TypeError, match="eval_pred"):
        compute_metrics("not an EvalPrediction")


# -- the Trainer, end to end ---------------------------------------------------------------------


def seq2seq_args(tmp_path: Any, **kwargs: Any) -> Any:
    return transformers.Seq2SeqTrainingArguments(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=4,
        per_device_eval_batch_size=3,  # 5 eval examples: batches of 3 and 2, of different widths
        max_steps=40,
        learning_rate=3e-2,
        report_to=[],
        use_cpu=True,
        predict_with_generate=True,
        save_strategy="no",
        logging_strategy="no",
        eval_strategy="no",
        disable_tqdm=True,
        dataloader_num_workers=0,
        seed=0,
        **kwargs,
    )


@pytest.mark.slow
def test_seq2seq_trainer_t5(tmp_path: Any, one_thread: None) -> None:
    tk = word_tokenizer(WORDS, padding_side="right")
    train = [{"input_ids": ids(tk, p), "labels": ids(tk, c) + [tk.eos_token_id]} for p, c in EXAMPLES]
    eval_ds = [{"input_ids": ids(tk, p), "labels": ids(tk, c) + [tk.eos_token_id]} for p, c in EVAL]
    config = transformers.T5Config(
        vocab_size=len(tk), d_model=32, d_ff=64, d_kv=16, num_layers=1, num_decoder_layers=1, num_heads=2,
        pad_token_id=tk.pad_token_id, eos_token_id=tk.eos_token_id, decoder_start_token_id=tk.pad_token_id,
    )
    torch.manual_seed(0)
    model = transformers.T5ForConditionalGeneration(config)
    args = seq2seq_args(tmp_path, generation_max_length=24)
    collator = transformers.DataCollatorForSeq2Seq(tk, model=model)
    compute_metrics = make_compute_metrics(tk, per_tool=True)  # references from the labels
    trainer = transformers.Seq2SeqTrainer(
        model=model, args=args, train_dataset=train, eval_dataset=eval_ds, processing_class=tk,
        data_collator=collator, compute_metrics=compute_metrics,
    )
    trainer.train()
    metrics = trainer.evaluate()

    # decode the generations ourselves, the usual way, and score them with the core metric
    out = trainer.predict(eval_ds)
    generated = np.where(out.predictions == -100, tk.pad_token_id, out.predictions)
    texts = tk.batch_decode(generated, skip_special_tokens=True)
    want = ToolCallMetric().compute(texts, [c for _, c in EVAL], per_tool=True)
    assert want["num_examples"] == 5
    assert_same_numbers(metrics, want, prefix="eval_")
    assert_same_numbers(out.metrics, want, prefix="test_")
    for name, stats in want["per_tool"].items():
        assert metrics[f"eval_per_tool/{name}/f1"] == stats["f1"]
    assert "eval_signature" not in metrics
    assert compute_metrics.signature == want["signature"]

    # batch_eval_metrics=True: the same numbers, batch by batch
    batched = transformers.Seq2SeqTrainer(
        model=model, args=dataclasses.replace(args, batch_eval_metrics=True), eval_dataset=eval_ds,
        processing_class=tk, data_collator=collator, compute_metrics=make_compute_metrics(tk, per_tool=True),
    )
    batched_metrics = batched.evaluate()
    for key, value in metrics.items():
        if key.startswith("eval_") and key not in ("eval_runtime", "eval_samples_per_second", "eval_steps_per_second"):
            assert batched_metrics[key] == value, key


@pytest.mark.slow
@pytest.mark.parametrize("batch_eval_metrics", [False, True], ids=["one-shot", "batched"])
def test_seq2seq_trainer_decoder_only_gpt2(tmp_path: Any, one_thread: None, batch_eval_metrics: bool) -> None:
    tk = word_tokenizer(WORDS, padding_side="left")  # decoder-only generation pads on the left
    train = []
    for prompt, calls in EXAMPLES:
        p, c = ids(tk, prompt), ids(tk, calls) + [tk.eos_token_id]
        train.append({"input_ids": p + c, "labels": [-100] * len(p) + c})
    # eval: the prompt only (generate() continues it); the labels are only there so that
    # the Trainer computes a loss and calls compute_metrics — the gold calls are given
    eval_ds = [{"input_ids": ids(tk, p), "labels": ids(tk, p)} for p, _ in EVAL]
    references = [c.replace(" ", "") for _, c in EVAL]  # the metric reads any spacing
    model = tiny_gpt2(tk, n_embd=32)
    model.generation_config.pad_token_id = tk.pad_token_id
    model.generation_config.eos_token_id = tk.eos_token_id
    args = seq2seq_args(
        tmp_path, generation_max_length=40, include_for_metrics=["inputs"], batch_eval_metrics=batch_eval_metrics
    )
    compute_metrics = make_compute_metrics(tk, references=references, strip_prompt="inputs")
    trainer = transformers.Seq2SeqTrainer(
        model=model, args=args, train_dataset=train, eval_dataset=eval_ds, processing_class=tk,
        data_collator=transformers.DataCollatorForSeq2Seq(tk, model=model), compute_metrics=compute_metrics,
    )
    trainer.train()
    metrics = trainer.evaluate()

    out = trainer.predict(eval_ds)
    generated = np.where(out.predictions == -100, tk.pad_token_id, out.predictions)
    texts = []
    for (prompt, _), full in zip(EVAL, tk.batch_decode(generated, skip_special_tokens=True)):
        assert full.startswith(prompt)  # generate() repeats the prompt
        texts.append(full[len(prompt):])
    want = ToolCallMetric().compute(texts, references)
    assert want["num_examples"] == 5 and want["tp"] > 0  # the model learnt something
    assert_same_numbers(metrics, want, prefix="eval_")
    assert_same_numbers(out.metrics, want, prefix="test_")


def test_auto_without_inputs_says_the_prompt_is_scored_too(tok: Any) -> None:
    """A decoder-only row holds its prompt: with no EvalPrediction.inputs, "auto" cannot cut it
    and says so (a few-shot call in the prompt would count as a prediction); "none" is silent."""
    items = [(p, a) for (p, _), a in zip(EXAMPLES, PREDS)]
    rows, _ = decoder_only_batch(tok, items[:2])
    labels = np.zeros((2, 1), dtype=np.int64)
    with pytest.warns(ToolCallWarning, match=r"EvalPrediction.inputs is not set.*include_for_metrics=\['inputs'\]"):
        make_compute_metrics(tok, references=GOLDS[:2], metric=ToolCallMetric()).decode(EvalPrediction(rows, labels))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToolCallWarning)
        make_compute_metrics(tok, references=GOLDS[:2], strip_prompt="none", metric=ToolCallMetric()).decode(
            EvalPrediction(rows, labels))
