"""Conformance with BFCL's AST checker: every record's ``expected_exact`` is reproduced.

The bundled sample always runs; the full file runs when ``../shared`` sits beside the checkout.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from toolcall_f1 import ToolCallMetric

HERE = Path(__file__).parent
SAMPLE = HERE / "bfcl_sample.jsonl"
#: The project's full conformance file: beside the checkout for developers and CI, else wherever
#: TOOLCALL_F1_BFCL_CONFORMANCE points.
FULL = Path(os.environ.get("TOOLCALL_F1_BFCL_CONFORMANCE") or HERE.parents[2] / "shared" / "conformance" / "bfcl_python.jsonl")
FULL_MISSING = (f"the full BFCL conformance file (8,000 cases, bfcl_python.jsonl; see tests/conformance/PROVENANCE.md) "
                f"is not at {FULL}; the bundled 169-case sample ran instead. It is the project's file, not published "
                "with the package: developers and CI have it at ../shared/conformance/ beside the checkout; with a copy, "
                "set TOOLCALL_F1_BFCL_CONFORMANCE=/path/to/bfcl_python.jsonl")

BFCL = dict(level="call", canonicalizer="bfcl", matching="optimal", reference_format="bfcl")


def _records(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _mismatches(records: list[dict]) -> list[str]:
    metric = ToolCallMetric(**BFCL)
    bad = []
    for rec in records:
        score = metric(rec["prediction"], rec["reference"], tools=rec["tools"])
        if score.exact != rec["expected_exact"]:
            bad.append(f"{rec['id']}: expected {rec['expected_exact']}, got {score.exact} ({score.parse_error})")
    return bad


SAMPLE_RECORDS = _records(SAMPLE)


@pytest.mark.parametrize("rec", SAMPLE_RECORDS, ids=[r["id"] for r in SAMPLE_RECORDS])
def test_sample_record(rec: dict) -> None:
    score = ToolCallMetric(**BFCL)(rec["prediction"], rec["reference"], tools=rec["tools"])
    assert score.exact is rec["expected_exact"], score.to_dict()


def test_sample_covers_every_perturbation_and_category() -> None:
    perturbations = {r["perturbation"] for r in SAMPLE_RECORDS}
    categories = {r["category"] for r in SAMPLE_RECORDS}
    assert len(perturbations) == 21
    assert len(categories) == 8
    assert {r["expected_exact"] for r in SAMPLE_RECORDS} == {True, False}


@pytest.mark.skipif(not FULL.exists(), reason=FULL_MISSING)
def test_full_conformance_file() -> None:
    records = _records(FULL)
    assert len(records) == 8000
    bad = _mismatches(records)
    assert not bad, f"{len(bad)} mismatches, first: {bad[:5]}"


@pytest.mark.skipif(not FULL.exists(), reason=FULL_MISSING)
def test_full_file_through_compute_counts() -> None:
    """The corpus exact_match equals the share of records expected exact."""
    records = _records(FULL)
    metric = ToolCallMetric(**BFCL)
    scores = [metric(r["prediction"], r["reference"], tools=r["tools"]) for r in records]
    expected = sum(r["expected_exact"] for r in records)
    assert sum(s.exact for s in scores) == expected == 3641


@pytest.mark.skipif(not FULL.exists(), reason=FULL_MISSING)
def test_bfcl_prediction_mode_reproduces_bfcl_decode_failures() -> None:
    """With BFCL's strict decoder too, every record gets BFCL's own verdict (``bfcl_valid``):
    JSON text and fenced blocks fail to decode exactly where BFCL's decoder fails."""
    metric = ToolCallMetric(**BFCL, prediction_format="bfcl")
    bad = []
    for rec in _records(FULL):
        score = metric(rec["prediction"], rec["reference"], tools=rec["tools"])
        if score.exact != rec["bfcl_valid"]:
            bad.append(rec["id"])
    assert not bad, f"{len(bad)} mismatches, first: {bad[:5]}"


@pytest.mark.parametrize("rec", [r for r in SAMPLE_RECORDS if r["divergence"] == "format"], ids=lambda r: r["id"])
def test_sample_format_divergences_fail_in_bfcl_mode(rec: dict) -> None:
    score = ToolCallMetric(**BFCL, prediction_format="bfcl")(rec["prediction"], rec["reference"], tools=rec["tools"])
    assert not score.exact and score.parse_error is not None
