"""Gradio demo of the ``toolcall_f1`` metric: glue only, no scoring logic.

Everything that decides a number lives in :mod:`toolcall_f1`; this file reads the text boxes,
calls :meth:`toolcall_f1.ToolCallMetric.compute` with ``per_tool=True, return_details=True``,
and lays the result out as score cards, a match table and a per-tool F1 chart.

Input convention (also shown in the page):

* **One example**: paste the model output as it is (Python calls ``[f(a=1)]``, JSON calls,
  ``<tool_call>`` blocks, an OpenAI/Anthropic message, prose around a code fence, ...) or a
  JSON list of calls. It is handed to the metric unchanged, as one example.
* **Several examples**: a JSON list with one entry per example, each entry itself a list of
  calls or a string of model output (references may also use ``{"calls": [...], "tools":
  [...]}``). Predictions and references must hold the same number of examples.

Run ``python app.py`` (``GRADIO_SERVER_NAME`` / ``GRADIO_SERVER_PORT`` are respected).
"""

from __future__ import annotations

import functools
import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr
import pandas as pd

import toolcall_f1
from toolcall_f1.matching import LEVELS, MATCHINGS
from toolcall_f1.scoring import REFERENCE_FORMATS

__all__ = [
    "CANONICALIZERS",
    "PRESETS",
    "InputError",
    "Preset",
    "build_demo",
    "demo",
    "empty_outputs",
    "error_html",
    "fill_preset",
    "match_table",
    "parse_warning_html",
    "per_tool_frame",
    "preset_values",
    "read_examples",
    "read_tools",
    "render_call",
    "render_verdicts",
    "run",
    "score_inputs",
    "scores_html",
]

CANONICALIZERS = ("default", "bfcl", "exact")
NAME_CANONICALIZERS = ("exact", "underscore")
PREDICTION_FORMATS = tuple(toolcall_f1.FORMATS)

TABLE_COLUMNS = ["Example", "Predicted call", "Gold call", "Result", "Arguments"]
CHART_COLUMNS = ["tool", "f1", "precision", "recall", "tp", "fp", "fn"]
UNMATCHED = "— (unmatched)"


class InputError(ValueError):
    """Text in an input box that does not follow the page's input convention."""


# --------------------------------------------------------------------------- presets


@dataclass(frozen=True, slots=True)
class Preset:
    """One ready-made example: the text of every input box and every setting."""

    label: str
    description: str
    predictions: str
    references: str
    tools: str = ""
    level: str = "call"
    matching: str = "greedy"
    canonicalizer: str = "default"
    name_canonicalizer: str = "exact"
    prediction_format: str = "auto"
    reference_format: str = "auto"


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _rows(items: Sequence[Any]) -> str:
    """A JSON list with one compact item per line."""
    return "[\n" + ",\n".join("  " + json.dumps(x, ensure_ascii=False) for x in items) + "\n]"


_WEATHER_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "Local time in a time zone.",
            "parameters": {
                "type": "object",
                "properties": {"timezone": {"type": "string"}},
                "required": ["timezone"],
            },
        },
    },
]

_ACCOUNT_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_account",
            "description": "Look up an account.",
            "parameters": {
                "type": "object",
                "properties": {"user_id": {"type": "string"}},
                "required": ["user_id"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "delete_account",
            "description": "Permanently delete an account.",
            "importance": 10,
            "parameters": {
                "type": "object",
                "properties": {"user_id": {"type": "string"}, "confirm": {"type": "boolean"}},
                "required": ["user_id", "confirm"],
            },
        },
    },
]

