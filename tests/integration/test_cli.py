"""The ``toolcall-f1`` command line, through ``main([...])`` and as ``python -m toolcall_f1``.

Every number the CLI prints is checked against ``ToolCallMetric(...).compute`` on the same
data (float for float, signature included) and, where the spec gives one, against the
hand-checked value of SPEC §9.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import subprocess
import sys
import tracemalloc
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from toolcall_f1 import COMPILED, ToolCallMetric, ToolCallWarning, counting, metric
from toolcall_f1.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
TRACES = EXAMPLES / "agent_traces.jsonl"
TOOLS = EXAMPLES / "tools.json"


# --------------------------------------------------------------------------- helpers


def write_jsonl(path: Path, values: list[Any]) -> Path:
    path.write_text("".join(json.dumps(v) + "\n" for v in values), encoding="utf-8")
    return path


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    rc = main(["score", "--output-format", "json", "--no-progress", *args])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)


def load_traces() -> tuple[list[Any], list[Any], list[str]]:
    rows = [json.loads(line) for line in TRACES.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["prediction"] for r in rows], [r["reference"] for r in rows], [r["id"] for r in rows]


def c(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args}


# --------------------------------------------------------------------------- the bundled example


def test_bundled_example_table_shows_the_documented_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["score", "--input", str(TRACES), "--tools", str(TOOLS), "--per-tool", "--no-progress"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    lines = out.splitlines()
    # the headline numbers written down in examples/README.md
    for expected in [
        "f1                  0.6847",
        "precision           0.6552",
        "recall              0.7170",
        "exact_match         0.5385  (14 of 26)",
        "tp                  38",
        "fp                  20",
        "fn                  15",
        "num_examples        26",
        "num_parse_errors    1",
        "hallucinated_tools  1",
        "hallucinated_args   1",
        "tool                   tp  fp  fn  precision  recall      f1",
        "delete_account         10  10   0     0.5000  1.0000  0.6667",
        "track_package           0   1   0     0.0000  0.0000  0.0000",
    ]:
        assert expected in lines, f"{expected!r} not in:\n{out}"
    preds, refs, _ = load_traces()
    tools = json.loads(TOOLS.read_text())
    ref = ToolCallMetric(tools=tools).compute(preds, refs)
    assert f"signature           {ref['signature']}" in lines
    assert ref["f1"] == 76 / 111  # 2·38 / (2·38 + 20 + 15)
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    assert ref["signature"] in readme


@pytest.mark.parametrize(
    "flags, kwargs",
    [
        ([], {}),
        (["--level", "arg"], {"level": "arg"}),
        (["--matching", "optimal"], {"matching": "optimal"}),
        (["--canonicalizer", "exact"], {"canonicalizer": "exact"}),
        (
            ["--canonicalizer", "bfcl", "--name-canonicalizer", "underscore"],
            {"canonicalizer": "bfcl", "name_canonicalizer": "underscore"},
        ),
        (["--prediction-format", "bfcl"], {"prediction_format": "bfcl"}),
        (
            ["--level", "arg", "--matching", "optimal", "--canonicalizer", "exact"],
            {"level": "arg", "matching": "optimal", "canonicalizer": "exact"},
        ),
    ],
    ids=[
        "defaults",
        "arg",
        "optimal",
        "exact-canon",
        "bfcl-canon-underscore",
        "bfcl-pred",
        "arg-optimal-exact",
    ],
)
@pytest.mark.parametrize("with_tools", [True, False], ids=["tools", "no-tools"])
def test_json_output_equals_compute(
    capsys: pytest.CaptureFixture[str], flags: list[str], kwargs: dict[str, Any], with_tools: bool
) -> None:
    preds, refs, _ = load_traces()
    tools = json.loads(TOOLS.read_text()) if with_tools else None
    tool_flags = ["--tools", str(TOOLS)] if with_tools else []
    got = run_json(capsys, "--input", str(TRACES), "--per-tool", *tool_flags, *flags)
    strict = kwargs.get("prediction_format") == "bfcl"  # most of the mixed-format traces are not BFCL's syntax
    with pytest.warns(ToolCallWarning, match="is prediction_format='bfcl' right") if strict else contextlib.nullcontext():
        want = ToolCallMetric(tools=tools, **kwargs).compute(preds, refs, per_tool=True)
    assert got == want


def test_documented_other_settings(capsys: pytest.CaptureFixture[str]) -> None:
    """The table of examples/README.md."""
    base = ["--input", str(TRACES)]
    tools = ["--tools", str(TOOLS)]
    arg = run_json(capsys, *base, *tools, "--level", "arg")
    assert (arg["tp"], arg["fp"], arg["fn"], round(arg["f1"], 4)) == (159, 40, 37, 0.8051)
    exact = run_json(capsys, *base, *tools, "--canonicalizer", "exact")
    assert (exact["tp"], exact["fp"], exact["fn"], round(exact["f1"], 4)) == (33, 25, 20, 0.5946)
    assert exact["exact_match"] == 11 / 26
    bare = run_json(capsys, *base)
    assert (bare["tp"], bare["fp"], bare["fn"], round(bare["f1"], 4)) == (17, 10, 11, 0.6182)
    assert bare["num_parse_errors"] == 2 and bare["signature"].endswith("|w:none|v:0.1.0")


# --------------------------------------------------------------------------- hand-checked (SPEC §9)


def test_two_file_mode_micro_average_from_the_spec(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Example A exact (TP1), example B pred [] gold [g()] (FN1): micro F1 2/3, not 0.5."""
    p = write_jsonl(tmp_path / "preds.jsonl", [[c("f")], []])
    r = write_jsonl(tmp_path / "refs.jsonl", [[c("f")], [c("g")]])
    got = run_json(capsys, "--predictions", str(p), "--references", str(r))
    assert got["f1"] == 2 / 3
    assert (got["tp"], got["fp"], got["fn"], got["exact_match"]) == (1.0, 0.0, 1.0, 0.5)
    assert got == ToolCallMetric().compute([[c("f")], []], [[c("f")], [c("g")]])


