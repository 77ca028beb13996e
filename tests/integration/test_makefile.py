"""The Makefile's install guard (issue 26, item 16): `make run`/`make test` say where they
install, and refuse an interpreter outside any environment (pyenv's, conda's base) unless
``ALLOW_GLOBAL=1``; virtual environments and conda environments other than base are used."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _check(python: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # under `make test ALLOW_GLOBAL=1` (CI's .ci/run) make exports its command-line variables: drop them
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("CONDA_", "MAKE", "MFLAGS")) and k not in ("VIRTUAL_ENV", "ALLOW_GLOBAL")}
    return subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "venv-check", f"PYTHON={python}",
                           "GOAL=run", *args], capture_output=True, text=True, env={**clean, **env}, timeout=60)


def _outside_any_environment() -> bool:
    return sys.prefix == sys.base_prefix and not os.environ.get("CONDA_PREFIX")


@pytest.mark.skipif(not _outside_any_environment(), reason="needs a Python outside any environment (as CI's)")
def test_a_global_interpreter_is_refused_unless_allowed() -> None:
    refused = _check(sys.executable)
    assert refused.returncode != 0
    assert f"would install toolcall_f1 and its dependencies into {os.path.realpath(sys.prefix)} itself" in refused.stderr
    assert "make run ALLOW_GLOBAL=1" in refused.stderr and "python3 -m venv .venv" in refused.stderr
    allowed = _check(sys.executable, "ALLOW_GLOBAL=1")
    assert allowed.returncode == 0, allowed.stderr
    assert f"installing into the interpreter itself at {os.path.realpath(sys.prefix)} (ALLOW_GLOBAL=1)" in allowed.stderr


@pytest.mark.skipif(not _outside_any_environment(), reason="needs a Python outside any environment (as CI's)")
def test_conda_environments_are_used_and_conda_base_is_refused() -> None:
    prefix = sys.prefix
    env = _check(sys.executable, CONDA_PREFIX=prefix, CONDA_DEFAULT_ENV="work")
    assert env.returncode == 0 and f"installing into the environment at {os.path.realpath(prefix)}" in env.stderr
    base = _check(sys.executable, CONDA_PREFIX=prefix, CONDA_DEFAULT_ENV="base")
    assert base.returncode != 0 and "ALLOW_GLOBAL=1" in base.stderr


def test_a_virtual_environment_is_used_and_named(tmp_path: Path) -> None:
    venv.create(tmp_path / "env", with_pip=False, symlinks=True)
    python = tmp_path / "env" / "bin" / "python"
    result = _check(str(python))
    assert result.returncode == 0, result.stderr
    assert f"installing into the environment at {os.path.realpath(tmp_path / 'env')}" in result.stderr


def test_ci_allows_its_global_interpreter() -> None:
    assert "make test ALLOW_GLOBAL=1" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
