"""Run every benchmark, print the tables, write ``docs/benchmarks.md`` (``make bench``).

Default sizes are the issue's: 100k generated examples, all BFCL conformance records, name
groups up to 512×512 calls, 10k → 1M streamed examples (about half an hour on 2 cores).
``--quick`` is a smoke run of well under a minute; every size can also be set by hand.

    python benchmarks/run_all.py              # full sizes, writes docs/benchmarks.md
    python benchmarks/run_all.py --quick --output /tmp/bench.md
"""

from __future__ import annotations

import argparse
import ast
import datetime as _dt
import json
import shlex
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

import bench_bfcl
import bench_formats
import bench_intervals
import bench_rewards
import bench_rules
import bench_scaling
import bench_throughput
import common
import route

QUICK = dict(examples=2000, bfcl_records=1000, max_group=32, stream_sizes="1000,3000", repeat=1, bfcl_repeat=1,
             format_repeat=50, interval_examples=2000, interval_units="10000", rules_records=100, long_calls=2000)
FULL = dict(examples=100_000, bfcl_records=None, max_group=512, stream_sizes="10000,100000,1000000", repeat=3,
            bfcl_repeat=5, format_repeat=1000, interval_examples=20_000, interval_units="100000,1000000",
            rules_records=2000, long_calls=50_000)
BENCHMARKS = ("route", "throughput", "bfcl", "scaling", "rewards", "formats", "intervals", "rules", "builds")
#: The interpreter of the compiled build's virtual environment that ``make test-compiled`` leaves.
COMPILED_PYTHON = "/tmp/toolcall_f1-compiled/venv/bin/python"


#: Every module of the package counts (issue 21: the route is the measure, not ``wc -l``).
MAX_FUNCTION_LINES = 60


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("**met**" if ok else "**not met**")


def _docstring_lines(tree: ast.AST) -> set[int]:
    """Line numbers taken by the docstrings of a module, its classes and functions."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                lines.update(range(body[0].lineno, body[0].end_lineno + 1))  # type: ignore[operator]
    return lines


def code_lines(path: Path) -> int:
    """Lines of code of a module: docstrings, comments and blank lines apart."""
    text = path.read_text(encoding="utf-8")
    docs = _docstring_lines(ast.parse(text))
    return sum(1 for i, line in enumerate(text.splitlines(), 1)
               if i not in docs and line.strip() and not line.lstrip().startswith("#"))


def _longest_functions(paths: list[Path]) -> list[tuple[int, str]]:
    """``(code lines, "module.function")`` of every function in ``paths``, longest first
    (docstrings, comments and blank lines apart)."""
    found = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        docs = _docstring_lines(tree)
        lines = text.splitlines()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = sum(1 for i in range(node.lineno, node.end_lineno + 1)  # type: ignore[operator]
                        if i not in docs and lines[i - 1].strip() and not lines[i - 1].lstrip().startswith("#"))
                found.append((n, f"{path.stem}.{node.name}"))
    return sorted(found, reverse=True)


def module_lines() -> str:
    """Code lines per module of the package (docstrings, comments and blanks apart), as a table."""
    package = common.ROOT / "toolcall_f1"
    paths = sorted(package.rglob("*.py"))
    rows = [[str(p.relative_to(package)), f"{code_lines(p):,}", f"{_lines(p):,}"] for p in paths]
    rows.append(["**all**", f"{sum(code_lines(p) for p in paths):,}", f"{sum(_lines(p) for p in paths):,}"])
    return common.table(["module", "code lines", "`wc -l`"], rows)


def _lines(path: Path) -> int:
    """Lines as ``wc -l`` counts them."""
    return path.read_bytes().count(b"\n")


def size_targets(rt: list[Any] | None) -> list[list[str]]:
    """Issue 21's structural targets, measured on the files of this checkout."""
    package = common.ROOT / "toolcall_f1"
    paths = sorted(package.rglob("*.py"))
    longest = _longest_functions(paths)
    over = [f"{name} ({n})" for n, name in longest if n > MAX_FUNCTION_LINES]
    rows = []
    if rt is not None:
        worst = (max(len(r.functions) for _, r in rt), max(len(r.modules) for _, r in rt),
                 max(r.switches for _, r in rt), max(r.depth for _, r in rt))
        rows.append(["Route of one `compute()` of one example, worst of three inputs (`benchmarks/route.py`): "
                     "≤ 45 functions, ≤ 7 modules, ≤ 20 module switches, depth ≤ 12",
                     f"{worst[0]} functions, {worst[1]} modules, {worst[2]} switches, depth {worst[3]}",
                     _verdict(worst[0] <= 45 and worst[1] <= 7 and worst[2] <= 20 and worst[3] <= 12)])
    app_lines = _lines(common.ROOT / "app.py")
    rows.append(["`app.py` ≤ 900 lines", f"{app_lines:,} lines", _verdict(app_lines <= 900)])
    rows.append([f"No function over ~{MAX_FUNCTION_LINES} code lines (docstrings, comments, blanks aside)",
                 f"{len(over)} over: " + ", ".join(over[:5]) + (" …" if len(over) > 5 else "") if over
                 else f"longest {longest[0][1]} ({longest[0][0]})", _verdict(not over)])
    return rows