def test_spec_examples_call_and_arg_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    preds = [
        [c("search", q="cats"), c("answer", a="meow")],
        [c("search", q="cats"), c("delete_all")],
        "[s(q='b'), s(q='a')]",
        [],
    ]
    refs = [
        [c("search", q="cats"), c("answer", a="meow")],
        [c("search", q="cats"), c("answer", a="meow")],
        [c("s", q="a"), c("s", q="b")],
        [],
    ]
    p = write_jsonl(tmp_path / "p.jsonl", preds)
    r = write_jsonl(tmp_path / "r.jsonl", refs)
    details = tmp_path / "d.jsonl"
    got = run_json(capsys, "-p", str(p), "-r", str(r), "--details", str(details))
    rows = [json.loads(x) for x in details.read_text().splitlines()]
    assert [(d["tp"], d["fp"], d["fn"], d["f1"]) for d in rows] == [
        (2.0, 0.0, 0.0, 1.0),  # identical: F1 1.0
        (1.0, 1.0, 1.0, 0.5),  # call level TP1 FP1 FN1 -> 0.5
        (2.0, 0.0, 0.0, 1.0),  # reordered: both pairs exact
        (0.0, 0.0, 0.0, 1.0),  # nothing expected, nothing predicted
    ]
    assert [d["exact"] for d in rows] == [True, False, True, True]
    assert (got["tp"], got["fp"], got["fn"], got["exact_match"]) == (5.0, 1.0, 1.0, 0.75)
    arg = run_json(capsys, "-p", str(p), "-r", str(r), "--level", "arg", "--details", str(details))
    second = json.loads(details.read_text().splitlines()[1])
    assert (second["tp"], second["fp"], second["fn"]) == (2.0, 1.0, 2.0)
    assert Fraction(second["f1"]).limit_denominator(100) == Fraction(4, 7)
    assert arg == ToolCallMetric("arg").compute(preds, refs)


def test_weights_file_makes_a_destructive_call_cost_ten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = write_jsonl(tmp_path / "p.jsonl", [[c("delete_all")], [c("search", q="cats")]])
    r = write_jsonl(tmp_path / "r.jsonl", [[], [c("search", q="cats")]])
    w = write_json(tmp_path / "w.json", {"delete_all": 10})
    got = run_json(capsys, "-p", str(p), "-r", str(r), "--weights", str(w), "--per-tool")
    assert (got["tp"], got["fp"], got["fn"]) == (1.0, 10.0, 0.0)
    assert got["per_tool"]["delete_all"]["fp"] == 10.0 and got["per_tool"]["delete_all"]["f1"] == 0.0
    assert got["f1"] == 2 / 12
    metric = ToolCallMetric(weights={"delete_all": 10})
    assert got == metric.compute(
        [[c("delete_all")], [c("search", q="cats")]], [[], [c("search", q="cats")]], per_tool=True
    )
    assert "|w:none|" not in got["signature"]


