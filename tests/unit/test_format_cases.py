"""Agreement with other projects' parser tests (issue 10, "Done when").

``tests/data/format_cases.jsonl`` holds model outputs taken from vLLM's (and other projects')
tool-parser tests with the calls those tests assert (see ``tests/data/FORMAT_CASES.md``). Each case
is read twice: with ``format="auto"`` and with the family's own format name. A case agrees when the
calls equal the expected ones (name and arguments as JSON values, in order), when ``"error"`` is
expected and a :class:`ToolCallParseError` is raised, or when ``[]`` is expected and no call is read.
Any other exception is a crash and always fails. A format name the registry does not know yet
(``ValueError`` naming an unknown format) counts as a miss, not a crash.

Run with ``-s`` to see the per-family table; it is also written to
``test-artifacts/format_cases_agreement.txt`` together with the failing ids.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import toolcall_f1
from toolcall_f1 import ToolCallParseError, parse_calls

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "format_cases.jsonl"
ARTIFACT = ROOT / "test-artifacts" / "format_cases_agreement.txt"

#: The registry names the readers use (issue 10); every case names one of these.
FAMILIES = (
    "python", "json", "openai", "anthropic", "bfcl", "hermes", "qwen3_coder", "glm45", "harmony",
    "deepseek", "deepseek_v32", "kimi_k2", "llama", "llama4", "mistral", "granite", "lfm2",
    "phi4_mini", "internlm2", "jamba", "nemotron", "gemma4", "minimax_m2", "command_r", "olmo3",
    "functionary", "gigachat3", "apertus", "xlam",
)  # fmt: skip
CASE_KEYS = {"id", "family", "source", "text", "tools", "expected"}
OPTIONAL_KEYS = {"adjusted", "note"}
#: The issue asked for 95 %; 98.6 % (495 of 502) was reached and is held (520 of 527 with the 25 own
#: cases of issue 21, all agreeing): no reader change may lose a case.
REQUIRED_AGREEMENT = 0.985


def load_cases() -> list[dict[str, Any]]:
    """Every case in the data file, in file order."""
    with DATA.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


CASES = load_cases()


# --------------------------------------------------------------------------- comparing


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``True`` is not ``1``, ``1`` equals ``1.0``, key order does not count."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def as_json(value: Any) -> Any:
    """A read argument value as plain JSON data: mappings become dicts, tuples become lists."""
    if isinstance(value, Mapping):
        return {str(k): as_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json(v) for v in value]
    return value


@dataclass
class Outcome:
    """One case read with one format: ``kind`` is agree, miss or crash."""

    kind: str
    detail: str = ""


def run_case(case: dict[str, Any], fmt: str) -> Outcome:
    """Read ``case["text"]`` with ``fmt`` and compare with what the source test asserts."""
    expected = case["expected"]
    try:
        calls = parse_calls(case["text"], format=fmt, tools=case["tools"])
    except ToolCallParseError as err:
        if expected == "error":
            return Outcome("agree")
        return Outcome("miss", f"ToolCallParseError: {err}"[:300])
    except ValueError as err:
        if "unknown value" in str(err) and "format" in str(err):
            return Outcome("miss", f"no reader named {fmt!r}")
        return Outcome("crash", f"ValueError: {err}"[:300])
    except Exception as err:  # noqa: BLE001 - any other exception type is the crash being counted
        return Outcome("crash", f"{type(err).__name__}: {err}"[:300])
    if expected == "error":
        return Outcome("miss", f"expected a parse error, read {len(calls)} call(s)")
    got = [{"name": c.name, "arguments": as_json(c.arguments)} for c in calls]
    if len(got) == len(expected) and all(
        g["name"] == e["name"] and same_json(g["arguments"], e["arguments"]) for g, e in zip(got, expected)
    ):
        return Outcome("agree")
    return Outcome("miss", f"read {json.dumps(got, ensure_ascii=False)}"[:300])


@dataclass
class Tally:
    """Outcomes per family for one mode (``auto`` or the family's own format)."""

    by_family: dict[str, Counter] = field(default_factory=dict)
    failures: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def add(self, case: dict[str, Any], outcome: Outcome) -> None:
        self.by_family.setdefault(case["family"], Counter())[outcome.kind] += 1
        if outcome.kind != "agree":
            self.failures.setdefault(case["family"], []).append((case["id"], f"{outcome.kind}: {outcome.detail}"))

    def total(self, kind: str) -> int:
        return sum(c[kind] for c in self.by_family.values())

    def rate(self) -> float:
        n = sum(sum(c.values()) for c in self.by_family.values())
        return self.total("agree") / n if n else 0.0


def measure() -> dict[str, Tally]:
    """Both modes over every case."""
    tallies = {"auto": Tally(), "named": Tally()}
    for case in CASES:
        tallies["auto"].add(case, run_case(case, "auto"))
        tallies["named"].add(case, run_case(case, case["family"]))
    return tallies


def report(tallies: dict[str, Tally]) -> str:
    """The per-family table and the failing ids, as text."""
    families = sorted({c["family"] for c in CASES})
    lines = [f"toolcall_f1 from {Path(toolcall_f1.__file__).parent}", f"{'family':<14}{'cases':>6}{'auto':>8}{'named':>8}{'crash':>7}"]
    for fam in families:
        auto, named = tallies["auto"].by_family[fam], tallies["named"].by_family[fam]
        n = sum(auto.values())
        lines.append(
            f"{fam:<14}{n:>6}{auto['agree'] / n:>8.0%}{named['agree'] / n:>8.0%}{auto['crash'] + named['crash']:>7}"
        )
    lines.append(
        f"{'all':<14}{len(CASES):>6}{tallies['auto'].rate():>8.1%}{tallies['named'].rate():>8.1%}"
        f"{tallies['auto'].total('crash') + tallies['named'].total('crash'):>7}"
    )
    for mode, tally in tallies.items():
        lines.append(f"\n## failing cases, format={'auto' if mode == 'auto' else '<family>'}")
        for fam in sorted(tally.failures):
            lines.append(f"{fam}:")
            lines.extend(f"  {cid}  {why}" for cid, why in tally.failures[fam])
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- tests


def test_data_file_is_well_formed() -> None:
    """Ids unique, families from the registry list, expected calls shaped as the sources assert them."""
    assert len(CASES) >= 300
    ids = Counter(case["id"] for case in CASES)
    assert [i for i, n in ids.items() if n > 1] == []
    for case in CASES:
        assert CASE_KEYS <= case.keys() <= CASE_KEYS | OPTIONAL_KEYS, case["id"]
        assert case["family"] in FAMILIES, case["id"]
        assert isinstance(case["text"], str) and case["source"].count(":") >= 1, case["id"]
        assert case["tools"] is None or (isinstance(case["tools"], list) and case["tools"]), case["id"]
        expected = case["expected"]
        assert expected == "error" or isinstance(expected, list), case["id"]
        for call in expected if isinstance(expected, list) else []:
            assert call.keys() == {"name", "arguments"}, case["id"]
            assert isinstance(call["name"], str) and call["name"], case["id"]
            assert isinstance(call["arguments"], dict), case["id"]


def test_as_json_unwraps_read_arguments() -> None:
    call = parse_calls("[f(a={'x': [1, 2]}, b=None)]", format="python")[0]
    assert as_json(call.arguments) == {"a": {"x": [1, 2]}, "b": None}
    assert type(as_json(call.arguments)) is dict


def test_same_json_tells_bool_from_number() -> None:
    assert same_json({"a": 1, "b": [1.0]}, {"b": [1], "a": 1.0})
    assert not same_json({"a": True}, {"a": 1})
    assert not same_json([1, 2], [2, 1])
    assert not same_json({"a": None}, {})


def test_agreement_with_other_projects_parser_tests() -> None:
    """≥ 98.5 % agreement with ``auto`` and with the named format (95 % asked), and no crash at all."""
    tallies = measure()
    text = report(tallies)
    ARTIFACT.parent.mkdir(exist_ok=True)
    ARTIFACT.write_text(text, encoding="utf-8")
    print("\n" + text.split("\n## ")[0])
    crashes = {mode: tally.total("crash") for mode, tally in tallies.items()}
    assert crashes == {"auto": 0, "named": 0}, text
    for mode, tally in tallies.items():
        if tally.rate() < REQUIRED_AGREEMENT:
            pytest.fail(f"format={mode}: agreement {tally.rate():.1%} < {REQUIRED_AGREEMENT:.1%} (table in {ARTIFACT})", pytrace=False)
