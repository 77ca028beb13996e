"""Shared pieces of the benchmarks: environment, timing, machine info, tables, the corpus.

Benchmarks print tables and return them as markdown; they never assert on time. The corpus
generator is deterministic (seeded), so every run scores the same examples.
"""

from __future__ import annotations

import ast
import gc
import json
import os
import platform
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# evaluate / datasets: never the Hub, caches in a private temporary folder.
_CACHE = tempfile.mkdtemp(prefix="toolcall_f1_bench_cache_")
for _var, _value in {
    "HF_EVALUATE_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_OFFLINE": "1",
    "HF_HOME": os.path.join(_CACHE, "hf"),
    "HF_DATASETS_CACHE": os.path.join(_CACHE, "datasets"),
    "HF_MODULES_CACHE": os.path.join(_CACHE, "modules"),
    "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}.items():
    os.environ.setdefault(_var, _value)

CONFORMANCE_FULL = ROOT.parent / "shared" / "conformance" / "bfcl_python.jsonl"
CONFORMANCE_SAMPLE = ROOT / "tests" / "conformance" / "bfcl_sample.jsonl"


# --------------------------------------------------------------------------- timing


@dataclass
class Timing:
    """Wall-clock seconds of the best of ``runs`` repeats (and all of them)."""

    best: float
    runs: list[float] = field(default_factory=list)


def best_of(fn: Callable[[], Any], repeat: int, setup: Callable[[], None] | None = None) -> tuple[Timing, Any]:
    """Run ``fn`` ``repeat`` times (``setup`` and a full garbage collection before each, not
    timed); keep the fastest.

    The minimum is the run least disturbed by the rest of the machine (``timeit``'s advice);
    every run is kept in ``Timing.runs`` for the record.
    """
    runs = []
    result = None
    for _ in range(max(1, repeat)):
        if setup is not None:
            setup()
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        runs.append(time.perf_counter() - t0)
    return Timing(min(runs), runs), result


def ast_parse_all(texts: Sequence[str]) -> int:
    """The ``ast.parse`` floor: each text parsed as an expression; how many parse."""
    ok = 0
    for text in texts:
        try:
            ast.parse(text, mode="eval")
            ok += 1
        except SyntaxError:
            pass
    return ok


def rate(n: int, seconds: float) -> float:
    """Items per second (``inf`` for a zero time)."""
    return n / seconds if seconds > 0 else float("inf")


# --------------------------------------------------------------------------- tables


def fmt_num(x: Any) -> str:
    """Thousands separators for big numbers, three significant figures for small ones."""
    if isinstance(x, str):
        return x
    if x is None:
        return "–"
    if isinstance(x, float):
        if x != x:
            return "–"
        if abs(x) >= 100:
            return f"{x:,.0f}"
        if abs(x) >= 1:
            return f"{x:.2f}"
        return f"{x:.3g}"
    return f"{x:,}"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub markdown table (also readable as plain text)."""
    cells = [[fmt_num(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |"
    sep = "| " + " | ".join("-" * w for w in widths) + " |"
    body = ["| " + " | ".join(c.rjust(w) for c, w in zip(r, widths)) + " |" for r in cells]
    return "\n".join([line, sep, *body])


# --------------------------------------------------------------------------- machine


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return None


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine_info() -> dict[str, Any]:
    """CPU model, cores, RAM, OS, Python and the versions of every package that matters."""
    import toolcall_f1

    ram = _ram_gib()
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "ram": f"{ram:.1f} GiB" if ram else "unknown",
        "os": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "packages": {
            "toolcall_f1": f"{toolcall_f1.__version__} ({'compiled' if toolcall_f1.COMPILED else 'pure Python'})",
            **{name: _version(name) for name in (
                "evaluate", "datasets", "pyarrow", "numpy", "scipy", "orjson", "bfcl-eval", "tree-sitter",
            )},
        },
    }


def machine_markdown(info: dict[str, Any]) -> str:
    pkgs = ", ".join(f"{k} {v}" for k, v in info["packages"].items())
    return "\n".join([
        f"- CPU: {info['cpu']} ({info['cores']} cores visible)",
        f"- RAM: {info['ram']}",
        f"- OS: {info['os']}",
        f"- Python: {info['python']}",
        f"- Packages: {pkgs}",
    ])


# --------------------------------------------------------------------------- the generated corpus

#: Corpus-wide tool schemas of the generated corpus: every JSON type, defaults, required
#: parameters, nested objects and arrays, and importance weights.
TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "search", "parameters": {"type": "object", "properties": {
        "query": {"type": "string"},
        "limit": {"type": "integer", "default": 10},
        "lang": {"type": "string", "enum": ["en", "de", "fr"], "default": "en"}},
        "required": ["query"]}}},
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string", "default": "celsius"},
        "days": {"type": "integer"}},
        "required": ["city"]}}},
    {"type": "function", "function": {"name": "send_email", "importance": 2, "parameters": {
        "type": "object", "properties": {
            "to": {"type": "array", "items": {"type": "string"}},
            "subject": {"type": "string"},
            "body": {"type": "string", "importance": 0.5},
            "cc": {"type": "array", "items": {"type": "string"}}},
        "required": ["to", "subject"]}}},
    {"type": "function", "function": {"name": "create_event", "parameters": {"type": "object", "properties": {
        "title": {"type": "string"},
        "start": {"type": "string"},
        "duration_minutes": {"type": "integer", "default": 30},
        "attendees": {"type": "array", "items": {"type": "string"}},
        "reminder": {"type": "object", "properties": {
            "minutes": {"type": "integer"}, "method": {"type": "string"}}}},
        "required": ["title", "start"]}}},
    {"type": "function", "function": {"name": "convert_currency", "parameters": {"type": "object", "properties": {
        "amount": {"type": "number"},
        "from_currency": {"type": "string"},
        "to_currency": {"type": "string"}},
        "required": ["amount", "from_currency", "to_currency"]}}},
    {"type": "function", "function": {"name": "book_flight", "parameters": {"type": "object", "properties": {
        "origin": {"type": "string"},
        "destination": {"type": "string"},
        "date": {"type": "string"},
        "passengers": {"type": "integer", "default": 1},
        "cabin": {"type": "string", "default": "economy"},
        "flexible": {"type": "boolean", "default": False}},
        "required": ["origin", "destination", "date"]}}},
    {"type": "function", "function": {"name": "set_thermostat", "parameters": {"type": "object", "properties": {
        "temperature": {"type": "number"},
        "mode": {"type": "string"},
        "room": {"type": ["string", "null"]}},
        "required": ["temperature"]}}},
    {"type": "function", "function": {"name": "delete_file", "importance": 5, "parameters": {
        "type": "object", "properties": {
            "path": {"type": "string", "importance": 3},
            "recursive": {"type": "boolean", "default": False}},
        "required": ["path"]}}},
    {"type": "function", "function": {"name": "calculate", "parameters": {"type": "object", "properties": {
        "expression": {"type": "string"},
        "precision": {"type": "integer"}},
        "required": ["expression"]}}},
    {"type": "function", "function": {"name": "translate", "parameters": {"type": "object", "properties": {
        "text": {"type": "string"},
        "target": {"type": "string"},
        "source": {"type": "string"}},
        "required": ["text", "target"]}}},
]

_WORDS = (
    "paris berlin tokyo lima oslo cairo quarterly report meeting notes budget review cats dogs "
    "weather launch plan invoice draft alpha beta gamma delta travel lunch team sync roadmap"
).split()


def _params(tool: dict[str, Any]) -> dict[str, Any]:
    return tool["function"]["parameters"]


def _value(rng: random.Random, schema: dict[str, Any], name: str) -> Any:
    t = schema.get("type")
    if isinstance(t, list):
        t = t[0]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if t == "string":
        n = rng.randint(1, 4)
        text = " ".join(rng.choice(_WORDS) for _ in range(n))
        if name in ("start", "date"):
            return f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        if name in ("from_currency", "to_currency", "target", "source"):
            return rng.choice(["USD", "EUR", "JPY", "GBP", "de", "fr"])
        return text.capitalize() if rng.random() < 0.3 else text
    if t == "integer":
        return rng.randint(0, 500)
    if t == "number":
        return round(rng.uniform(-50, 5000), rng.choice([0, 1, 2]))
    if t == "boolean":
        return rng.random() < 0.5
    if t == "array":
        return [_value(rng, schema.get("items", {}), name) for _ in range(rng.randint(1, 3))]
    if t == "object":
        return {k: _value(rng, s, k) for k, s in schema.get("properties", {}).items()}
    return None


def _gold_call(rng: random.Random, tool: dict[str, Any]) -> dict[str, Any]:
    params = _params(tool)
    args = {}
    for pname, pschema in params["properties"].items():
        if pname in params["required"] or rng.random() < 0.4:
            args[pname] = _value(rng, pschema, pname)
    return {"name": tool["function"]["name"], "arguments": args}


def _perturb(rng: random.Random, calls: list[dict[str, Any]], by_name: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    calls = [{"name": c["name"], "arguments": dict(c["arguments"])} for c in calls]
    kind = rng.choice([
        "case", "wrong_value", "drop_arg", "extra_arg", "type", "drop_call", "extra_call",
        "reorder", "rename", "default",
    ])
    if not calls:
        return calls
    c = rng.choice(calls)
    args = c["arguments"]
    keys = list(args)
    if kind == "case":
        for k in keys:
            if isinstance(args[k], str):
                args[k] = "  " + args[k].upper() + " "
                break
    elif kind == "wrong_value" and keys:
        k = rng.choice(keys)
        args[k] = _value(rng, _params(by_name[c["name"]])["properties"][k], k)
    elif kind == "drop_arg" and keys:
        del args[rng.choice(keys)]
    elif kind == "extra_arg":
        args["verbose"] = True
    elif kind == "type":
        for k in keys:
            if isinstance(args[k], int) and not isinstance(args[k], bool):
                args[k] = float(args[k])
                break
    elif kind == "drop_call" and len(calls) > 1:
        calls.remove(c)
    elif kind == "extra_call":
        calls.append({"name": c["name"], "arguments": dict(args)})
    elif kind == "reorder":
        rng.shuffle(calls)
    elif kind == "rename":
        c["name"] = c["name"] + "_v2"
    elif kind == "default":
        spec = _params(by_name[c["name"]])["properties"]
        for k, s in spec.items():
            if "default" in s and k not in args:
                args[k] = s["default"]
                break
    return calls


def _render_python(calls: list[dict[str, Any]]) -> str:
    inner = ", ".join(
        f"{c['name']}(" + ", ".join(f"{k}={v!r}" for k, v in c["arguments"].items()) + ")" for c in calls
    )
    return f"[{inner}]"


SHAPES = ("python", "json", "hermes", "openai", "anthropic", "dicts")
_SHAPE_WEIGHTS = (35, 15, 10, 15, 10, 15)


def _render(rng: random.Random, shape: str, calls: list[dict[str, Any]]) -> Any:
    if shape == "python":
        return _render_python(calls)
    if shape == "json":
        return json.dumps(calls)
    if shape == "hermes":
        return "\n".join(f"<tool_call>\n{json.dumps(c)}\n</tool_call>" for c in calls)
    if shape == "openai":
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
            for i, c in enumerate(calls)
        ]}
    if shape == "anthropic":
        return [{"type": "text", "text": "Let me do that."}] + [
            {"type": "tool_use", "id": f"toolu_{i}", "name": c["name"], "input": c["arguments"]}
            for i, c in enumerate(calls)
        ]
    return calls


@dataclass(frozen=True)
class Example:
    prediction: Any
    reference: list[dict[str, Any]]
    shape: str


def generate(n: int, seed: int = 0, max_calls: int = 8) -> Iterator[Example]:
    """``n`` examples of 1–``max_calls`` gold calls; predictions in mixed shapes, half exact.

    About 1% of the text predictions are truncated (parse errors), as real model output is.
    """
    rng = random.Random(seed)
    by_name = {t["function"]["name"]: t for t in TOOLS}
    for _ in range(n):
        k = rng.randint(1, max_calls)
        gold = [_gold_call(rng, rng.choice(TOOLS)) for _ in range(k)]
        pred = gold if rng.random() < 0.5 else _perturb(rng, gold, by_name)
        shape = rng.choices(SHAPES, _SHAPE_WEIGHTS)[0]
        rendered = _render(rng, shape, pred)
        if isinstance(rendered, str) and rng.random() < 0.01:
            rendered = rendered[: len(rendered) // 2]
        yield Example(rendered, gold, shape)


def conformance_records(limit: int | None = None) -> tuple[list[dict[str, Any]], Path]:
    """The BFCL conformance records (the full file when present — or where the conformance
    test's ``TOOLCALL_F1_BFCL_CONFORMANCE`` says — else the bundled sample)."""
    full = Path(os.environ.get("TOOLCALL_F1_BFCL_CONFORMANCE") or CONFORMANCE_FULL)
    path = full if full.exists() else CONFORMANCE_SAMPLE
    with path.open(encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    return (records[:limit] if limit else records), path
