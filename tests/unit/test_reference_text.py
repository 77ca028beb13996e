"""A reference is data (SPEC §2): text in which no call can be read is an error naming the
reference, never zero expected calls; blank text, ``[]`` and other JSON saying "no call" stay
zero calls. For a prediction, prose is the model choosing not to call: zero calls, no error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolcall_f1 import ToolCallMetric, ToolCallParseError
from toolcall_f1.cli import main

PROSE = [
    "The weather in Paris is sunny.",
    "get_weather city=Paris",  # a format no reader knows
    "<think>the user wants the weather</think>",  # reasoning only
    "```\nno call here\n```",  # a fence whose body is prose
]


@pytest.mark.parametrize("text", PROSE)
def test_a_reference_text_without_a_call_is_an_error(text: str) -> None:
    metric = ToolCallMetric()
    with pytest.raises(ToolCallParseError) as err:
        metric.compute(["[]", "[]"], ["[]", text])
    message = str(err.value)
    assert message.startswith("references[1]: auto: no call can be read from this reference text")
    assert "write [] for an example where no call is expected" in message
    assert isinstance(err.value, ValueError) and err.value.index == 1
    with pytest.raises(ToolCallParseError, match=r"^references\[4\]: "):
        metric(["[]"], text, index=4)
    with pytest.raises(ToolCallParseError, match=r"^references\[0\]: "):  # with the example's own tools
        metric.compute(["[]"], [{"calls": text, "tools": [{"name": "f", "parameters": {}}]}])


@pytest.mark.parametrize("text", PROSE)
def test_the_same_text_as_a_prediction_is_zero_calls(text: str) -> None:
    result = ToolCallMetric().compute([text], ["[f(x=1)]"])
    assert (result["tp"], result["fp"], result["fn"], result["num_parse_errors"]) == (0.0, 0.0, 1.0, 0)


@pytest.mark.parametrize(
    "text",
    ["", "  \n", "[]", "null", '{"role": "assistant", "content": "It is sunny.", "tool_calls": []}',
     "```json\n[]\n```"],
    ids=["empty", "blank", "empty-list", "null", "message-without-calls", "fenced-empty-list"],
)
def test_a_reference_that_says_no_call_is_zero_calls(text: str) -> None:
    result = ToolCallMetric().compute(["[]", "[f()]"], [text, text])
    assert (result["tp"], result["fp"], result["fn"], result["exact_match"]) == (0.0, 1.0, 0.0, 0.5)


def test_the_cli_names_the_reference_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text('{"prediction": "[]", "reference": "[]"}\n{"prediction": "[]", "reference": "No call."}\n',
                    encoding="utf-8")
    assert main(["score", "--input", str(path), "--no-progress"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{path}:2: reference: auto: no call can be read from this reference text" in err


@pytest.mark.parametrize(
    "text",
    ['{"answer": "Paris", "id": 3}', '"I cannot help"', "42", "true", "NaN"],
    ids=["json-answer", "json-string-prose", "number", "bool", "nan"],
)
def test_a_json_reference_text_is_read_as_its_value_never_as_zero_calls(text: str) -> None:
    # each was zero expected calls (a silently wrong score); decoded, each already raised
    with pytest.raises(ToolCallParseError, match=r"^references\[0\]: "):
        ToolCallMetric().compute(["[f(a=2)]"], [text])


@pytest.mark.parametrize(
    "text",
    ['{"role": "assistant", "content": "[f(a=2)]"}', '"[f(a=2)]"', '\ufeff[{"name": "f", "arguments": {"a": 2}}]',
     '```json\n{"name": "f", "arguments": {"a": 2}}\n```',
     '{"calls": [{"name": "f", "arguments": {"a": 2}}], "tools": []}'],  # SPEC §2 "JSON text" (issue 26 item 5)
    ids=["message-content", "json-string", "byte-order-mark", "fenced-object", "calls-and-tools-as-text"],
)
def test_a_json_reference_text_scores_as_the_decoded_value(text: str) -> None:
    metric = ToolCallMetric("arg")
    got = metric.compute(["[f(a=2)]"], [text])
    decoded = metric.compute(["[f(a=2)]"], [json.loads(text.lstrip("\ufeff").strip("`").removeprefix("json"))])
    assert (got["tp"], got["fp"], got["fn"]) == (decoded["tp"], decoded["fp"], decoded["fn"]) == (2.0, 0.0, 0.0)


def test_a_json_reference_text_giving_a_key_two_values_is_an_error() -> None:
    with pytest.raises(ToolCallParseError, match=r"^references\[0\]: json: duplicate key 'a'"):
        ToolCallMetric().compute(["[f(a=2)]"], ['[{"name": "f", "arguments": {"a": 1, "a": 2}}]'])