PRESETS: dict[str, Preset] = {
    "seed": Preset(
        label="Seed example",
        description=(
            "The design note's example: one right call, one wrong extra call, one missed call. "
            "Call level: TP 1, FP 1, FN 1, so **F1 = 0.5**."
        ),
        predictions='[search(q="cats"), delete_all()]',
        references='[search(q="cats"), answer(a="meow")]',
    ),
    "bfcl": Preset(
        label="BFCL parallel",
        description=(
            "A BFCL-style parallel call in Python syntax, scored against BFCL possible answers "
            '(each parameter lists its accepted values; `""` marks it optional) with the '
            "BFCL-compatible settings. The calls come in another order and still match; one "
            "duration is wrong: TP 2, FP 1, FN 1, **F1 = 0.6667**."
        ),
        predictions=(
            "[spotify.play(artist='Maroon 5', duration=15), "
            "spotify.play(artist='Taylor Swift', duration=20), "
            "spotify.play(artist='Queen', duration=30)]"
        ),
        references=_rows(
            [
                {"spotify.play": {"artist": ["Taylor Swift", "taylor swift"], "duration": [20]}},
                {"spotify.play": {"artist": ["Maroon 5"], "duration": [15, ""]}},
                {"spotify.play": {"artist": ["Queen"], "duration": [25]}},
            ]
        ),
        tools=_pretty(
            [
                {
                    "name": "spotify.play",
                    "description": "Play specific tracks from a given artist for a specific time duration.",
                    "parameters": {
                        "type": "dict",
                        "properties": {
                            "artist": {"type": "string"},
                            "duration": {"type": "integer"},
                        },
                        "required": ["artist", "duration"],
                    },
                }
            ]
        ),
        matching="optimal",
        canonicalizer="bfcl",
        prediction_format="bfcl",
        reference_format="bfcl",
    ),
    "weighted": Preset(
        label="Weighted destructive tool",
        description=(
            '`delete_account` has `"importance": 10` in its schema, and the model deletes the '
            "wrong user. Call level: TP 1, FP 10, FN 10, so **F1 = 0.0909** (unweighted it "
            "would be 0.5)."
        ),
        predictions=_rows(
            [
                {"name": "get_account", "arguments": {"user_id": "u_123"}},
                {"name": "delete_account", "arguments": {"user_id": "u_321", "confirm": True}},
            ]
        ),
        references=_rows(
            [
                {"name": "get_account", "arguments": {"user_id": "u_123"}},
                {"name": "delete_account", "arguments": {"user_id": "u_123", "confirm": True}},
            ]
        ),
        tools=_pretty(_ACCOUNT_TOOLS),
    ),
    "hermes": Preset(
        label="Hermes <tool_call>",
        description=(
            "Hermes/Qwen output: prose, then `<tool_call>` blocks. Argument level: `city` agrees "
            "case-insensitively, the omitted-in-gold `unit` agrees through the schema default, "
            "`timezone` is wrong: TP 4, FP 1, FN 1, **F1 = 0.8**."
        ),
        predictions=(
            "I'll check both for you.\n"
            "<tool_call>\n"
            '{"name": "get_weather", "arguments": {"city": "paris", "unit": "celsius"}}\n'
            "</tool_call>\n"
            "<tool_call>\n"
            '{"name": "get_time", "arguments": {"timezone": "Europe/London"}}\n'
            "</tool_call>"
        ),
        references=_rows(
            [
                {"name": "get_weather", "arguments": {"city": "Paris"}},
                {"name": "get_time", "arguments": {"timezone": "Europe/Paris"}},
            ]
        ),
        tools=_pretty(_WEATHER_TOOLS),
        level="arg",
    ),
    "corpus": Preset(
        label="Several examples",
        description=(
            "Two examples as JSON lists (one entry per example). Example 1 is exact, in example "
            "2 the model declined to call: the corpus is micro-averaged, TP 1, FN 1, "
            "**F1 = 0.6667** (the mean of per-example F1s, 0.5, would be wrong)."
        ),
        predictions=_rows(['[get_weather(city="Paris")]', "Sorry, I cannot look that up."]),
        references=_rows(
            [
                [{"name": "get_weather", "arguments": {"city": "Paris"}}],
                [{"name": "get_time", "arguments": {"timezone": "UTC"}}],
            ]
        ),
    ),
}


def preset_values(key: str) -> tuple[str, ...]:
    """The input values a preset fills in, in the order of the page's inputs.

    Returns ``(predictions, references, tools, level, matching, canonicalizer,
    name_canonicalizer, prediction_format, reference_format, description)``.

    Raises
    ------
    KeyError
        For an unknown preset.

    Examples
    --------
    >>> preset_values("seed")[:2]
    ('[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]')
    """
    p = PRESETS[key]
    return (
        p.predictions,
        p.references,
        p.tools,
        p.level,
        p.matching,
        p.canonicalizer,
        p.name_canonicalizer,
        p.prediction_format,
        p.reference_format,
        f"**{p.label}.** {p.description}",
    )