def _over_bfcl(label: str, ours: float, bfcl: float, target: float | None) -> list[str]:
    """A row comparing one of our throughputs with BFCL's (``target``: the least ratio, or None)."""
    ratio = ours / bfcl
    return [label, f"{ratio:.2f}× ({common.fmt_num(ours)} vs {common.fmt_num(bfcl)} records/s)",
            _verdict(None if target is None else ratio >= target)]


def targets(tp: dict[str, Any] | None, bf: dict[str, Any] | None, gr: dict[str, Any] | None,
            st: dict[str, Any] | None, rt: list[Any] | None = None, iv: dict[str, Any] | None = None) -> str:
    """The targets (issue 21's first), each with what this run measured and whether it meets it."""
    rows = size_targets(rt)
    if iv is not None:
        r = iv["ratio"]
        rows.append([f"{r['n']:,} examples with a 95% interval (1,000 resamples) ≤ 1.2× the time of scoring them "
                     "(issue 23)", f"{r['ratio']:.2f}× ({r['ci']:.2f} s vs {r['plain']:.2f} s)", _verdict(r["ratio"] <= 1.2)])
        last = iv["alone"][-1]
        rows.append([f"{last['k']:,} examples × 1,000 resamples: time and peak memory reported",
                     f"{last['seconds']:.1f} s, {last['peak_mib']:.0f} MiB traced", "n/a"])
    if bf is not None:
        ours = bf["ours_auto_rate"]
        if "bfcl_rate" in bf:
            rows.append(_over_bfcl("BFCL-style records: `compute()` ≥ 0.8× the throughput of BFCL's "
                                   "decode-and-check", ours, bf["bfcl_rate"], 0.8))
            rows.append(_over_bfcl("… one `metric(pred, ref, details=False)` per record (a reward's loop) ≥ 0.6×",
                                   bf["ours_loop_rate"], bf["bfcl_rate"], 0.6))
            sub = bf["one_per_entry"]
            if "bfcl_rate" in sub:
                rows.append(_over_bfcl("… `compute()` on the first record of each BFCL entry (no reference "
                                       "or tool set reused) ≥ 0.5×",
                                       sub["ours_auto_rate"], sub["bfcl_rate"], 0.5))
        else:
            rows.append(["BFCL-style records: `compute()` ≥ 0.8× BFCL's decode-and-check", bf["baseline"], "n/a"])
        if "evaluate_over_core" in bf:
            ratio = bf["evaluate_over_core"]
            rows.append(["BFCL-style records: the evaluate path (`add_batch` + `compute`) ≤ 1.5× the core's time",
                         f"{ratio:.2f}×", _verdict(ratio <= 1.5)])
        rows.append(["Conformance: verdicts equal `expected_exact`",
                     f"{bf['ours_auto_agree']}/{bf['records']}", _verdict(bf["ours_auto_agree"] == bf["records"])])
        full_floor = bf["parse_floor_rate"] / ours
        ast_floor = bf["ast_floor_rate"] / ours
        rows.append(["Core path within 2× of the parse floor (json.loads of each record + ast.parse of "
                     "its prediction)", f"{full_floor:.2f}× the floor's time", _verdict(full_floor <= 2.0)])
        rows.append(["… the strictest reading: within 2× of ast.parse of the predictions alone",
                     f"{ast_floor:.2f}× the time of ast.parse", _verdict(ast_floor <= 2.0)])
    if tp is not None:
        ratios = [c["evaluate_over_core"] for c in tp["configs"].values() if "evaluate_over_core" in c]
        if ratios:
            worst = max(ratios)
            rows.append([f"evaluate path ≤ 1.5× the time of the core path ({tp['examples']:,} generated "
                         "examples, worst level/matching)",
                         f"{worst:.2f}× (best {min(ratios):.2f}×)", _verdict(worst <= 1.5)])
    if gr is not None:
        n = gr["sizes"][-1]
        bound = max(3.0, gr["assignment_slope_at_max"] or 0.0)
        for key, label in (("optimal", "call level"), ("optimal_arg", "arg level")):
            slope = gr[f"{key}_slope_at_max"]
            ok = slope is not None and slope <= bound
            rows.append([f"{n}×{n} calls in one name group, optimal, {label}: finishes, growth no worse "
                         "than the assignment's O(n³)",
                         f"{gr[f'{key}_at_max']:.2f} s; log-log slope {slope if slope is not None else '–'} "
                         f"(assignment alone: {gr['assignment_slope_at_max']})",
                         _verdict(ok if n >= 2 else None)])
    if st is not None and st["runs"]:
        runs = st["runs"]
        first = runs[0]["grown_mib"] / runs[0]["n"]
        last = runs[-1]
        if len(runs) > 1:
            prev = runs[-2]
            step = (last["grown_mib"] - prev["grown_mib"]) / (last["n"] - prev["n"])
        else:
            step = first
        linear = step <= 1.25 * first + 1e-9
        rows.append([f"{last['n']:,} examples streamed: memory reported, growing linearly at most",
                     f"peak RSS {last['peak_rss_mib']:,.0f} MiB ({last['grown_mib']:,.0f} MiB over the loaded "
                     f"module); {step * 1024:.2f} KiB/example at the last step vs {first * 1024:.2f} at the first size",
                     _verdict(linear)])
    return common.table(["target", "measured", "this run"], rows)


