"""The benchmark entry point still runs (tiniest sizes). Never a timing assertion."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_run_all_smallest_sizes_writes_the_summary(tmp_path: Path) -> None:
    out = tmp_path / "benchmarks.md"
    proc = subprocess.run(
        [
            sys.executable, str(ROOT / "benchmarks" / "run_all.py"), "--quick",
            "--examples", "60", "--bfcl-records", "40", "--max-group", "4",
            "--stream-sizes", "50,100", "--output", str(out),
        ],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = out.read_text(encoding="utf-8")
    for heading in ("## Machine", "## Targets", "## 0. The route", "## 1. Throughput", "## 2. BFCL-style records",
                    "## 3a. Scaling", "## 3b. Scaling"):
        assert heading in text
    assert "40/40" in text  # our verdicts equal expected_exact on the records scored
