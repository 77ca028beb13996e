"""The route of one example through the package, as a table (STYLE.md, "One route, then speed").

Traces one ``compute()`` of one example with ``sys.setprofile``, counting only the package's
own functions, after every module of the package is imported and the metric is built:

- *functions*: distinct package functions entered (a lambda, comprehension or generator
  expression belongs to the function that writes it);
- *modules*: the files those functions live in;
- *switches*: calls (generator resumes included) into a package function whose nearest package
  caller is in another module (returns are not counted);
- *depth*: the most package frames on the stack at once (a lambda's, comprehension's or
  generator expression's frame folded into the function that writes it).

    python benchmarks/route.py            # the table
    python benchmarks/route.py --list     # and every function entered, per input

Not a timing: the numbers are counts, the same on every machine for the same code.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import toolcall_f1  # noqa: E402

PACKAGE_DIR = str(Path(toolcall_f1.__file__).resolve().parent)
#: Code objects a writing function owns (their names as CPython 3.11 gives them).
_INNER = ("<lambda>", "<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>")

#: The issue's three inputs: (label, prediction, reference); scored with ``ToolCallMetric("arg")``.
INPUTS: tuple[tuple[str, Any, Any], ...] = (
    ("python call", "[get_weather(city='Paris', unit='C')]",
     [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}}]),
    ("hermes block with prose",
     'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
     [{"name": "get_weather", "arguments": {"city": "Paris"}}]),
    ("two calls to one tool", "[search(q='cats'), search(q='dogs')]",
     [{"name": "search", "arguments": {"q": "dogs"}}, {"name": "search", "arguments": {"q": "cats"}}]),
)


def import_all() -> None:
    """Import every module of the package, so the trace counts no import-time work."""
    for info in pkgutil.walk_packages(toolcall_f1.__path__, "toolcall_f1."):
        if info.name.endswith((".cli", ".trainer", ".rewards", ".toolcall_f1")) or ".integrations" in info.name:
            try:
                importlib.import_module(info.name)
            except ImportError:  # an optional framework that is not installed
                pass
        else:
            importlib.import_module(info.name)


def _owner(frame: FrameType) -> tuple[str, str] | None:
    """(module file, function) a package frame counts as, or None outside the package."""
    code = frame.f_code
    path = code.co_filename
    if not path.startswith(PACKAGE_DIR):
        return None
    qual = code.co_qualname
    while qual.rsplit(".", 1)[-1] in _INNER:
        head = qual.rsplit(".", 1)[0] if "." in qual else ""
        qual = head.removesuffix(".<locals>") if head else "<module>"
    return Path(path).name, qual


def _package_frames(frame: FrameType | None) -> list[tuple[str, str]]:
    """The package frames on the stack from ``frame`` out; a lambda's, comprehension's or
    generator expression's frame is folded into the frame of the function that writes it."""
    owners: list[tuple[str, str]] = []
    folding = False  # the frame just counted was an inner one: its writer's frame is the same owner
    while frame is not None:
        owner = _owner(frame)
        if owner is not None:
            if not (folding and owners and owners[-1] == owner):
                owners.append(owner)
            folding = frame.f_code.co_name in _INNER
        frame = frame.f_back
    return owners


@dataclass
class Route:
    """What one traced call entered."""

    functions: set[tuple[str, str]] = field(default_factory=set)
    switches: int = 0
    depth: int = 0

    @property
    def modules(self) -> set[str]:
        return {m for m, _ in self.functions}


def trace(run: Callable[[], Any]) -> Route:
    """The :class:`Route` of ``run()``."""
    route = Route()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        owner = _owner(frame)
        if owner is None:
            return
        stack = _package_frames(frame)
        route.depth = max(route.depth, len(stack))
        inner = frame.f_code.co_name in _INNER
        if not inner:
            route.functions.add(owner)
        caller = _package_frames(frame.f_back)
        if inner and caller and caller[0] == owner:
            return  # a comprehension entered by the function that writes it
        route.functions.add(owner)
        if caller and caller[0][0] != owner[0]:
            route.switches += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return route


def measure() -> list[tuple[str, Route]]:
    """The route of each input: a fresh ``ToolCallMetric("arg")``, one ``compute()`` of one example."""
    import_all()
    rows = []
    for label, pred, ref in INPUTS:
        metric = toolcall_f1.ToolCallMetric("arg")
        rows.append((label, trace(lambda m=metric, p=pred, r=ref: m.compute([p], [r]))))  # type: ignore[misc]
    return rows


def table(rows: list[tuple[str, Route]]) -> str:
    """The routes as a markdown table, with the worst of the inputs and the issue's targets."""
    lines = ["| input | functions | modules | switches | depth |", "| --- | ---: | ---: | ---: | ---: |"]
    for label, r in rows:
        lines.append(f"| {label} | {len(r.functions)} | {len(r.modules)} | {r.switches} | {r.depth} |")
    worst = (max(len(r.functions) for _, r in rows), max(len(r.modules) for _, r in rows),
             max(r.switches for _, r in rows), max(r.depth for _, r in rows))
    lines.append(f"| **worst** | {worst[0]} | {worst[1]} | {worst[2]} | {worst[3]} |")
    lines.append("| target (issue 21) | ≤ 45 | ≤ 7 | ≤ 20 | ≤ 12 |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="also list every function entered, per input")
    args = parser.parse_args(argv)
    rows = measure()
    out = table(rows)
    print(out)
    if args.list:
        for label, r in rows:
            print(f"\n{label}: {len(r.functions)} functions in {', '.join(sorted(r.modules))}")
            for module, fn in sorted(r.functions):
                print(f"  {module}:{fn}")
    return out


if __name__ == "__main__":
    main()
