"""Benchmark 7: issue 25's targets, for the build that runs it (pure Python or mypyc-compiled).

For the build of ``toolcall_f1`` it imports, in one process: BFCL's records beside BFCL's
decode-and-check (``bench_bfcl``: ``compute()``, one ``metric(pred, ref)`` per record, the first
record of each entry), a 50,000-call prediction (``[f(x=0), …, f(x=49999)]``) read and scored
against one gold call, and ``ToolCallReward`` on GRPO-shaped batches (``bench_rewards``). It
prints one JSON line of numbers; ``run_all.py`` runs it under the pure source and under the
compiled wheel's interpreter (``make test-compiled`` leaves one at
``/tmp/toolcall_f1-compiled/venv``) and sets the two side by side.

    python benchmarks/bench_builds.py                       # the build this interpreter imports
    /tmp/toolcall_f1-compiled/venv/bin/python benchmarks/bench_builds.py --installed

``--installed`` imports the installed package before anything can put the checkout on
``sys.path`` (then appends ``--extra-path``, e.g. the site-packages holding bfcl-eval).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def _long_prediction(n: int) -> tuple[float, Any]:
    """Seconds to read and score an ``n``-call prediction against one gold call (best of 3)."""
    from toolcall_f1 import ToolCallMetric

    text = "[" + ", ".join(f"f(x={i})" for i in range(n)) + "]"
    best, score = float("inf"), None
    for _ in range(3):
        metric = ToolCallMetric()
        t0 = time.perf_counter()
        score = metric(text, [("f", {"x": 0})])
        best = min(best, time.perf_counter() - t0)
    return best, score


def _reward_rate(records_limit: int | None, batch: int, generations: int, repeat: int) -> float:
    """Completions/s of ``ToolCallReward`` on text completions with tools as JSON strings."""
    import bench_rewards
    import common

    from toolcall_f1.rewards import ToolCallReward

    records, _ = common.conformance_records(records_limit)
    rows = bench_rewards.grpo_rows(records, generations)
    parts = bench_rewards.batches(rows, batch)
    reward = ToolCallReward(**bench_rewards.BFCL_SETTINGS)
    bench_rewards.reward_loop(reward, parts, str)  # warm up: imports and first-call work
    timing, _ = common.best_of(lambda: bench_rewards.reward_loop(reward, parts, str), repeat)
    return common.rate(len(rows), timing.best)


def run(records_limit: int | None = None, repeat: int = 3, calls: int = 50_000) -> dict[str, Any]:
    """The numbers of issue 25's targets for the build that is imported."""
    import bench_bfcl

    import toolcall_f1

    bf = bench_bfcl.run(records_limit, repeat, evaluate=False)
    seconds, score = _long_prediction(calls)
    sub = bf["one_per_entry"]
    return {
        "compiled": toolcall_f1.COMPILED,
        "file": toolcall_f1.counting.__file__,
        "records": bf["records"],
        "baseline": bf["baseline"],
        "compute_rate": bf["ours_auto_rate"],
        "loop_rate": bf["ours_loop_rate"],
        "first_rate": sub["ours_auto_rate"],
        "bfcl_rate": bf.get("bfcl_rate"),
        "bfcl_first_rate": sub.get("bfcl_rate"),
        "agree": f"{bf['ours_auto_agree']}/{bf['records']}",
        "long_calls": calls,
        "long_seconds": seconds,
        "long_f1": score.f1 if score is not None else None,
        "reward_rate": _reward_rate(records_limit, 512, 8, repeat),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=None, help="only the first N conformance records")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--calls", type=int, default=50_000, help="calls in the long prediction")
    parser.add_argument("--installed", action="store_true", help="import the installed toolcall_f1 first")
    parser.add_argument("--extra-path", action="append", default=[], help="appended to sys.path (bfcl-eval)")
    args = parser.parse_args(argv)
    if args.installed:
        # the checkout must not shadow the installed build: drop it (and this script's folder's
        # parent) from sys.path before the import, and check where the package came from
        checkout = Path(__file__).resolve().parents[1]
        sys.path[:] = [p for p in sys.path if p and Path(p).resolve() != checkout]
        import toolcall_f1

        if Path(toolcall_f1.__file__).resolve().is_relative_to(checkout):
            raise SystemExit(f"--installed imported the checkout's toolcall_f1 ({toolcall_f1.__file__})")
    sys.path.extend(args.extra_path)
    numbers = run(args.records, args.repeat, args.calls)
    print("BUILD-NUMBERS " + json.dumps(numbers), flush=True)


if __name__ == "__main__":
    main()
