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
