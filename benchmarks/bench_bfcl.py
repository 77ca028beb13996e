"""Benchmark 2: BFCL-style records, our throughput beside BFCL's own decode-and-check.

The records are the conformance cases (the file ``TOOLCALL_F1_BFCL_CONFORMANCE`` names, as the
conformance test reads it, else ``../shared/conformance/bfcl_python.jsonl``, else the bundled sample): Python-syntax predictions, BFCL possible answers, per-record schemas. Every
column scores the same records in the same process:

- ours through the core API (``ToolCallMetric.compute`` with ``{"calls", "tools"}``
  references), BFCL-compatible settings, with the lenient ``"auto"`` reader and with the
  strict ``"bfcl"`` reader;
- ours through ``evaluate`` (``add_batch`` + ``compute``);
- BFCL's evaluation loop for one entry — ``default_decode_ast_prompting``, the
  function-calling-format check, ``ast_checker`` — imported from an installed ``bfcl-eval``
  (see ``benchmarks/README.md``); the column is skipped when it is not installed;
- the floors: ``ast.parse`` of the predictions (the text BFCL's decoder hands to it) and
  ``json.loads`` of every record as one JSON line.

    python benchmarks/bench_bfcl.py [--records N] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import common
from common import best_of, rate, table

BFCL_SETTINGS = dict(level="call", canonicalizer="bfcl", matching="optimal", reference_format="bfcl")


# --------------------------------------------------------------------------- BFCL's checker


@dataclass
class _ModelConfig:
    """The one field BFCL's checker reads from a model's config."""

    underscore_to_dot: bool = False


class _AnyModel(dict):
    def __missing__(self, key: str) -> _ModelConfig:
        return _ModelConfig()


def load_bfcl_checker() -> tuple[Callable[[dict[str, Any]], bool] | None, str]:
    """BFCL's decode-and-check for one record, or ``(None, why)`` when bfcl-eval is absent.

    ``bfcl_eval.constants.model_config`` imports every model vendor's SDK at import time;
    the checker reads only ``MODEL_CONFIG_MAPPING[model].underscore_to_dot`` from it, so a
    stand-in module answering ``False`` for every model is put in its place first.
    """
    try:
        from importlib import metadata

        version = metadata.version("bfcl-eval")
    except Exception:  # noqa: BLE001 - any failure means: no baseline column
        return None, "bfcl-eval is not installed"
    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = _AnyModel()  # type: ignore[attr-defined]
    saved = sys.modules.get("bfcl_eval.constants.model_config")
    sys.modules["bfcl_eval.constants.model_config"] = stub
    try:
        from bfcl_eval.constants.enums import Language, ReturnFormat
        from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
        from bfcl_eval.model_handler.utils import default_decode_ast_prompting
        from bfcl_eval.utils import is_function_calling_format_output
    except Exception as err:  # noqa: BLE001 - a broken install skips the column, never the run
        if saved is not None:
            sys.modules["bfcl_eval.constants.model_config"] = saved
        return None, f"bfcl-eval {version} could not be imported: {type(err).__name__}: {err}"

    def check(rec: dict[str, Any]) -> bool:
        # bfcl_eval.eval_checker.eval_runner._evaluate_single_ast_entry, without its bookkeeping
        try:
            decoded = default_decode_ast_prompting(rec["prediction"], ReturnFormat.PYTHON)
        except Exception:  # noqa: BLE001 - BFCL's own loop counts any decoder failure
            return False
        if not is_function_calling_format_output(decoded):
            return False
        result = ast_checker(rec["tools"], decoded, rec["reference"], Language.PYTHON, rec["category"], "bench")
        return bool(result["valid"])

    return check, f"bfcl-eval {version}"


# --------------------------------------------------------------------------- the run


def _columns(records: list[dict[str, Any]], repeat: int, evaluate: bool, check: Any, baseline: str,
             ) -> tuple[list[tuple[str, float | None, str]], dict[str, Any]]:
    """Time every column on ``records``; caches are emptied before each of our runs. The
    records' known data warnings (BFCL gold values that break their declared types: 71 in the
    conformance file) are silenced here: they say nothing about speed."""
    import warnings

    from toolcall_f1 import ToolCallMetric, ToolCallWarning

    warnings.filterwarnings("ignore", category=ToolCallWarning, message=r".*no accepted gold value is of its declared type")

    n = len(records)
    preds = [r["prediction"] for r in records]
    refs = [{"calls": r["reference"], "tools": r["tools"]} for r in records]
    lines = [json.dumps({"prediction": r["prediction"], "reference": r["reference"], "tools": r["tools"]})
             for r in records]
    decoder_texts = [p.strip("`\n ") for p in preds]
    expected = [r["expected_exact"] for r in records]
    columns: list[tuple[str, float | None, str]] = []
    numbers: dict[str, Any] = {"records": n}

    t_auto, _ = best_of(lambda: ToolCallMetric(**BFCL_SETTINGS).compute(preds, refs), repeat)
    t_strict, _ = best_of(
        lambda: ToolCallMetric(prediction_format="bfcl", **BFCL_SETTINGS).compute(preds, refs), repeat
    )

    def one_call_per_record() -> list[Any]:  # what a reward function or a user's loop does
        metric = ToolCallMetric(**BFCL_SETTINGS)
        return [metric(p, r, details=False) for p, r in zip(preds, refs)]

    t_loop, _ = best_of(one_call_per_record, repeat)
    details = ToolCallMetric(**BFCL_SETTINGS).compute(preds, refs, return_details=True)["details"]
    agree_auto = sum(d["exact"] == e for d, e in zip(details, expected))
    numbers.update(ours_auto_rate=rate(n, t_auto.best), ours_bfcl_rate=rate(n, t_strict.best),
                   ours_loop_rate=rate(n, t_loop.best), ours_auto_agree=agree_auto)
    columns.append(("ours, core API, prediction_format='auto'", t_auto.best, f"{agree_auto}/{n} = expected_exact"))
    columns.append(("ours, core API, prediction_format='bfcl'", t_strict.best, "BFCL's strict decoder"))
    columns.append(("ours, one `metric(pred, ref, details=False)` per record", t_loop.best, "'auto', a reward's loop"))

    if evaluate:
        import toolcall_f1

        module = toolcall_f1.load()

        def via_evaluate() -> dict[str, Any]:
            for start in range(0, n, 1000):
                module.add_batch(predictions=preds[start : start + 1000], references=refs[start : start + 1000])
            return module.compute(**BFCL_SETTINGS)

        t_eval, eval_result = best_of(via_evaluate, repeat)
        numbers.update(ours_evaluate_rate=rate(n, t_eval.best), evaluate_over_core=t_eval.best / t_auto.best)
        columns.append(("ours, evaluate (add_batch + compute)", t_eval.best,
                        f"exact_match {eval_result['exact_match']:.4f}; {t_eval.best / t_auto.best:.2f}× the core's time"))

    if check is not None:
        t_bfcl, verdicts = best_of(lambda: [check(r) for r in records], repeat)
        agree_bfcl = sum(v == r["bfcl_valid"] for v, r in zip(verdicts, records))
        numbers.update(bfcl_rate=rate(n, t_bfcl.best), bfcl_agree=agree_bfcl, t_bfcl=t_bfcl.best,
                       ours_over_bfcl={"auto": t_bfcl.best / t_auto.best, "bfcl": t_bfcl.best / t_strict.best,
                                       "loop": t_bfcl.best / t_loop.best})
        columns.append((f"BFCL decode-and-check ({baseline})", t_bfcl.best, f"{agree_bfcl}/{n} = bfcl_valid"))
    else:
        columns.append(("BFCL decode-and-check", None, f"skipped: {baseline}"))

    def parse_floor() -> int:
        for line in lines:
            json.loads(line)
        return common.ast_parse_all(decoder_texts)

    t_ast, _ = best_of(lambda: common.ast_parse_all(decoder_texts), repeat)
    t_json, _ = best_of(lambda: [json.loads(line) for line in lines], repeat)
    t_parse, _ = best_of(parse_floor, repeat)
    numbers.update(ast_floor_rate=rate(n, t_ast.best), json_floor_rate=rate(n, t_json.best),
                   parse_floor_rate=rate(n, t_parse.best))
    columns.append(("floor: ast.parse of the predictions", t_ast.best, ""))
    columns.append(("floor: json.loads of the records", t_json.best, "prediction, reference, tools"))
    columns.append(("floor: both (json.loads of the record + ast.parse of its prediction)", t_parse.best, ""))
    numbers["t_parse"] = t_parse.best
    numbers["t_ast"] = t_ast.best
    return columns, numbers


def _table(columns: list[tuple[str, float | None, str]], n: int, numbers: dict[str, Any]) -> str:
    rows = []
    t_bfcl = numbers.get("t_bfcl")
    for name, seconds, note in columns:
        if seconds is None:
            rows.append([name, None, None, None, None, None, note])
            continue
        rows.append([name, rate(n, seconds), seconds * 1e6 / n,
                     f"{t_bfcl / seconds:.2f}×" if t_bfcl else None,
                     f"{seconds / numbers['t_parse']:.2f}×", f"{seconds / numbers['t_ast']:.2f}×", note])
    return table(["column", "records/s", "µs/record", "throughput vs BFCL's", "time vs parse floor (json+ast)",
                  "time vs ast.parse alone", "verdicts"], rows)


def _records(limit: int | None) -> tuple[list[dict[str, Any]], Path]:
    """The conformance records: the file ``TOOLCALL_F1_BFCL_CONFORMANCE`` names (as the
    conformance test reads it), else :func:`common.conformance_records`'s."""
    named = os.environ.get("TOOLCALL_F1_BFCL_CONFORMANCE")
    if not named:
        return common.conformance_records(limit)
    path = Path(named)
    with path.open(encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    return (records[:limit] if limit else records), path


def run(records_limit: int | None = None, repeat: int = 5, evaluate: bool = True) -> dict[str, Any]:
    """Time every column on the same records; print and return the tables and the numbers.

    Also on the first record of every BFCL entry alone (no two records share a tool set
    there, so no per-tool-set cache can help), with cold caches for every run.
    """
    records, path = _records(records_limit)
    check, baseline = load_bfcl_checker()
    columns, numbers = _columns(records, repeat, evaluate, check, baseline)
    numbers.update(source=path.name, baseline=baseline)
    seen: set[str] = set()
    firsts = []
    for r in records:
        if r["source_id"] not in seen:
            seen.add(r["source_id"])
            firsts.append(r)
    sub_columns, sub_numbers = _columns(firsts, repeat, False, check, baseline)
    numbers["one_per_entry"] = sub_numbers
    n = len(records)
    markdown = "\n\n".join([
        f"{n:,} records from `{path.name}` (Python-syntax predictions, BFCL possible answers, "
        f"per-record schemas), BFCL-compatible settings, best of {repeat}; a new metric (empty memo) for "
        "every run. The parse floor is what reading the inputs costs at least: `json.loads` of the "
        "record's prediction, reference and tools plus `ast.parse` of the prediction.",
        _table(columns, n, numbers),
        f"The conformance file holds about {n / max(len(firsts), 1):.0f} records per BFCL entry, in a row, "
        "so consecutive records share their reference and tool schemas, and the metric reuses its latest "
        "readings of them (it remembers the last 128 readings). Without that — the first record of each entry only "
        f"({len(firsts):,} records, every reference and tool set new), the case of a real BFCL run:",
        _table(sub_columns, len(firsts), sub_numbers),
    ])
    print("\n== BFCL-style records ==\n" + markdown, flush=True)
    numbers["markdown"] = markdown
    return numbers


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=None, help="only the first N records")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-evaluate", action="store_true")
    args = parser.parse_args(argv)
    run(args.records, args.repeat, evaluate=not args.no_evaluate)


if __name__ == "__main__":
    main()