def test_default_canonicalizer_folds_case_and_whitespace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inp = write_jsonl(
        tmp_path / "in.jsonl",
        [
            {"prediction": [c("f", city="  new   YORK ")], "reference": [c("f", city="New York")]},
            {"prediction": [c("f", d="Jan.28,2021")], "reference": [c("f", d="jan 28 2021")]},
        ],
    )
    default = run_json(capsys, "--input", str(inp))
    assert (default["tp"], default["fp"], default["fn"]) == (1.0, 1.0, 1.0)
    bfcl = run_json(capsys, "--input", str(inp), "--canonicalizer", "bfcl")  # drops spaces , . too
    assert (bfcl["tp"], bfcl["fp"], bfcl["fn"], bfcl["exact_match"]) == (2.0, 0.0, 0.0, 1.0)
    exact = run_json(capsys, "--input", str(inp), "--canonicalizer", "exact")
    assert (exact["tp"], exact["fp"], exact["fn"], exact["exact_match"]) == (0.0, 2.0, 2.0, 0.0)


# --------------------------------------------------------------------------- one-file mode, details


def test_one_file_mode_with_custom_fields_and_per_example_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema_f = {
        "name": "f",
        "parameters": {
            "type": "dict",
            "properties": {"x": {"type": "integer"}, "unit": {"type": "string", "default": "c"}},
        },
        "importance": 4,
    }
    schema_g = {"name": "g", "parameters": {"type": "dict", "properties": {"y": {"type": "string"}}}}
    rows: list[dict[str, Any]] = [
        {"id": "a", "out": "[f(5)]", "gold": [c("f", x=5)], "functions": [schema_f]},  # positional via schema
        {"id": "b", "out": "[f(x=5, unit='c')]", "gold": [c("f", x=5)], "functions": [schema_f]},  # default
        {
            "id": "c",
            "out": "[g(y='k'), h()]",
            "gold": [c("g", y="k")],
            "functions": [schema_g],
        },  # h hallucinated
        {"id": "d", "out": "[f(x=1)]", "gold": [c("f", x=1)]},  # no tools on this line
        {"id": "e", "out": "<tool_call>{oops</tool_call>", "gold": c("f", x=1), "functions": [schema_f]},
    ]
    inp = write_jsonl(tmp_path / "bfcl_like.jsonl", rows)
    details = tmp_path / "details.jsonl"
    got = run_json(
        capsys,
        "--input",
        str(inp),
        "--prediction-field",
        "out",
        "--reference-field",
        "gold",
        "--tools-field",
        "functions",
        "--per-tool",
        "--details",
        str(details),
    )
    refs = [
        {"calls": r["gold"] if isinstance(r["gold"], list) else [r["gold"]], "tools": r["functions"]}
        if "functions" in r
        else r["gold"]
        for r in rows
    ]
    want = ToolCallMetric().compute([r["out"] for r in rows], refs, per_tool=True, return_details=True)
    want_details = want.pop("details")
    assert got == want
    # hand-checked: f weighs 4 where its schema applies (a, b, e), 1 on line d
    assert (got["tp"], got["fp"], got["fn"]) == (4 + 4 + 1 + 1, 1.0, 4.0)
    assert (got["num_parse_errors"], got["hallucinated_tools"]) == (1, 1)
    assert "|w:none|" not in got["signature"]  # per-example schemas enter the signature
    written = [json.loads(x) for x in details.read_text(encoding="utf-8").splitlines()]
    assert [d["id"] for d in written] == ["a", "b", "c", "d", "e"]
    assert [d["line"] for d in written] == [1, 2, 3, 4, 5]
    assert [d["index"] for d in written] == [0, 1, 2, 3, 4]
    for d, w in zip(written, want_details):
        skip = ("line", "index", "id", "parse_error")
        assert {k: v for k, v in d.items() if k not in skip} == {k: v for k, v in json.loads(json.dumps(w)).items() if k not in skip}
    # the reason, named by file and line rather than by index
    assert [d["parse_error"] is None for d in written] == [True] * 4 + [False]
    assert written[4]["parse_error"].startswith(f"{inp}:5: hermes: invalid JSON")


