"""toolcall_f1.integrations.lm_eval through a real ``lm_eval.simple_evaluate``: the example
task (examples/lm_eval/toolcall_f1.yaml, its local JSONL) answered by a registered model class
that returns canned generations; the reported numbers are ``compute()``'s, and lm-eval's own
bootstrap over the items re-aggregates each resample as ``compute()`` on those documents would.
No Hub, no network."""

from __future__ import annotations

import importlib
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric

# CI (and make test) installs the framework (the test extra): a missing one fails there, never skips
lm_eval = importlib.import_module("lm_eval") if os.environ.get("CI", "") in ("true", "1", "yes") else pytest.importorskip("lm_eval")
pytestmark = pytest.mark.usefixtures("offline_hub")  # no Hub, no network: tests/integration/conftest.py

from lm_eval.api.model import LM  # noqa: E402
from lm_eval.api.registry import register_model  # noqa: E402

from toolcall_f1.integrations.lm_eval import (  # noqa: E402
    ToolCallResults,
    micro_f1,
    micro_precision,
    micro_recall,
    process_results,
)

from .test_readme_snippets import snippet  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "lm_eval"
DOCS = [json.loads(line) for line in (EXAMPLE / "tool_calls.jsonl").read_text(encoding="utf-8").splitlines()]

#: The model's answer to each prompt, in several formats (and one wrong argument, one extra call,
#: one unreadable answer).
GENERATIONS = {
    "What is the weather in Paris?": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    "Compare the weather in Tokyo and London.": "[get_weather(city='Tokyo'), get_weather(city='London', unit='celsius'), "
                                               "get_weather(city='Oslo')]",
    "Where is my order A-1042?": '{"name": "get_order_status", "arguments": {"order_id": "A-1042"}}',
    "Convert 250 USD to GBP.": "[convert_currency(amount=250, from_currency='USD', to_currency='EUR')]",
    "Hi there!": "[greet(",
}


