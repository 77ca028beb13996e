"""``toolcall-f1 compare``: the paired test of ``toolcall_f1.compare()`` from JSONL files, the
same numbers as the core (issue 23)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolcall_f1
from toolcall_f1.cli import main

REFS = [[{"name": "f", "arguments": {"x": i}}] for i in range(40)]
BASE = [f"[f(x={i if i % 2 else -1})]" for i in range(40)]
NEW = [f"[f(x={i if i % 8 else -1})]" for i in range(40)]


def _write(path: Path, values: list[object]) -> str:
    path.write_text("".join(json.dumps(v) + "\n" for v in values), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str, str]:
    return (_write(tmp_path / "refs.jsonl", REFS), _write(tmp_path / "base.jsonl", BASE),
            _write(tmp_path / "new.jsonl", NEW))


def test_json_output_is_compare_s_result(files: tuple[str, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    refs, base, new = files
    assert main(["compare", "--references", refs, base, new, "--level", "arg", "--seed", "3", "-o", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    want = toolcall_f1.compare({"base.jsonl": BASE, "new.jsonl": NEW}, REFS, level="arg", seed=3)
    assert got == json.loads(json.dumps(want))


def test_the_table_marks_a_real_difference(files: tuple[str, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    refs, base, new = files
    assert main(["compare", "-r", refs, base, new, "--test", "randomization", "--n-resamples", "2000"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["system", "F1", "95%", "interval", "Δ", "F1", "p"]
    assert lines[1].startswith("base.jsonl") and lines[1].rstrip().endswith("—")
    assert lines[2].startswith("new.jsonl") and lines[2].rstrip().endswith("*")
    assert "approximate randomization, 2000 trials, seed 12345; 40 examples" in out
    assert "|test:randomization|n:2000|seed:12345|" in out


def test_one_system_has_no_p_value_footnote(files: tuple[str, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    refs, base, _ = files
    assert main(["compare", "-r", refs, base]) == 0
    out = capsys.readouterr().out
    assert "p < 0.05" not in out and "one system: nothing to compare it with (40 examples)" in out


def test_a_short_system_file_is_an_input_error(files: tuple[str, str, str], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    refs, base, _ = files
    short = _write(tmp_path / "short.jsonl", NEW[:5])
    assert main(["compare", "-r", refs, base, short]) == 2
    assert "compare: system 'short.jsonl' has 5 predictions for 40 references" in capsys.readouterr().err


def test_a_bad_line_names_its_file_and_line(files: tuple[str, str, str], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    refs, base, _ = files
    bad = tmp_path / "bad.jsonl"
    bad.write_text('"[f(x=1)]"\n{not json\n', encoding="utf-8")
    assert main(["compare", "-r", refs, base, str(bad)]) == 2
    assert "bad.jsonl:2: prediction:" in capsys.readouterr().err


def test_score_confidence_gives_the_core_interval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refs = [{"calls": r, "group": i // 4} for i, r in enumerate(REFS)]
    path = _write(tmp_path / "run.jsonl", [{"prediction": p, "reference": r} for p, r in zip(NEW, refs)])
    assert main(["score", "-i", path, "--confidence", "0.9", "--n-resamples", "300", "--seed", "5", "-o", "json",
                 "--no-progress"]) == 0
    got = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    want = toolcall_f1.ToolCallMetric().compute(NEW, refs, confidence_level=0.9, n_resamples=300, seed=5)
    assert got["ci"] == want["ci"] and got["signature"] == want["signature"] and "groups:yes" in got["signature"]
    assert got["call_decision"] == want["call_decision"] and got["superset_match"] == want["superset_match"]
    assert main(["score", "-i", path, "--confidence-level", "0.9", "--n-resamples", "300", "--seed", "5", "-o", "json",
                 "--no-progress"]) == 0  # compute()'s name works too
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["ci"] == want["ci"]
    assert main(["score", "-i", path, "--confidence", "2", "--no-progress"]) == 2
    assert "--confidence: expected a number between 0 and 1" in capsys.readouterr().err


def test_warnings_are_the_cli_s_lines_as_score_s(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # compare printed Python's raw warning (file, line, source line); score's are one line each
    refs = _write(tmp_path / "refs.jsonl", REFS[:2])
    base, new = _write(tmp_path / "base.jsonl", BASE[:2]), _write(tmp_path / "new.jsonl", NEW[:2])
    assert main(["compare", base, new, "--references", refs]) == 0
    err = capsys.readouterr().err
    assert err.startswith("toolcall-f1: warning: compare: only 2 resampling units") and "cli.py" not in err
