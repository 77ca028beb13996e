"""toolcall_f1.integrations.lighteval through lighteval's own classes: a custom task
(``LightevalTaskConfig``/``LightevalTask`` over a local JSONL, loaded by lighteval with its
prompt function), the metric applied by ``lighteval.metrics.apply_metric`` to canned model
responses, and the corpus numbers and stderr from ``MetricsLogger.aggregate`` — equal to
``compute()`` on the same generations, and each bootstrap resample to ``compute()`` on the
resampled documents. No Hub, no network."""

from __future__ import annotations

import importlib
import json
import os
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric

# CI (and make test) installs the framework (the test extra): a missing one fails there, never skips
importlib.import_module("lighteval") if os.environ.get("CI", "") in ("true", "1", "yes") else pytest.importorskip("lighteval")
pytestmark = pytest.mark.usefixtures("offline_hub")  # no Hub, no network: tests/integration/conftest.py

from lighteval.logging.info_loggers import MetricsLogger  # noqa: E402
from lighteval.metrics import apply_metric  # noqa: E402
from lighteval.metrics.utils.stderr import mean_stderr  # noqa: E402
from lighteval.models.model_output import ModelResponse  # noqa: E402
from lighteval.tasks.lighteval_task import LightevalTask, LightevalTaskConfig  # noqa: E402
from lighteval.tasks.requests import Doc  # noqa: E402

from toolcall_f1.integrations.lighteval import METRIC_NAMES, MicroAverage, tool_call_metric  # noqa: E402

from .test_readme_snippets import snippet  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "lm_eval" / "tool_calls.jsonl"  # the lm-eval example's documents
ROWS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]

#: The model's generations for each prompt (one document gets two: both are examples).
GENERATIONS = {
    "What is the weather in Paris?": ['<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'],
    "Compare the weather in Tokyo and London.": ["[get_weather(city='Tokyo'), get_weather(city='Oslo')]",
                                                 "[get_weather(city='Tokyo'), get_weather(city='London')]"],
    "Where is my order A-1042?": ['{"name": "get_order_status", "arguments": {"order_id": "A-1042"}}'],
    "Convert 250 USD to GBP.": ["[convert_currency(amount=250, from_currency='USD', to_currency='EUR', fee=1)]"],
    "Hi there!": ["[greet("],
}


def prompt(line: dict[str, Any], task_name: str) -> Doc:
    """The task's prompt function: the gold calls as the gold choice, the tools in ``specific``."""
    return Doc(query=line["prompt"], choices=[line["reference"]], gold_index=0, task_name=task_name,
               specific={"tools": line["tools"]} if line["tools"] else None)


def reference(row: dict[str, Any]) -> Any:
    return {"calls": row["reference"], "tools": row["tools"]} if row["tools"] else row["reference"]


def local_data(tmp_path: Path) -> Path:
    """The example documents as a local dataset folder lighteval loads (``datasets``, offline)."""
    data = tmp_path / "tool_calls"
    data.mkdir()
    shutil.copy(DATA, data / "test.jsonl")
    return data


def evaluate(tmp_path: Path, bootstrap_iters: int, **settings: Any) -> tuple[dict[str, float], list[Doc]]:
    """The task run through lighteval's classes on canned responses: its aggregated metrics."""
    config = LightevalTaskConfig(name="tool_calls", prompt_function=prompt, hf_repo=str(local_data(tmp_path)),
                                 hf_subset="default", metrics=[tool_call_metric(**settings)],
                                 evaluation_splits=["test"], hf_avail_splits=["test"], generation_size=64)
    return run_task(config, bootstrap_iters)


def run_task(config: LightevalTaskConfig, bootstrap_iters: int) -> tuple[dict[str, float], list[Doc]]:
    task = LightevalTask(config)
    docs = task.get_docs()
    responses = [ModelResponse(text=GENERATIONS[d.query]) for d in docs]
    logger = MetricsLogger()
    for output in apply_metric(responses, docs, list(task.metrics)):
        logger.log(task.full_name, output)
    logger.aggregate({task.full_name: task}, bootstrap_iters=bootstrap_iters)
    return dict(logger.metric_aggregated[task.full_name]), docs


def flat(docs: list[Doc]) -> tuple[list[str], list[Any]]:
    """Every generation with its document's reference, in the docs' order."""
    by_prompt = {r["prompt"]: reference(r) for r in ROWS}
    preds = [g for d in docs for g in GENERATIONS[d.query]]
    refs = [by_prompt[d.query] for d in docs for _ in GENERATIONS[d.query]]
    return preds, refs


