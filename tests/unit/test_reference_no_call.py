"""A reference that writes an empty list of calls expects no call, whatever wraps the list
(reasoning, a family's marker, a comment); text from which no call can be read still raises,
and says whether the format was named (SPEC §2: "a reference that cannot be read always raises")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolcall_f1 import ToolCallMetric, ToolCallParseError
from toolcall_f1.cli import main

EMPTY_LISTS = [
    ("<think>the user only says hello</think>\n[]", "auto"),
    ("[TOOL_CALLS][]", "auto"),
    ("[TOOL_CALLS] []</s>", "mistral"),
    ("[]  # no call", "auto"),
    ("[]  # no call", "python"),
    ("[]\nNo tool is needed.", "auto"),
    ("<tool_call>\n[]\n</tool_call>", "hermes"),
    ("<|python_tag|>[]", "llama"),
    ("functools[]", "phi4_mini"),
    ("<|channel|>analysis<|message|>Nothing to call.<|end|><|start|>assistant<|channel|>final<|message|>[]<|return|>", "harmony"),
    ("<|channel|>final<|message|>[]<|return|>", "auto"),
    # issue 26 item 19: a fenced empty list after prose (or with prose after it)
    ("Sure!\n```json\n[]\n```", "auto"),
    ("Sure!\n```\n[ ]\n```\nNothing to call.", "auto"),
]
EMPTY_IDS = ["think-then-list", "mistral", "mistral-end-token", "comment", "comment-python", "list-then-prose",
             "hermes-block", "llama", "phi4-functools", "harmony-final", "harmony-final-auto", "prose-then-fenced-list",
             "fenced-list-between-prose"]


@pytest.mark.parametrize(("text", "fmt"), EMPTY_LISTS, ids=EMPTY_IDS)
def test_a_reference_writing_an_empty_list_of_calls_expects_none(text: str, fmt: str) -> None:
    # each raised "no call can be read from this reference text", though as a prediction it read as []
    metric = ToolCallMetric(prediction_format=fmt, reference_format=fmt)
    result = metric.compute([text, "[f(a=1)]"], [text, text])
    assert (result["tp"], result["fp"], result["fn"], result["exact_match"]) == (0.0, 1.0, 0.0, 0.5)
    assert result["num_parse_errors"] == 0


@pytest.mark.parametrize(
    ("text", "fmt"),
    [("<think>the user only says hello</think>", "auto"),  # reasoning alone
     ("<|channel|>final<|message|>It is sunny in Paris.<|return|>", "auto"),  # a Harmony answer in words
     ("<|channel|>analysis<|message|>[]<|end|>", "harmony"),  # the list is reasoning, not an answer
     ("None", "auto"),  # Python's None is no list of calls (JSON null is: it is read as decoded)
     ("I would call it with [] as the list.", "auto"),  # prose mentioning a list
     ("[TOOL_CALLS][]", "hermes"),  # another family's marker: the format named is not the text's
     ("get_items filters=[]", "auto"),  # a format no reader knows, with an empty list in it
     ("Sure!\n```\nget_items filters=[]\n```", "auto")],  # a fence holding more than the empty list
    ids=["reasoning-only", "harmony-answer-in-words", "harmony-analysis", "python-none", "prose",
         "other-family", "unknown-format", "fence-with-more"],
)
def test_text_from_which_no_call_can_be_read_still_raises(text: str, fmt: str) -> None:
    with pytest.raises(ToolCallParseError, match=r"^references\[1\]: .*no call can be read from this reference text"):
        ToolCallMetric(reference_format=fmt).compute(["[]", "[]"], ["[]", text])


def test_the_error_says_whether_the_format_was_named() -> None:
    # "(a format the reader does not know?)" was shown even when the user had named the format
    with pytest.raises(ToolCallParseError) as named:
        ToolCallMetric(reference_format="hermes").compute(["[]"], ["get_weather city=Paris"])
    assert str(named.value) == (
        "references[0]: hermes: no call can be read from this reference text (the format named found no "
        "call: is the text in another format?); write [] for an example where no call is expected "
        "(in 'get_weather city=Paris')")
    with pytest.raises(ToolCallParseError) as auto:
        ToolCallMetric().compute(["[]"], ["get_weather city=Paris"])
    assert "(a format the reader does not know?)" in str(auto.value)
    assert "format named" not in str(auto.value)


def test_the_cli_reads_an_empty_list_after_reasoning_as_no_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "in.jsonl"
    rows = [{"prediction": "[]", "reference": "<think>just a greeting</think>\n[]"},
            {"prediction": "[f(a=1)]", "reference": "[TOOL_CALLS][]"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["score", "--input", str(path), "--output-format", "json", "--no-progress"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["tp"], result["fp"], result["fn"], result["num_examples"]) == (0.0, 1.0, 0.0, 2)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"prediction": "[]", "reference": "<think>just a greeting</think>"}) + "\n", "utf-8")
    assert main(["score", "--input", str(bad), "--no-progress"]) == 2
    assert f"{bad}:1: reference: auto: no call can be read from this reference text" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text",
    ["[](https://example.com) see the docs", "[][", "[]'", "<|start|>a[] then some words <|channel|>final"],
)
def test_text_that_only_begins_with_an_empty_list_still_raises(text: str) -> None:
    # "[]" must end its line (or stand before a comment or a closing tag) to write "no call"
    with pytest.raises(ValueError, match="no call can be read"):
        ToolCallMetric().compute(["[]"], [text])
