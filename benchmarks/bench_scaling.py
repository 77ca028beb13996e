"""Benchmark 3: scaling — calls per name group, and examples streamed through ``add_batch``.

(a) One example whose n predicted and n gold calls all call one tool, n = 1 → 512, greedy
    and optimal. Half of the predictions are exact copies of a gold call, the rest agree on
    some arguments only, and every call shares arguments with many others, so neither
    matcher has an easy way out. Beside it: ``scipy.optimize.linear_sum_assignment`` alone
    on a random integer n×n matrix (the assignment itself), and the log-log slope of every
    column between successive sizes.
(c) Distinct calls in one group: one example of n distinct predicted and n distinct gold calls
    to one tool (n = 250 → 2000, the group of (a)), details on; greedy, optimal at call and
    argument level, and optimal at argument level with weights of 1/3 (exact weight sums that
    pass 2**53). Each run in a fresh subprocess: wall time and peak RSS grown.
(d) The same distinct calls without details (``compute()``'s counts), n = 1000 → 8000: at call
    level the counts are decided by the exact pairs alone (found through an index, no n×n
    table), greedy and optimal; at argument level (optimal) every pair is still judged, so it
    runs to ``--exact-arg-max`` only. Each run in a fresh subprocess: wall time, CPU time, peak RSS.
(e) In order: the same one example under ``order="strict"`` (SPEC §5b: one dynamic program over
    both sequences of calls, O(n·m)), n = 256 and 2000, at call and argument level, details on
    and off. Each run in a fresh subprocess: wall time, peak RSS, and the log-log growth.
(f) Large groups (issue 26 item 14): the same distinct calls, n = 1000 → 8000, at call and
    argument level, greedy and optimal, with and without details: wall time and peak RSS of a
    fresh process each (``--only-large`` runs this table alone; ``--memory-cap-mib`` caps each run).
(b) N = 10k → 1M generated examples streamed through ``add_batch`` (batches of 1000) and one
    ``compute``, each size in a fresh subprocess so that its peak RSS
    (``resource.getrusage``) is its own; the RSS after the imports is subtracted.

    python benchmarks/bench_scaling.py [--max-group 512] [--stream-sizes 10000,100000,1000000]
                                       [--distinct-sizes 250,500,1000,2000] [--timeout 600]
                                       [--exact-sizes 1000,2000,4000,8000] [--exact-arg-max 2000]
                                       [--order-sizes 256,2000] [--large-sizes 1000,2000,4000,8000]
                                       [--memory-cap-mib 0] [--only-large]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import common
from common import best_of, table

HERE = Path(__file__).resolve().parent


# --------------------------------------------------------------------------- (a) group size


def _group(n: int, seed: int = 0) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(seed)
    gold = [
        {"name": "lookup", "arguments": {"key": f"k{i}", "region": rng.choice("ab"), "page": i % 7, "tag": rng.choice("xyz")}}
        for i in range(n)
    ]
    pred = []
    for i, g in enumerate(gold):
        args = dict(g["arguments"])
        if i % 2:
            args["key"] = f"k{(i * 7 + 3) % n}"  # agrees with another gold call on its key only
            args["page"] = (i + 1) % 7
        pred.append({"name": "lookup", "arguments": args})
    rng.shuffle(pred)
    return pred, gold


def _assignment_only(n: int, repeat: int) -> float:
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(0)
    cost = rng.integers(-(2**40), 2**40, size=(n, n)).astype(np.float64)
    timing, _ = best_of(lambda: linear_sum_assignment(cost), repeat)
    return timing.best


def _slope(xs: list[int], ys: list[float]) -> list[str | None]:
    out: list[str | None] = [None]
    for i in range(1, len(xs)):
        if ys[i - 1] > 0 and ys[i] > 0 and xs[i] != xs[i - 1]:
            out.append(f"{math.log(ys[i] / ys[i - 1]) / math.log(xs[i] / xs[i - 1]):.2f}")
        else:
            out.append(None)
    return out


def run_groups(max_group: int = 512, repeat: int = 3) -> dict[str, Any]:
    """Time one n×n group, greedy and optimal at call level, optimal at arg level,
    n = 1, 2, 4, ..., ``max_group``."""
    from toolcall_f1 import ToolCallMetric

    sizes = [1]
    while sizes[-1] * 2 <= max_group:
        sizes.append(sizes[-1] * 2)
    configs = {"greedy": ("call", "greedy"), "optimal": ("call", "optimal"), "optimal_arg": ("arg", "optimal")}
    results: dict[str, list[float]] = {name: [] for name in (*configs, "assignment")}
    f1s: dict[str, list[float]] = {name: [] for name in configs}
    for n in sizes:
        pred, gold = _group(n)
        reps = repeat if n <= 128 else 1
        for name, (level, matching) in configs.items():
            metric = ToolCallMetric(level, matching=matching)
            timing, result = best_of(lambda m=metric, p=pred, g=gold: m.compute([p], [g]), reps)
            results[name].append(timing.best)
            f1s[name].append(result["f1"])
        results["assignment"].append(_assignment_only(n, reps))
    slopes = {name: _slope(sizes, results[name]) for name in results}
    rows = []
    for i, n in enumerate(sizes):
        row: list[Any] = [f"{n}×{n}"]
        for name in (*configs, "assignment"):
            row += [results[name][i] * 1e3, slopes[name][i]]
        row.append(f"{f1s['greedy'][i]:.3f} / {f1s['optimal'][i]:.3f} / {f1s['optimal_arg'][i]:.3f}")
        rows.append(row)
    markdown = "\n\n".join([
        "One example, n predicted × n gold calls to one tool (half of the predictions exact copies, "
        "the others agreeing with some gold call on some arguments); time in ms, best of "
        f"{repeat} up to 128×128, one run above; slope = log-log growth from the previous size "
        "(2 = quadratic, 3 = cubic). The assignment alone is `linear_sum_assignment` on a random "
        "n×n integer matrix.",
        table(
            ["calls", "greedy ms", "slope", "optimal ms", "slope", "optimal, arg level ms", "slope",
             "assignment alone ms", "slope", "F1 greedy / optimal / optimal arg"],
            rows,
        ),
    ])
    print("\n== Scaling: calls per name group ==\n" + markdown, flush=True)
    last = len(sizes) - 1

    def slope_at(name: str) -> float | None:
        value = slopes[name][last]
        return float(value) if value else None

    return {
        "markdown": markdown,
        "sizes": sizes,
        "seconds": results,
        "optimal_at_max": results["optimal"][last],
        "optimal_arg_at_max": results["optimal_arg"][last],
        "optimal_slope_at_max": slope_at("optimal"),
        "optimal_arg_slope_at_max": slope_at("optimal_arg"),
        "assignment_slope_at_max": slope_at("assignment"),
    }


# --------------------------------------------------------------------------- (c) distinct calls

DISTINCT_CONFIGS = {
    "greedy": ("call", "greedy", None),
    "optimal": ("call", "optimal", None),
    "optimal_arg": ("arg", "optimal", None),
    "optimal_arg_thirds": ("arg", "optimal", {"lookup": {"weight": 1 / 3, "arguments": {
        "key": 1 / 3, "region": 0.1, "page": 1 / 3, "tag": 1 / 7}}}),
}


def _distinct_child(n: int, config: str) -> dict[str, Any]:
    """One n×n group of distinct calls, details on, in this process: seconds and peak RSS."""
    from toolcall_f1 import ToolCallMetric

    level, matching, weights = DISTINCT_CONFIGS[config]
    pred, gold = _group(n)
    metric = ToolCallMetric(level, matching=matching, weights=weights)
    base = _peak_kib()
    t0 = time.perf_counter()
    result = metric.compute([pred], [gold], return_details=True)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "peak_mib": _peak_kib() / 1024, "grown_mib": (_peak_kib() - base) / 1024,
            "f1": result["f1"]}


def run_distinct(sizes: list[int], timeout: float = 600.0) -> dict[str, Any]:
    """Each (size, setting) in a fresh interpreter, stopped after ``timeout`` seconds."""
    runs: dict[str, list[dict[str, Any] | None]] = {name: [] for name in DISTINCT_CONFIGS}
    for n in sizes:
        for name in DISTINCT_CONFIGS:
            try:
                proc = subprocess.run(
                    [sys.executable, str(Path(__file__).resolve()), "--distinct-child", f"{n}:{name}"],
                    capture_output=True, text=True, timeout=timeout,
                    env={**os.environ, "PYTHONWARNINGS": "ignore"},
                )
            except subprocess.TimeoutExpired:
                runs[name].append(None)
                continue
            if proc.returncode != 0:
                raise RuntimeError(f"{n} distinct calls, {name}, failed:\n{proc.stderr[-4000:]}")
            runs[name].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    rows = []
    for i, n in enumerate(sizes):
        row: list[Any] = [f"{n}×{n}"]
        for name in DISTINCT_CONFIGS:
            r = runs[name][i]
            row += [f"> {timeout:.0f}", None] if r is None else [r["seconds"], r["peak_mib"]]
        rows.append(row)
    headers = ["calls"]
    for name in DISTINCT_CONFIGS:
        headers += [f"{name} s", f"{name} peak MiB"]
    markdown = "\n\n".join([
        "One example, n distinct predicted × n distinct gold calls to one tool (the group of (a)), "
        "`compute(..., return_details=True)`; each run in a fresh subprocess; seconds and peak RSS "
        "of the process (MiB). `optimal_arg_thirds`: tool and argument weights 1/3, 0.1, 1/7 "
        "(exact sums past 2**53).",
        table(headers, rows),
    ])
    print("\n== Scaling: distinct calls in one group ==\n" + markdown, flush=True)
    return {"markdown": markdown, "runs": runs}


# --------------------------------------------------------------------------- (d) counts alone

EXACT_CONFIGS = {"greedy": ("call", "greedy"), "optimal": ("call", "optimal"), "optimal_arg": ("arg", "optimal")}


def _exact_child(n: int, config: str) -> dict[str, Any]:
    """One n×n group of distinct calls, no details, in this process: seconds and peak RSS."""
    from toolcall_f1 import ToolCallMetric

    level, matching = EXACT_CONFIGS[config]
    pred, gold = _group(n)
    metric = ToolCallMetric(level, matching=matching)
    base = _peak_kib()
    t0, c0 = time.perf_counter(), time.process_time()
    result = metric.compute([pred], [gold])
    return {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0, "peak_mib": _peak_kib() / 1024,
            "grown_mib": (_peak_kib() - base) / 1024, "f1": result["f1"]}


def run_exact(sizes: list[int], arg_max: int = 2000, timeout: float = 600.0) -> dict[str, Any]:
    """Each (size, setting) in a fresh interpreter; argument level only up to ``arg_max``."""
    runs: dict[str, list[dict[str, Any] | None]] = {name: [] for name in EXACT_CONFIGS}
    for n in sizes:
        for name in EXACT_CONFIGS:
            if name == "optimal_arg" and n > arg_max:
                runs[name].append(None)
                continue
            try:
                proc = subprocess.run(
                    [sys.executable, str(Path(__file__).resolve()), "--exact-child", f"{n}:{name}"],
                    capture_output=True, text=True, timeout=timeout,
                    env={**os.environ, "PYTHONWARNINGS": "ignore"},
                )
            except subprocess.TimeoutExpired:
                runs[name].append({"timeout": True})
                continue
            if proc.returncode != 0:
                raise RuntimeError(f"{n} distinct calls, {name}, no details, failed:\n{proc.stderr[-4000:]}")
            runs[name].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    rows = []
    for i, n in enumerate(sizes):
        row: list[Any] = [f"{n}×{n}"]
        for name in EXACT_CONFIGS:
            r = runs[name][i]
            if r is None:
                row += ["not run", None, None]
            elif r.get("timeout"):
                row += [f"> {timeout:.0f}", None, None]
            else:
                row += [r["seconds"], r["cpu"], r["peak_mib"]]
        rows.append(row)
    headers = ["calls"]
    for name in EXACT_CONFIGS:
        headers += [f"{name} s", f"{name} CPU s", f"{name} peak MiB"]
    markdown = "\n\n".join([
        "One example, n distinct predicted × n distinct gold calls to one tool (the group of (a)), "
        f"`compute()` without details; each run in a fresh subprocess; wall and CPU seconds, peak RSS of "
        f"the process (MiB). Argument level only up to {arg_max}×{arg_max}: it still judges every pair.",
        table(headers, rows),
    ])
    print("\n== Scaling: counts without details ==\n" + markdown, flush=True)
    return {"markdown": markdown, "runs": runs}


# --------------------------------------------------------------------------- (e) in order

ORDER_CONFIGS = {"strict": ("call", False), "strict_details": ("call", True), "strict_arg": ("arg", False),
                 "strict_arg_details": ("arg", True)}


def _order_child(n: int, config: str) -> dict[str, Any]:
    """One n×n example under ``order="strict"``, in this process: seconds and peak RSS."""
    from toolcall_f1 import ToolCallMetric

    level, details = ORDER_CONFIGS[config]
    pred, gold = _group(n)
    metric = ToolCallMetric(level, order="strict")
    base = _peak_kib()
    t0 = time.perf_counter()
    result = metric.compute([pred], [gold], return_details=details)
    return {"seconds": time.perf_counter() - t0, "peak_mib": _peak_kib() / 1024,
            "grown_mib": (_peak_kib() - base) / 1024, "f1": result["f1"]}


def run_order(sizes: list[int], timeout: float = 600.0) -> dict[str, Any]:
    """Each (size, setting) under ``order="strict"`` in a fresh interpreter; the growth between sizes."""
    runs: dict[str, list[dict[str, Any] | None]] = {name: [] for name in ORDER_CONFIGS}
    for n in sizes:
        for name in ORDER_CONFIGS:
            try:
                proc = subprocess.run(
                    [sys.executable, str(Path(__file__).resolve()), "--order-child", f"{n}:{name}"],
                    capture_output=True, text=True, timeout=timeout, env={**os.environ, "PYTHONWARNINGS": "ignore"},
                )
            except subprocess.TimeoutExpired:
                runs[name].append(None)
                continue
            if proc.returncode != 0:
                raise RuntimeError(f"{n} calls in order, {name}, failed:\n{proc.stderr[-4000:]}")
            runs[name].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    slopes = {name: _slope(sizes, [r["seconds"] if r else 0.0 for r in runs[name]]) for name in ORDER_CONFIGS}
    rows = []
    for i, n in enumerate(sizes):
        row: list[Any] = [f"{n}×{n}"]
        for name in ORDER_CONFIGS:
            r = runs[name][i]
            row += [f"> {timeout:.0f}", None, None] if r is None else [r["seconds"], slopes[name][i], r["peak_mib"]]
        rows.append(row)
    headers = ["calls"]
    for name in ORDER_CONFIGS:
        headers += [f"{name} s", "slope", "peak MiB"]
    markdown = "\n\n".join([
        "One example, n predicted × n gold calls to one tool (the group of (a)), `order=\"strict\"`: "
        "every pair judged, then one dynamic program over both sequences (O(n·m)); `compute()` without "
        "and with details, at call and argument level; each run in a fresh subprocess; seconds, slope "
        "(log-log growth from the previous size: 2 = quadratic) and peak RSS of the process (MiB).",
        table(headers, rows),
    ])
    print("\n== Scaling: calls in order (order=\"strict\") ==\n" + markdown, flush=True)
    return {"markdown": markdown, "runs": runs, "slopes": slopes}


# --------------------------------------------------------------------------- (f) large groups

#: (level, matching, details) of each column of (f).
LARGE_CONFIGS = {f"{level} {matching}{' +details' if details else ''}": (level, matching, details)
                 for level in ("call", "arg") for matching in ("greedy", "optimal") for details in (False, True)}


def _large_child(n: int, config: str, cap_mib: int | None) -> dict[str, Any]:
    """One n×n group of distinct calls (the group of (a)) under one of :data:`LARGE_CONFIGS`,
    in this process, its address space capped at ``cap_mib``: seconds and peak RSS."""
    import resource

    from toolcall_f1 import ToolCallMetric

    if cap_mib:
        resource.setrlimit(resource.RLIMIT_AS, (cap_mib << 20, cap_mib << 20))
    level, matching, details = LARGE_CONFIGS[config]
    pred, gold = _group(n)
    metric = ToolCallMetric(level, matching=matching)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        result = metric.compute([pred], [gold], return_details=details)
    except MemoryError:
        return {"memory_error": True, "seconds": time.perf_counter() - t0, "peak_mib": _peak_kib() / 1024}
    return {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0, "peak_mib": _peak_kib() / 1024,
            "f1": result["f1"]}


def run_large(sizes: list[int], timeout: float = 600.0, cap_mib: int | None = None) -> dict[str, Any]:
    """Issue 26 item 14's table: n = 1000 → 8000 distinct calls to one tool, at call and
    argument level, greedy and optimal, with and without details; each run in a fresh
    interpreter (its peak RSS its own), stopped after ``timeout`` seconds or at ``cap_mib``."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in LARGE_CONFIGS}
    for n in sizes:
        for name in LARGE_CONFIGS:
            try:
                proc = subprocess.run(
                    [sys.executable, str(Path(__file__).resolve()), "--large-child", f"{n}:{name}",
                     "--memory-cap-mib", str(cap_mib or 0)],
                    capture_output=True, text=True, timeout=timeout, env={**os.environ, "PYTHONWARNINGS": "ignore"},
                )
            except subprocess.TimeoutExpired:
                runs[name].append({"timeout": True})
                continue
            if proc.returncode != 0:
                raise RuntimeError(f"{n} distinct calls, {name}, failed:\n{proc.stderr[-4000:]}")
            runs[name].append(json.loads(proc.stdout.strip().splitlines()[-1]))

    def cell(r: dict[str, Any]) -> str:
        if r.get("timeout"):
            return f"> {timeout:.0f} s"
        if r.get("memory_error"):
            return f"> {cap_mib} MiB (MemoryError after {r['seconds']:.1f} s)"
        return f"{r['seconds']:.2f} s ({r['cpu']:.2f} CPU), {r['peak_mib']:.0f} MiB"

    rows = [[f"{n}×{n}", *(cell(runs[name][i]) for name in LARGE_CONFIGS)] for i, n in enumerate(sizes)]
    markdown = "\n\n".join([
        "One example, n distinct predicted × n distinct gold calls to one tool (the group of (a), half of "
        "the predictions exact copies), `compute()` without and with details (`+details`); each run in a "
        "fresh subprocess: wall seconds (CPU seconds of the process) and peak RSS (MiB, imports included)"
        + (f", address space capped at {cap_mib} MiB" if cap_mib else "") + ".",
        table(["calls", *LARGE_CONFIGS], rows),
    ])
    print("\n== Scaling: large groups (issue 26 item 14) ==\n" + markdown, flush=True)
    return {"markdown": markdown, "runs": runs}