@pytest.mark.slow
def test_the_custom_task_reports_compute_s_numbers_and_a_bootstrapped_stderr(tmp_path: Path) -> None:
    got, docs = evaluate(tmp_path, bootstrap_iters=40, level="arg")
    assert len(docs) == len(ROWS)
    preds, refs = flat(docs)
    want = ToolCallMetric("arg").compute(preds, refs)
    assert want["num_parse_errors"] == 1 and 0 < want["f1"] < 1
    for name, what in METRIC_NAMES.items():
        assert got[name] == want[what], name
    # not a mean of per-sample F1
    mean_f1 = sum(ToolCallMetric("arg")(p, r).f1 for p, r in zip(preds, refs)) / len(preds)
    assert abs(mean_f1 - got["tool_call_f1"]) > 0.01
    # lighteval's bootstrap (lighteval 0.13, metrics/utils/stderr.py: one seed per 1000 draws,
    # random.Random(seed).choices(population, k=len(population)) per draw) resamples documents:
    # each replicate is compute() on the resampled documents' generations
    rnd = random.Random()
    rnd.seed(0)
    replicates = []
    for _ in range(40):
        picks = [docs[i] for i in rnd.choices(range(len(docs)), k=len(docs))]
        replicates.append(ToolCallMetric("arg").compute(*flat(picks))["f1"])
    assert got["tool_call_f1_stderr"] == pytest.approx(mean_stderr(replicates), rel=1e-12) and got["tool_call_f1_stderr"] > 0


def test_call_level_through_apply_metric_without_bootstrap(tmp_path: Path) -> None:
    got, docs = evaluate(tmp_path, bootstrap_iters=0)
    want = ToolCallMetric().compute(*flat(docs))
    assert {name: got[name] for name in METRIC_NAMES} == {name: want[what] for name, what in METRIC_NAMES.items()}
    assert not any(k.endswith("_stderr") for k in got)


def test_gold_from_specific_and_errors_name_the_doc() -> None:
    metric = tool_call_metric()
    doc = Doc(query="q", choices=["ignored"], gold_index=0, id="7",
              specific={"reference": [{"name": "f", "arguments": {"x": 1}}]})
    [output] = apply_metric([ModelResponse(text=["[f(x=1)]"])], [doc], [metric])
    assert output["tool_call_f1"] == ((1.0, 0.0, 0.0, 1.0),)
    bad = Doc(query="q", choices=["[f("], gold_index=0, id="8")
    with pytest.raises(ValueError, match=r"doc '8': references\[0\]: .*unbalanced brackets"):
        apply_metric([ModelResponse(text=["[f()]"])], [bad], [metric])
    with pytest.raises(TypeError, match="expected an item"):
        MicroAverage("f1").compute_corpus([0.5])


def test_the_readme_snippet_is_a_working_custom_task(tmp_path: Path) -> None:
    code = snippet("TASKS_TABLE = [LightevalTaskConfig(")
    repo = 'hf_repo="your-org/tool-calls"'
    assert repo in code
    scope: dict[str, Any] = {}
    exec(compile(code.replace(repo, f"hf_repo={str(local_data(tmp_path))!r}"), "README.md (lighteval snippet)", "exec"),
         scope)
    [config] = scope["TASKS_TABLE"]
    got, docs = run_task(config, bootstrap_iters=0)
    want = ToolCallMetric("arg").compute(*flat(docs))
    assert {name: got[name] for name in METRIC_NAMES} == {name: want[what] for name, what in METRIC_NAMES.items()}


CANNED_MODEL = '''
import json
import os

from lighteval.models.abstract_model import LightevalModel
from lighteval.models.model_output import ModelResponse
from lighteval.utils.cache_management import SampleCache

GENERATIONS = json.loads(os.environ["TOOLCALL_F1_CANNED"])


class CannedModel(LightevalModel):
    """Answers each prompt with its canned generations."""

    def __init__(self, config):
        self.config = config
        self._cache = SampleCache(config)

    @property
    def tokenizer(self):
        return None

    @property
    def add_special_tokens(self):
        return False

    @property
    def max_length(self):
        return 2048

    def greedy_until(self, docs):
        return [ModelResponse(text=GENERATIONS[doc.query]) for doc in docs]

    def loglikelihood(self, docs):
        raise NotImplementedError

    def loglikelihood_rolling(self, docs):
        raise NotImplementedError
'''