@register_model("toolcall-f1-canned")
class CannedLM(LM):
    """Returns GENERATIONS[prompt] for every generate_until request."""

    def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        return [GENERATIONS[request.args[0]] for request in requests]

    def loglikelihood(self, requests: list[Any], disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        raise NotImplementedError("a generate_until task only")

    def loglikelihood_rolling(self, requests: list[Any], disable_tqdm: bool = False) -> list[float]:
        raise NotImplementedError("a generate_until task only")


def references() -> list[Any]:
    return [{"calls": d["reference"], "tools": d["tools"]} if d["tools"] else d["reference"] for d in DOCS]


@pytest.fixture
def results(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """The README's snippet, run as written but for the model (the canned one)."""
    code = snippet("lm_eval.simple_evaluate(")
    model = 'model="hf", model_args="pretrained=Qwen/Qwen2.5-0.5B-Instruct",'
    assert model in code
    monkeypatch.chdir(ROOT)  # the YAML's data_files is relative to the repository root
    monkeypatch.setenv("DISABLE_MULTIPROC", "1")  # any bootstrap of lm-eval's in this process
    scope: dict[str, Any] = {}
    exec(compile(code.replace(model, 'model="toolcall-f1-canned",'), "README.md (lm-eval snippet)", "exec"), scope)
    out = scope["results"]
    assert capsys.readouterr().out.strip().splitlines()[-1] == repr(out["results"]["toolcall_f1"]["f1,none"])
    return out  # type: ignore[no-any-return]


@pytest.mark.slow
def test_simple_evaluate_reports_compute_s_numbers(results: dict[str, Any]) -> None:
    got = results["results"]["toolcall_f1"]
    want = ToolCallMetric().compute(list(GENERATIONS.values()), references())
    assert want["num_parse_errors"] == 1 and 0 < want["f1"] < 1
    for name in ("f1", "precision", "recall", "exact_match"):
        assert got[f"{name},none"] == want[name], name
    # the mean of per-document F1 (what an hf_evaluate metric per document reports) differs
    per_doc = [ToolCallMetric()(p, r).f1 for p, r in zip(GENERATIONS.values(), references())]
    assert abs(sum(per_doc) / len(per_doc) - got["f1,none"]) > 0.01
    assert got["exact_match_stderr,none"] != "N/A"  # lm-eval's mean: its closed-form stderr
    # lm-eval 0.4.13 bootstraps only its own aggregations (lm_eval/api/metrics.py, stderr_for_metric)
    assert got["f1_stderr,none"] == "N/A"
    items = [s["f1"] for s in results["samples"]["toolcall_f1"]]
    assert len(items) == len(DOCS) and all(len(i) == 3 for i in items)


def test_lm_eval_s_bootstrap_resamples_documents(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of lm-eval's bootstrap replicates of micro_f1 is compute() on the resampled
    documents (lm-eval 0.4.13, lm_eval/api/metrics.py: _bootstrap_internal seeds
    random.Random(i) and draws rnd.choices(xs, k=len(xs)))."""
    from lm_eval.api.metrics import _bootstrap_internal, bootstrap_stderr

    preds, refs = list(GENERATIONS.values()), references()
    items = [process_results(d, [p])["f1"] for d, p in zip(DOCS, preds)]
    replicates = _bootstrap_internal(micro_f1, 50)((3, items))
    rnd = random.Random()
    rnd.seed(3)
    metric = ToolCallMetric()
    for value in replicates:
        picks = rnd.choices(range(len(items)), k=len(items))
        assert value == metric.compute([preds[i] for i in picks], [refs[i] for i in picks])["f1"]
    monkeypatch.setenv("DISABLE_MULTIPROC", "1")
    assert bootstrap_stderr(micro_f1, items, iters=200) > 0


def test_process_results_items_and_aggregations_match_compute() -> None:
    preds = list(GENERATIONS.values())
    rows = [process_results(d, [p]) for d, p in zip(DOCS, preds)]
    want = ToolCallMetric().compute(preds, references())
    assert micro_f1([r["f1"] for r in rows]) == want["f1"]
    assert micro_precision([r["precision"] for r in rows]) == want["precision"]
    assert micro_recall([r["recall"] for r in rows]) == want["recall"]
    assert sum(r["exact_match"] for r in rows) / len(rows) == want["exact_match"]
    arg = ToolCallResults(level="arg")
    want_arg = ToolCallMetric("arg").compute(preds, references())
    assert micro_f1([arg(d, [p])["f1"] for d, p in zip(DOCS, preds)]) == want_arg["f1"] != want["f1"]


def test_errors_name_the_document() -> None:
    with pytest.raises(ValueError, match=r"document 'd1': no \"reference\" field"):
        process_results({"id": "d1", "prompt": "x"}, ["[f()]"])
    with pytest.raises(ValueError, match=r"document 'd2': references\[0\]: .*unbalanced brackets"):
        process_results({"id": "d2", "reference": "[f("}, ["[f()]"])
    with pytest.raises(TypeError, match="expected an item"):
        micro_f1([1.0, 0.0])


def test_the_readme_yaml_is_the_example_s() -> None:
    """The YAML lines the README shows are the example task's own."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [block] = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "toolcall_f1.integrations.lm_eval" in b]
    example = (EXAMPLE / "toolcall_f1.yaml").read_text(encoding="utf-8").splitlines()
    shown = [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert shown and all(line in example for line in shown), shown


#: A schema under which the gold ``f(x=1)`` and the answer ``f(x=1, u="c")`` are exact (u's default).
DEFAULT_TOOLS = json.dumps([{"name": "f", "parameters": {"type": "object", "properties": {
    "x": {"type": "integer"}, "u": {"type": "string", "default": "c"}}, "required": ["x"]}}])


def test_doc_tools_with_turns_and_with_a_calls_tools_reference() -> None:
    answer = '[f(x=1, u="c")]'
    assert process_results({"reference": "[f(x=1)]"}, [answer])["exact_match"] == 0.0  # no schema: u is extra
    assert process_results({"reference": "[f(x=1)]", "tools": DEFAULT_TOOLS}, [answer])["exact_match"] == 1.0
    turns = ToolCallResults(order="turns")
    assert turns({"reference": {"turns": [["f(x=1)"]]}, "tools": DEFAULT_TOOLS}, [[answer]])["exact_match"] == 1.0
    both = {"reference": json.dumps({"calls": [{"name": "f", "arguments": {"x": 1}}], "tools": DEFAULT_TOOLS}),
            "tools": DEFAULT_TOOLS}
    assert process_results(both, [answer])["exact_match"] == 1.0
