"""Hypothesis strategies and renderers: random calls, and each format's way of writing them."""

from __future__ import annotations

import json
import keyword
from typing import Any

from hypothesis import strategies as st

from toolcall_f1 import Call

IDENT = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True).filter(lambda s: not keyword.iskeyword(s))
TOOL_NAME = st.lists(IDENT, min_size=1, max_size=3).map(".".join)
SAFE_TEXT = st.text(max_size=12)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    SAFE_TEXT,
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(SAFE_TEXT, inner, max_size=4),
    ),
    max_leaves=12,
)
arguments = st.dictionaries(IDENT, json_values, max_size=4)
calls = st.builds(Call, TOOL_NAME, arguments)
call_lists = st.lists(calls, max_size=4)


def py_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py_value(k)}: {py_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(py_value(v) for v in value) + "]"
    return repr(value)


def render_python(cs: list[Call]) -> str:
    return "[" + ", ".join(f"{c.name}(" + ", ".join(f"{k}={py_value(v)}" for k, v in c.arguments.items()) + ")" for c in cs) + "]"


def _plain(c: Call) -> dict[str, Any]:
    return c.to_dict()


def render_json(cs: list[Call]) -> str:
    return json.dumps([_plain(c) for c in cs])


def render_openai(cs: list[Call]) -> str:
    return json.dumps({
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": c.name, "arguments": json.dumps(_plain(c)["arguments"])}}
            for i, c in enumerate(cs)
        ],
    })


def render_anthropic(cs: list[Call]) -> str:
    return json.dumps([{"type": "text", "text": "ok"}] + [
        {"type": "tool_use", "id": f"toolu_{i}", "name": c.name, "input": _plain(c)["arguments"]} for i, c in enumerate(cs)
    ])


def render_hermes(cs: list[Call]) -> str:
    return "\n".join(f"<tool_call>\n{json.dumps(_plain(c))}\n</tool_call>" for c in cs)


def render_mistral(cs: list[Call]) -> str:
    return "[TOOL_CALLS] " + json.dumps([_plain(c) for c in cs]) + "</s>"


def render_mistral_args(cs: list[Call]) -> str:
    return "".join(f"[TOOL_CALLS]{c.name}[ARGS]{json.dumps(_plain(c)['arguments'])}" for c in cs)


def render_llama(cs: list[Call]) -> str:
    body = "; ".join(json.dumps({"name": c.name, "parameters": _plain(c)["arguments"]}) for c in cs)
    return "<|python_tag|>" + body + "<|eom_id|>"


def render_fenced_json(cs: list[Call]) -> str:
    return "Here you go:\n```json\n" + render_json(cs) + "\n```\nAnything else?"


def render_fenced_python(cs: list[Call]) -> str:
    return "```python\n" + render_python(cs) + "\n```"


# format name -> (renderer, formats that must read it back)
RENDERERS = {
    "python": (render_python, ("python", "bfcl", "auto")),
    "json": (render_json, ("json", "auto")),
    "openai": (render_openai, ("openai", "json", "auto")),
    "anthropic": (render_anthropic, ("anthropic", "json", "auto")),
    "hermes": (render_hermes, ("hermes", "auto")),
    "mistral": (render_mistral, ("mistral", "auto")),
    "mistral_args": (render_mistral_args, ("mistral", "auto")),
    "llama": (render_llama, ("llama", "auto")),
    "fenced_json": (render_fenced_json, ("auto",)),
    "fenced_python": (render_fenced_python, ("auto",)),
}


def deep_any_of(levels: int) -> dict[str, Any]:
    """A parameter schema of ``levels`` nested unions (``anyOf``) around an integer."""
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(levels):
        schema = {"anyOf": [schema, {"type": "null"}]}
    return schema