# --------------------------------------------------------------------------- reading the boxes


def _is_wrapper(value: Any) -> bool:
    """A per-example reference ``{"calls": list | str, ...}`` (SPEC §2)."""
    return isinstance(value, Mapping) and isinstance(value.get("calls"), (list, str))


def read_examples(text: str) -> list[Any]:
    """Split an input box into examples, following the page's convention.

    A JSON list whose every entry is a list, a string, or a ``{"calls": ...}`` object is a list
    of examples. Anything else is one example: a JSON ``{"calls": ...}`` object is passed as
    the object, all other text is passed unchanged (the metric reads it as model output, so
    text that cannot be read is the metric's business: a parse error or a reference error).

    Parameters
    ----------
    text
        The content of the predictions or the references box.

    Returns
    -------
    list
        One entry per example; empty text is one example with no calls.

    Examples
    --------
    >>> read_examples('[f(a=1)]')
    ['[f(a=1)]']
    >>> read_examples('[{"name": "f", "arguments": {}}]')
    ['[{"name": "f", "arguments": {}}]']
    >>> read_examples('[[{"name": "f", "arguments": {}}], "g()"]')
    [[{'name': 'f', 'arguments': {}}], 'g()']
    >>> read_examples("")
    ['']
    """
    stripped = text.strip()
    if not stripped:
        return [""]
    try:
        data = json.loads(stripped)
    except (json.JSONDecodeError, RecursionError):  # not JSON (or absurdly deep): model text
        return [text]
    if isinstance(data, list) and data and all(isinstance(x, (list, str)) or _is_wrapper(x) for x in data):
        return data
    if _is_wrapper(data):
        return [data]
    return [text]


def read_tools(text: str) -> list[dict[str, Any]] | None:
    """The tool-schemas box: empty for none, else a JSON list of function schemas (or one).

    Raises
    ------
    InputError
        For invalid JSON or JSON that is not a schema object or a list of them.

    Examples
    --------
    >>> read_tools("  ") is None
    True
    >>> read_tools('{"name": "f"}')
    [{'name': 'f'}]
    >>> read_tools("[f]")
    Traceback (most recent call last):
    ...
    app.InputError: Tool schemas: invalid JSON (Expecting value at line 1, column 2)
    """
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(
            f"Tool schemas: invalid JSON ({err.msg} at line {err.lineno}, column {err.colno})"
        ) from None
    except RecursionError:
        raise InputError("Tool schemas: JSON nested too deeply to read") from None
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not all(isinstance(t, dict) for t in data):
        raise InputError("Tool schemas: expected a JSON list of function schemas (objects)")
    return data


def score_inputs(
    predictions_text: str,
    references_text: str,
    tools_text: str = "",
    level: str = "call",
    matching: str = "greedy",
    canonicalizer: str = "default",
    name_canonicalizer: str = "exact",
    prediction_format: str = "auto",
    reference_format: str = "auto",
) -> dict[str, Any]:
    """Read the boxes and run the metric: the dict of ``ToolCallMetric.compute`` with
    ``per_tool`` and ``details``.

    Raises
    ------
    ValueError
        :class:`InputError` for boxes that break the convention; the metric's own
        ``ValueError`` (e.g. a reference that cannot be read, naming it) otherwise.

    Examples
    --------
    >>> r = score_inputs('[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]')
    >>> r["f1"], r["tp"], r["fp"], r["fn"]
    (0.5, 1.0, 1.0, 1.0)
    """
    predictions = read_examples(predictions_text)
    references = read_examples(references_text)
    if len(predictions) != len(references):
        raise InputError(
            f"predictions hold {len(predictions)} example(s) but references hold {len(references)}: "
            "give one prediction per reference (several examples: a JSON list, one entry each)"
        )
    metric = toolcall_f1.ToolCallMetric(
        level,
        canonicalizer=canonicalizer,
        name_canonicalizer=name_canonicalizer,
        matching=matching,
        tools=read_tools(tools_text),
        prediction_format=prediction_format,
        reference_format=reference_format,
    )
    return metric.compute(predictions, references, per_tool=True, return_details=True)


