"""The model's own response template as ``prediction_format`` (transformers' parser).

The templates and model outputs are transformers' own test fixtures (Qwen3, gpt-oss, Gemma 4,
Cohere; ``tests/data/response_templates.json`` says where they come from). Everything runs
locally: the tokenizer is built from a word list, nothing is downloaded.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
chat_parsing = pytest.importorskip("transformers.utils.chat_parsing")

from toolcall_f1 import ToolCallMetric, ToolCallParseError, ToolCallWarning, parse_calls  # noqa: E402
from toolcall_f1.calls import coerce_structured  # noqa: E402
from toolcall_f1.templates import MIN_TRANSFORMERS, TemplateReader  # noqa: E402
from toolcall_f1.trainer import make_compute_metrics  # noqa: E402

DATA = json.loads((Path(__file__).parent.parent / "data" / "response_templates.json").read_text("utf-8"))
TEMPLATES: dict[str, dict[str, Any]] = DATA["templates"]
EXAMPLES: list[dict[str, Any]] = DATA["examples"]

QWEN_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
)
GOLD = [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]


def transformers_calls(text: str, template: dict[str, Any]) -> list[Any]:
    """What transformers' own one-shot ``parse_response`` reads, as calls."""
    message = chat_parsing.parse_response(text, template, prefix="")
    return coerce_structured(message.get("tool_calls") or [])


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail (rather than hang) if the block runs longer than ``seconds``: a generous guard
    against quadratic time, not a timing assertion."""

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    before = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


# -- transformers' fixtures, read through parse_calls -----------------------------------


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["test"] for e in EXAMPLES])
def test_transformers_fixtures_read_as_their_tests_assert(example: dict[str, Any]) -> None:
    template = TEMPLATES[example["template"]]
    calls = parse_calls(example["output"], format=template)
    assert calls == coerce_structured(example["calls"])
    assert calls == transformers_calls(example["output"], template)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_long_outputs_read_in_pieces_equal_transformers_one_shot(name: str) -> None:
    """The reader feeds transformers' parser in pieces (linear time); the calls are those
    of one ``parse_response`` over the whole text, markers straddling every piece boundary."""
    template = TEMPLATES[name]
    blocks = [e["output"] for e in EXAMPLES if e["template"] == name and e["calls"]]
    end = "<|call|>" if name == "gpt_oss" else ""  # its closing delimiter is the stop token
    text = ""
    for i in range(40):
        text += "x" * (i * 37 % 1000) + " " + blocks[i % len(blocks)] + end
    expected = transformers_calls(text, template)
    assert len(text) > 8 * 1024
    assert len(expected) >= 40 if name != "cohere" else len(expected) == 1  # cohere: no repeats
    assert TemplateReader(template)(text) == expected
    if name != "cohere":
        assert parse_calls(text, format=template) == expected
    else:  # the template reads the first of 40 action blocks, "auto" all of them: "auto"'s stand
        with pytest.warns(ToolCallWarning, match="used \"auto\"'s calls"):
            assert parse_calls(text, format=template) == parse_calls(text) != expected


def test_a_template_carried_by_an_object_or_as_a_reader_reads_the_same() -> None:
    template = TEMPLATES["qwen3"]
    holder = SimpleNamespace(response_template=template)
    reader = TemplateReader(holder)
    expected = coerce_structured(GOLD)
    assert parse_calls(QWEN_CALL, format=template) == expected
    assert parse_calls(QWEN_CALL, format=holder) == expected
    assert parse_calls(QWEN_CALL, format=reader) == expected
    # structured predictions are read the same in every mode; text inside them by the template
    assert parse_calls({"role": "assistant", "content": QWEN_CALL}, format=template) == expected


def test_no_tool_call_is_zero_calls_and_a_stop_token_may_be_missing() -> None:
    assert parse_calls("The weather is fine.", format=TEMPLATES["qwen3"]) == []
    gpt = TEMPLATES["gpt_oss"]
    head = '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}'
    assert parse_calls(head + "<|call|>", format=gpt) == parse_calls(head, format=gpt) == coerce_structured(
        [("f", {"a": 1})]
    )


# -- errors: a parse error, counted; never a crash or a silent read ---------------------


@pytest.mark.parametrize(
    "name, text, reason",
    [
        ("gpt_oss", '<|channel|>commentary to=functions.f <|message|>{"a": 1', "could not read it: json"),
        ("cohere", '<|START_ACTION|>[{"tool_name": "f"}]<|END_ACTION|>', "could not read it"),
        ("gemma4", '<|tool_call>call:f{a:<|"|>x<|"|>,}<tool_call|>', "could not read it: json"),
        ("qwen3", QWEN_CALL[: QWEN_CALL.index("</function>")], "ends inside a 'tool_calls' region"),
        ("qwen3", "<tool_call><function=f>" * 3, "ends inside a 'tool_calls' region"),
        ("qwen3", "<tool_call>" + "[" * 100 + "</tool_call>", "nested deeper than 64 levels"),
    ],
    ids=["gpt-oss-broken-json", "cohere-missing-key", "gemma4-trailing-comma", "qwen3-truncated",
         "qwen3-unclosed-opens", "too-deep"],
)
def test_a_template_that_fails_on_the_text_is_a_parse_error(name: str, text: str, reason: str) -> None:
    with pytest.raises(ToolCallParseError, match=reason) as info:
        parse_calls(text, format=TEMPLATES[name])
    assert info.value.format == str(TemplateReader(TEMPLATES[name]))


def test_tool_calls_that_are_not_calls_are_a_parse_error() -> None:
    template = {"start_anchor": "<|assistant|>", "fields": {"tool_calls": {"open": "<t>", "close": "</t>"}}}
    with pytest.raises(ToolCallParseError, match="a string is data here"):
        parse_calls("<t>f(a=1)</t>", format=template)


def test_over_the_size_limit_is_a_parse_error() -> None:
    with pytest.raises(ToolCallParseError, match="over the 1000000-byte limit"):
        parse_calls("x" * 1_000_001, format=TEMPLATES["qwen3"])


@pytest.mark.parametrize(
    "name, unit",
    [
        ("qwen3", QWEN_CALL),
        ("qwen3", "<tool_call><function=f>"),
        ("qwen3", "<tool_call"),
        ("gemma4", "<|tool_call>call:f{a:1}<tool_call|>"),
        ("gemma4", '<|"|>'),
        ("gemma4", "<"),
        ("gpt_oss", "<|channel|>commentary to=functions.f "),
        ("gpt_oss", '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}<|call|>'),
        ("cohere", "<|START_THINKING|>x<|END_THINKING|>"),
        ("cohere", "<|START_ACTION|>["),
    ],
)
def test_adversarial_outputs_finish(name: str, unit: str) -> None:
    """Long runs of one marker (100k and 200k characters): each finishes well inside the
    guard; transformers' parser fed whole took 20 s on the Gemma 4 run of 100k."""
    reader = TemplateReader(TEMPLATES[name])
    for size in (100_000, 200_000):
        text = unit * (size // len(unit))
        with deadline(30):
            try:
                reader(text)
            except ToolCallParseError:
                pass


# -- settings: validation, signature ---------------------------------------------------


def test_templates_that_cannot_read_calls_are_refused() -> None:
    with pytest.raises(ValueError, match="has no 'tool_calls' field"):
        ToolCallMetric(prediction_format={"start_anchor": "<a>", "fields": {"content": {"open": "<c>"}}})
    bad = {"start_anchor": "<a>", "fields": {"tool_calls": {"open_pattern": "(", "close": "</t>"}}}
    with pytest.raises(ValueError, match="transformers refused the response template: .*invalid open_pattern"):
        ToolCallMetric(prediction_format=bad)
    with pytest.raises(ValueError, match="has response_template=None"):
        ToolCallMetric(prediction_format=SimpleNamespace(response_template=None))
    with pytest.raises(ValueError, match="expected a format name, a response template dict"):
        ToolCallMetric(prediction_format=42)
    with pytest.raises(ValueError, match="must be JSON data"):
        TemplateReader({"fields": {"tool_calls": {"open": "<t>"}}, "start_anchor": object()})


def test_signature_names_the_template_by_a_stable_digest() -> None:
    qwen = TEMPLATES["qwen3"]
    reordered = dict(reversed(list(qwen.items())))
    sig = ToolCallMetric(prediction_format=qwen).signature()
    name = str(TemplateReader(qwen))
    assert name.startswith("tmpl:") and len(name) == 13 and int(name[5:], 16) >= 0
    assert f"|pred:{name}|" in sig
    assert ToolCallMetric(prediction_format=reordered).signature() == sig
    assert str(TemplateReader(TEMPLATES["gemma4"])) != name
    assert ToolCallMetric().signature(prediction_format=qwen) == sig


# -- through the metric, evaluate and the Trainer callable -----------------------------


def test_compute_scores_the_template_read_calls() -> None:
    qwen = TEMPLATES["qwen3"]
    preds = [QWEN_CALL, QWEN_CALL.replace("Paris", "Rome"), QWEN_CALL[:40], "No call needed."]
    refs = [GOLD, GOLD, GOLD, []]
    result = ToolCallMetric(prediction_format=qwen).compute(preds, refs)
    assert (result["tp"], result["fp"], result["fn"]) == (1.0, 1.0, 2.0)
    assert result["num_parse_errors"] == 1  # the cut-off third output
    assert result["f1"] == pytest.approx(2 * 1 / (2 * 1 + 1 + 2))
    assert result["exact_match"] == 0.5
    per_call = ToolCallMetric().compute(preds, refs, prediction_format=qwen)
    assert per_call == result
    with pytest.raises(ToolCallParseError, match=r"^predictions\[2\]: tmpl:"):
        ToolCallMetric(prediction_format=qwen, on_parse_error="raise").compute(preds, refs)


def test_evaluate_module_takes_a_template() -> None:
    pytest.importorskip("evaluate")
    import toolcall_f1

    result = toolcall_f1.load(keep_in_memory=True).compute(
        predictions=[QWEN_CALL], references=[GOLD], prediction_format=TEMPLATES["qwen3"]
    )
    assert result["f1"] == 1.0
    assert str(TemplateReader(TEMPLATES["qwen3"])) in result["signature"]


SPECIAL = ["<pad>", "</s>", "<unk>", "<tool_call>", "</tool_call>", "<|im_end|>"]
WORDS = ["<function=get_weather>", "</function>", "<parameter=city>", "<parameter=days>",
         "</parameter>", "Paris", "Rome", "3", "hmm"]


def tiny_tokenizer(template: dict[str, Any] | None) -> Any:
    """A real word-level fast tokenizer whose tool-call markers are special tokens."""
    tokenizers = pytest.importorskip("tokenizers")
    vocab = {tok: i for i, tok in enumerate(SPECIAL + WORDS)}
    tk = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    kwargs = {} if template is None else {"response_template": template}
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tk, pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
        extra_special_tokens=SPECIAL[3:], **kwargs,
    )


