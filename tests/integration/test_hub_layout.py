"""The repository as the Hub sees it: loadable by ``evaluate.load("<org>/toolcall_f1")``.

evaluate's Hub loader fetches ``toolcall_f1.py`` from the repository root (plus its relative
imports) and instantiates the first metric class in it. These tests do what the Hub does: the
files git would push (``git ls-files``) are copied into a folder named ``toolcall_f1``
elsewhere, and ``evaluate.load(<that folder>)`` runs in a fresh interpreter whose working
directory is not the repository. The Space's build files are checked here too: its front
matter, and a ``requirements.txt`` that installs everything the package needs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("evaluate", reason="needs evaluate (pip install -e .[evaluate])")


def _pushed_files() -> list[str]:
    if not (ROOT / ".git").exists():
        pytest.skip(f"{ROOT} is not a git checkout: cannot tell which files would be pushed")
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
    ).stdout.decode()
    return [f for f in out.split("\0") if f and (ROOT / f).is_file()]


@pytest.fixture(scope="module")
def hub_copy(tmp_path_factory) -> Path:
    """The pushed files, as they are now, in a folder named ``toolcall_f1``."""
    repo = tmp_path_factory.mktemp("hub") / "toolcall_f1"
    for name in _pushed_files():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, repo / name)
    return repo


def _python(code: str, cwd: Path, pythonpath: Path, tmp_path: Path) -> dict:
    """Run ``code`` in a fresh offline interpreter; it prints one JSON line, returned here."""
    env = {
        **os.environ,
        "PYTHONPATH": str(pythonpath),
        "HF_MODULES_CACHE": str(tmp_path / "modules"),
        "HF_HOME": str(tmp_path / "hf"),
        "HF_EVALUATE_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


SEED = """
import json, sys, evaluate, toolcall_f1
preds = ['[search(q="cats"), delete_all()]']
refs = [[{"name": "search", "arguments": {"q": "cats"}}, {"name": "answer", "arguments": {"a": "meow"}}]]
"""


@pytest.mark.slow
def test_evaluate_load_of_the_repo_folder_uses_the_root_file(hub_copy: Path, tmp_path: Path) -> None:
    """What ``evaluate.load("<org>/toolcall_f1")`` does, from a folder instead of the Hub."""
    code = SEED + f"""
module = evaluate.load({str(hub_copy)!r})
arg = evaluate.load({str(hub_copy)!r}, "arg")
r = module.compute(predictions=preds, references=refs)
print(json.dumps({{
    "package": toolcall_f1.__file__,
    "class_module": type(module).__module__,
    "f1": r["f1"], "counts": [r["tp"], r["fp"], r["fn"]],
    "arg_f1": arg.compute(predictions=preds, references=refs)["f1"],
    "cached": sorted(p.name for p in __import__("pathlib").Path({str(tmp_path / "modules")!r}).rglob("*.py")),
}}))
"""
    out = _python(code, cwd=tmp_path, pythonpath=hub_copy, tmp_path=tmp_path)
    assert out["package"] == str(hub_copy / "toolcall_f1" / "__init__.py")  # the package wins
    assert out["class_module"] == "toolcall_f1.toolcall_f1"  # the package adapter's class
    assert (out["f1"], out["counts"]) == (0.5, [1.0, 1.0, 1.0])  # SPEC §9
    assert out["arg_f1"] == pytest.approx(4 / 7)  # SPEC §9 at argument level
    assert "toolcall_f1.py" in out["cached"]  # evaluate copied the root file into its cache


@pytest.mark.slow
def test_inside_the_repo_root_the_package_still_wins(hub_copy: Path, tmp_path: Path) -> None:
    """From the repo root: ``import toolcall_f1``, ``evaluate.load("toolcall_f1")``,
    ``toolcall_f1.load()`` and ``import app`` all reach the package, never the root file."""
    code = SEED + """
