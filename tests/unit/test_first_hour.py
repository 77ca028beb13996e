"""What a new user sees of `make test` (issue 26, item 15): skip reasons printed (``-rs``), the
full conformance file's skip saying what it is and how to run it, and third-party deprecations
filtered in the pytest configuration (the project's own warnings never are)."""

from __future__ import annotations

import re
import tomllib
import warnings
from pathlib import Path

import pytest

from tests.conformance import test_bfcl_conformance as conformance
from toolcall_f1 import ToolCallWarning

ROOT = Path(__file__).resolve().parents[2]


def test_make_test_prints_skip_reasons() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile[makefile.index("\ntest: "):]
    recipe = recipe[:recipe.index("\n\n")]
    assert re.search(r"-m pytest .*-rs\b", recipe), recipe


def test_the_full_conformance_skip_says_what_it_is_and_how_to_run_it() -> None:
    reason = conformance.FULL_MISSING
    assert "8,000 cases" in reason and "bfcl_python.jsonl" in reason and "sample ran instead" in reason
    assert "TOOLCALL_F1_BFCL_CONFORMANCE=" in reason and "../shared/conformance/" in reason
    marks = [m for m in conformance.test_full_conformance_file.pytestmark if m.name == "skipif"]
    assert marks and marks[0].kwargs["reason"] == reason


def test_third_party_deprecations_are_filtered_and_the_projects_own_warnings_are_not() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    filters = config["filterwarnings"]
    assert any("gradient_checkpointing" in f and f.startswith("ignore:") for f in filters)
    assert not any("ToolCallWarning" in f or "toolcall" in f.lower() for f in filters)
    with pytest.warns(ToolCallWarning):  # still shown under the suite's filters
        warnings.warn("own", ToolCallWarning, stacklevel=1)
