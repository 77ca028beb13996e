"""Text readers per model family: read time of one realistic output, through the family's own
format and through ``"auto"``; ``"auto"`` on several formats in one output; and on plain prose (no call) beside
the reader before the model families (commit ``BASELINE``, loaded with ``git show``) in the same run.

Prints a markdown table; never asserts on time. Usage::

    python benchmarks/bench_formats.py [--repeat 2000] [--output table.md]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from toolcall_f1 import parse_calls  # noqa: E402
from toolcall_f1.parsing import Context, parse_text  # noqa: E402

A = {"city": "Paris", "days": 3, "units": ["metric", "iso"]}
J = json.dumps(A)
DS = "<\uff5c{}\uff5c>".format
DSML = "\uff5cDSML\uff5c"
SAMPLES = {
    "python": "[get_weather(city='Paris', days=3, units=['metric', 'iso'])]",
    "json": '[{"name": "get_weather", "arguments": ' + J + "}]",
    "hermes": '<tool_call>\n{"name": "get_weather", "arguments": ' + J + "}\n</tool_call>",
    "qwen3_coder": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n"
                   '<parameter=units>\n["metric", "iso"]\n</parameter>\n</function>\n</tool_call>',
    "glm45": '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n'
             '<arg_key>units</arg_key>\n<arg_value>["metric", "iso"]</arg_value>\n</tool_call>',
    "harmony": "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather "
               "<|constrain|>json<|message|>" + J + "<|call|>",
    "deepseek": DS("tool\u2581calls\u2581begin") + DS("tool\u2581call\u2581begin") + "function" + DS("tool\u2581sep")
                + "get_weather\n```json\n" + J + "\n```" + DS("tool\u2581call\u2581end") + DS("tool\u2581calls\u2581end"),
    "deepseek_v32": f'<{DSML}function_calls>\n<{DSML}invoke name="get_weather">\n<{DSML}parameter name="city" string="true">Paris</{DSML}parameter>\n'
                    f'<{DSML}parameter name="days" string="false">3</{DSML}parameter>\n<{DSML}parameter name="units" string="false">["metric", "iso"]'
                    f"</{DSML}parameter>\n</{DSML}invoke>\n</{DSML}function_calls>",
    "kimi_k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>" + J
               + "<|tool_call_end|><|tool_calls_section_end|>",
    "llama": '<|python_tag|>{"name": "get_weather", "parameters": ' + J + "}<|eom_id|>",
    "llama4": "<|python_start|>[get_weather(city='Paris', days=3, units=['metric', 'iso'])]<|python_end|>",
    "mistral": "[TOOL_CALLS]get_weather[ARGS]" + J,
    "granite": '<|tool_call|>[{"name": "get_weather", "arguments": ' + J + "}]",
    "lfm2": "<|tool_call_start|>[get_weather(city='Paris', days=3, units=['metric', 'iso'])]<|tool_call_end|>",
    "phi4_mini": 'functools[{"name": "get_weather", "arguments": ' + J + "}]",
    "internlm2": '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": ' + J + "}<|action_end|>",
    "jamba": '<tool_calls>[{"name": "get_weather", "arguments": ' + J + "}]</tool_calls>",
    "nemotron": '<TOOLCALL>[{"name": "get_weather", "arguments": ' + J + "}]</TOOLCALL>",
    "gemma4": '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3,units:[<|"|>metric<|"|>,<|"|>iso<|"|>]}<tool_call|>',
    "minimax_m2": '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n<parameter name="days">3</parameter>\n'
                  '<parameter name="units">["metric", "iso"]</parameter>\n</invoke>\n</minimax:tool_call>',
    "command_r": '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": ' + J + "}]<|END_ACTION|>",
    "olmo3": "<function_calls>\nget_weather(city='Paris', days=3, units=['metric', 'iso'])\n</function_calls>",
    "functionary": ">>>get_weather\n" + J,
    "gigachat3": 'function call<|role_sep|>\n{"name": "get_weather", "arguments": ' + J + "}",
    "apertus": '<|tools_prefix|>[{"get_weather": ' + J + "}]<|tools_suffix|>",
}
# Several formats in one output: ``auto`` reads every family's blocks and the calls around them.
MIXED = {
    "hermes block, then a Python list": SAMPLES["hermes"] + "\n" + SAMPLES["python"],
    "Mistral then Hermes then Gemma 4": SAMPLES["mistral"] + "\n" + SAMPLES["hermes"] + "\n" + SAMPLES["gemma4"],
    "Harmony call, prose, Python list": SAMPLES["harmony"] + "\nI will also check the time.\n" + SAMPLES["python"],
}
PROSE = {
    "prose, 1 line": "The weather in Paris is mild today; you will not need an umbrella.",
    "prose, 2k chars": ("I looked into this carefully. The forecast for Paris shows mild temperatures, light wind "
                        "and no rain for the next three days, so outdoor plans should be fine.\n") * 12,
    "prose with (parentheses) and [brackets], 2k chars": ("The forecast (Météo-France, see [1]) shows mild temperatures "
                                                          "(about 18 C) and no rain: outdoor plans should be fine.\n") * 16,
}


# The last commit before the model-family readers: the baseline `auto` is compared against.
BASELINE = "20847b7"


def _main_reader() -> ModuleType | None:
    """``toolcall_f1/parsing.py`` at :data:`BASELINE` as a module (None outside git)."""
    try:
        source = subprocess.run(["git", "show", f"{BASELINE}:toolcall_f1/parsing.py"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    name = "toolcall_f1._parsing_main_bench"  # inside the package: its relative imports resolve
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "parsing_main.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


def _us(fn: Callable[[], object], repeat: int) -> float:
    """Best of five rounds, µs per call."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best * 1e6


def run(repeat: int = 2000) -> str:
    ctx = Context()
    rows = ["| family | named format (µs) | `auto` (µs) | calls read |", "| --- | ---: | ---: | --- |"]
    for fam, text in SAMPLES.items():
        calls = parse_calls(text, format=fam)
        named = _us(lambda text=text, fam=fam: parse_text(text, fam, ctx), repeat)
        auto = _us(lambda text=text: parse_text(text, "auto", ctx), repeat)
        rows.append(f"| `{fam}` | {named:.1f} | {auto:.1f} | {len(calls)} |")
    rows += ["", "| several formats in one output | `auto` (µs) | calls read |", "| --- | ---: | --- |"]
    for label, text in MIXED.items():
        calls = parse_calls(text)
        rows.append(f"| {label} | {_us(lambda text=text: parse_text(text, 'auto', ctx), repeat):.1f} | {len(calls)} |")
    old = _main_reader()
    rows += ["", f"| `auto` on prose (no call) | reader before the families ({BASELINE}, µs) | this reader (µs) | ratio |", "| --- | ---: | ---: | ---: |"]
    for label, text in PROSE.items():
        assert parse_calls(text) == []
        new = _us(lambda text=text: parse_text(text, "auto", ctx), repeat)
        if old is not None:
            before = _us(lambda text=text, old=old: old.parse_text(text, "auto", old.Context()), repeat)
            rows.append(f"| {label} | {before:.1f} | {new:.1f} | {new / before:.2f}× |")
        else:
            rows.append(f"| {label} | n/a (no git) | {new:.1f} | |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    table = run(args.repeat)
    print(table)
    if args.output:
        args.output.write_text(table + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