def rows(tok: Any, texts: list[str], width: int = 20) -> np.ndarray:
    out = [tok(t)["input_ids"] for t in texts]
    return np.array([r + [-100] * (width - len(r)) for r in out])


NO_INPUTS = r"strip_prompt='auto': EvalPrediction\.inputs is not set"


def test_make_compute_metrics_uses_the_tokenizers_template() -> None:
    tok = tiny_tokenizer(TEMPLATES["qwen3"])
    texts = [
        "hmm <tool_call> <function=get_weather> <parameter=city> Paris </parameter> "
        "<parameter=days> 3 </parameter> </function> </tool_call> <|im_end|>",
        "<tool_call> <function=get_weather> <parameter=city> Rome </parameter>",  # cut off
    ]
    preds = rows(tok, texts)
    # transformers reads the token ids the same way
    assert tok.parse_response(preds[0][preds[0] != -100].tolist(), prefix="")["tool_calls"][0][
        "function"] == {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}
    compute_metrics = make_compute_metrics(tok, references=[GOLD, GOLD], metric=ToolCallMetric())
    # the decoded words stand between spaces: the template strips them, "auto" keeps ' Paris ' (and is used)
    spaced = "\"auto\" read \\[get_weather\\(city=' Paris '"
    with pytest.warns(ToolCallWarning, match=NO_INPUTS), pytest.warns(ToolCallWarning, match=spaced):
        scores = compute_metrics((preds, preds))  # (rows without EvalPrediction.inputs)
    assert (scores["tp"], scores["fp"], scores["fn"], scores["num_parse_errors"]) == (1.0, 0.0, 1.0, 1)
    assert f"pred:{TemplateReader(tok)}" in compute_metrics.signature
    # the evaluate module by default, too
    pytest.importorskip("evaluate")
    with pytest.warns(ToolCallWarning, match=NO_INPUTS), pytest.warns(ToolCallWarning, match=spaced):
        assert make_compute_metrics(tok, references=[GOLD, GOLD])((preds, preds))["tp"] == 1.0