# --------------------------------------------------------------------------- rendering


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _gold_value(value: Any) -> str:
    """A gold value from ``details``: accepted alternatives read ``(a | b | omitted)``."""
    if isinstance(value, Mapping) and set(value) == {"any_of", "optional"}:
        alts = [_gold_value(v) for v in value["any_of"]]
        if value["optional"]:
            alts.append("omitted")
        return alts[0] if len(alts) == 1 else "(" + " | ".join(alts) + ")"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_value(k)}: {_gold_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_gold_value(v) for v in value) + "]"
    return _value(value)


def render_call(call: Mapping[str, Any], *, gold: bool = False) -> str:
    """``name(k=v, ...)`` for a call dict of ``details``.

    Examples
    --------
    >>> render_call({"name": "search", "arguments": {"q": "cats"}})
    'search(q="cats")'
    >>> render_call({"name": "f", "arguments": {"u": {"any_of": ["a", "b"], "optional": True}}}, gold=True)
    'f(u=("a" | "b" | omitted))'
    """
    show = _gold_value if gold else _value
    args = ", ".join(f"{k}={show(v)}" for k, v in call["arguments"].items())
    return f"{call['name']}({args})"


def render_verdicts(arguments: Sequence[Mapping[str, Any]]) -> str:
    """Each argument's verdict in a pair, ``; ``-separated.

    Examples
    --------
    >>> render_verdicts([{"argument": "q", "verdict": "agree", "weight": 1.0, "pred": "a", "gold": "a"},
    ...                  {"argument": "n", "verdict": "disagree", "weight": 2.0, "pred": 3, "gold": 4,
    ...                   "reason": "value"}])
    'q ✓ agree; n ✗ disagree: 3 vs 4 (value, weight 2)'
    """
    parts = []
    for v in arguments:
        name, verdict = v["argument"], v["verdict"]
        notes = [v["reason"]] if v.get("reason") else []
        if v.get("weight", 1.0) != 1.0:
            notes.append(f"weight {_number(v['weight'])}")
        note = f" ({', '.join(notes)})" if notes else ""
        if verdict == "agree":
            parts.append(f"{name} ✓ agree{note}")
        elif verdict == "disagree":
            parts.append(f"{name} ✗ disagree: {_value(v.get('pred'))} vs {_gold_value(v.get('gold'))}{note}")
        elif verdict == "extra":
            parts.append(f"{name} + extra: {_value(v.get('pred'))}{note}")
        elif verdict == "missing":
            parts.append(f"{name} − missing: {_gold_value(v.get('gold'))}{note}")
        else:
            parts.append(f"{name} · {verdict}{note}")
    return "; ".join(parts) if parts else "(no arguments)"


def match_table(result: Mapping[str, Any]) -> pd.DataFrame:
    """One row per predicted/gold pair, then unmatched calls, for every example.

    Examples
    --------
    >>> r = score_inputs('[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]')
    >>> match_table(r)[["Predicted call", "Gold call", "Result"]].values.tolist()
    ... # doctest: +NORMALIZE_WHITESPACE
    [['search(q="cats")', 'search(q="cats")', 'exact (TP)'],
     ['delete_all()', '— (unmatched)', 'unmatched prediction (FP)'],
     ['— (unmatched)', 'answer(a="meow")', 'unmatched gold (FN)']]
    """
    rows: list[list[Any]] = []
    for n, ex in enumerate(result.get("details", []), start=1):
        if ex.get("parse_error"):
            rows.append([n, "— (parse error)", "", "parse error: zero calls", ex["parse_error"]])
        for pair in ex["pairs"]:
            rows.append(
                [
                    n,
                    render_call(pair["pred"]),
                    render_call(pair["gold"], gold=True),
                    "exact (TP)" if pair["exact"] else "not exact",
                    render_verdicts(pair["arguments"]),
                ]
            )
        for call in ex["unmatched_pred"]:
            rows.append([n, render_call(call), UNMATCHED, "unmatched prediction (FP)", ""])
        for call in ex["unmatched_gold"]:
            rows.append([n, UNMATCHED, render_call(call, gold=True), "unmatched gold (FN)", ""])
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def per_tool_frame(result: Mapping[str, Any]) -> pd.DataFrame:
    """The ``per_tool`` scores as a DataFrame for the bar chart (one row per tool).

    Examples
    --------
    >>> r = score_inputs('[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]')
    >>> per_tool_frame(r)[["tool", "f1"]].values.tolist()
    [['answer', 0.0], ['delete_all', 0.0], ['search', 1.0]]
    """
    rows = [
        [name, s["f1"], s["precision"], s["recall"], s["tp"], s["fp"], s["fn"]]
        for name, s in result.get("per_tool", {}).items()
    ]
    return pd.DataFrame(rows, columns=CHART_COLUMNS)


