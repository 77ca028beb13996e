"""verl's custom reward function (issue 24): ``toolcall_f1.integrations.verl.compute_score``.

Two ways, both against verl 0.9.1:

- *through verl itself* (slow): verl's own loader, ``get_custom_reward_fn`` in
  ``verl/trainer/ppo/reward.py``, builds the reward function from a config naming this module
  (``pkg://`` and by file path), and verl's ``NaiveRewardManager.run_single``
  (``verl/experimental/reward_loop/reward_manager/naive.py``) scores responses with it, decoding
  them with a tokenizer built here. verl 0.9.1 pins ``transformers<5.11`` (the test extra needs
  >= 5.13), so ``make install-test`` installs verl and the few packages its reward path imports
  with ``--no-deps`` into ``.make-stamps/verl`` (see the Makefile), which this test imports from;
- *its calling convention, pinned from that source* (fast, no verl): the same calls written out,
  so the contract stays checked where verl is absent.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from toolcall_f1 import ToolCallMetric
from toolcall_f1.rewards import COMPONENTS, ToolCallReward

ROOT = Path(__file__).resolve().parents[2]
#: Where ``make install-test`` puts verl 0.9.1 and what its reward path imports (``--no-deps``).
VERL_DIR = ROOT / ".make-stamps" / "verl"
MODULE_FILE = ROOT / "toolcall_f1" / "integrations" / "verl.py"

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
#: (response, ground truth as the Parquet column holds it, extra_info["tools"] or None)
ROWS = [
    ("[ get_weather ( city = 'Paris' ) ]", '[{"name": "get_weather", "arguments": {"city": "Paris"}}]', json.dumps(TOOLS)),
    ("[ get_weather ( city = 'Rome' ) , get_time ( ) ]", '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
     json.dumps(TOOLS)),
    ("[ get_weather ( city = 'Paris'", '[{"name": "get_weather", "arguments": {"city": "Paris"}}]', None),  # cut off
    ("ok", "[]", None),  # no call expected, none made
]
WORDS = {w for text, _, _ in ROWS for w in text.split()} | {"weather", "=>"}


def as_verl_calls(fn: Callable[..., Any], rows: list[tuple[str, Any, Any]]) -> list[dict[str, Any]]:
    """Call ``fn`` as verl 0.9.1's NaiveRewardManager.run_single does: by keyword, ``extra_info``
    with ``num_turns`` and ``rollout_reward_scores`` added; keep ``result["score"]`` as the reward
    and every key as ``reward_extra_info``."""
    out = []
    for text, truth, tools in rows:
        extra_info: dict[str, Any] = {} if tools is None else {"tools": tools}
        extra_info["num_turns"] = None
        extra_info["rollout_reward_scores"] = {}
        result = fn(data_source="toolcalls", solution_str=text, ground_truth=truth, extra_info=extra_info)
        assert isinstance(result, dict)
        out.append({"reward_score": result["score"], "reward_extra_info": dict(result)})
    return out


def gathered(outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """verl 0.9.1's RewardLoopWorker (``verl/experimental/reward_loop/reward_loop.py``): the keys
    of the first response, one numpy array per key over all responses."""
    import numpy as np

    infos = [o["reward_extra_info"] for o in outputs]
    return {key: np.array([info[key] for info in infos]) for key in infos[0]}


def expected(reward: ToolCallReward) -> list[tuple[float, dict[str, float]]]:
    from toolcall_f1.rewards import components

    rewards, scores = reward.judge([t for t, _, _ in ROWS], [g for _, g, _ in ROWS],
                                   [tools for _, _, tools in ROWS])
    return [(r, components([s])) for r, s in zip(rewards, scores)]


def check(outputs: list[dict[str, Any]], reward: ToolCallReward) -> None:
    """Each response's reward and components are the reward's own; the gathered arrays are numeric."""
    for out, (value, parts) in zip(outputs, expected(reward), strict=True):
        assert out["reward_score"] == value
        assert out["reward_extra_info"] == {"score": value, **parts}
    arrays = gathered(outputs)
    assert list(arrays) == ["score", *COMPONENTS]
    assert all(a.dtype.kind == "f" and a.shape == (len(ROWS),) for a in arrays.values())


# --------------------------------------------------------------------------- pinned from the source


def load_by_path(path: str) -> Any:
    """verl 0.9.1's ``load_module`` (``verl/utils/import_utils.py``): ``pkg://`` imports the
    module, a file path executes the file as a module of its own name."""
    if path.startswith("pkg://"):
        return importlib.import_module(path[len("pkg://"):].replace("/", "."))
    spec = importlib.util.spec_from_file_location(f"custom_module_{hash(os.path.abspath(path))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def verl_style_reward_fn(path: str, name: str, reward_kwargs: dict[str, Any]) -> Callable[..., Any]:
    """verl 0.9.1's ``get_custom_reward_fn``: the named object, with ``reward_kwargs`` merged over
    each call's keywords (``_call_with_kwargs``)."""
    raw_fn = getattr(load_by_path(path), name)

    def call(raw: Callable[..., Any], extra: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        return raw(*args, **{**kwargs, **extra})

    return partial(call, raw_fn, reward_kwargs)


@pytest.mark.parametrize("path", ["pkg://toolcall_f1.integrations.verl", str(MODULE_FILE)], ids=["pkg", "file"])
@pytest.mark.parametrize("reward_kwargs", [{}, {"level": "arg", "reward": "exact", "parse_error_reward": -1.0}],
                         ids=["default", "settings"])
def test_the_calling_convention_pinned_from_verls_source(path: str, reward_kwargs: dict[str, Any]) -> None:
    fn = verl_style_reward_fn(path, "compute_score", reward_kwargs)
    outputs = as_verl_calls(fn, ROWS)
    check(outputs, ToolCallReward(**reward_kwargs))
    if not reward_kwargs:  # the default: each readable response's call-level F1, as the metric gives it
        metric = ToolCallMetric()
        for out, (text, truth, tools) in zip(outputs, ROWS):
            s = metric(text, truth, tools=None if tools is None else json.loads(tools))
            assert out["reward_score"] == (0.0 if s.parse_error else s.f1)
        assert [o["reward_score"] for o in outputs] == [1.0, 0.0, 0.0, 1.0]


def test_structured_ground_truth_and_parquet_arrays() -> None:
    """A ground truth stored as structures, and tools read back from Parquet as numpy arrays."""
    import numpy as np

    from toolcall_f1.integrations.verl import compute_score

    calls = [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    as_array = np.array(TOOLS, dtype=object)
    got = compute_score("toolcalls", "[get_weather(city='Paris', mood='sunny')]", np.array(calls, dtype=object),
                        {"tools": as_array})
    assert got["score"] == 0.0 and got["hallucinated_args"] == 1.0
    assert compute_score("toolcalls", "[get_weather(city='Paris')]", {"calls": calls, "tools": TOOLS})["score"] == 1.0
    # verl's own keywords beside a reward router are not settings
    assert compute_score("t", "[f()]", "[f()]", None, reward_router_address="127.0.0.1:1",
                         reward_model_tokenizer=None)["score"] == 1.0
    with pytest.raises(TypeError, match="did you mean 'level'"):
        compute_score("t", "[f()]", "[f()]", None, levle="arg")


# --------------------------------------------------------------------------- through verl itself


@pytest.fixture
def verl_package(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """verl 0.9.1 from ``.make-stamps/verl`` (or installed); on CI its absence is an error."""
    if VERL_DIR.is_dir():
        monkeypatch.syspath_prepend(str(VERL_DIR))
    try:
        import verl
    except ImportError as err:
        if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
            pytest.fail(f"CI: verl is required here (make install-test puts it in {VERL_DIR}): {err}")
        pytest.skip(f"verl is not importable (make install-test puts it in {VERL_DIR}): {err}")
    assert verl.__version__ == "0.9.1", verl.__version__
    yield verl


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Ray state API is no longer experimental:DeprecationWarning")  # verl imports it
@pytest.mark.parametrize("path", ["pkg://toolcall_f1.integrations.verl", str(MODULE_FILE)], ids=["pkg", "file"])
def test_through_verls_loader_and_reward_manager(verl_package: Any, path: str) -> None:
    import numpy as np
    import torch
    from omegaconf import OmegaConf
    from verl import DataProto
    from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager
    from verl.trainer.ppo.reward import get_custom_reward_fn

    from .tiny_models import word_tokenizer

    reward_kwargs = {"level": "arg", "parse_error_reward": -1.0}
    config = OmegaConf.create({"reward": {"custom_reward_function": {
        "path": path, "name": "compute_score", "reward_kwargs": reward_kwargs}}})
    fn = get_custom_reward_fn(config)
    tk = word_tokenizer(WORDS)
    manager = NaiveRewardManager(config, tk, fn)
    prompt = tk("weather =>", return_tensors="pt")["input_ids"]
    outputs = []
    for text, truth, tools in ROWS:
        response = tk(text, return_tensors="pt")["input_ids"]
        padded = torch.cat([response, torch.full((1, 2), tk.pad_token_id)], dim=1)  # verl pads responses
        mask = torch.cat([torch.ones_like(prompt), torch.ones_like(response), torch.zeros(1, 2, dtype=torch.long)],
                         dim=1)
        data = DataProto.from_dict(
            tensors={"prompts": prompt, "responses": padded, "attention_mask": mask},
            non_tensors={"data_source": np.array(["toolcalls"], dtype=object),
                         "reward_model": np.array([{"ground_truth": truth}], dtype=object),
                         "extra_info": np.array([{} if tools is None else {"tools": tools}], dtype=object)},
        )
        outputs.append(manager.loop.run_until_complete(manager.run_single(data)))
    check(outputs, ToolCallReward(**reward_kwargs))
    assert [o["reward_score"] for o in outputs] == [1.0, 0.4, -1.0, 1.0]  # arg level: tp 1, fp 1+1, fn 1
    assert sys.modules["verl"] is verl_package


# --------------------------------------------------------------------------- the README's snippets


def readme_block(language: str, marker: str) -> str:
    """The README's one ```<language> block (not a doctest) containing ``marker``."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(rf"```{language}\n(.*?)```", readme, re.S) if marker in b and ">>>" not in b]
    assert len(blocks) == 1, f"expected one README {language} block with {marker!r}, found {len(blocks)}"
    return blocks[0]


def test_the_readme_parquet_snippet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dataset the README writes, read back as verl reads Parquet rows, scores as expected."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    from toolcall_f1.integrations.verl import compute_score

    monkeypatch.chdir(tmp_path)
    exec(compile(readme_block("python", "to_parquet("), "README.md (verl dataset)", "exec"), {})
    frame = pd.read_parquet(tmp_path / "train.parquet")
    responses = ["[get_weather(city='Paris'), get_time()]", "Hello!"]
    got = [compute_score(row["data_source"], text, row["reward_model"]["ground_truth"], dict(row["extra_info"]))
           for text, (_, row) in zip(responses, frame.iterrows())]
    assert [g["score"] for g in got] == [2 / 3, 1.0]
    assert got[0]["hallucinated_tools"] == 1.0  # the example's tools came through extra_info


def readme_reward_config() -> dict[str, Any]:
    """The README's verl command line: its ``reward.custom_reward_function`` overrides, as a config."""
    import shlex

    words = shlex.split(readme_block("bash", "verl.trainer.main_ppo").replace("\\\n", " "))
    overrides = [w.lstrip("+") for w in words if w.lstrip("+").startswith("reward.custom_reward_function.")]
    assert len(overrides) == 5, overrides
    config: dict[str, Any] = {}
    for item in overrides:
        dotted, _, value = item.partition("=")
        *parents, leaf = dotted.split(".")
        node = config
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return config


def test_the_readme_command_line_pinned() -> None:
    """The README's overrides, resolved as verl's get_custom_reward_fn would (values as Hydra
    parses them: ``-1.0`` a float), give the settings they name."""
    kwargs = readme_reward_config()["reward"]["custom_reward_function"]
    reward_kwargs = {k: (float(v) if k == "parse_error_reward" else v) for k, v in kwargs["reward_kwargs"].items()}
    fn = verl_style_reward_fn(kwargs["path"], kwargs["name"], reward_kwargs)
    assert as_verl_calls(fn, ROWS)[2]["reward_score"] == -1.0  # the cut-off response
    check(as_verl_calls(fn, ROWS), ToolCallReward(level="arg", reward="f1", parse_error_reward=-1.0))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Ray state API is no longer experimental:DeprecationWarning")
def test_the_readme_command_line_through_verl(verl_package: Any) -> None:
    """The README's overrides given to verl's own loader, through OmegaConf's dotlist (Hydra's syntax)."""
    import shlex

    from omegaconf import OmegaConf
    from verl.trainer.ppo.reward import get_custom_reward_fn

    words = shlex.split(readme_block("bash", "verl.trainer.main_ppo").replace("\\\n", " "))
    config = OmegaConf.from_dotlist([w.lstrip("+") for w in words if "custom_reward_function" in w])
    fn = get_custom_reward_fn(config)
    check(as_verl_calls(fn, ROWS), ToolCallReward(level="arg", reward="f1", parse_error_reward=-1.0))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Ray state API is no longer experimental:DeprecationWarning")
def test_schemas_and_weights_in_reward_kwargs(verl_package: Any) -> None:
    """``reward_kwargs.tools`` and ``.weights`` reach the reward as OmegaConf containers (Hydra's
    config): read as the lists and dicts they hold."""
    from omegaconf import OmegaConf
    from verl.trainer.ppo.reward import get_custom_reward_fn

    schemas = [{"name": "get_weather", "importance": 3, "parameters": {"properties": {"city": {}}}},
               {"name": "get_time", "parameters": {"properties": {}}}]
    config = OmegaConf.create({"reward": {"custom_reward_function": {
        "path": "pkg://toolcall_f1.integrations.verl", "name": "compute_score",
        "reward_kwargs": {"tools": schemas, "weights": {"get_time": 2}}}}})
    fn = get_custom_reward_fn(config)
    response = "[get_weather(city='Paris'), get_time(), search()]"
    got = fn(data_source="t", solution_str=response,
             ground_truth='[{"name": "get_weather", "arguments": {"city": "Paris"}}]', extra_info={})
    want = ToolCallMetric(tools=schemas, weights={"get_time": 2})(response, [("get_weather", {"city": "Paris"})])
    assert got["score"] == want.f1 == 2 * 3 / (2 * 3 + 2 + 1)  # weights 3 (tp), 2 and 1 (fp)
    assert got["hallucinated_tools"] == 1.0 and got["extra_calls"] == 2.0