def test_make_compute_metrics_keeps_a_chosen_format() -> None:
    tok = tiny_tokenizer(TEMPLATES["qwen3"])
    preds = rows(tok, ["<tool_call> <function=get_weather> <parameter=city> Paris </parameter> "
                       "</function> </tool_call>"])
    refs = [[{"name": "get_weather", "arguments": {"city": "Paris"}}]]
    for chosen in ({"prediction_format": "auto"}, {"metric": ToolCallMetric(prediction_format="hermes")}):
        compute_metrics = make_compute_metrics(tok, references=refs, **chosen)
        with pytest.warns(ToolCallWarning, match=NO_INPUTS):
            compute_metrics((preds, preds))
        assert "pred:tmpl:" not in compute_metrics.signature
    plain = make_compute_metrics(tiny_tokenizer(None), references=refs, metric=ToolCallMetric())
    with pytest.warns(ToolCallWarning, match=NO_INPUTS):
        plain((preds, preds))
    assert "|pred:auto|" in plain.signature


# -- transformers missing or too old --------------------------------------------------


def test_missing_transformers_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(ImportError, match=rf"needs transformers>={MIN_TRANSFORMERS} .*not installed"):
        parse_calls(QWEN_CALL, format=TEMPLATES["qwen3"])


def test_old_transformers_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "transformers.utils.chat_parsing", None)
    monkeypatch.setattr(importlib.import_module("transformers"), "__version__", "5.12.1")
    with pytest.raises(ImportError, match=r"needs transformers>=5\.13 .*transformers 5\.12\.1 has no"):
        ToolCallMetric(prediction_format=TEMPLATES["qwen3"])


