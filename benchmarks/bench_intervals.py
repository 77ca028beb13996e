"""Benchmark 6: what an interval costs (issue 23, SPEC §8b).

(a) A generated corpus scored by ``compute()`` alone, then with ``confidence_level=0.95``
(1,000 resamples): the ratio is what asking for an interval adds (target ≤ 1.2×).
(b) The resampling alone over K units of already-counted examples (``resampling.interval``,
1,000 resamples): time and peak memory (``tracemalloc``: numpy's allocations are traced), up to
1,000,000 examples.

    python benchmarks/bench_intervals.py [--examples 20000] [--units 100000,1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from typing import Any

import common
import numpy as np
from common import best_of, table

from toolcall_f1 import ToolCallMetric
from toolcall_f1.resampling import Units, interval


def corpus_ratio(n: int, repeat: int) -> dict[str, Any]:
    """``compute()`` with and without an interval on ``n`` generated examples."""
    examples = list(common.generate(n, seed=6))
    preds, refs = [e.prediction for e in examples], [e.reference for e in examples]
    plain, _ = best_of(lambda: ToolCallMetric().compute(preds, refs), repeat)
    with_ci, result = best_of(lambda: ToolCallMetric().compute(preds, refs, confidence_level=0.95), repeat)
    return {"n": n, "plain": plain.best, "ci": with_ci.best, "ratio": with_ci.best / plain.best,
            "width": result["ci"]["f1"][1] - result["ci"]["f1"][0]}


def resampling_alone(k: int, n_resamples: int = 1000) -> dict[str, Any]:
    """Time and peak traced memory of ``interval`` over ``k`` one-example units."""
    rng = np.random.default_rng(0)
    u = Units()
    for ok in (rng.random(k) < 0.7).tolist():
        u.add(float(ok), float(not ok), float(not ok), ok)
    tracemalloc.start()
    t0 = time.perf_counter()
    interval(u, 0.95, n_resamples)
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"k": k, "seconds": seconds, "peak_mib": peak / 2**20}


def run(examples: int, units: list[int], repeat: int) -> dict[str, Any]:
    ratio = corpus_ratio(examples, repeat)
    alone = [resampling_alone(k) for k in units]
    rows = [[f"{ratio['n']:,} generated examples", f"{ratio['plain']:.2f} s", f"{ratio['ci']:.2f} s",
             f"{ratio['ratio']:.2f}×"]]
    md = table(["corpus", "compute()", "with a 95% interval (1,000 resamples)", "ratio"], rows)
    md += "\n\n" + table(["units (examples)", "1,000 resamples", "peak traced memory"],
                         [[f"{a['k']:,}", f"{a['seconds']:.2f} s", f"{a['peak_mib']:.0f} MiB"] for a in alone])
    print(md, flush=True)
    return {"ratio": ratio, "alone": alone, "markdown": md}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=20_000)
    parser.add_argument("--units", default="100000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    run(args.examples, [int(x) for x in args.units.split(",") if x], args.repeat)


if __name__ == "__main__":
    main()
