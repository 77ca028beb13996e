"""Benchmark 1: throughput on a generated corpus, per level and matching, core vs evaluate.

The corpus (``common.generate``): 1–8 gold calls per example against corpus-wide schemas,
predictions in mixed shapes (Python-syntax text, JSON text, Hermes blocks, OpenAI messages,
Anthropic blocks, lists of dicts), half of them exact. Beside the metric, in the same run, the
floors: ``json.loads`` of every example as one JSON line, and ``ast.parse`` of the
Python-syntax predictions.

    python benchmarks/bench_throughput.py [--examples 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import common
from common import TOOLS, best_of, rate, table

LEVELS = ("call", "arg")
MATCHINGS = ("greedy", "optimal")
BATCH = 1000


def _core(preds: list[Any], refs: list[Any], level: str, matching: str) -> dict[str, Any]:
    from toolcall_f1 import ToolCallMetric

    return ToolCallMetric(level, matching=matching, tools=TOOLS).compute(preds, refs)


def _evaluate(module: Any, preds: list[Any], refs: list[Any], level: str, matching: str) -> dict[str, Any]:
    for start in range(0, len(preds), BATCH):
        module.add_batch(predictions=preds[start : start + BATCH], references=refs[start : start + BATCH])
    return module.compute(level=level, matching=matching, tools=TOOLS)


def run(examples: int = 100_000, repeat: int = 3, evaluate: bool = True) -> dict[str, Any]:
    """Time every (level, matching) through the core API and through evaluate; print and
    return the tables and the numbers."""
    corpus = list(common.generate(examples, seed=1))
    preds = [e.prediction for e in corpus]
    refs = [e.reference for e in corpus]
    n = len(corpus)
    lines = [json.dumps({"prediction": e.prediction, "reference": e.reference}) for e in corpus]
    python_texts = [e.prediction for e in corpus if e.shape == "python"]
    calls = sum(len(e.reference) for e in corpus)

    t_json, _ = best_of(lambda: [json.loads(line) for line in lines], repeat)

    t_ast, _ = best_of(lambda: common.ast_parse_all(python_texts), repeat)

    module = None
    load_seconds = None
    if evaluate:
        import toolcall_f1

        t0 = time.perf_counter()
        module = toolcall_f1.load()
        load_seconds = time.perf_counter() - t0

    rows = []
    numbers: dict[str, Any] = {
        "examples": n,
        "gold_calls": calls,
        "python_texts": len(python_texts),
        "json_floor_rate": rate(n, t_json.best),
        "ast_floor_rate": rate(len(python_texts), t_ast.best),
        "evaluate_load_seconds": load_seconds,
        "configs": {},
    }
    for level in LEVELS:
        for matching in MATCHINGS:
            t_core, core_result = best_of(
                lambda lv=level, mt=matching: _core(preds, refs, lv, mt), repeat
            )
            entry: dict[str, Any] = {"core_rate": rate(n, t_core.best), "core_seconds": t_core.best}
            eval_rate = ratio = same = None
            if module is not None:
                t_eval, eval_result = best_of(
                    lambda lv=level, mt=matching: _evaluate(module, preds, refs, lv, mt), repeat
                )
                eval_rate = rate(n, t_eval.best)
                ratio = t_eval.best / t_core.best
                same = "yes" if eval_result == core_result else "NO"
                entry.update(evaluate_rate=eval_rate, evaluate_seconds=t_eval.best, evaluate_over_core=ratio,
                             same_result=same == "yes")
            entry["f1"] = core_result["f1"]
            numbers["configs"][f"{level}/{matching}"] = entry
            rows.append([
                level, matching, rate(n, t_core.best), eval_rate,
                f"{ratio:.2f}×" if ratio is not None else None,
                f"{t_core.best / t_json.best:.2f}×", same, f"{core_result['f1']:.4f}",
            ])

    main_table = table(
        ["level", "matching", "core ex/s", "evaluate ex/s", "evaluate/core time",
         "core/json.loads time", "same result", "F1"],
        rows,
    )
    floor_table = table(
        ["floor", "inputs", "inputs/s"],
        [
            ["json.loads (every example as one JSON line)", n, numbers["json_floor_rate"]],
            ["ast.parse (the Python-syntax predictions)", len(python_texts), numbers["ast_floor_rate"]],
        ],
    )
    header = (
        f"{n:,} generated examples ({calls:,} gold calls, 1–8 per example; "
        f"predictions: {', '.join(common.SHAPES)}), best of {repeat}."
    )
    if load_seconds is not None:
        header += f" `toolcall_f1.load()` itself: {load_seconds:.2f} s (not in the rates)."
    markdown = "\n\n".join([header, main_table, floor_table])
    print("\n== Throughput ==\n" + markdown, flush=True)
    numbers["markdown"] = markdown
    return numbers


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-evaluate", action="store_true", help="core API only")
    args = parser.parse_args(argv)
    run(args.examples, args.repeat, evaluate=not args.no_evaluate)


if __name__ == "__main__":
    main()
