"""The Ray recipe (issue 24): ``examples/ray_shards.py`` scores shards in Ray tasks on a local
``ray.init(num_cpus=2)`` and merges their Tallys; the counts are those of one pass, bit for bit,
and the result is ``compute()``'s."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolcall_f1 import Settings, Tally, ToolCallMetric

ray = pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ROWS = [json.loads(line) for line in (EXAMPLES / "agent_traces.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()]
TOOLS = json.loads((EXAMPLES / "tools.json").read_text(encoding="utf-8"))

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """A local Ray of two CPUs; ``examples/`` on the path of the driver and of its workers."""
    sys.path.insert(0, str(EXAMPLES))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": f"{EXAMPLES}:{ROOT}"}})
    try:
        import ray_shards

        yield ray_shards
    finally:
        ray.shutdown()
        sys.path.remove(str(EXAMPLES))


def corpus(copies: int) -> tuple[list[Any], list[Any]]:
    """The example corpus, repeated, with weights that are not whole numbers and per-example tools
    on some references (their digests enter the signature)."""
    predictions, references = [], []
    for k in range(copies):
        for i, row in enumerate(ROWS):
            predictions.append(row["prediction"])
            ref = row["reference"]
            if (i + k) % 5 == 0:
                ref = {"calls": ref, "tools": [{"name": "get_weather", "importance": 0.1 * (k + 1),
                                                "parameters": {"properties": {"city": {}, "unit": {}}}}]}
            references.append(ref)
    return predictions, references


def one_pass(metric: ToolCallMetric, predictions: list[Any], references: list[Any]) -> Tally:
    tally = Tally()
    for score in metric.scores(predictions, references, details=False):
        tally.add(score)
    return tally


@pytest.mark.parametrize(("level", "shards"), [("call", 1), ("arg", 3), ("call", 7)])
def test_shards_merge_to_one_pass_bit_for_bit(local_ray: Any, shards: int, level: str) -> None:
    settings = Settings(level=level, tools=TOOLS, weights={"refund_order": 1 / 3})
    predictions, references = corpus(3)
    metric = ToolCallMetric.from_settings(settings)
    tallies = local_ray.shard_tallies(predictions, references, settings, shards)
    assert len(tallies) == shards and sum(t.num_examples for t in tallies) == len(predictions)
    merged = sum(tallies, Tally())
    whole = one_pass(metric, predictions, references)
    # the counts, exactly (Counts compares the exact sums), and every other tally field
    assert merged.counts == whole.counts
    assert (merged.counts.tp, merged.counts.fp, merged.counts.fn) == (whole.counts.tp, whole.counts.fp, whole.counts.fn)
    for field in ("num_examples", "num_exact", "num_parse_errors", "hallucinated_tools", "hallucinated_args",
                  "num_superset", "num_subset", "decisions", "digests"):
        assert getattr(merged, field) == getattr(whole, field), field
    result = local_ray.score_on_ray(predictions, references, settings, shards)
    assert result == metric.compute(predictions, references)
    assert result["num_examples"] == 3 * len(ROWS) and len(merged.digests) == 3


def test_the_readme_snippet(local_ray: Any) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (code,) = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "score_on_ray(" in b and ">>>" not in b]
    predictions, references = corpus(1)
    scope: dict[str, Any] = {"predictions": predictions, "references": references, "tools": TOOLS}
    code = code.replace("ray.init(num_cpus=2)", "assert ray.is_initialized()")  # the fixture's own Ray
    exec(compile(code, "README.md (Ray snippet)", "exec"), scope)
    assert scope["result"] == ToolCallMetric("arg", tools=TOOLS).compute(predictions, references)


def test_the_command_line(tmp_path: Path) -> None:
    """``python examples/ray_shards.py`` starts its own local Ray and prints compute()'s result."""
    out = subprocess.run([sys.executable, str(EXAMPLES / "ray_shards.py"), "--input", str(EXAMPLES / "agent_traces.jsonl"),
                          "--tools", str(EXAMPLES / "tools.json"), "--shards", "3", "--level", "arg"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    want = ToolCallMetric("arg", tools=TOOLS).compute([r["prediction"] for r in ROWS], [r["reference"] for r in ROWS])
    assert got == json.loads(json.dumps(want))
