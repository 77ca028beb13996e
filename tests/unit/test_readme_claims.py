"""What the README must say (issue 26, item 20): greedy's order dependence also arises from
schema defaults at argument level, and ``Tally`` is shown once in a doctested snippet (the
README is collected by ``--doctest-glob=README.md``, so the snippet runs)."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end != -1 else None]


def test_limitations_name_schema_defaults_as_a_source_of_greedy_order_dependence() -> None:
    limits = _section("Limitations and bias")
    (item,) = [block for block in re.split(r"\n- ", limits) if block.startswith("Greedy matching")]
    assert "schema defaults" in item and "argument level" in item and 'matching="optimal"' in item


def test_tally_is_shown_in_a_doctested_snippet() -> None:
    assert ">>> from toolcall_f1 import Tally" in README
    snippet = README[README.index(">>> from toolcall_f1 import Tally"):]
    snippet = snippet[:snippet.index("```")]
    assert ">>> corpus = shard_a + shard_b" in snippet and ".result(" in snippet
