"""Benchmark 7: what argument rules (``rules=``, SPEC §6b) cost on the BFCL records.

The records and settings are benchmark 2's (``bench_bfcl``): BFCL-compatible settings through
the core API. Columns:

- no rules, this checkout — and the same at a *baseline* git ref, the package before rules
  existed (default: the parent of the commit that added ``toolcall_f1/rules.py``; any other
  change between the two refs is in the ratio too). Target: no rules costs at most 3% more
  than the baseline (the judge's route takes its rules branch only for a tool with rules);
- a rule set on every tool of every record (``{"*": {"rel_tol": 1e-9}}``: every argument
  through the rules branch);
- a callable rule on every parameter whose BFCL answer cannot be nested (``p == g``, its memo
  per ``compute()``).

Each column runs in its own process (the baseline's package extracted with ``git archive``),
the processes alternate for ``--rounds`` rounds, and the best time of all is kept.

    python benchmarks/bench_rules.py [--records N] [--repeat 3] [--rounds 3] [--baseline REF]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

import common
from common import ROOT, best_of, rate, table

BFCL_SETTINGS = dict(level="call", canonicalizer="bfcl", matching="optimal", reference_format="bfcl")
MODES = ("none", "tolerance", "callable")
TARGET = 0.03


#: Types whose BFCL answers may be nested (a dict of accepted lists), where a callable has no
#: meaning (SPEC §6b): the callable column leaves those parameters exact.
NESTED_TYPES = {"dict", "object", "array", "list", "tuple"}


def _rules(records: list[dict[str, Any]], mode: str) -> dict[str, Any] | None:
    """The rules of a column: one entry for every tool the records' schemas name."""
    if mode == "none":
        return None
    rules: dict[str, Any] = {}
    for schema in (t.get("function", t) for r in records for t in r["tools"]):
        if mode == "tolerance":
            rules[schema["name"]] = {"*": {"rel_tol": 1e-9}}
            continue
        props = (schema.get("parameters") or {}).get("properties") or {}
        rules[schema["name"]] = {name: _same for name, p in props.items() if p.get("type") not in NESTED_TYPES}
    return rules


def _same(p: Any, g: Any) -> bool:
    """The callable column's rule: a plain comparison (the cost is the call and its memo)."""
    return bool(p == g)


def worker(package_dir: str, limit: int | None, repeat: int, mode: str) -> dict[str, Any]:
    """One column, timed in this process with the package found in ``package_dir``."""
    sys.path.insert(0, package_dir)
    import toolcall_f1
    from toolcall_f1 import ToolCallMetric

    records, _ = common.conformance_records(limit)
    preds = [r["prediction"] for r in records]
    refs = [{"calls": r["reference"], "tools": r["tools"]} for r in records]
    extra = {} if mode == "none" else {"rules": _rules(records, mode)}
    cpu: list[float] = []

    def once() -> Any:
        start = time.process_time()
        try:
            return ToolCallMetric(**BFCL_SETTINGS, **extra).compute(preds, refs)
        finally:
            cpu.append(time.process_time() - start)

    timing, result = best_of(once, repeat)
    return {"seconds": timing.best, "cpu": min(cpu), "records": len(records), "exact_match": result["exact_match"],
            "package": str(Path(toolcall_f1.__file__).parent)}


def baseline_ref() -> str:
    """The parent of the commit that added ``toolcall_f1/rules.py`` (the package before rules)."""
    added = subprocess.run(["git", "-C", str(ROOT), "log", "--diff-filter=A", "--format=%H", "--",
                            "toolcall_f1/rules.py"], capture_output=True, text=True, check=True).stdout.split()
    if not added:
        raise RuntimeError("no commit adds toolcall_f1/rules.py: give --baseline REF")
    return added[-1] + "^"


def _extract(ref: str, into: str) -> str:
    """The package at git ``ref``, extracted under ``into``; the directory to put on sys.path."""
    archive = Path(into) / "package.tar"
    with archive.open("wb") as fh:
        subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref, "toolcall_f1"], stdout=fh, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into


def _column(package_dir: str, limit: int | None, repeat: int, mode: str) -> dict[str, Any]:
    args = [sys.executable, str(Path(__file__).resolve()), "--worker", package_dir, "--mode", mode, "--repeat", str(repeat)]
    if limit:
        args += ["--records", str(limit)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(args, capture_output=True, text=True, check=True, env=env, cwd=package_dir).stdout
    return json.loads(out.strip().splitlines()[-1])


def run(records_limit: int | None = None, repeat: int = 3, rounds: int = 3, baseline: str | None = None) -> dict[str, Any]:
    """Time every column (alternating processes, best of all rounds); print and return the table."""
    ref = baseline or baseline_ref()
    with tempfile.TemporaryDirectory(prefix="toolcall_f1_rules_baseline_") as tmp:
        base_dir = _extract(ref, tmp)
        columns = [("no rules, baseline " + ref, base_dir, "none"), ("no rules, this checkout", str(ROOT), "none"),
                   ("rules: {'*': {'rel_tol': 1e-9}} on every tool", str(ROOT), "tolerance"),
                   ("rules: a callable on every parameter not a dict or list", str(ROOT), "callable")]
        best: dict[str, dict[str, Any]] = {}
        for _ in range(rounds):
            for name, where, mode in columns:
                got = _column(where, records_limit, repeat, mode)
                if name not in best:
                    best[name] = got
                best[name]["seconds"] = min(best[name]["seconds"], got["seconds"])
                best[name]["cpu"] = min(best[name]["cpu"], got["cpu"])
    base = best[columns[0][0]]
    n = base["records"]
    rows = [[name, rate(n, best[name]["seconds"]), best[name]["seconds"] * 1e6 / n,
             f"{best[name]['seconds'] / base['seconds'] - 1:+.1%}", best[name]["cpu"] * 1e6 / n,
             f"{best[name]['cpu'] / base['cpu'] - 1:+.1%}", f"{best[name]['exact_match']:.4f}"] for name, _, _ in columns]
    overhead = best[columns[1][0]]["cpu"] / base["cpu"] - 1
    markdown = "\n\n".join([
        f"{n:,} records (benchmark 2's), BFCL-compatible settings, core API; each column in its own process, "
        f"best of {repeat} runs × {rounds} alternating rounds, wall-clock and CPU time (CPU time varies less "
        f"on a shared machine). The baseline is the package at `{ref}` "
        "(before `rules=`; any other change between the two refs is in the ratio too).",
        table(["column", "records/s", "µs/record", "time vs baseline", "CPU µs/record", "CPU vs baseline",
               "exact_match"], rows),
        f"No rules set: {overhead:+.1%} CPU time against the baseline (target ≤ +{TARGET:.0%}: "
        f"{'met' if overhead <= TARGET else 'not met'}).",
    ])
    print("\n== Argument rules ==\n" + markdown, flush=True)
    return {"markdown": markdown, "overhead": overhead, "target_met": overhead <= TARGET, "baseline": ref}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=None, help="only the first N records")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", help="git ref of the package before rules (default: found with git log)")
    parser.add_argument("--worker", metavar="PACKAGE_DIR", help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=MODES, default="none", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.records, args.repeat, args.mode)))
        return
    run(args.records, args.repeat, args.rounds, args.baseline)


if __name__ == "__main__":
    main()