# -- the command line -----------------------------------------------------------------


def test_cli_reads_predictions_with_a_template_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from toolcall_f1.cli import main

    preds = tmp_path / "p.jsonl"
    refs = tmp_path / "r.jsonl"
    preds.write_text("\n".join(json.dumps(t) for t in [QWEN_CALL, QWEN_CALL[:40]]) + "\n", "utf-8")
    refs.write_text("\n".join(json.dumps(GOLD) for _ in range(2)) + "\n", "utf-8")
    config = tmp_path / "tokenizer_config.json"  # the template inside a tokenizer config
    config.write_text(json.dumps({"eos_token": "<|im_end|>", "response_template": TEMPLATES["qwen3"]}), "utf-8")
    base = ["score", "--predictions", str(preds), "--references", str(refs), "--format", "json", "--no-progress"]
    assert main([*base, "--response-template", str(config)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["tp"], result["fn"], result["num_parse_errors"]) == (1.0, 1.0, 1)
    assert f"|pred:{TemplateReader(TEMPLATES['qwen3'])}|" in result["signature"]
    assert main([*base, "--response-template", str(config), "--prediction-format", "hermes"]) == 2
    assert "not both" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"start_anchor": "<a>", "fields": {"content": {}}}), "utf-8")
    assert main([*base, "--response-template", str(bad)]) == 2
    assert f"{bad}: prediction_format: the response template has no 'tool_calls' field" in capsys.readouterr().err


# -- the template's reading cross-checked against "auto" (issue 26 item 12, SPEC §2) ----------