def _score(x: float) -> str:
    return repr(round(float(x), 4))


def _number(x: float) -> str:
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(round(x, 4))


def scores_html(result: Mapping[str, Any]) -> str:
    """Score cards (F1, precision, recall, exact match), the counts, and the signature."""
    cards = "".join(
        f'<div class="tc-card" id="score-{key.replace("_", "-")}">'
        f'<div class="tc-label">{label}</div><div class="tc-value">{_score(result[key])}</div></div>'
        for key, label in (
            ("f1", "F1"),
            ("precision", "Precision"),
            ("recall", "Recall"),
            ("exact_match", "Exact match"),
        )
    )
    counts = " · ".join(
        f'<span id="count-{key.replace("_", "-")}">{label} <b>{_number(result[key])}</b></span>'
        for key, label in (
            ("tp", "TP"),
            ("fp", "FP"),
            ("fn", "FN"),
            ("num_examples", "examples"),
            ("num_parse_errors", "parse errors"),
            ("hallucinated_tools", "hallucinated tools"),
            ("hallucinated_args", "hallucinated args"),
        )
    )
    signature = html.escape(result["signature"])
    return (
        f'<div class="tc-cards">{cards}</div>'
        f'<div class="tc-counts">{counts}</div>'
        f'<div class="tc-sig">signature <code id="score-signature">{signature}</code></div>'
    )


def error_html(message: str) -> str:
    """A readable error box (no traceback)."""
    return (
        '<div class="tc-msg tc-error" id="error-box" role="alert"><b>Cannot score these inputs.</b> '
        f"{html.escape(message)}</div>"
    )


def parse_warning_html(result: Mapping[str, Any]) -> str:
    """A note listing predictions that could not be read (they are counted, not fatal)."""
    errors = [ex["parse_error"] for ex in result.get("details", []) if ex.get("parse_error")]
    if not errors:
        return ""
    items = "".join(f"<li>{html.escape(e)}</li>" for e in errors)
    return (
        '<div class="tc-msg tc-warn" id="parse-warning">'
        f"<b>{len(errors)} prediction(s) could not be read</b> — each is a parse error, scored as "
        f"zero predicted calls:<ul>{items}</ul></div>"
    )


EMPTY_SCORES = '<div class="tc-placeholder">Pick a preset or paste your own, then press <b>Compute</b>.</div>'


def empty_outputs(message: str = "") -> tuple[str, str, pd.DataFrame, pd.DataFrame, None]:
    """Outputs with nothing scored: ``(message, placeholder, empty table, empty chart, None)``."""
    return (
        message,
        EMPTY_SCORES,
        pd.DataFrame(columns=TABLE_COLUMNS),
        pd.DataFrame(columns=CHART_COLUMNS),
        None,
    )


def fill_preset(key: str) -> tuple[Any, ...]:
    """A preset button: its input values and description, and cleared outputs."""
    return (*preset_values(key), *empty_outputs())


