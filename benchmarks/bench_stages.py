"""Where one BFCL record's time goes: a per-stage breakdown of ``ToolCallMetric.compute``.

The stages are timed by wrapping the functions that carry them (a timer around each call,
inclusive; a stage's own time is its total less the stages inside it):

- read reference: ``ToolCallMetric._read_reference`` less compile tools;
- compile tools: ``ToolCallMetric._example_toolset`` (a record's own tool schemas);
- read prediction: ``ToolCallMetric._read_prediction``;
- judge: ``judge.judge_pairs`` (a name group's pairs), ``judge.judge_pair`` (one pair) and
  ``judge.judge_group`` (a large group, by value keys) as matching calls them;
- match: ``matching.Matcher.match_example`` less judge;
- count: ``counting.count_example`` less match and judge;
- metric overhead: the whole run less all of the above (the corpus loop, the tally).

A second table (``--shortcuts``) decides the matcher's shortcuts: the CPU time of
``count_example`` on calls read beforehand, with every shortcut on, each one off alone, and all
off (the general path), on BFCL records, a generated corpus of many-call examples, one large
group of distinct calls and one of identical BFCL nested answers. A shortcut stays only where
turning it off costs time.

The names are the core's private ones of this commit: a stage whose function is gone is
reported as such (the breakdown then has to be taught the new name), never guessed. Times are
CPU time of this process (``time.process_time``: on a shared machine the wall clock counts the
other processes too); the wrappers add about a microsecond per call, and the unwrapped total is
printed beside the sum.

    python benchmarks/bench_stages.py [--records N] [--repeat 3] [--shortcuts]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import common
from bench_bfcl import BFCL_SETTINGS
from common import table

# (stage, module path, attribute) — nested stages are subtracted from their parents below
_WRAPPED = [
    ("reference", "toolcall_f1.metric", "ToolCallMetric._read_reference"),
    ("tools", "toolcall_f1.metric", "ToolCallMetric._example_toolset"),
    ("prediction", "toolcall_f1.metric", "ToolCallMetric._read_prediction"),
    ("count_example", "toolcall_f1.metric", "count_example"),
    ("match", "toolcall_f1.matching", "Matcher.match_example"),
    ("judge_pairs", "toolcall_f1.matching", "judge_pairs"),
    ("judge_group", "toolcall_f1.matching", "judge_group"),
    ("judge_pair", "toolcall_f1.matching", "judge_pair"),
]


def _install(totals: dict[str, float]) -> tuple[Callable[[], None], list[str]]:
    """Wrap every stage's function with a timer adding to ``totals``; returns (undo, missing)."""
    import importlib

    undo: list[tuple[Any, str, Any]] = []
    missing = []
    for stage, module_name, attr in _WRAPPED:
        owner: Any = importlib.import_module(module_name)
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part, None)
        original = getattr(owner, name, None) if owner is not None else None
        if original is None:
            missing.append(f"{module_name}.{attr}")
            continue

        def timed(*args: Any, _f: Any = original, _s: str = stage, **kwargs: Any) -> Any:
            t0 = time.process_time()
            try:
                return _f(*args, **kwargs)
            finally:
                totals[_s] += time.process_time() - t0

        setattr(owner, name, timed)
        undo.append((owner, name, original))

    def restore() -> None:
        for owner, name, original in reversed(undo):
            setattr(owner, name, original)

    return restore, missing


def breakdown(preds: list[Any], refs: list[Any], repeat: int) -> tuple[list[list[Any]], list[str], float]:
    """Per-stage µs/record of the fastest of ``repeat`` runs, the missing names, and the
    unwrapped µs/record."""
    from toolcall_f1 import ToolCallMetric

    n = len(preds)
    plain = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.process_time()
        ToolCallMetric(**BFCL_SETTINGS).compute(preds, refs)
        plain = min(plain, time.process_time() - t0)
    best: dict[str, float] | None = None
    missing: list[str] = []
    for _ in range(max(1, repeat)):
        totals = dict.fromkeys([s for s, _, _ in _WRAPPED] + ["all"], 0.0)
        restore, missing = _install(totals)
        try:
            t0 = time.process_time()
            ToolCallMetric(**BFCL_SETTINGS).compute(preds, refs)
            totals["all"] = time.process_time() - t0
        finally:
            restore()
        if best is None or totals["all"] < best["all"]:
            best = totals
    assert best is not None
    judge = best["judge_pairs"] + best["judge_group"] + best["judge_pair"]
    stages = {
        "read prediction": best["prediction"],
        "read reference (less compile tools)": best["reference"] - best["tools"],
        "compile tools (a record's own schemas)": best["tools"],
        "judge (judge_pairs, judge_pair, judge_group)": judge,
        "match (less judge)": best["match"] - judge,
        "count (count_example less match)": best["count_example"] - best["match"],
        "metric overhead (corpus loop, tally)": best["all"] - best["prediction"] - best["reference"]
        - best["count_example"],
    }
    rows = [[name, seconds * 1e6 / n, f"{seconds / best['all']:.0%}"] for name, seconds in stages.items()]
    rows.append(["all (wrapped)", best["all"] * 1e6 / n, "100%"])
    return rows, missing, plain * 1e6 / n