@pytest.mark.slow
def test_a_lighteval_pipeline_runs_the_readme_custom_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """lighteval's ``Pipeline`` with the README snippet as its custom tasks file and a custom
    model (``CustomModelConfig``) answering with canned generations. Two shims, both outside
    the metric's path (lighteval 0.13): the registry loads only the custom tasks file (its
    ``load_all_task_configs`` imports every built-in task module, and ``tasks/tiny_benchmarks.py``
    downloads a file at import, ``tasks/mt_bench/main.py`` calls the Hub), and the details
    logger is off (``logging/info_loggers.py:272`` hashes ``doc.query`` as a str, which
    xxhash 4 refuses)."""
    from lighteval.logging.evaluation_tracker import EvaluationTracker
    from lighteval.models.custom.custom_model import CustomModelConfig
    from lighteval.pipeline import ParallelismManager, Pipeline, PipelineParameters
    from lighteval.tasks.registry import Registry

    code = snippet("TASKS_TABLE = [LightevalTaskConfig(")
    tasks_file = tmp_path / "tasks.py"
    tasks_file.write_text(code.replace('hf_repo="your-org/tool-calls"', f"hf_repo={str(local_data(tmp_path))!r}"),
                          encoding="utf-8")
    model_file = tmp_path / "canned_model.py"
    model_file.write_text(CANNED_MODEL, encoding="utf-8")
    monkeypatch.setenv("TOOLCALL_F1_CANNED", json.dumps(GENERATIONS))
    monkeypatch.setattr(Registry, "load_all_task_configs", staticmethod(
        lambda custom_tasks=None, load_multilingual=False:
        Registry._extract_configs(Registry.create_custom_tasks_module(custom_tasks))))
    pipeline = Pipeline(
        tasks="tool_calls|0",
        pipeline_parameters=PipelineParameters(launcher_type=ParallelismManager.CUSTOM,
                                               custom_tasks_directory=str(tasks_file), bootstrap_iters=20),
        evaluation_tracker=EvaluationTracker(output_dir=str(tmp_path / "out")),
        model_config=CustomModelConfig(model_name="canned", model_definition_file_path=str(model_file),
                                       cache_dir=str(tmp_path / "cache")),
    )
    monkeypatch.setattr(pipeline.evaluation_tracker.details_logger, "log", lambda *args, **kwargs: None)
    monkeypatch.setattr(pipeline.evaluation_tracker.details_logger, "aggregate", lambda *args, **kwargs: None)
    pipeline.evaluate()
    got = pipeline.get_results()["results"]["tool_calls:0"]
    docs = pipeline.documents_dict["tool_calls|0"]
    want = ToolCallMetric("arg").compute(*flat(docs))
    assert {name: got[name] for name in METRIC_NAMES} == {name: want[what] for name, what in METRIC_NAMES.items()}
    assert all(got[f"{name}_stderr"] > 0 for name in METRIC_NAMES)  # bootstrapped: the numbers are floats


def test_doc_tools_with_turns_and_with_a_calls_tools_reference() -> None:
    tools = json.dumps([{"name": "f", "parameters": {"type": "object", "properties": {
        "x": {"type": "integer"}, "u": {"type": "string", "default": "c"}}, "required": ["x"]}}])
    answer = '[f(x=1, u="c")]'  # exact only under the schema (u's default)

    def exact(metric: Any, reference: Any, text: Any, with_tools: bool = True) -> float:
        specific = {"reference": reference, **({"tools": tools} if with_tools else {})}
        doc = Doc(query="q", choices=["ignored"], gold_index=0, id="t", specific=specific)
        [output] = apply_metric([ModelResponse(text=[text])], [doc], [metric])
        return output["tool_call_exact_match"][0][3]

    assert exact(tool_call_metric(), "[f(x=1)]", answer, with_tools=False) == 0.0
    assert exact(tool_call_metric(), "[f(x=1)]", answer) == 1.0
    assert exact(tool_call_metric(order="turns"), {"turns": [["f(x=1)"]]}, [answer]) == 1.0
    assert exact(tool_call_metric(), {"calls": [{"name": "f", "arguments": {"x": 1}}], "tools": tools}, answer) == 1.0
