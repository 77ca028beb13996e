"""Benchmark 4: rewards/s of ``toolcall_f1.rewards.ToolCallReward`` in GRPO-shaped batches.

A GRPO step scores ``prompts × num_generations`` completions in one reward call, the
completions of one prompt side by side with the same reference and tools. The batches here
are made from the BFCL conformance records (``../shared/conformance/bfcl_python.jsonl``, else
the bundled sample): the records of one BFCL entry (several perturbed answers to one
question) are the completions of one prompt, cycled to ``--generations`` each; the
reference is the entry's BFCL answer and the ``tools`` column its schemas, as a JSON string
the way a datasets column stores them (and, in one row, as a list of dicts). BFCL-compatible
settings; each reward call gets ``--batch`` completions.

Beside the reward, the same rows through the core API: ``ToolCallMetric.__call__`` per
completion (what the reward does for each distinct completion), ``ToolCallMetric.compute``
over all of them (one micro-averaged number, not a reward per completion; it remembers its
latest reading of a reference), and reading the references alone
(``ToolCallMetric.read_reference`` per completion), the share a reading reused across a
group would save.

    python benchmarks/bench_rewards.py [--records N] [--batch 512] [--generations 8] [--repeat 3]
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Callable
from typing import Any

import common
from common import best_of, rate, table

from toolcall_f1 import ToolCallMetric
from toolcall_f1.rewards import ToolCallReward

BFCL_SETTINGS = dict(canonicalizer="bfcl", matching="optimal", reference_format="bfcl")


def grpo_rows(records: list[dict[str, Any]], generations: int) -> list[dict[str, Any]]:
    """One row per completion: each BFCL entry's records cycled to ``generations`` answers."""
    rows: list[dict[str, Any]] = []
    for _, group in itertools.groupby(records, key=lambda r: r.get("source_id", r["id"])):
        answers = list(group)
        tools = json.dumps(answers[0]["tools"])
        for rec in itertools.islice(itertools.cycle(answers), generations):
            rows.append({"prompt": rec.get("source_id", rec["id"]), "completion": rec["prediction"],
                         "reference": rec["reference"], "tools": tools})
    return rows


def batches(rows: list[dict[str, Any]], size: int) -> list[list[dict[str, Any]]]:
    return [rows[i:i + size] for i in range(0, len(rows), size)]


def reward_loop(reward: ToolCallReward, parts: list[list[dict[str, Any]]], shape: Callable[[Any], Any],
                tools: Callable[[str], Any] = lambda t: t) -> list[float]:
    """Every batch through the reward, called the way GRPOTrainer calls it."""
    out: list[float] = []
    for part in parts:
        out += reward(
            prompts=[r["prompt"] for r in part],
            completions=[shape(r["completion"]) for r in part],
            completion_ids=[[0]] * len(part),
            reference=[r["reference"] for r in part],
            tools=[tools(r["tools"]) for r in part],
            trainer_state=None,
        )
    return out


def run(records_limit: int | None, batch: int, generations: int, repeat: int) -> str:
    records, path = common.conformance_records(records_limit)
    rows = grpo_rows(records, generations)
    identical = [dict(r, completion=rows[i - i % generations]["completion"]) for i, r in enumerate(rows)]
    parts = batches(rows, batch)
    decoded_tools = {r["tools"]: json.loads(r["tools"]) for r in rows}
    reward = ToolCallReward(**BFCL_SETTINGS)
    metric = ToolCallMetric(**BFCL_SETTINGS)

    def text(c: str) -> str:
        return c

    def chat(c: str) -> list[dict[str, str]]:
        return [{"role": "assistant", "content": c}]

    columns: list[tuple[str, Callable[[], Any]]] = [
        ("reward, text completions, tools as JSON strings", lambda: reward_loop(reward, parts, text)),
        ("reward, text completions, tools as lists of dicts",
         lambda: reward_loop(reward, parts, text, decoded_tools.__getitem__)),
        ("reward, conversational completions (assistant messages)", lambda: reward_loop(reward, parts, chat)),
        ("reward, every completion of a prompt identical", lambda: reward_loop(reward, batches(identical, batch), text)),
        ("core: ToolCallMetric.__call__ per completion (tools decoded)",
         lambda: [metric(r["completion"], r["reference"], tools=decoded_tools[r["tools"]]) for r in rows]),
        ("core: ToolCallMetric.compute over all rows (one corpus F1)",
         lambda: metric.compute([r["completion"] for r in rows],
                                [{"calls": r["reference"], "tools": decoded_tools[r["tools"]]} for r in rows])),
        ("core: reading the references alone (read_reference per completion)",
         lambda: [metric.read_reference(r["reference"]) for r in rows]),
    ]
    n = len(rows)
    for _, fn in columns:  # warm up: imports (scipy.optimize) and first-call work stay out of the timings
        best_of(fn, 1)
    timings = {}
    results = {}
    for name, fn in columns:
        timings[name], results[name] = best_of(fn, repeat)
    base = timings["core: ToolCallMetric.__call__ per completion (tools decoded)"].best
    want = [s.f1 if s.parse_error is None else 0.0
            for s in results["core: ToolCallMetric.__call__ per completion (tools decoded)"]]
    table_rows = []
    for name, _ in columns:
        t = timings[name].best
        same = ""
        if name.startswith("reward") and "identical" not in name:
            same = "yes" if results[name] == want else "NO"
        table_rows.append([name, rate(n, t), t / n * 1e6, f"{t / base:.2f}×", same])
    text_out = table(["column", "completions/s", "µs/completion", "time vs __call__ loop", "= metric per row"],
                     table_rows)
    header = (
        f"{n:,} completions ({len(rows) // generations:,} prompts × {generations} generations, from "
        f"`{path.name}`), {len(parts)} reward calls of up to {batch}, BFCL-compatible settings, "
        f"best of {repeat}; caches emptied before every run."
    )
    return f"{header}\n\n{text_out}\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=None, help="only the first N conformance records")
    parser.add_argument("--batch", type=int, default=512, help="completions per reward call")
    parser.add_argument("--generations", type=int, default=8, help="completions per prompt")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(run(args.records, args.batch, args.generations, args.repeat))


if __name__ == "__main__":
    main()
