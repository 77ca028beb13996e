"""The build is free of setuptools' deprecation warnings (issue 26, item 21): ``project.license``
is an SPDX expression with ``license-files`` (PEP 639), not the TOML table setuptools stops
building after 2027-02-18."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_license_is_an_spdx_expression_with_its_files() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"], "license-files names the license text"
    for pattern in project["license-files"]:
        matched = list(ROOT.glob(pattern))
        assert matched, f"license-files pattern {pattern!r} matches no file"
        assert all("Apache License" in p.read_text(encoding="utf-8")[:200] for p in matched)


def test_the_build_backend_reads_pep_639() -> None:
    (setuptools,) = [r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools")]
    version = re.search(r">=\s*(\d+)", setuptools)
    assert version is not None and int(version.group(1)) >= 77, setuptools


def test_the_version_attribute_is_a_literal_setuptools_can_read_without_importing() -> None:
    """``pip install .`` reads ``version = {attr = ...}`` statically: the module must assign the
    name a string literal itself (a name it imports makes setuptools import the module outside
    its package, and the build fails: a fresh ``make run`` did, this session)."""
    import ast

    import toolcall_f1

    module, _, name = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"].rpartition(".")
    path = ROOT / (module.replace(".", "/") + ".py")
    literal = [node.value.value for node in ast.parse(path.read_text(encoding="utf-8")).body
               if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets)
               and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)]
    assert literal == [toolcall_f1.__version__]