# --------------------------------------------------------------------------- (b) streaming


def _status_kib(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (Linux ``clear_refs``), so the peak is the stream's own."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_kib() -> int:
    import resource

    hwm = _status_kib("VmHWM")
    return hwm if hwm is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _child(n: int, batch: int) -> dict[str, Any]:
    """Stream ``n`` generated examples through add_batch and compute once (in this process)."""
    import gc

    import toolcall_f1

    module = toolcall_f1.load()
    gc.collect()
    reset = _reset_peak()
    base = _status_kib("VmRSS") if reset else _peak_kib()
    base = base if base is not None else _peak_kib()
    t0 = time.perf_counter()
    preds: list[Any] = []
    refs: list[Any] = []
    for ex in common.generate(n, seed=2):
        preds.append(ex.prediction)
        refs.append(ex.reference)
        if len(preds) == batch:
            module.add_batch(predictions=preds, references=refs)
            preds, refs = [], []
    if preds:
        module.add_batch(predictions=preds, references=refs)
    t_add = time.perf_counter() - t0
    result = module.compute(tools=common.TOOLS)
    total = time.perf_counter() - t0
    peak = _peak_kib()
    return {
        "n": n,
        "add_seconds": t_add,
        "total_seconds": total,
        "base_rss_mib": base / 1024,
        "peak_rss_mib": peak / 1024,
        "peak_reset": reset,
        "f1": result["f1"],
        "num_examples": result["num_examples"],
    }


def run_stream(sizes: list[int], batch: int = 1000) -> dict[str, Any]:
    """Each size in a fresh interpreter: time and peak RSS of streaming it through evaluate."""
    out = []
    for n in sizes:
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", str(n), "--batch", str(batch)],
            capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        if proc.returncode != 0:
            raise RuntimeError(f"streaming {n} examples failed:\n{proc.stderr[-4000:]}")
        out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    rows = []
    for i, r in enumerate(out):
        grown = r["peak_rss_mib"] - r["base_rss_mib"]
        per_ex = grown * 1024 / r["n"]
        step = None
        if i:
            prev = out[i - 1]
            step = ((grown - (prev["peak_rss_mib"] - prev["base_rss_mib"])) * 1024 / (r["n"] - prev["n"]))
        rows.append([
            r["n"], r["n"] / r["total_seconds"], r["total_seconds"], r["base_rss_mib"], r["peak_rss_mib"],
            grown, per_ex, step,
        ])
        r["grown_mib"] = grown
    markdown = "\n\n".join([
        f"Generated examples streamed through `add_batch` (batches of {batch}) then one `compute`; "
        "each size in a fresh subprocess. RSS in MiB: the peak mark is reset after "
        "`toolcall_f1.load()` (Linux `clear_refs`), so 'grown' = peak while streaming and computing "
        "− RSS after the load.",
        table(
            ["examples", "ex/s", "seconds", "RSS after load", "peak RSS", "grown", "KiB/example",
             "KiB/example since previous size"],
            rows,
        ),
    ])
    print("\n== Scaling: streamed examples ==\n" + markdown, flush=True)
    return {"markdown": markdown, "runs": out}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-group", type=int, default=512)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--stream-sizes", default="10000,100000,1000000")
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--distinct-sizes", default="250,500,1000,2000")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per distinct-calls run")
    parser.add_argument("--exact-sizes", default="1000,2000,4000,8000")
    parser.add_argument("--exact-arg-max", type=int, default=2000)
    parser.add_argument("--order-sizes", default="256,2000")
    parser.add_argument("--large-sizes", default="1000,2000,4000,8000")
    parser.add_argument("--memory-cap-mib", type=int, default=0, help="cap each large-group run's address space")
    parser.add_argument("--only-large", action="store_true", help="run (f), the large-group table, alone")
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--order-child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--exact-child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--distinct-child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--large-child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.large_child is not None:
        n, config = args.large_child.split(":")
        print(json.dumps(_large_child(int(n), config, args.memory_cap_mib or None)))
        return
    if args.only_large:
        run_large([int(s) for s in args.large_sizes.split(",") if s], args.timeout, args.memory_cap_mib or None)
        return
    if args.child is not None:
        print(json.dumps(_child(args.child, args.batch)))
        return
    if args.exact_child is not None:
        n, config = args.exact_child.split(":")
        print(json.dumps(_exact_child(int(n), config)))
        return
    if args.distinct_child is not None:
        n, config = args.distinct_child.split(":")
        print(json.dumps(_distinct_child(int(n), config)))
        return
    if args.order_child is not None:
        n, config = args.order_child.split(":")
        print(json.dumps(_order_child(int(n), config)))
        return
    run_groups(args.max_group, args.repeat)
    run_distinct([int(s) for s in args.distinct_sizes.split(",") if s], args.timeout)
    run_exact([int(s) for s in args.exact_sizes.split(",") if s], args.exact_arg_max, args.timeout)
    run_order([int(s) for s in args.order_sizes.split(",") if s], args.timeout)
    run_large([int(s) for s in args.large_sizes.split(",") if s], args.timeout, args.memory_cap_mib or None)
    run_stream([int(s) for s in args.stream_sizes.split(",") if s])


if __name__ == "__main__":
    main()