def test_details_in_two_file_mode_carry_both_line_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = tmp_path / "p.jsonl"
    p.write_text('[]\n\n[{"name": "f", "arguments": {"x": 1}}]\n', encoding="utf-8")  # a blank line
    r = write_jsonl(tmp_path / "r.jsonl", [[], [c("f", x=2)]])
    details = tmp_path / "d.jsonl"
    got = run_json(capsys, "-p", str(p), "-r", str(r), "--details", str(details))
    rows = [json.loads(x) for x in details.read_text().splitlines()]
    assert [(d["line"], d["reference_line"], d["index"]) for d in rows] == [(1, 1, 0), (3, 2, 1)]
    assert "id" not in rows[0]
    assert rows[1]["pairs"][0]["arguments"][0]["verdict"] == "disagree"
    assert (got["num_examples"], got["tp"], got["fp"], got["fn"]) == (2, 0.0, 1.0, 1.0)


# --------------------------------------------------------------------------- exit codes, errors


def test_fail_under_passes_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["score", "--input", str(TRACES), "--tools", str(TOOLS), "--no-progress"]
    assert main([*base, "--fail-under", "0.6"]) == 0
    out, err = capsys.readouterr()
    assert "0.6847" in out and "FAIL" not in err
    assert main([*base, "--fail-under", "0.6847"]) == 1  # 0.68468... < 0.6847
    out, err = capsys.readouterr()
    assert "0.6847" in out  # the scores are still reported
    assert "toolcall-f1: FAIL: f1 0.6847 is below --fail-under 0.6847" in err
    assert main([*base, "--fail-under", "1.5"]) == 2
    assert "--fail-under must be between 0 and 1" in capsys.readouterr().err


def test_malformed_line_is_named_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = write_jsonl(tmp_path / "preds.jsonl", [[], [], [], []])
    r = tmp_path / "refs.jsonl"
    r.write_text('[]\n[]\n\n{"name": "f", "arguments": {"x": 1}\n[]\n', encoding="utf-8")
    assert main(["score", "-p", str(p), "-r", str(r), "--no-progress"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{r}:4: invalid JSON: Expecting ',' delimiter" in err


def test_missing_field_and_non_object_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inp = write_jsonl(tmp_path / "in.jsonl", [{"prediction": [], "reference": []}, {"prediction": []}])
    assert main(["score", "--input", str(inp)]) == 2
    assert f"{inp}:2: missing field 'reference'" in capsys.readouterr().err
    inp2 = write_jsonl(tmp_path / "in2.jsonl", [[c("f")]])
    assert main(["score", "--input", str(inp2)]) == 2
    assert f"{inp2}:1: expected a JSON object with a field 'prediction', got list" in capsys.readouterr().err


def test_unreadable_reference_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = write_jsonl(tmp_path / "p.jsonl", [[], []])
    r = write_jsonl(tmp_path / "r.jsonl", [[], ["f(a=1)"]])  # a string literal is data: not a call
    assert main(["score", "-p", str(p), "-r", str(r)]) == 2
    err = capsys.readouterr().err
    assert f"{r}:2: reference: " in err and "not a list of calls" in err


def test_prediction_parse_errors_are_counted_unless_raise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = write_jsonl(tmp_path / "p.jsonl", [[c("f")], "[f(a=1+1)]"])
    r = write_jsonl(tmp_path / "r.jsonl", [[c("f")], [c("f", a=2)]])
    got = run_json(capsys, "-p", str(p), "-r", str(r))
    assert (got["num_parse_errors"], got["tp"], got["fn"], got["exact_match"]) == (1, 1.0, 1.0, 0.5)
    assert main(["score", "-p", str(p), "-r", str(r), "--on-parse-error", "raise"]) == 2
    err = capsys.readouterr().err
    assert f"{p}:2: prediction: " in err and "arithmetic" in err


def test_a_parse_error_in_a_turn_names_the_line_and_the_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = write_jsonl(tmp_path / "p.jsonl", [["[f()]", "[g(a=1+1)]"]])
    r = write_jsonl(tmp_path / "r.jsonl", [{"turns": [[c("f")], [c("g", a=2)]]}])
    assert main(["score", "-p", str(p), "-r", str(r), "--order", "turns", "--on-parse-error", "raise"]) == 2
    err = capsys.readouterr().err
    assert f"{p}:1: prediction: turn 1: " in err and "arithmetic" in err


def test_mismatched_line_counts_name_both_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = write_jsonl(tmp_path / "p.jsonl", [[]] * 3)
    r = tmp_path / "r.jsonl"
    r.write_text("[]\n[]\n\n[]\n[]\nnot json, but only counted\n\n", encoding="utf-8")
    assert main(["score", "-p", str(p), "-r", str(r)]) == 2
    assert f"{p} has 3 examples but {r} has 5" in capsys.readouterr().err
    assert main(["score", "-p", str(r), "-r", str(p)]) == 2
    assert f"{r} has 5 examples but {p} has 3" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["score"], "give --input FILE, or both --predictions FILE and --references FILE"),
        (["score", "-p", "a.jsonl"], "give --input FILE, or both"),
        (["score", "-i", "a.jsonl", "-p", "b.jsonl", "-r", "c.jsonl"], "not both"),
        (["score", "-i", "no/such/file.jsonl"], "no/such/file.jsonl: cannot open"),
        (["score", "-i", str(TRACES), "--level", "token"], "invalid choice: 'token'"),
        (["score", "-i", str(TRACES), "--tools", str(TRACES)], "invalid JSON in tools"),
        ([], "usage: toolcall-f1"),
    ],
    ids=["no-input", "half-pair", "both-modes", "missing-file", "bad-level", "bad-tools", "no-command"],
)
def test_usage_errors_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_bad_tools_and_weights_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = write_json(tmp_path / "tools.json", {"name": "f"})
    assert main(["score", "-i", str(TRACES), "--tools", str(t)]) == 2
    assert f"{t}: expected a JSON list of tool schemas, got dict" in capsys.readouterr().err
    w = write_json(tmp_path / "w.json", {"delete_account": -1})
    assert main(["score", "-i", str(TRACES), "--weights", str(w)]) == 2
    assert (
        f"{w}: weights: tool 'delete_account' must be a finite number from 0 to 1e+100, got -1" in capsys.readouterr().err
    )


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    build = "compiled" if COMPILED else "pure Python"
    assert capsys.readouterr().out.strip() == f"toolcall-f1 {metric.VERSION} ({build})"
    assert main(["score", "--help"]) == 0
    assert "--fail-under" in capsys.readouterr().out


