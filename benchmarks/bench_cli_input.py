"""What refusing duplicate JSON keys costs the command line on ordinary input.

The CLI reads each JSONL line with an ``object_pairs_hook`` that refuses an object naming a key
twice (``json.loads`` would keep the last value silently). This script scales the bundled
example (``examples/agent_traces.jsonl``, 26 lines, every input shape) up by ``--copies`` and
times, best of ``--repeat``:

- reading the lines only: plain ``json.loads`` beside the CLI's strict reader;
- the whole ``toolcall-f1 score`` run (read, score, count) with either reader.

Prints a markdown table; never asserts on time. Usage::

    python benchmarks/bench_cli_input.py [--copies 400] [--repeat 3] [--output table.md]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import ROOT, best_of, rate, table

from toolcall_f1 import cli

EXAMPLE = ROOT / "examples" / "agent_traces.jsonl"
TOOLS = ROOT / "examples" / "tools.json"


def read_all(lines: list[str], loads: Callable[[str], Any]) -> int:
    """Parse every line; how many objects came out."""
    return sum(1 for line in lines if loads(line) is not None)


def score_file(path: Path, loads: Callable[[str], Any]) -> str:
    """One ``toolcall-f1 score`` run with ``loads`` as the line reader; its JSON summary."""
    out = io.StringIO()
    saved = cli._loads
    cli._loads = loads  # type: ignore[assignment]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            rc = cli.main(["score", "--input", str(path), "--tools", str(TOOLS), "--no-progress",
                           "--output-format", "json"])
    finally:
        cli._loads = saved  # type: ignore[assignment]
    if rc != 0:
        raise RuntimeError(f"toolcall-f1 score exited {rc}")
    return out.getvalue()


def run(copies: int, repeat: int) -> str:
    base = EXAMPLE.read_text(encoding="utf-8").splitlines()
    lines = base * copies
    readers: list[tuple[str, Callable[[str], Any]]] = [("json.loads", json.loads), ("strict (CLI)", cli._loads)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scaled.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        size_mb = path.stat().st_size / 1e6
        read_times = {}
        score_times = {}
        summaries = set()
        for name, loads in readers:
            read_times[name], _ = best_of(lambda loads=loads: read_all(lines, loads), repeat)
            score_times[name], summary = best_of(lambda loads=loads: score_file(path, loads), repeat)
            summaries.add(summary)
        if len(summaries) != 1:
            raise RuntimeError("the two readers gave different scores")
        plain = "json.loads"
        for name, _ in readers:
            rows.append([
                name,
                f"{read_times[name].best * 1e3:.1f} ms",
                rate(len(lines), read_times[name].best),
                f"{read_times[name].best / read_times[plain].best:.2f}x",
                f"{score_times[name].best:.2f} s",
                rate(len(lines), score_times[name].best),
                f"{score_times[name].best / score_times[plain].best:.3f}x",
            ])
    heading = (f"{len(lines):,} lines ({copies} copies of {EXAMPLE.name}, {size_mb:.1f} MB), "
               f"best of {repeat}; the scores of both runs are identical")
    return heading + "\n\n" + table(
        ["reader", "read", "lines/s", "vs json.loads", "score run", "lines/s", "vs json.loads"], rows
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=400, help="copies of the 26-line example (default 400)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    parser.add_argument("--output", help="also write the table to this file")
    args = parser.parse_args(argv)
    text = run(args.copies, args.repeat)
    print(text)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