sys.path.insert(0, "")
import app
local = evaluate.load("toolcall_f1")
loaded = toolcall_f1.load()
print(json.dumps({
    "package": toolcall_f1.__file__,
    "app_package": app.toolcall_f1.__file__,
    "app_data": str(app.DATA), "presets": list(app.PRESETS),
    "local": local.compute(predictions=preds, references=refs)["f1"],
    "loaded": loaded.compute(predictions=preds, references=refs)["f1"],
}))
"""
    out = _python(code, cwd=hub_copy, pythonpath=hub_copy, tmp_path=tmp_path)
    package = str(hub_copy / "toolcall_f1" / "__init__.py")
    assert out["package"] == package and out["app_package"] == package
    assert out["app_data"] == str(hub_copy / "app_data") and out["presets"][0] == "mixed"  # read beside app.py
    assert out["local"] == out["loaded"] == 0.5


def test_the_root_file_needs_nothing_the_hub_would_have_to_download() -> None:
    """evaluate fetches relative imports next to the file; the root file has none (the
    package is a library import), and its metric class is the package adapter's."""
    from evaluate.loading import get_imports, import_main_class

    imports = get_imports(str(ROOT / "toolcall_f1.py"))
    assert sorted((kind, name) for kind, name, _path, _sub in imports) == [
        ("library", "evaluate"),
        ("library", "toolcall_f1"),
    ]
    import importlib.util

    spec = importlib.util.spec_from_file_location("_hub_root_toolcall_f1", ROOT / "toolcall_f1.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        assert import_main_class(spec.name) is module.ToolCallF1Metric
    finally:
        del sys.modules[spec.name]
    from toolcall_f1 import toolcall_f1 as adapter

    assert module.ToolCallF1Metric.__module__ == adapter.__name__


# --------------------------------------------------------------------------- the Space build


def _front_matter() -> dict[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.match(r"---\n(.*?)\n---\n", text, flags=re.DOTALL)
    assert match, "README.md must open with the Space's YAML front matter"
    pairs = (line.split(":", 1) for line in match.group(1).splitlines() if re.match(r"^\w+:", line))
    return {k.strip(): v.strip().strip("'\"") for k, v in pairs}


def _requirements() -> list[str]:
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#")]


def test_the_space_pushes_the_files_the_app_reads() -> None:
    """app.py reads its presets, labels, markup, help and style from ``app_data/`` beside it
    (its ``DATA``): every file there must be pushed, and the app's modules must name each one they read."""
    pushed = set(_pushed_files())
    data = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "app_data").iterdir())
    assert data and set(data) <= pushed, sorted(set(data) - pushed)
    app_text = "".join(path.read_text(encoding="utf-8") for path in ROOT.glob("app*.py"))  # app.py, app_render.py
    assert [name for name in data if f'"{name.removeprefix("app_data/")}"' not in app_text] == []


def test_space_front_matter() -> None:
    meta = _front_matter()
    assert meta["sdk"] == "gradio" and (ROOT / meta["app_file"]).is_file()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    # the Space's Python must satisfy requires-python (the Hub's default is older)
    assert project["requires-python"] == f">={meta['python_version']}"
    from packaging.requirements import Requirement

    gradio = next(Requirement(r) for r in _requirements() if Requirement(r).name == "gradio")
    assert gradio.specifier.contains(meta["sdk_version"])  # the Space installs gradio==sdk_version


def test_space_requirements_install_what_the_package_needs() -> None:
    """The Space runs ``app.py`` from the repository root, where ``import toolcall_f1`` is the
    package folder itself; requirements.txt must install every dependency it and the app need.
    It must not say ``.`` or ``-e .``: the Space installs requirements before the repository is
    copied in, so a local path is not there to install."""
    from packaging.requirements import Requirement

    reqs = _requirements()
    assert not [r for r in reqs if r.startswith(("-e", ".", "/"))], reqs
    have = {Requirement(r).name: str(Requirement(r).specifier) for r in reqs}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    needed = [*project["dependencies"], *project["optional-dependencies"]["app"]]
    for line in needed:
        req = Requirement(line)
        assert have.get(req.name) == str(req.specifier), f"requirements.txt: {req} (have {have.get(req.name)})"
