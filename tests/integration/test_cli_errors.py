"""The command line on hostile and broken input: every problem is exit 2 with ``file:line:
reason`` on stderr (never a traceback, never exit 1, which only --fail-under gives), every bad
line of a file is reported in one pass, and unreadable predictions are named after the table."""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric, cli
from toolcall_f1.cli import main

from .test_cli import TOOLS, TRACES, c, run_module, write_json, write_jsonl

GOOD = {"prediction": [c("f", x=1)], "reference": [c("f", x=1)]}


def score(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["score", "--no-progress", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


# --------------------------------------------------------------------------- empty input


@pytest.mark.parametrize("content", ["", "\n\n  \n"], ids=["empty-file", "blank-lines"])
@pytest.mark.parametrize("gate", [[], ["--fail-under", "0.5"]], ids=["plain", "fail-under"])
def test_empty_input_is_an_error_not_f1_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, gate: list[str]
) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text(content, encoding="utf-8")
    rc, out, err = score(capsys, "--input", str(path), *gate)
    assert (rc, out) == (2, "")
    assert f"no examples: nothing was read from {path}" in err
    rc, out, err = score(capsys, "-p", str(path), "-r", str(path), *gate)
    assert rc == 2 and "no examples" in err


def test_empty_stdin_is_an_error(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    rc, out, err = score(capsys, "--input", "-", "--fail-under", "0.1")
    assert (rc, out) == (2, "")
    assert "no examples: nothing was read from -" in err


# --------------------------------------------------------------------------- hostile input table


HOSTILE = [
    # (id, files to write: name -> text, argv with {name} placeholders, expected stderr fragment)
    ("jsonl-huge-int", {"inp": '{"prediction": [], "reference": [{"name": "f", "arguments": {"x": ' + "9" * 5000 + "}}]}\n"},
     ["--input", "{inp}"], "{inp}:1: invalid JSON: Exceeds the limit (4300 digits)"),
    ("tools-huge-int", {"tools": '[{"name": "f", "importance": ' + "9" * 5000 + "}]"},
     ["--input", str(TRACES), "--tools", "{tools}"], "{tools}: invalid JSON in tools: Exceeds the limit"),
    ("weights-huge-int", {"weights": '{"f": ' + "9" * 5000 + "}"},
     ["--input", str(TRACES), "--weights", "{weights}"], "{weights}: invalid JSON in weights: Exceeds the limit"),
    ("tools-too-deep-for-json", {"tools": "[" * 100_000 + "]" * 100_000},
     ["--input", str(TRACES), "--tools", "{tools}"], "{tools}: invalid JSON in tools: nested too deeply"),
    # JSON deeper than the decoder recurses is still JSON (a deep prediction scores: test_cli_deep_lines.py)
    ("jsonl-too-deep-for-json", {"inp": "[" * 100_000 + "]" * 100_000 + "\n"},
     ["--input", "{inp}"], "{inp}:1: expected a JSON object with a field 'prediction', got list"),
    ("jsonl-too-deep-and-unclosed", {"inp": '{"prediction": ' + "[" * 100_000 + ', "reference": []}\n'},
     ["--input", "{inp}"], "{inp}:1: invalid JSON: Expecting value (column 100016)"),
    ("required-unhashable", {"tools": json.dumps([{"name": "f", "parameters": {"type": "object", "required": [["a"]]}}])},
     ["--input", str(TRACES), "--tools", "{tools}"], "{tools}: "),
    ("not-utf8", {"inp": b'{"prediction": "\xff", "reference": []}\n'},
     ["--input", "{inp}"], "{inp}:1: not valid UTF-8"),
]


@pytest.mark.parametrize("files, argv, message", [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_hostile_input_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, Any], argv: list[str], message: str
) -> None:
    names = {}
    for name, text in files.items():
        path = tmp_path / f"{name}.json"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        names[name] = str(path)
    argv = [a.format(**names) for a in argv]
    sys.setrecursionlimit(sys.getrecursionlimit())  # unchanged: the CLI must cope with the default
    for gate in ([], ["--fail-under", "0.1"]):
        rc, out, err = score(capsys, *argv, *gate)
        assert (rc, out) == (2, ""), err
        assert message.format(**names) in err, err


def test_deeply_nested_anyof_schema_exits_2(tmp_path: Path) -> None:
    n = 450  # json reads it; a recursive schema walk would not
    tools = tmp_path / "t.json"
    tools.write_text('[{"name": "f", "parameters": {"type": "object", "properties": {"x": '
                     + '{"anyOf": [' * n + '{"type": "string"}' + "]}" * n + "}}}]", encoding="utf-8")
    inp = write_jsonl(tmp_path / "in.jsonl", [{"prediction": [c("f", x="a")], "reference": [c("f", x="a")]}])
    # a process of its own: the default recursion limit (pytest plugins may raise it)
    proc = run_module("score", "--input", str(inp), "--tools", str(tools))
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
    assert "Traceback" not in proc.stderr
    assert str(tools) in proc.stderr or "nested too deeply" in proc.stderr


def test_hostile_input_as_a_process_has_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    proc = run_module("score", "--input", "examples/agent_traces.jsonl", "--tools", str(path))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and f"{path}: invalid JSON in tools" in proc.stderr


SURROGATE_NAME = "f\ud800"


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_lone_surrogate_in_a_tool_name_is_written_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    # json.dumps writes the lone surrogate as the escape \ud800: valid JSON, invalid UTF-8 once read
    inp = write_jsonl(tmp_path / "in.jsonl", [{"prediction": [c(SURROGATE_NAME, x=1)], "reference": [c("g")]}])
    details = tmp_path / "d.jsonl"
    rc, out, err = score(capsys, "--input", str(inp), "--per-tool", "--output-format", fmt, "--details", str(details))
    assert rc == 0, err
    assert "f\\ud800" in out
    row = json.loads(details.read_text(encoding="utf-8"))
    assert row["unmatched_pred"][0]["name"] == SURROGATE_NAME  # the escape reads back as the name
    if fmt == "json":
        assert SURROGATE_NAME in json.loads(out)["per_tool"]


def test_lone_surrogate_through_a_real_stdout(tmp_path: Path) -> None:
    inp = write_jsonl(tmp_path / "in.jsonl", [{"prediction": [c(SURROGATE_NAME, x=1)], "reference": [c("g")]}])
    proc = run_module("score", "--input", str(inp), "--per-tool", "--details", "-")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "f\\ud800" in proc.stdout


# --------------------------------------------------------------------------- every bad line, one pass


def _mixed(tmp_path: Path) -> Path:
    path = tmp_path / "mixed.jsonl"
    lines = [
        json.dumps(GOOD),
        "not json",
        json.dumps({"prediction": []}),
        json.dumps({"prediction": "[f(x=1)]", "reference": ["f(x=1)"]}),  # a string is data: bad reference
        json.dumps({"prediction": "[f(x=", "reference": [c("f", x=1)]}),  # bad prediction: scored
        json.dumps([1, 2]),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_every_bad_line_is_reported_in_one_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _mixed(tmp_path)
    rc, out, err = score(capsys, "--input", str(path), "--fail-under", "0.1")
    assert (rc, out) == (2, "")
    errors = [line for line in err.splitlines() if line.startswith("toolcall-f1: error: ")]
    where = [line.split(": ")[2] for line in errors[:-1]]
    assert where == [f"{path}:2", f"{path}:3", f"{path}:4", f"{path}:6"]
    assert f"{path}:2: invalid JSON: Expecting value" in err
    assert f"{path}:3: missing field 'reference'" in err
    assert f"{path}:4: reference: " in err
    assert f"{path}:6: expected a JSON object with a field 'prediction', got list" in err
    assert errors[-1] == "toolcall-f1: error: 4 input line(s) could not be used (above); no scores reported"


def test_max_errors_stops_early(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _mixed(tmp_path)
    rc, out, err = score(capsys, "--input", str(path), "--max-errors", "2")
    assert (rc, out) == (2, "")
    assert f"{path}:3: missing field" in err and f"{path}:4" not in err
    assert "stopped after --max-errors 2 unusable input lines" in err
    rc, _, err = score(capsys, "--input", str(path), "--max-errors", "0")
    assert rc == 2 and "--max-errors must be at least 1" in err


def test_bad_lines_in_two_files_name_their_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "p.jsonl"
    p.write_text('[]\n{oops\n[]\n', encoding="utf-8")
    r = tmp_path / "r.jsonl"
    r.write_text('[]\n[]\n{"name": 1\n', encoding="utf-8")
    rc, out, err = score(capsys, "-p", str(p), "-r", str(r))
    assert (rc, out) == (2, "")
    assert f"{p}:2: invalid JSON" in err and f"{r}:3: invalid JSON" in err


@pytest.mark.parametrize("fmt", ["table", "json"])
@pytest.mark.parametrize("stop", [[], ["--max-errors", "2"], ["--on-parse-error", "raise"]],
                         ids=["all-lines", "max-errors", "raise"])
def test_details_after_bad_input_are_not_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, stop: list[str]
) -> None:
    """Exit 2 means no result: with --details - (or FILE), stdout stays empty, as without
    --details, and stderr is the same — no detail rows that a pipeline could take for scores."""
    path = _mixed(tmp_path)
    plain = score(capsys, "--input", str(path), "-o", fmt, *stop)
    assert plain[:2] == (2, "")
    assert score(capsys, "--input", str(path), "-o", fmt, "--details", "-", *stop) == plain
    details = tmp_path / "d.jsonl"
    details.write_text("an older run's details\n", encoding="utf-8")
    assert score(capsys, "--input", str(path), "-o", fmt, "--details", str(details), *stop) == plain
    assert details.read_text(encoding="utf-8") == "an older run's details\n"  # kept, not emptied


def test_details_of_a_run_with_scores_are_all_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [GOOD, {"prediction": "[f(x=", "reference": [c("f", x=1)]}] * 3_000  # past the 1 MB held in memory
    inp = write_jsonl(tmp_path / "in.jsonl", rows)
    details = tmp_path / "d.jsonl"
    rc, out, _ = score(capsys, "--input", str(inp), "-o", "json", "--details", "-")
    assert rc == 0 and len(out) > 1 << 20
    *written, summary = [json.loads(line) for line in out.splitlines()]
    assert [d["index"] for d in written] == list(range(6_000)) and summary["num_examples"] == 6_000
    details.write_text("an older run's details, longer than nothing\n" * 100_000, encoding="utf-8")
    assert score(capsys, "--input", str(inp), "-o", "json", "--details", str(details))[:2] == (0, json.dumps(summary) + "\n")
    assert details.read_text(encoding="utf-8").splitlines() == out.splitlines()[:-1]


# --------------------------------------------------------------------------- unreadable predictions


def test_the_format_warning_needs_a_corpus_of_ten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As the core's compute(): under 10 examples the errors are listed, without the format hint."""
    rows = [GOOD] + [{"prediction": f"[f(x={i}", "reference": [c("f", x=1)]} for i in range(7)]
    rc, _, err = score(capsys, "--input", str(write_jsonl(tmp_path / "in.jsonl", rows)))
    assert rc == 0
    assert "warning:" not in err
    assert err.splitlines()[0] == "toolcall-f1: 7 prediction(s) could not be read (scored as no calls); the first 5:"


def test_unreadable_predictions_are_named_after_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [GOOD] + [{"prediction": f"[f(x={i}", "reference": [c("f", x=1)]} for i in range(10)]
    inp = write_jsonl(tmp_path / "in.jsonl", rows)
    rc, out, err = score(capsys, "--input", str(inp))
    assert rc == 0
    assert "num_parse_errors    10" in out
    warning, *lines = err.splitlines()
    assert warning == "toolcall-f1: warning: 10 of 11 predictions could not be read: is --prediction-format 'auto' right?"
    assert lines[0] == "toolcall-f1: 10 prediction(s) could not be read (scored as no calls); the first 5:"
    assert lines[1].startswith(f"  {inp}:2: python: unbalanced brackets")
    assert lines[5].startswith(f"  {inp}:6: python: ")
    assert lines[6] == "  (every example's verdict and parse error: --details FILE)"


def test_details_to_stdout_then_the_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [GOOD, {"id": "b", "prediction": "[f(x=", "reference": [c("f", x=1)]}]
    inp = write_jsonl(tmp_path / "in.jsonl", rows)
    assert not (Path.cwd() / "-").exists()
    rc, out, err = score(capsys, "--input", str(inp), "--output-format", "json", "--details", "-")
    assert rc == 0, err
    assert not (Path.cwd() / "-").exists()
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 3
    assert [d["index"] for d in lines[:2]] == [0, 1]
    assert lines[1]["id"] == "b" and lines[1]["parse_error"].startswith(f"{inp}:2: python: unbalanced brackets")
    summary = lines[2]
    assert summary == ToolCallMetric().compute([r["prediction"] for r in rows], [r["reference"] for r in rows])


# --------------------------------------------------------------------------- warnings, old spellings


def test_tools_field_absent_from_every_line_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inp = write_jsonl(tmp_path / "in.jsonl", [GOOD, GOOD])
    rc, _, err = score(capsys, "--input", str(inp), "--tools-field", "functions")
    assert rc == 0
    assert "toolcall-f1: warning: --tools-field 'functions' is absent from every line" in err


def test_mostly_unreadable_predictions_question_the_format(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = score(capsys, "--input", str(TRACES), "--prediction-format", "bfcl")
    assert rc == 0
    assert "toolcall-f1: warning: 15 of 26 predictions could not be read: is --prediction-format 'bfcl' right?" in err
    rc, _, err = score(capsys, "--input", str(TRACES))
    assert "warning" not in err  # 1 of 26


def test_python_warnings_from_the_scorer_go_to_stderr_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Warning_(ToolCallMetric):
        def scores(self, *args: Any, **kwargs: Any) -> Any:  # the CLI's stream: a warning per example
            for score in super().scores(*args, **kwargs):
                warnings.warn("weights: tool 'nope' is not among the tool schemas", UserWarning, stacklevel=1)
                yield score

    monkeypatch.setattr(cli, "ToolCallMetric", Warning_)
    inp = write_jsonl(tmp_path / "in.jsonl", [GOOD, GOOD, GOOD])
    rc, _, err = score(capsys, "--input", str(inp))
    assert rc == 0
    assert err.splitlines() == ["toolcall-f1: warning: weights: tool 'nope' is not among the tool schemas (x3)"]


def test_old_format_flag_still_works_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = score(capsys, "--input", str(TRACES), "--tools", str(TOOLS), "--format", "json")
    assert rc == 0
    assert json.loads(out)["f1"] == 76 / 111
    assert "toolcall-f1: warning: --format/-f is deprecated, use --output-format/-o" in err
    rc, out, _ = score(capsys, "--input", str(TRACES), "-f", "json")
    assert rc == 0 and json.loads(out)["num_examples"] == 26


def test_weights_file_error_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = write_json(tmp_path / "w.json", {"f": "heavy"})
    rc, out, err = score(capsys, "--input", str(TRACES), "--weights", str(w))
    assert (rc, out) == (2, "")
    assert f"{w}: weights" in err


def test_an_unexpected_error_is_exit_2_not_the_fail_under_code(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise KeyError("cache")

    monkeypatch.setattr(ToolCallMetric, "scores", broken)  # the stream the CLI scores through
    rc, out, err = score(capsys, "--input", str(TRACES), "--fail-under", "0.5")
    assert (rc, out) == (2, "")
    assert err.startswith("toolcall-f1: error: unexpected KeyError: 'cache' (a bug in toolcall-f1")


# --------------------------------------------------------------------------- found by trying it as a new user


def test_details_never_overwrites_an_input_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inp = write_jsonl(tmp_path / "in.jsonl", [GOOD, GOOD])
    before = inp.read_bytes()
    rc, _, err = score(capsys, "--input", str(inp), "--details", str(inp))
    assert rc == 2
    assert "--details would overwrite an input file" in err
    assert inp.read_bytes() == before


def test_a_tools_field_that_is_not_used_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = [{"name": "f", "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}}}}]
    line = {"prediction": "[f(a=10.0)]", "reference": [c("f", a=10)], "tools": tools}
    inp = write_jsonl(tmp_path / "in.jsonl", [line])
    rc, out, err = score(capsys, "--input", str(inp), "--output-format", "json")
    assert rc == 0 and json.loads(out)["f1"] == 1.0  # 10.0 == 10 without the schema
    assert "1 line(s) carry a 'tools' field that was not used: add --tools-field tools" in err
    rc, out, err = score(capsys, "--input", str(inp), "--output-format", "json", "--tools-field", "tools")
    assert rc == 0 and json.loads(out)["f1"] == 0.0  # the schema's integer type rejects 10.0
    assert "not used" not in err


# --------------------------------------------------------------------------- duplicate keys
# json.loads keeps the last value of a repeated key, silently: {"x": 1, "x": 2} would be
# scored as {"x": 2}. The CLI names the line (and column) instead, like any unusable line.
# The same value twice is one key (SPEC §2: one rule for every JSON the metric decodes).

DUP_LINES = [
    # (id, the JSONL line, the key named twice: the column is that of its last occurrence)
    ("argument", '{"prediction": [], "reference": [{"name": "f", "arguments": {"x": 1, "x": 2}}]}', "x"),
    ("field", '{"prediction": [], "reference": [], "reference": [{"name": "f", "arguments": {}}]}', "reference"),
    ("in-prediction", '{"prediction": [{"name": "f", "arguments": {"y": 1, "y": 1.0}}], "reference": []}', "y"),
    # the first repeat in the text: the outer 'x' comes again before the inner 'z' does
    ("first-in-text", '[1, {"x": {"y": 1}, "x": {"z": 1, "z": 2}}]', "x"),
]


@pytest.mark.parametrize("line, key", [d[1:] for d in DUP_LINES], ids=[d[0] for d in DUP_LINES])
def test_a_duplicate_key_in_a_jsonl_line_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, key: str
) -> None:
    column = line.rindex(json.dumps(key)) + 1
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + line + "\n" + json.dumps(GOOD) + "\n", encoding="utf-8")
    rc, out, err = score(capsys, "--input", str(path), "--fail-under", "0.1")
    assert (rc, out) == (2, ""), err
    assert err.splitlines() == [
        f"toolcall-f1: error: {path}:2: duplicate key {key!r} (column {column}): "
        "a JSON object names it twice, and only one of its values would be read",
        "toolcall-f1: error: 1 input line(s) could not be used (above); no scores reported",
    ]


def test_duplicate_keys_on_many_lines_are_all_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dup = '{"prediction": [], "reference": [], "reference": [{"name": "g", "arguments": {}}]}'
    refs = tmp_path / "r.jsonl"
    refs.write_text("\n".join([json.dumps([c("f", x=1)]), dup, '[{"name": "f", "name": "g"}]', dup]) + "\n",
                    encoding="utf-8")
    preds = write_jsonl(tmp_path / "p.jsonl", [[c("f", x=1)]] * 4)
    rc, out, err = score(capsys, "-p", str(preds), "-r", str(refs))
    assert (rc, out) == (2, "")
    assert [e.split(": duplicate key ")[0] for e in err.splitlines()[:-1]] == [
        f"toolcall-f1: error: {refs}:{n}" for n in (2, 3, 4)
    ]
    assert "duplicate key 'name' (column 16)" in err
    assert err.splitlines()[-1].endswith("3 input line(s) could not be used (above); no scores reported")
    rc, out, err = score(capsys, "-p", str(preds), "-r", str(refs), "--max-errors", "1")
    assert (rc, out) == (2, "") and f"{refs}:3" not in err and "stopped after --max-errors 1" in err


def test_the_same_key_in_different_objects_is_fine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # sibling calls share "name"/"arguments", nested objects reuse a key: nothing repeated in one object
    line = {"prediction": [c("f", x={"x": 1}), c("f", x=2)], "reference": [c("f", x={"x": 1}), c("f", x=2)]}
    # a repeated key inside prediction *text* is the model's output, read by the scorer, not an input error
    text = '<tool_call>{"name": "f", "arguments": {"x": 2, "x": 2}}</tool_call>'
    inp = write_jsonl(tmp_path / "in.jsonl", [line, {"prediction": text, "reference": [c("f", x=2)]}])
    rc, out, err = score(capsys, "--input", str(inp), "--output-format", "json")
    assert rc == 0, err
    assert "duplicate key" not in err and json.loads(out)["num_examples"] == 2


def test_a_key_repeated_with_the_same_value_is_one_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # SPEC §2: the one JSON rule of the metric (an identical repeat was refused before it)
    same = '{"prediction": [{"name": "f", "arguments": {"x": 1, "x": 1}}], "reference": [{"name": "f", "arguments": {"x": 1}}], "reference": [{"name": "f", "arguments": {"x": 1}}]}'
    inp = tmp_path / "in.jsonl"
    inp.write_text(same + "\n", encoding="utf-8")
    tools = tmp_path / "tools.json"
    tools.write_text('[{"name": "f", "name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}}]',
                     encoding="utf-8")
    rc, out, err = score(capsys, "--input", str(inp), "--tools", str(tools), "--output-format", "json")
    assert rc == 0, err
    assert "duplicate key" not in err and json.loads(out)["f1"] == 1.0


DUP_FILES = [
    # (option, file text, the message after the path)
    ("--tools",
     '[\n  {"name": "f",\n   "parameters": {"type": "object",\n                  "properties": {"x": {"type": "string"},\n'
     '                                 "x": {"type": "integer"}}}}\n]\n',
     ":5: duplicate key 'x' in tools (column 34)"),
    ("--weights", '{"f": 1, "g": {"weight": 2, "arguments": {}}, "f": 3}', ":1: duplicate key 'f' in weights (column 47)"),
    ("--response-template", '{"fields": {}, "fields": {"x": "y"}}', ":1: duplicate key 'fields' in response template (column 16)"),
]


@pytest.mark.parametrize("option, text, message", DUP_FILES, ids=[d[0].strip("-") for d in DUP_FILES])
def test_a_duplicate_key_in_a_settings_file_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, text: str, message: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    rc, out, err = score(capsys, "--input", str(TRACES), option, str(path))
    assert (rc, out) == (2, ""), err
    assert err == (f"toolcall-f1: error: {path}{message}: "
                   "a JSON object names it twice, and only one of its values would be read\n")


# --------------------------------------------------------------------------- first-hour input mistakes (issue 26, 19)


def test_a_wrong_prediction_field_is_one_line_naming_the_fields_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_jsonl(tmp_path / "in.jsonl", [{**GOOD, "id": i} for i in range(50)])
    rc, out, err = score(capsys, "--input", str(path), "--prediction-field", "pred")
    assert (rc, out) == (2, "")
    errors = [line for line in err.splitlines() if line.startswith("toolcall-f1: error: ")]
    assert errors == [f"toolcall-f1: error: {path}:1: no field 'pred'; the fields found are 'prediction', "
                      "'reference', 'id': name the right one with --prediction-field"]
    rc, _, err = score(capsys, "--input", str(path), "--reference-field", "gold")
    assert rc == 2 and err.count("error:") == 1 and "name the right one with --reference-field" in err


@pytest.mark.parametrize("indent", [2, None], ids=["pretty", "one-line"])
def test_a_json_array_file_says_the_input_is_jsonl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], indent: int | None
) -> None:
    path = tmp_path / "examples.json"
    path.write_text(json.dumps([GOOD, GOOD, GOOD], indent=indent), encoding="utf-8")
    rc, out, err = score(capsys, "--input", str(path))
    assert (rc, out) == (2, "")
    if indent:
        assert err.count("error:") == 1
        assert f"{path}:1: this is a JSON array, not JSONL: the input must hold one JSON object per line" in err
        assert "jq -c '.[]'" in err
    else:
        assert "got list (one JSON object per line: the file holds a JSON array?)" in err


def test_a_byte_order_mark_at_the_start_of_a_file_is_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + (json.dumps(GOOD) + "\n").encode() * 2)
    rc, out, err = score(capsys, "--input", str(path), "--output-format", "json")
    assert rc == 0, err
    assert json.loads(out)["f1"] == 1.0
    tools = tmp_path / "tools.json"
    tools.write_bytes(b"\xef\xbb\xbf" + TOOLS.read_bytes())
    rc, out, err = score(capsys, "--input", str(path), "--tools", str(tools), "--output-format", "json")
    assert rc == 0, err


# --------------------------------------------------------------------------- a full disk (issue 26 item 19)

FULL = Path("/dev/full")


@pytest.mark.skipif(not FULL.exists(), reason="/dev/full (a device that is always full) exists on Linux only")
@pytest.mark.parametrize(
    ("flags", "to_full", "message"),
    [([], True, "<stdout>: cannot write the result: No space left on device"),
     (["--details", "-"], True, "<stdout>: cannot write the details: No space left on device"),
     (["--details", str(FULL)], False, f"{FULL}: cannot write the details: No space left on device"),
     (["-o", "json", "--details", str(FULL)], True, f"{FULL}: cannot write the details: No space left on device")],
    ids=["result-to-stdout", "details-to-stdout", "details-file", "details-file-and-stdout"],
)
def test_a_full_disk_is_an_io_error_naming_the_file(tmp_path: Path, flags: list[str], to_full: bool,
                                                   message: str) -> None:
    """Writing the result or --details to a full disk is exit 2 with one line naming the file
    (before: 'unexpected OSError ... a bug in toolcall-f1'), and nothing more at exit."""
    path = write_jsonl(tmp_path / "in.jsonl", [GOOD])
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    with open(FULL if to_full else os.devnull, "w") as stdout:
        proc = subprocess.run([sys.executable, "-m", "toolcall_f1", "score", "--input", str(path), "--no-progress",
                               *flags], stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, timeout=300,
                              check=False)
    assert proc.returncode == 2
    assert proc.stderr == f"toolcall-f1: error: {message}\n"


class _FullSpool(io.StringIO):
    """A temporary file on a full disk."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_under_the_details_temporary_file_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_jsonl(tmp_path / "in.jsonl", [GOOD])
    monkeypatch.setattr(cli.tempfile, "SpooledTemporaryFile", _FullSpool)
    rc, out, err = score(capsys, "--input", str(path), "--details", str(tmp_path / "d.jsonl"))
    assert rc == 2 and out == ""
    assert err == f"toolcall-f1: error: {tempfile.gettempdir()}: cannot hold the details in a temporary file: " \
                  "No space left on device\n"
