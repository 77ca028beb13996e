"""Score a corpus on Ray: shards scored in Ray tasks, their Tallys merged exactly.

    python examples/ray_shards.py --input examples/agent_traces.jsonl --tools examples/tools.json --shards 4

Each task builds the metric from one :class:`toolcall_f1.Settings` value and folds its shard's
stream of scores (``ToolCallMetric.scores``) into a :class:`toolcall_f1.Tally`; the driver adds
the tallies up and divides once. A Tally holds exact sums, so the result is the one ``compute()``
gives over the whole corpus, bit for bit, however the corpus is cut. ``pip install
toolcall_f1[ray]`` adds Ray; on a cluster, ``ray.init(address="auto")`` instead of a local one.
"""

from __future__ import annotations

import argparse
import functools
import json
import operator
import sys
from collections.abc import Sequence
from typing import Any

import ray

from toolcall_f1 import Settings, Tally, ToolCallMetric


@ray.remote
def score_shard(settings: Settings, predictions: Sequence[Any], references: Sequence[Any]) -> Tally:
    """One shard's Tally: its examples' scores, folded in one at a time (none kept)."""
    metric = ToolCallMetric.from_settings(settings)
    tally = Tally()
    for score in metric.scores(predictions, references, details=False):
        tally.add(score)
    return tally


def shard_tallies(predictions: Sequence[Any], references: Sequence[Any], settings: Settings,
                  shards: int) -> list[Tally]:
    """The corpus cut into ``shards`` consecutive shards, each scored in a Ray task."""
    if len(predictions) != len(references):
        raise ValueError(f"predictions and references differ in length: {len(predictions)} vs {len(references)}")
    if not isinstance(shards, int) or shards < 1:
        raise ValueError(f"shards: expected a positive integer, got {shards!r}")
    size = max(1, -(-len(predictions) // shards))
    tasks = [score_shard.remote(settings, predictions[i:i + size], references[i:i + size])
             for i in range(0, len(predictions), size)]
    return list(ray.get(tasks))


def score_on_ray(predictions: Sequence[Any], references: Sequence[Any], settings: Settings | None = None,
                 shards: int = 4) -> dict[str, Any]:
    """The corpus result of ``compute()`` (without its options), scored in ``shards`` Ray tasks."""
    settings = settings if settings is not None else Settings()
    total = functools.reduce(operator.add, shard_tallies(predictions, references, settings, shards), Tally())
    return total.result(settings.signature(total.digests))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True, help="JSONL, one {prediction, reference} object per line")
    parser.add_argument("--tools", help="a JSON file of tool schemas")
    parser.add_argument("--level", default="call", choices=Settings.allowed("level"))
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--num-cpus", type=int, default=2)
    args = parser.parse_args(argv)
    with open(args.input, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    tools = None
    if args.tools:
        with open(args.tools, encoding="utf-8") as f:
            tools = json.load(f)
    settings = Settings(level=args.level, tools=tools)
    ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    try:
        result = score_on_ray([r["prediction"] for r in rows], [r["reference"] for r in rows], settings, args.shards)
    finally:
        ray.shutdown()
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
