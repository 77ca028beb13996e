"""Behaviour snapshot: the full ``repr`` of results (details, per-tool) over many settings, to
diff before and after a refactoring (issue 12: "repr snapshots identical before and after").

    git stash; python benchmarks/snapshot.py > /tmp/before.txt; git stash pop
    python benchmarks/snapshot.py > /tmp/after.txt; cmp /tmp/before.txt /tmp/after.txt

Covers a generated corpus (400 examples) under every level × matching × canonicalizer, with and
without fractional weights; 3,000 BFCL conformance records in BFCL settings; 40 large same-name
groups (5-70 calls) with ties. Not a test: about 40 s, about 23 MB of output.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import TOOLS, conformance_records, generate  # noqa: E402

from toolcall_f1 import ToolCallMetric  # noqa: E402

NAMES = [t.get("name") or t["function"]["name"] for t in TOOLS]
WEIGHTS = {
    NAMES[0]: 0.1,
    NAMES[1]: {"weight": 1 / 3, "arguments": {"city": 0.3, "units": 1 / 7}},
    NAMES[2]: {"weight": 0.7},
}


def generated() -> None:
    examples = list(generate(400, seed=7))
    preds = [e.prediction for e in examples]
    refs = [e.reference for e in examples]
    for level, matching, canon, weighted in itertools.product(
        ("call", "arg"), ("greedy", "optimal"), ("default", "bfcl", "exact"), (False, True)
    ):
        kw: dict[str, Any] = dict(level=level, matching=matching, canonicalizer=canon)
        if weighted:
            kw["weights"] = WEIGHTS
        try:
            result: Any = ToolCallMetric(tools=TOOLS, **kw).compute(preds, refs, return_details=True, per_tool=True)
        except (ValueError, TypeError) as err:
            result = f"ERROR {type(err).__name__}: {err}"
        print(json.dumps(kw, sort_keys=True), repr(result))


def bfcl() -> None:
    records, _ = conformance_records(3000)
    preds = [r["prediction"] for r in records]
    refs = [{"calls": r["reference"], "tools": r["tools"]} for r in records]
    for level, matching in itertools.product(("call", "arg"), ("greedy", "optimal")):
        kw = dict(level=level, matching=matching, canonicalizer="bfcl", reference_format="bfcl")
        result = ToolCallMetric(**kw).compute(preds, refs, return_details=True, per_tool=True)
        print("bfcl", json.dumps(kw, sort_keys=True), repr(result))


def groups() -> None:
    rng = random.Random(11)

    def call() -> dict[str, Any]:
        args: dict[str, Any] = {"query": rng.choice("abcdef")}
        if rng.random() < 0.6:
            args["limit"] = rng.randint(1, 4)
        if rng.random() < 0.4:
            args["lang"] = rng.choice(["en", "de"])
        return {"name": "search", "arguments": args}

    preds, refs = [], []
    for _ in range(40):
        n, m = rng.randint(5, 70), rng.randint(5, 70)
        gold = [call() for _ in range(m)]
        pred = [call() for _ in range(n)] + rng.sample(gold, min(m, rng.randint(0, m)))
        rng.shuffle(pred)
        preds.append(pred)
        refs.append(gold)
    for level, matching, weighted in itertools.product(("call", "arg"), ("greedy", "optimal"), (False, True)):
        kw: dict[str, Any] = dict(level=level, matching=matching)
        if weighted:
            kw["weights"] = {"search": {"weight": 0.7, "arguments": {"query": 1 / 3, "limit": 0.1}}}
        result = ToolCallMetric(tools=TOOLS, **kw).compute(preds, refs, return_details=True, per_tool=True)
        print("groups", json.dumps(kw, sort_keys=True), repr(result))


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    generated()
    bfcl()
    groups()