def _build_numbers(python: str, installed: bool, records: int | None, repeat: int, calls: int) -> dict[str, Any]:
    """``bench_builds.py``'s numbers under ``python``: the checkout's pure source, or the
    ``installed`` (compiled) package, with bfcl-eval found on this interpreter's site-packages."""
    command = [python, str(Path(__file__).with_name("bench_builds.py")), "--repeat", str(repeat), "--calls", str(calls)]
    if records is not None:
        command += ["--records", str(records)]
    if installed:
        command += ["--installed", "--extra-path", sysconfig.get_paths()["purelib"]]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("BUILD-NUMBERS ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(lines[-1].removeprefix("BUILD-NUMBERS "))


def builds(compiled_python: str, records: int | None, repeat: int, calls: int) -> str:
    """Issue 25's targets measured on the pure and the compiled build side by side, each beside
    BFCL's decode-and-check in its own process."""
    runs = [("pure Python", _build_numbers(sys.executable, False, records, repeat, calls))]
    if Path(compiled_python).exists():
        runs.append(("compiled", _build_numbers(compiled_python, True, records, repeat, calls)))
    else:
        print(f"no compiled build at {compiled_python} (make test-compiled makes one): pure only", flush=True)

    def over(key: str, base: str, target: float) -> Any:
        return lambda n: (n[key] / n[base], f"{n[key] / n[base]:.2f}× ({n[key]:,.0f}/s)", n[key] / n[base] >= target)

    rows_of = [
        ("`compute()` ≥ 1.5× BFCL's decode-and-check", over("compute_rate", "bfcl_rate", 1.5)),
        ("one `metric(pred, ref)` per record ≥ 1.0×", over("loop_rate", "bfcl_rate", 1.0)),
        ("first record of each BFCL entry ≥ 0.8×", over("first_rate", "bfcl_first_rate", 0.8)),
        (f"a {calls:,}-call prediction against one gold call < 1.5 s (the target's size: 50,000)",
         lambda n: (n["long_seconds"], f"{n['long_seconds']:.2f} s", n["long_seconds"] < 1.5)),
        ("`ToolCallReward` ≥ 10,000 completions/s (GRPO-shaped batches)",
         lambda n: (n["reward_rate"], f"{n['reward_rate']:,.0f}/s", n["reward_rate"] >= 10_000)),
    ]
    rows = []
    for label, measure in rows_of:
        cells = []
        for _, numbers in runs:
            try:
                _, text, ok = measure(numbers)
                cells.append(f"{text} {_verdict(ok)}")
            except (KeyError, TypeError, ZeroDivisionError):  # no BFCL column (bfcl-eval absent)
                cells.append("n/a")
        rows.append([label, *cells])
    head = ", ".join(f"{name}: `{n['file']}`, BFCL {n['baseline']}, verdicts {n['agree']}" for name, n in runs)
    return head + "\n\n" + common.table(["target (issue 25)", *[name for name, _ in runs]], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--examples", type=int, help="generated corpus size (benchmark 1)")
    parser.add_argument("--bfcl-records", type=int, help="only the first N conformance records")
    parser.add_argument("--max-group", type=int, help="largest n×n name group")
    parser.add_argument("--stream-sizes", help="comma-separated example counts to stream")
    parser.add_argument("--repeat", type=int, help="best of N runs")
    parser.add_argument("--only", choices=BENCHMARKS, action="append",
                        help="run only this benchmark (repeatable)")
    parser.add_argument("--compiled-python", default=COMPILED_PYTHON,
                        help="the compiled build's interpreter for the 'builds' benchmark (make test-compiled)")
    parser.add_argument("--output", default=str(common.ROOT / "docs" / "benchmarks.md"),
                        help="where to write the markdown summary ('-' for none)")
    args = parser.parse_args(argv)
    sizes = dict(QUICK if args.quick else FULL)
    for key in sizes:
        value = getattr(args, key, None)
        if value is not None:
            sizes[key] = value
    if args.repeat is not None:
        sizes["bfcl_repeat"] = args.repeat
    only = set(args.only or BENCHMARKS)

    started = _dt.datetime.now(_dt.UTC)
    t0 = time.perf_counter()
    info = common.machine_info()
    print(common.machine_markdown(info), flush=True)
    tp = bf = gr = st = rw = fm = rt = iv = ru = bd = None
    if "route" in only:
        rt = route.measure()
        print(route.table(rt), flush=True)
    if "throughput" in only:
        tp = bench_throughput.run(sizes["examples"], sizes["repeat"])
    if "bfcl" in only:
        bf = bench_bfcl.run(sizes["bfcl_records"], sizes["bfcl_repeat"])
    if "scaling" in only:
        gr = bench_scaling.run_groups(sizes["max_group"], sizes["repeat"])
        st = bench_scaling.run_stream([int(s) for s in str(sizes["stream_sizes"]).split(",") if s])
    if "rewards" in only:
        rw = bench_rewards.run(sizes["bfcl_records"], 512, 8, sizes["repeat"])
        print(rw, flush=True)
    if "formats" in only:
        fm = bench_formats.run(sizes["format_repeat"])
        print(fm, flush=True)
    if "intervals" in only:
        iv = bench_intervals.run(sizes["interval_examples"], [int(k) for k in str(sizes["interval_units"]).split(",") if k],
                                 sizes["repeat"])
    if "rules" in only:
        ru = bench_rules.run(sizes["rules_records"], sizes["repeat"], rounds=2)
    if "builds" in only:
        bd = builds(args.compiled_python, sizes["bfcl_records"], sizes["repeat"], int(sizes["long_calls"]))
        print("\n== Pure and compiled builds (issue 25) ==\n" + bd, flush=True)
    elapsed = time.perf_counter() - t0

    summary = targets(tp, bf, gr, st, rt, iv)
    print("\n== Targets ==\n" + summary, flush=True)
    if args.output != "-":
        command = "python benchmarks/run_all.py " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
        parts = [
            "# Benchmarks",
            "",
            "Written by `benchmarks/run_all.py` from one run on one machine; the ratios compare "
            "columns measured in that same run. Reproduce with `make bench` (the BFCL baseline "
            "column needs `bfcl-eval`, see `benchmarks/README.md`). Times are wall-clock, best of "
            "the repeats; nothing here is a test, and no test asserts on time.",
            "",
            f"Run: {started:%Y-%m-%d %H:%M} UTC, `{command.strip()}`, {elapsed / 60:.1f} min in all.",
            "",
            "## Machine",
            "",
            common.machine_markdown(info),
            "",
            "## Targets",
            "",
            summary,
        ]
        if rt is not None:
            parts += ["", "## 0. The route of one example (`benchmarks/route.py`)", "", route.table(rt),
                      "", "Code lines per module (docstrings, comments and blank lines apart):", "", module_lines()]
        if tp is not None:
            parts += ["", "## 1. Throughput: generated corpus, core API and evaluate", "", tp["markdown"]]
        if bf is not None:
            parts += ["", "## 2. BFCL-style records beside BFCL's decode-and-check", "", bf["markdown"]]
        if gr is not None:
            parts += ["", "## 3a. Scaling: calls in one name group", "", gr["markdown"]]
        if st is not None:
            parts += ["", "## 3b. Scaling: examples streamed through `add_batch`", "", st["markdown"]]
        if rw is not None:
            parts += ["", "## 4. Rewards/s: `ToolCallReward` in GRPO-shaped batches", "", rw]
        if iv is not None:
            parts += ["", "## 6. What an interval costs (issue 23)", "", iv["markdown"]]
        if ru is not None:
            parts += ["", "## 7. What argument rules cost (`rules=`, issue 22)", "", ru["markdown"]]
        if bd is not None:
            parts += ["", "## 8. The pure and the compiled build (issue 25)", "", bd]
        if fm is not None:
            parts += ["", "## 5. Text readers per model family", "",
                      "One realistic output per family, read by its own format and by `auto`; then `auto` on "
                      "prose without a call, beside the reader before the model families (`bench_formats.BASELINE`) in the same run.", "", fm]
        out = Path(args.output)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("\n".join(parts) + "\n", encoding="utf-8")
        print(f"\nwrote {out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