def test_progress_bar_goes_to_stderr_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["score", "--input", str(TRACES), "--tools", str(TOOLS), "--output-format", "json"]
    assert main([*base, "--progress"]) == 0
    out, err = capsys.readouterr()
    assert "toolcall-f1" in err and "100%" in err
    json.loads(out)  # stdout stays clean JSON
    assert main([*base, "--no-progress"]) == 0
    quiet = capsys.readouterr().err
    assert "100%" not in quiet and quiet.startswith("toolcall-f1: 1 prediction(s) could not be read")
    assert main(base) == 0  # stderr is not a terminal under pytest
    assert capsys.readouterr().err == quiet


# --------------------------------------------------------------------------- as a subprocess


def run_module(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "toolcall_f1", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        input=stdin,
        env=env,
        timeout=300,
        check=False,
    )


def test_python_m_scores_the_bundled_example() -> None:
    proc = run_module(
        "score", "--input", "examples/agent_traces.jsonl", "--tools", "examples/tools.json", "--per-tool"
    )
    assert proc.returncode == 0, proc.stderr
    # what `make run` shows a newcomer: where and why the one unreadable prediction failed
    assert proc.stderr.splitlines() == [
        "toolcall-f1: 1 prediction(s) could not be read (scored as no calls):",
        "  examples/agent_traces.jsonl:12: hermes: invalid JSON at character 73: Expecting ',' delimiter "
        """(in '{"name": "get_order_status", "arguments": {"order_id": "E-5"\\n</tool_call>')""",
        "  (every example's verdict and parse error: --details FILE)",
    ]
    for note in ["tp/fp/fn are weighted counts", "signature: every setting that produced these numbers",
                 "1 prediction(s) could not be read", "--details FILE", "toolcall-f1 score --help"]:
        assert note in proc.stdout
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")  # shows the notes and stderr as printed
    for line in proc.stdout.splitlines()[-5:] + proc.stderr.splitlines():
        assert line in readme, line
    assert proc.stdout.startswith("toolcall_f1 0.1.0: 26 examples from examples/agent_traces.jsonl")
    assert "f1                  0.6847" in proc.stdout
    assert "send_email              9   3   3     0.7500  0.7500  0.7500" in proc.stdout