def run(
    predictions_text: str,
    references_text: str,
    tools_text: str,
    level: str,
    matching: str,
    canonicalizer: str,
    name_canonicalizer: str,
    prediction_format: str,
    reference_format: str,
) -> tuple[str, str, pd.DataFrame, pd.DataFrame, dict[str, Any] | None]:
    """The Compute button: ``(message, scores, match table, per-tool frame, raw result)``.

    Bad input never raises: it comes back as a readable error message with empty outputs.

    Examples
    --------
    >>> msg, scores, table, chart, raw = run("[f()]", "[f(", "", "call", "greedy", "default",
    ...                                      "exact", "auto", "auto")
    >>> "Cannot score" in msg and "references[0]" in msg, len(table), raw
    (True, 0, None)
    """
    try:
        result = score_inputs(
            predictions_text,
            references_text,
            tools_text,
            level,
            matching,
            canonicalizer,
            name_canonicalizer,
            prediction_format,
            reference_format,
        )
    except (ValueError, TypeError) as err:  # InputError, ToolCallParseError, the metric's checks
        return empty_outputs(error_html(str(err)))
    return (
        parse_warning_html(result),
        scores_html(result),
        match_table(result),
        per_tool_frame(result),
        result,
    )


# --------------------------------------------------------------------------- the page

CONVENTION = """
**How to fill the boxes**

- **One example**: paste the model output as it is — Python calls `[f(a=1), g()]`, JSON calls,
  `<tool_call>{...}</tool_call>` blocks, `[TOOL_CALLS]`, an OpenAI/Anthropic message, prose
  around a code fence — or a JSON list of calls `[{"name": "f", "arguments": {"a": 1}}]`.
- **Several examples**: a JSON list with one entry per example, each entry itself a list of calls
  or a string of model output: `[[{"name": "f", "arguments": {}}], "[g(x=2)]"]`. References may
  also give `{"calls": [...], "tools": [...]}` per example. Both boxes need the same number of
  examples; scores are micro-averaged (counts summed, then divided).
- **References** follow the same rules. With reference format `bfcl` they are BFCL possible
  answers `[{"name": {"param": [accepted, ...]}}]`; `""` among the accepted values marks a
  parameter optional.
- **Tool schemas** (optional): a JSON list of OpenAI `{"type": "function", "function": {...}}` or
  BFCL `{"name", "parameters"}` schemas. `"importance"` on a function (or a parameter) is its
  weight; schemas also give types, required parameters and defaults, and flag hallucinations.
- A prediction that cannot be read is model behaviour: a **parse error**, counted and scored as
  zero calls. A reference that cannot be read is an input error.
"""

_CARDS_CSS = """
.tc-cards { display: flex; gap: 12px; flex-wrap: wrap; margin-bottom: 8px; }
.tc-card { flex: 1 1 120px; border: 1px solid var(--border-color-primary); border-radius: 8px;
           padding: 10px 14px; background: var(--background-fill-secondary); }
.tc-label { font-size: 0.85em; opacity: 0.75; }
.tc-value { font-size: 1.8em; font-weight: 600; }
.tc-counts { margin: 6px 0; }
.tc-sig code { font-size: 0.85em; }
.tc-placeholder { opacity: 0.7; padding: 8px 0; }
"""

_MESSAGE_CSS = """
.tc-msg { border-radius: 8px; padding: 10px 14px; margin: 4px 0; }
.tc-error { border: 1px solid #d33; background: rgba(221, 51, 51, 0.10); }
.tc-warn { border: 1px solid #c90; background: rgba(204, 153, 0, 0.10); }
.tc-msg ul { margin: 4px 0 0 18px; }
"""


