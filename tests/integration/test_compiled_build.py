"""The compiled build (issue 25): the same source compiled by mypyc gives the pure build's numbers.

In the suite (``make test``, an editable install) the package is pure Python and says so.
``make test-compiled`` builds the wheel, installs it in a fresh virtual environment and runs
the conformance suite, the property tests, the entry-points-agree test and this file there,
from a copy of the tests (the checkout's ``toolcall_f1/`` is not importable), with
``TOOLCALL_F1_EXPECT_COMPILED=1`` and ``TOOLCALL_F1_SOURCE`` naming the checkout: then the
installed package must be the compiled one, and the behaviour snapshot
(``benchmarks/snapshot.py``: every level × matching × canonicalizer, BFCL records, large
name groups, the full ``repr`` of each result) must be byte for byte the pure source's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import toolcall_f1
from toolcall_f1 import counting, judge

EXPECT_COMPILED = os.environ.get("TOOLCALL_F1_EXPECT_COMPILED") == "1"
SOURCE = os.environ.get("TOOLCALL_F1_SOURCE")


def _is_extension(module: object) -> bool:
    return str(getattr(module, "__file__", "")).endswith(tuple(EXTENSION_SUFFIXES))


def test_compiled_says_which_build_runs() -> None:
    core = [counting, judge]
    assert toolcall_f1.COMPILED is _is_extension(counting)
    if EXPECT_COMPILED:
        assert toolcall_f1.COMPILED, f"expected the compiled build, imported {counting.__file__}"
        assert all(_is_extension(m) for m in core), [m.__file__ for m in core]
    else:  # the suite runs on the source checkout, editable: pure Python
        assert not toolcall_f1.COMPILED
        assert not any(_is_extension(m) for m in core), [m.__file__ for m in core]


def _snapshot(python: str, pure_source: str | None) -> bytes:
    """``benchmarks/snapshot.py``'s output under ``python``: of the installed package, or of the
    pure source at ``pure_source`` (imported first, so the snapshot's own path cannot choose)."""
    assert SOURCE is not None
    script = Path(SOURCE) / "benchmarks" / "snapshot.py"
    want = "False" if pure_source else "True"
    code = (
        "import runpy, sys\n"
        + (f"sys.path.insert(0, {pure_source!r})\n" if pure_source else "")
        + "import toolcall_f1\n"
        + f"assert str(toolcall_f1.COMPILED) == {want!r}, (toolcall_f1.COMPILED, toolcall_f1.__file__)\n"
        + f"sys.argv = [{str(script)!r}]\n"
        + f"runpy.run_path({str(script)!r}, run_name='__main__')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([python, "-c", code], capture_output=True, env=env, cwd=os.path.dirname(script),
                          timeout=1800)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return done.stdout


@pytest.mark.slow
@pytest.mark.skipif(not (EXPECT_COMPILED and SOURCE), reason="runs against the wheel: make test-compiled")
def test_the_compiled_build_gives_the_pure_numbers() -> None:
    compiled = _snapshot(sys.executable, None)
    pure = _snapshot(sys.executable, SOURCE)
    assert len(compiled.splitlines()) > 30, compiled[:500]
    if compiled != pure:
        for i, (a, b) in enumerate(zip(compiled.splitlines(), pure.splitlines())):
            if a != b:
                at = next(j for j, (x, y) in enumerate(zip(a, b)) if x != y) if a[:len(b)] != b[:len(a)] else min(len(a), len(b))
                pytest.fail(f"snapshot line {i + 1} differs at {at}: compiled {a[max(0, at - 200):at + 200]!r}, "
                            f"pure {b[max(0, at - 200):at + 200]!r}")
        pytest.fail(f"snapshots differ in length: {len(compiled)} vs {len(pure)} bytes")
