"""A JSONL line nested deeper than the JSON decoder recurses (F3 of the attack review).

Such a line is still JSON. When only its prediction is that deep, the command line gives the
numbers the API gives for the same data (the prediction one parse error, "nested deeper than
64 levels", and the other examples scored), instead of refusing the run; a reference, tools or
any other field that deep is an error naming the line; a line that is not JSON at some depth
is still invalid JSON, with the decoder's own message and column."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric, ToolCallParseError
from toolcall_f1.cli import _parse_line, main

from .test_cli import c

DEPTH = 100_000
CALLS = [c("f", x=1)]
CALLS_TEXT = json.dumps(CALLS)
DEEP_TEXT = "[" * DEPTH + "]" * DEPTH


def deep_value(depth: int = DEPTH) -> Any:
    """The value of ``DEEP_TEXT``, built without recursion: what an API user would pass."""
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def score(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["score", "--no-progress", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def example_line(prediction: str = CALLS_TEXT, reference: str = CALLS_TEXT, **more: str) -> str:
    extra = "".join(f', "{key}": {text}' for key, text in more.items())
    return f'{{"prediction": {prediction}, "reference": {reference}{extra}}}'


def api_result(**settings: Any) -> dict[str, Any]:
    """The API's result for the three examples, the second prediction nested ``DEPTH`` deep
    (through JSON, as the command line prints it)."""
    result = ToolCallMetric(**settings).compute(
        predictions=[CALLS, deep_value(), CALLS], references=[CALLS, CALLS, CALLS]
    )
    return json.loads(json.dumps(result))  # type: ignore[no-any-return]


@pytest.mark.parametrize("layout", ["one-file", "two-files"])
def test_a_prediction_nested_too_deeply_is_one_parse_error_as_in_the_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str
) -> None:
    if layout == "one-file":
        preds = write_lines(tmp_path / "in.jsonl", [example_line(), example_line(DEEP_TEXT), example_line()])
        argv = ["--input", str(preds)]
    else:
        preds = write_lines(tmp_path / "preds.jsonl", [CALLS_TEXT, DEEP_TEXT, CALLS_TEXT])
        refs = write_lines(tmp_path / "refs.jsonl", [CALLS_TEXT] * 3)
        argv = ["--predictions", str(preds), "--references", str(refs)]
    details = tmp_path / "details.jsonl"
    rc, out, err = score(capsys, *argv, "--output-format", "json", "--details", str(details))
    assert rc == 0, err
    result = json.loads(out)
    assert result == api_result()
    assert (result["num_parse_errors"], result["f1"]) == (1, 0.8)
    api_error = ToolCallMetric()(deep_value(), CALLS).parse_error
    assert api_error == "predictions: structured: nested deeper than 64 levels"
    named = f"{preds}:2: {api_error.removeprefix('predictions: ')}"
    assert named in err
    rows = [json.loads(line) for line in details.read_text(encoding="utf-8").splitlines()]
    assert [row["parse_error"] for row in rows] == [None, named, None]


def test_a_deep_turn_is_that_turn_s_parse_error_as_in_the_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reference = json.dumps({"turns": [CALLS, CALLS]})
    inp = write_lines(tmp_path / "in.jsonl", [example_line(f"[{CALLS_TEXT}, {CALLS_TEXT}]", reference),
                                              example_line(f"[{CALLS_TEXT}, {DEEP_TEXT}]", reference)])
    rc, out, err = score(capsys, "--input", str(inp), "--order", "turns", "--output-format", "json")
    assert rc == 0, err
    api = ToolCallMetric(order="turns").compute(
        predictions=[[CALLS, CALLS], [CALLS, deep_value()]], references=[{"turns": [CALLS, CALLS]}] * 2
    )
    assert json.loads(out) == json.loads(json.dumps(api))
    assert (api["tp"], api["num_parse_errors"]) == (3.0, 1)  # the first turn of the deep one still counts
    assert f"{inp}:2: turn 1: structured: nested deeper than 64 levels" in err


@pytest.mark.parametrize("layout", ["one-file", "two-files"])
def test_a_reference_nested_too_deeply_is_an_error_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str
) -> None:
    if layout == "one-file":
        refs = write_lines(tmp_path / "in.jsonl", [example_line(), example_line(reference=DEEP_TEXT), example_line()])
        argv = ["--input", str(refs)]
    else:
        preds = write_lines(tmp_path / "preds.jsonl", [CALLS_TEXT] * 3)
        refs = write_lines(tmp_path / "refs.jsonl", [CALLS_TEXT, DEEP_TEXT, CALLS_TEXT])
        argv = ["--predictions", str(preds), "--references", str(refs)]
    with pytest.raises(ToolCallParseError) as refused:  # the API refuses it too, in these words
        ToolCallMetric().compute(predictions=[CALLS] * 3, references=[CALLS, deep_value(), CALLS])
    assert str(refused.value) == "references[1]: structured: nested deeper than 64 levels"
    rc, out, err = score(capsys, *argv)
    assert (rc, out) == (2, "")
    assert f"{refs}:2: reference: structured: nested deeper than 64 levels" in err
    assert f"{refs}:1" not in err and f"{refs}:3" not in err


@pytest.mark.parametrize("field, argv", [("tools", ["--tools-field", "tools"]), ("id", []), ("meta", [])])
def test_another_field_nested_too_deeply_is_an_error_naming_the_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, argv: list[str]
) -> None:
    inp = write_lines(tmp_path / "in.jsonl", [example_line(), example_line(**{field: DEEP_TEXT})])
    rc, out, err = score(capsys, "--input", str(inp), *argv)
    assert (rc, out) == (2, "")
    assert f"{inp}:2: field {field!r}: nested too deeply to read (deeper than the JSON decoder recurses" in err


@pytest.mark.filterwarnings("ignore:compare. only 3 resampling units")
def test_compare_scores_a_deep_prediction_as_one_parse_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refs = write_lines(tmp_path / "refs.jsonl", [CALLS_TEXT] * 3)
    base = write_lines(tmp_path / "base.jsonl", [CALLS_TEXT] * 3)
    deep = write_lines(tmp_path / "deep.jsonl", [CALLS_TEXT, DEEP_TEXT, CALLS_TEXT])
    rc = main(["compare", "--references", str(refs), "--output-format", "json", str(base), str(deep)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert json.loads(out)[deep.name]["f1"] == api_result()["f1"] == 0.8
    deep_refs = write_lines(tmp_path / "deep_refs.jsonl", [CALLS_TEXT, DEEP_TEXT, CALLS_TEXT])
    rc = main(["compare", "--references", str(deep_refs), str(base), str(deep)])
    out, err = capsys.readouterr()
    assert (rc, out) == (2, "")
    assert f"{deep_refs}:2: reference: structured: nested deeper than 64 levels" in err


def json_loads_deeply(text: str) -> tuple[str, str | None]:
    """What ``json.loads`` says of ``text`` given the stack it needs: ("ok", None) or
    ("err", the CLI's message for it)."""
    verdict: list[tuple[str, str | None]] = []

    def run() -> None:
        sys.setrecursionlimit(100_000)
        try:
            json.loads(text)
            verdict.append(("ok", None))
        except json.JSONDecodeError as err:
            verdict.append(("err", f"invalid JSON: {err.msg} (column {err.colno})"))

    limit, size = sys.getrecursionlimit(), threading.stack_size(1 << 28)
    try:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(size)
        sys.setrecursionlimit(limit)
    return verdict[0]


N = 3_000
INVALID_OR_NOT = [
    "[" * N + "]" * N,
    "[" * N + "]" * (N - 1),  # a bracket missing
    "[" * N + "]" * (N + 1),  # one too many
    "[" * N + "}" + "]" * (N - 1),  # the wrong closer
    "[" * N + "1,,2" + "]" * N,  # invalid at the bottom
    '{"a": ' + "[" * N + '"]]]"' + "]" * N + "}",  # brackets in a string
    '{"a": ' + "[" * N + '"\\"]["' + "]" * N + "}",  # an escaped quote
    '{"a": ' + "[" * N + '"]]]' + "]" * N + "}",  # a string never closed
    '{"a": [' + '{"j": 1, "k": [' * N + "]}" * N + "]}",  # objects all the way down
    "[" * 400 + "[1, 2 3]" + "]" * 400 + "," + "[" * N + "]" * N,  # invalid above the cut, deep after
    "[" * N + "tru" + "]" * N,
    '{"k": 1, ' + '"p": ' + "[" * N + "]" * N + "}" + " x",  # trailing garbage
]


@pytest.mark.parametrize("text", INVALID_OR_NOT, ids=range(len(INVALID_OR_NOT)))
def test_a_deep_line_is_invalid_json_exactly_when_json_loads_says_so(text: str) -> None:
    value, error, _ = _parse_line(text.encode())
    assert (("ok", None) if error is None else ("err", error)) == json_loads_deeply(text)
    assert (value is None) == (error is not None)  # every valid case here is a container


def test_a_repeated_key_deep_down_is_named_where_it_is() -> None:
    text = "[" * N + '{"k": 1, "k": 2}' + "]" * N
    _, error, _ = _parse_line(text.encode())
    assert error == (f"duplicate key 'k' (column {N + 10}): a JSON object names it twice, "
                     "and only one of its values would be read")


def test_a_line_of_a_million_brackets_is_read_in_linear_time() -> None:
    n = 1_000_000
    line = example_line("[" * n + "]" * n).encode()
    start = time.perf_counter()
    value, error, deep = _parse_line(line)
    elapsed = time.perf_counter() - start
    assert (error, deep, value["reference"]) == (None, frozenset({"prediction"}), CALLS)
    assert elapsed < 1.0, elapsed
