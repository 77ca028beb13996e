"""``toolcall-f1 compare --tools-field``: per-example tool schemas read from the reference
lines, as ``score --tools-field`` reads them (issue 26, the compare CLI's missing input option)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolcall_f1
from toolcall_f1.cli import main

#: f matters five times as much as g: which one a system gets wrong changes its F1.
TOOLS = [{"name": "f", "importance": 5, "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}},
         {"name": "g", "parameters": {"type": "object", "properties": {"y": {"type": "integer"}}}}]
CALLS = [[{"name": "f", "arguments": {"x": i}}, {"name": "g", "arguments": {"y": i}}] for i in range(30)]
BASE = [f"[f(x={i}), g(y={-1 if i % 2 else i})]" for i in range(30)]  # g wrong on half
NEW = [f"[f(x={-1 if i % 2 else i}), g(y={i})]" for i in range(30)]  # f wrong on half


def _write(path: Path, values: list[object]) -> str:
    path.write_text("".join(json.dumps(v) + "\n" for v in values), encoding="utf-8")
    return str(path)


def test_tools_field_gives_the_core_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refs = _write(tmp_path / "refs.jsonl", [{"reference": c, "schemas": json.dumps(TOOLS)} for c in CALLS])
    base, new = _write(tmp_path / "base.jsonl", BASE), _write(tmp_path / "new.jsonl", NEW)
    argv = ["compare", "-r", refs, "--reference-field", "reference", base, new, "-o", "json"]
    assert main([*argv, "--tools-field", "schemas"]) == 0
    got = json.loads(capsys.readouterr().out)
    want = toolcall_f1.compare({"base.jsonl": BASE, "new.jsonl": NEW}, [{"calls": c, "tools": TOOLS} for c in CALLS])
    assert got == json.loads(json.dumps(want))
    assert got["base.jsonl"]["f1"] > got["new.jsonl"]["f1"]  # f's weight of 5 counted
    assert main(argv) == 0  # without it: no weights, the two systems tie
    plain = json.loads(capsys.readouterr().out)
    assert plain["base.jsonl"]["f1"] == plain["new.jsonl"]["f1"]


def test_a_bad_tools_field_names_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[object] = [{"reference": c, "schemas": TOOLS} for c in CALLS]
    lines[3] = {"reference": CALLS[3], "schemas": {"name": "f"}}
    refs = _write(tmp_path / "refs.jsonl", lines)
    base = _write(tmp_path / "base.jsonl", BASE)
    assert main(["compare", "-r", refs, "--reference-field", "reference", "--tools-field", "schemas", base]) == 2
    assert "refs.jsonl:4: the tools field must be a list of function schemas, got dict" in capsys.readouterr().err