def run(records_limit: int | None = None, repeat: int = 3) -> str:
    """Print and return the breakdown for the repeated-reference and first-of-entry cases."""
    records, path = common.conformance_records(records_limit)
    firsts: dict[str, dict[str, Any]] = {}  # each BFCL entry's first record
    for r in records:
        firsts.setdefault(r["source_id"], r)
    parts = []
    for title, subset in ((f"all {len(records):,} records (consecutive records share their reference)", records),
                          (f"the first record of each entry ({len(firsts):,}: every reference new)", list(firsts.values()))):
        preds = [r["prediction"] for r in subset]
        refs = [{"calls": r["reference"], "tools": r["tools"]} for r in subset]
        rows, missing, plain = breakdown(preds, refs, repeat)
        note = f"unwrapped run: {plain:.0f} µs/record"
        if missing:
            note += "; not found (stage not timed): " + ", ".join(missing)
        parts.append(f"{title}, from `{path.name}`, BFCL settings, best of {repeat}; {note}\n\n"
                     + table(["stage", "µs/record", "share"], rows))
    markdown = "\n\n".join(parts)
    print("\n== Stages of one BFCL record ==\n" + markdown, flush=True)
    return markdown


_GENERAL = dict(single=False, forced_exact=False, classes=False, keyed=False, exact_pairs=False)


def _shortcut_cases(records_limit: int | None) -> list[tuple[str, dict[str, Any], list[tuple[Any, ...]]]]:
    """``(title, settings, [(preds, golds, toolset)])``: the calls of each case, read once."""
    from bench_scaling import _group

    from toolcall_f1 import ToolCallMetric
    from toolcall_f1.schema import compile_tools, merge_tools

    def read(metric: Any, pairs: list[tuple[Any, Any]], tools: list[Any]) -> list[tuple[Any, ...]]:
        out = []
        for (pred, ref), tool_list in zip(pairs, tools):
            score = metric(pred, ref)
            out.append((list(score.preds), list(score.golds), compile_tools(merge_tools(tool_list), {}, str)))
        return out

    records, _ = common.conformance_records(records_limit)
    bfcl = ToolCallMetric(**BFCL_SETTINGS)
    bfcl_calls = read(bfcl, [(r["prediction"], {"calls": r["reference"], "tools": r["tools"]}) for r in records],
                      [r["tools"] for r in records])
    generated = list(common.generate(1000, seed=3))
    arg = ToolCallMetric("arg", tools=common.TOOLS)
    gen_calls = read(arg, [(e.prediction, e.reference) for e in generated], [common.TOOLS] * len(generated))
    big_p, big_g = _group(256)
    big = read(arg, [(big_p, big_g)], [[]])
    wide_p, wide_g = _group(1000)
    wide = read(arg, [(wide_p, wide_g)], [[]])
    nested = ToolCallMetric(reference_format="bfcl")
    same = read(nested, [([("f", {"e": {"k": "v"}})] * 1000, [{"f": {"e": [{"k": ["v", "w"]}]}}] * 1000)], [[]])
    bfcl_kw = dict(level="call", matching="optimal", canon_name="bfcl", fill_defaults=False, details=False)
    return [
        (f"BFCL records ({len(records)}), call level, optimal, no details", bfcl_kw, bfcl_calls),
        (f"generated examples ({len(generated)}, up to 8 calls), arg level, greedy, details",
         dict(level="arg", matching="greedy", canon_name="default", fill_defaults=True, details=True), gen_calls),
        (f"generated examples ({len(generated)}), arg level, optimal, details",
         dict(level="arg", matching="optimal", canon_name="default", fill_defaults=True, details=True), gen_calls),
        ("one group of 256 × 256 distinct calls, arg level, optimal, details",
         dict(level="arg", matching="optimal", canon_name="default", fill_defaults=True, details=True), big),
        ("one group of 1,000 × 1,000 distinct calls, call level, greedy, no details",
         dict(level="call", matching="greedy", canon_name="default", fill_defaults=True, details=False), wide),
        ("1,000 identical calls vs 1,000 identical BFCL nested answers, call level, greedy",
         dict(level="call", matching="greedy", canon_name="bfcl", fill_defaults=False, details=True), same),
    ]


def shortcuts(records_limit: int | None = None, repeat: int = 3, slow_limit: float = 30.0) -> str:
    """Print and return the CPU ms of ``count_example`` per case with each shortcut off."""
    from toolcall_f1.matching import Matcher
    from toolcall_f1.counting import count_example
    from toolcall_f1.values import resolve_canonicalizer

    variants = [("all on", {})] + [(f"{name} off", {name: False}) for name in _GENERAL] + [("all off", _GENERAL)]
    rows = []
    for title, kw, calls in _shortcut_cases(records_limit):
        canon = resolve_canonicalizer(kw["canon_name"])
        row: list[Any] = [title]
        for _, fields in variants:
            matcher = Matcher(kw["matching"], kw["level"], **fields)
            best = float("inf")
            for _ in range(max(1, repeat)):
                t0 = time.process_time()
                for preds, golds, toolset in calls:
                    count_example(preds, golds, toolset, level=kw["level"], matching=kw["matching"], canon=canon,
                                  fill_defaults=kw["fill_defaults"], details=kw["details"], matcher=matcher)
                best = min(best, time.process_time() - t0)
                if best > slow_limit:  # one run is enough to see it does not pay
                    break
            row.append(best * 1e3)
        rows.append(row)
    markdown = (f"CPU ms of `count_example` over each case's calls (read beforehand), best of {repeat}\n\n"
                + table(["case", *(name for name, _ in variants)], rows))
    print("\n== Matcher shortcuts ==\n" + markdown, flush=True)
    return markdown


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=None, help="only the first N records")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shortcuts", action="store_true", help="only the table of the matcher's shortcuts")
    args = parser.parse_args(argv)
    if args.shortcuts:
        shortcuts(args.records, args.repeat)
    else:
        run(args.records, args.repeat)


if __name__ == "__main__":
    main()