WEATHER = {"city": "Paris"}
CROSS_CHECKED = [
    # transformers' gpt-oss pattern stops the name at "-": the template reads a call to `get`
    ("gpt_oss", '<|channel|>commentary to=functions.get-weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>',
     [("get-weather", WEATHER)], "read \\[get\\(city='Paris'\\)\\]"),
    # Qwen3's: a name with "-" reads as nothing, a parameter with "-" is dropped
    ("qwen3", "<tool_call>\n<function=get-weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
     [("get-weather", WEATHER)], "read no call"),
    ("qwen3", "<tool_call>\n<function=get_weather>\n<parameter=zip-code>\n75001\n</parameter>\n<parameter=city>\nParis\n"
              "</parameter>\n</function>\n</tool_call>",
     [("get_weather", {"zip-code": 75001, "city": "Paris"})], "read \\[get_weather\\(city='Paris'\\)\\]"),
    # a Hermes JSON block under Qwen3's template: nothing read by the template
    ("qwen3", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
     [("get_weather", WEATHER)], "read no call"),
]


@pytest.mark.parametrize("name, text, calls, template_read", CROSS_CHECKED, ids=["gpt-oss-dash", "qwen3-dash-name",
                         "qwen3-dash-parameter", "qwen3-hermes-json"])
def test_a_template_that_misreads_gives_way_to_auto_with_a_warning(
    name: str, text: str, calls: list[Any], template_read: str
) -> None:
    template = TEMPLATES[name]
    assert TemplateReader(template)(text) != coerce_structured(calls)  # the template alone misreads
    with pytest.warns(ToolCallWarning, match=template_read + ".*used \"auto\"'s calls") as seen:
        assert parse_calls(text, format=template) == coerce_structured(calls) == parse_calls(text)
    assert str(TemplateReader(template)) in str(seen[0].message) and repr(text[:20])[:-1] in str(seen[0].message)
    metric = ToolCallMetric(prediction_format=template)
    with pytest.warns(ToolCallWarning, match="used \"auto\"'s calls"):
        assert metric(text, calls).exact


def _toy_template(content: dict[str, Any]) -> dict[str, Any]:
    """A template for a marker "auto" does not know: ``<<call>>[{"tool": ..., "args": {...}}]<</call>>``."""
    calls = {"open": "<<call>>", "close": "<</call>>", "content": "json", "transform_each": True,
             "transform": {"type": "function", "function": {"name": "{tool}", "arguments": "{args}"}}}
    return {"start_anchor_pattern": "^", "fields": {"content": content, "tool_calls": calls}}


def test_when_auto_finds_no_call_or_cannot_read_the_templates_calls_stand() -> None:
    template = _toy_template({"content": "text"})
    text = 'Sure. <<call>>[{"tool": "f", "args": {"a": 1}}]<</call>>'
    f = coerce_structured([("f", {"a": 1})])
    assert TemplateReader(template)(text) == f and parse_calls(text) == []
    with pytest.warns(ToolCallWarning, match=r"read \[f\(a=1\)\].*\"auto\" read \[\]; used the template's calls"):
        assert parse_calls(text, format=template) == f
    with pytest.warns(ToolCallWarning, match="\"auto\" could not read it; used the template's calls"):
        assert parse_calls(text + "\n[g(a=1+1)]", format=template) == f


def test_where_the_template_finds_no_tool_call_its_content_is_read_under_auto() -> None:
    template = _toy_template({"open": "<r>", "close": "</r>"})  # text outside <r>...</r> is dropped
    text = "x(1+1) <r>Sure.\n[f(a=1)]</r>"
    assert TemplateReader(template)(text) == []
    with pytest.raises(ToolCallParseError):
        parse_calls(text)  # "auto" on the whole text: a call it cannot read
    with pytest.warns(ToolCallWarning, match="\"auto\" could not read it; used the template's calls"):
        assert parse_calls(text, format=template) == coerce_structured([("f", {"a": 1})])
    assert parse_calls("<r>Sure.\n[f(a=1)]</r>", format=template) == coerce_structured([("f", {"a": 1})])