def test_python_m_json_matches_compute_and_exit_codes(tmp_path: Path) -> None:
    proc = run_module(
        "score",
        "--input",
        "examples/agent_traces.jsonl",
        "--tools",
        "examples/tools.json",
        "--output-format",
        "json",
        "--level",
        "arg",
        "--matching",
        "optimal",
    )
    assert proc.returncode == 0, proc.stderr
    preds, refs, _ = load_traces()
    want = ToolCallMetric("arg", matching="optimal", tools=json.loads(TOOLS.read_text())).compute(preds, refs)
    assert json.loads(proc.stdout) == want

    fail = run_module("score", "--input", "examples/agent_traces.jsonl", "--fail-under", "0.99")
    assert fail.returncode == 1 and "FAIL: f1 0.6182 is below --fail-under 0.99" in fail.stderr

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prediction": [], "reference": []}\nnot json\n', encoding="utf-8")
    broken = run_module("score", "--input", str(bad))
    assert broken.returncode == 2
    assert f"{bad}:2: invalid JSON: Expecting value" in broken.stderr
    assert "Traceback" not in broken.stderr


def test_python_m_reads_stdin() -> None:
    stdin = TRACES.read_text(encoding="utf-8")
    proc = run_module(
        "score", "--input", "-", "--tools", "examples/tools.json", "--output-format", "json", stdin=stdin
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["f1"] == 76 / 111


# --------------------------------------------------------------------------- streaming, bounded memory


def _big_corpus(n: int, seed: int = 1) -> tuple[list[Any], list[Any], list[dict[str, Any]]]:
    """``n`` examples in several formats, with weights that are not exact in binary."""
    rng = random.Random(seed)
    tools = [
        {
            "name": "get_weather",
            "importance": 0.1,
            "parameters": {
                "type": "dict",
                "properties": {
                    "city": {"type": "string", "importance": 0.7},
                    "unit": {"type": "string", "default": "celsius"},
                },
            },
        },
        {
            "name": "refund",
            "importance": 3.3,
            "parameters": {
                "type": "dict",
                "properties": {"order": {"type": "string"}, "amount": {"type": "number", "importance": 0.3}},
            },
        },
    ]
    cities = ["Paris", "Oslo", "Lima", "Rome"]
    preds: list[Any] = []
    refs: list[Any] = []
    for i in range(n):
        city, other = rng.sample(cities, 2)
        amount = rng.randrange(1, 500) / 4
        gold = [c("get_weather", city=city), c("refund", order=f"O-{i}", amount=amount)]
        kind = rng.randrange(8)
        if kind == 0:
            pred: Any = gold
        elif kind == 1:
            pred = f"[refund(order='O-{i}', amount={amount}), get_weather(city='{city}')]"
        elif kind == 2:
            pred = f"[get_weather(city='{other}')]"
        elif kind == 3:
            pred = '<tool_call>{"name": "refund", "arguments": {"order": "O-' + str(i) + '"</tool_call>'
        elif kind == 4:
            pred = {
                "role": "assistant",
                "tool_calls": [
                    {
                        "type": "function",
                        "function": {
                            "name": "get_weather",
                            "arguments": json.dumps({"city": city, "unit": "celsius"}),
                        },
                    }
                ],
            }
        elif kind == 5:
            pred = "I can't help with that."
        elif kind == 6:
            pred = [c("refund", order=f"O-{i}", amount=amount + 1), c("delete_everything")]
        else:
            pred = "[TOOL_CALLS] " + json.dumps(gold)
        preds.append(pred)
        refs.append(gold if i % 5 else [gold[0]])
    return preds, refs, tools


def test_twenty_thousand_lines_stream_and_match_compute(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    n = 20_000
    preds, refs, tools = _big_corpus(n)
    p = write_jsonl(tmp_path / "p.jsonl", preds)
    r = write_jsonl(tmp_path / "r.jsonl", refs)
    t = write_json(tmp_path / "tools.json", tools)
    want = ToolCallMetric("arg", tools=tools).compute(preds, refs, per_tool=True)
    # the float sums are not trivially exact: a naive left-to-right sum differs in the last digit
    scores = ToolCallMetric("arg", tools=tools).score_all(preds[:2_000], refs[:2_000])
    assert sum(s.tp for s in scores) != math.fsum(s.tp for s in scores)
    del scores

    # the CLI must stream: never the whole-corpus entry points
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the CLI must not hold the corpus")

    monkeypatch.setattr(ToolCallMetric, "compute", forbidden)
    monkeypatch.setattr(ToolCallMetric, "score_all", forbidden)
    monkeypatch.setattr(counting, "summarize", forbidden)
    got = run_json(capsys, "-p", str(p), "-r", str(r), "--tools", str(t), "--level", "arg", "--per-tool")
    assert got == want
    assert got["num_examples"] == n and got["num_parse_errors"] > 0 and got["hallucinated_tools"] > 0


def _peak_memory(path: Path) -> int:
    tracemalloc.start()
    try:
        rc = main(
            ["score", "--input", str(path), "--no-progress", "--output-format", "json", "--details", os.devnull]
        )
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        assert rc == 0


def _long_text_rows(n: int, seed: int) -> list[dict[str, Any]]:
    """Examples with a distinct 2 kB string argument each (emails, code, ...)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        body = f"{i}: " + "".join(rng.choice("abcde fgh") for _ in range(2000))
        pred = [c("send_email", to="a@example.com", body=body.upper() if i % 3 else body)]
        rows.append({"prediction": pred, "reference": [c("send_email", to="a@example.com", body=body)]})
    return rows


def test_memory_does_not_grow_with_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    preds, refs, _ = _big_corpus(4_000, seed=2)
    rows = [{"prediction": p, "reference": r} for p, r in zip(preds, refs)] + _long_text_rows(4_000, seed=3)
    random.Random(4).shuffle(rows)
    small = write_jsonl(tmp_path / "small.jsonl", rows[:1_000])
    big = write_jsonl(tmp_path / "big.jsonl", rows)
    _peak_memory(small)  # warm imports and the bounded schema cache
    peak_small = _peak_memory(small)
    peak_big = _peak_memory(big)
    capsys.readouterr()
    # 8x the examples (8 MB of text): holding the examples, their Score objects, or every
    # distinct string in a memo cache would grow the peak by megabytes
    assert peak_big < peak_small + 512 * 1024, (peak_small, peak_big)


def test_cli_agrees_with_the_evaluate_module(capsys: pytest.CaptureFixture[str]) -> None:
    """Same numbers and signature as ``evaluate.load(...)`` given the same tools."""
    pytest.importorskip("evaluate")
    import toolcall_f1

    preds, refs, _ = load_traces()
    tools = json.loads(TOOLS.read_text())
    want = toolcall_f1.load("arg").compute(predictions=preds, references=refs, tools=tools, per_tool=True)
    got = run_json(capsys, "--input", str(TRACES), "--tools", str(TOOLS), "--level", "arg", "--per-tool")
    assert got == want


def test_output_format_json_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One JSON document on one line, with or without --details - (appendable to a JSONL log)."""
    preds, refs, _ = load_traces()
    rc = main(["score", "--input", str(TRACES), "--tools", str(TOOLS), "--per-tool", "-o", "json", "--no-progress"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert out.count("\n") == 1 and out.endswith("}\n")
    want = ToolCallMetric(tools=json.loads(TOOLS.read_text())).compute(preds, refs, per_tool=True)
    assert json.loads(out) == want
    assert main(["score", "--help"]) == 0
    help_text, _ = capsys.readouterr()
    assert "json: the summary as one JSON object on one line" in " ".join(help_text.split())


def test_every_pointer_the_cli_prints_exists_for_an_installed_user(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The footer sends the reader to `toolcall-f1 score --help`, which explains every number of
    the table; nothing printed names a repository file (examples/...) a pip user does not have."""
    inp = write_jsonl(tmp_path / "in.jsonl", [{"prediction": [c("f", x=1)], "reference": [c("f", x=1)]}])
    assert main(["score", "--input", str(inp), "--no-progress"]) == 0
    table, _ = capsys.readouterr()
    assert table.splitlines()[-1].endswith("What each number means: toolcall-f1 score --help.")
    assert main(["score", "--help"]) == 0
    help_text, _ = capsys.readouterr()
    glossary = help_text.split("what the numbers mean:")[1].split("examples:")[0]
    for key in ["f1", "precision", "recall", "exact_match", "tp", "fp", "fn", "num_examples", "num_parse_errors",
                "hallucinated_tools", "hallucinated_args", "signature"]:
        assert key in glossary.replace(",", " ").split(), key
    assert main(["--help"]) == 0
    for printed in (table, help_text, capsys.readouterr()[0]):
        assert "examples/" not in printed and ".md" not in printed