def build_demo() -> gr.Blocks:
    """The Blocks app: inputs, presets, settings, Compute, and the three outputs."""
    seed = PRESETS["seed"]
    with gr.Blocks(title="toolcall_f1 — tool-call F1", analytics_enabled=False) as blocks:
        gr.Markdown(
            "# toolcall_f1: tool-call F1\n"
            "Cost-weighted, micro-averaged F1 for LLM tool calls, judged like BFCL's AST checker. "
            "Predicted calls are matched to gold calls as a multiset; nothing is executed."
        )
        with gr.Row():
            preset_buttons = {
                key: gr.Button(p.label, size="sm", elem_id=f"preset-{key}") for key, p in PRESETS.items()
            }
        preset_info = gr.Markdown(f"**{seed.label}.** {seed.description}", elem_id="preset-info")
        with gr.Row():
            with gr.Column(scale=3):
                predictions = gr.Textbox(
                    seed.predictions,
                    label="Predictions (model output)",
                    info="One example: the model output as-is, or a JSON list of calls. "
                    "Several: a JSON list, one entry per example.",
                    lines=7,
                    max_lines=14,
                    elem_id="predictions",
                )
                references = gr.Textbox(
                    seed.references,
                    label="References (gold calls)",
                    info="Same convention; BFCL possible answers with reference format 'bfcl'.",
                    lines=7,
                    max_lines=14,
                    elem_id="references",
                )
                tools = gr.Textbox(
                    seed.tools,
                    label="Tool schemas (optional, JSON)",
                    info='A JSON list of function schemas; "importance" sets a tool or argument weight.',
                    lines=4,
                    max_lines=12,
                    elem_id="tools",
                )
            with gr.Column(scale=2):
                level = gr.Radio(
                    list(LEVELS),
                    value=seed.level,
                    label="Level",
                    info="call: a call counts only when exact; arg: credit per argument",
                    elem_id="level",
                )
                matching = gr.Radio(
                    list(MATCHINGS), value=seed.matching, label="Matching", elem_id="matching"
                )
                canonicalizer = gr.Radio(
                    list(CANONICALIZERS),
                    value=seed.canonicalizer,
                    label="String canonicalizer",
                    elem_id="canonicalizer",
                )
                name_canonicalizer = gr.Radio(
                    list(NAME_CANONICALIZERS),
                    value=seed.name_canonicalizer,
                    label="Tool names",
                    info="underscore: math.factorial matches math_factorial",
                    elem_id="name-canonicalizer",
                )
                prediction_format = gr.Dropdown(
                    list(PREDICTION_FORMATS),
                    value=seed.prediction_format,
                    label="Prediction format",
                    elem_id="prediction-format",
                )
                reference_format = gr.Dropdown(
                    list(REFERENCE_FORMATS),
                    value=seed.reference_format,
                    label="Reference format",
                    elem_id="reference-format",
                )
        compute = gr.Button("Compute", variant="primary", elem_id="compute")
        message = gr.HTML("", css_template=_MESSAGE_CSS, js_on_load=None, elem_id="message")
        scores = gr.HTML(EMPTY_SCORES, css_template=_CARDS_CSS, js_on_load=None, elem_id="scores")
        with gr.Row():
            table = gr.Dataframe(
                pd.DataFrame(columns=TABLE_COLUMNS),
                label="Matches: each predicted call beside its gold call",
                interactive=False,
                wrap=True,
                column_widths=["12%", "23%", "23%", "14%", "28%"],
                elem_id="match-table",
                scale=3,
            )
            chart = gr.BarPlot(
                pd.DataFrame(columns=CHART_COLUMNS),
                x="tool",
                y="f1",
                y_lim=[0, 1],
                title="Per-tool F1",
                tooltip=["tool", "f1", "precision", "recall", "tp", "fp", "fn"],
                label="Per-tool F1",
                elem_id="per-tool-chart",
                scale=2,
            )
        with gr.Accordion("Full result (JSON)", open=False):
            raw = gr.JSON(label="compute(..., per_tool=True, return_details=True)", elem_id="raw-result")
        with gr.Accordion("Input convention", open=True):
            gr.Markdown(CONVENTION, elem_id="convention")

        inputs = [
            predictions,
            references,
            tools,
            level,
            matching,
            canonicalizer,
            name_canonicalizer,
            prediction_format,
            reference_format,
        ]
        outputs = [message, scores, table, chart, raw]
        for key, button in preset_buttons.items():
            button.click(
                functools.partial(fill_preset, key),
                inputs=None,
                outputs=[*inputs, preset_info, *outputs],
                api_visibility="private",
            )
        compute.click(run, inputs=inputs, outputs=outputs, api_name="score")
    return blocks


demo = build_demo()

if __name__ == "__main__":
    demo.launch()  # GRADIO_SERVER_NAME / GRADIO_SERVER_PORT are read by gradio itself
