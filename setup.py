"""The compiled build (issue 25): ``pip install .`` and ``python -m build`` compile the core
modules of the *same* source with mypyc when a C compiler is there, and fall back to pure Python
with one message when it is not, when mypyc is missing, or when compiling fails.

    TOOLCALL_F1_PURE=1 pip install .     # force the pure build
    pip install -e .                      # editable installs are always pure (edits take effect)

Everything else (name, version, dependencies, license) is in ``pyproject.toml``. Which build
is installed: ``toolcall_f1.COMPILED``, ``toolcall-f1 --version``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent

#: The modules mypyc compiles, as the profile says pays (cProfile tottime of ``compute()`` on
#: BFCL's 8,000 records: judge 14%, matching 13%, counting 12%, reading 11%, metric 9%, values 6%,
#: schema 6%, calls 4%): judging, matching, counting, reading (its ``_fast_*`` readers and
#: ``read_plain``/``read_auto`` are Python loops around the regular expressions), values, calls,
#: settings;
#: ``turns`` too, because its ``TurnsScore`` subclasses counting's compiled ``Score`` (an
#: interpreted class cannot subclass a native one).
#: A listed module that does not exist (the package's modules move) is skipped.
#: Compiled code keeps a variable's first type: a name reused with two types (two ``except``
#: clauses' ``err``, ``coerce_structured``'s ``name``) is kept apart or declared ``Any``.
#: ``metric`` stays pure: ``ToolCallMetric`` keeps a ``__dict__``, is subclassed and pickled,
#: which mypyc's native classes do not allow; so does ``schema`` for now: its tool sets and
#: compiled checks pickle, and a native class unpickles only when it can be built without
#: arguments (mypyc 2.4.1).
CORE = ("values", "calls", "judge", "counting", "settings", "turns", "matching", "reading")

#: mypy's settings for the compile: ``[tool.mypy]``'s, with numpy and scipy read as ``Any``
#: (their stubs cost minutes of analysis; compiled code calls them as Python objects anyway).
MYPY_CONFIG = """\
[mypy]
python_version = 3.11
ignore_missing_imports = True

[mypy-numpy,numpy.*,scipy,scipy.*]
follow_imports = skip
follow_imports_for_stubs = True
"""

#: The commands that build a wheel or install: only they compile (``egg_info``, ``sdist``,
#: ``dist_info`` and ``editable_wheel`` never do).
BUILDS = {"bdist_wheel", "build", "build_ext", "install"}


def _say(message: str) -> None:
    print(f"toolcall_f1 setup: {message}", file=sys.stderr, flush=True)


def _pure_reason() -> str | None:
    """Why this build is pure Python, or None when it compiles."""
    if os.environ.get("TOOLCALL_F1_PURE", "") not in ("", "0"):
        return "TOOLCALL_F1_PURE is set"
    commands = set(sys.argv[1:])
    if "editable_wheel" in commands or "develop" in commands:
        return "an editable install"
    if not commands & BUILDS:
        return "no build command"
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")[:1]
    if not compiler or shutil.which(compiler[0]) is None:
        return f"no C compiler ({' '.join(compiler) or 'CC'} not found)"
    try:
        import mypyc.build  # noqa: F401 - mypy ships mypyc; pyproject's build-system requires it
    except ImportError as err:
        return f"mypyc is not importable ({err})"
    return None


class _BuildExtOrPure(build_ext):
    """Compile the extensions; if the C compiler fails, drop them: the wheel is pure Python."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as err:  # noqa: BLE001 - any compiler failure means: the pure build
            _say(f"compiling failed ({type(err).__name__}: {err}); building pure Python instead")
            del self.extensions[:]


def _extensions() -> list:
    reason = _pure_reason()
    if reason is not None:
        if reason != "no build command":
            _say(f"building pure Python: {reason}")
        return []
    from mypyc.build import mypycify

    paths = [f"toolcall_f1/{name}.py" for name in CORE if (ROOT / "toolcall_f1" / f"{name}.py").exists()]
    _say("compiling with mypyc: " + ", ".join(Path(p).stem for p in paths))
    config = ROOT / "build" / "mypyc.ini"
    config.parent.mkdir(exist_ok=True)
    config.write_text(MYPY_CONFIG, encoding="utf-8")
    try:
        return mypycify(["--config-file", str(config), *paths], opt_level="3", group_name="toolcall_f1")
    except (Exception, SystemExit) as err:  # noqa: BLE001 - mypyc exits on a type error
        _say(f"mypyc failed ({type(err).__name__}: {err}); building pure Python instead")
        return []


setup(ext_modules=_extensions(), cmdclass={"build_ext": _BuildExtOrPure})
