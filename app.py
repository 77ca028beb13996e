"""Gradio demo of the ``toolcall_f1`` metric: glue only, no scoring logic.

Everything that decides a number lives in :mod:`toolcall_f1`; this file reads the text boxes,
calls :meth:`toolcall_f1.ToolCallMetric.compute` with ``per_tool=True, return_details=True``,
and lays the result out: score cards, a match table (one row per predicted/gold call, coloured
by outcome, with what each row adds to TP/FP/FN), a per-tool F1 chart and a snippet that
reproduces the result in Python and on the command line.

The page scores its first preset before anyone clicks, and scores again whenever a preset, a
setting or a box changes, so what it shows always belongs to what it shows beside it.

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
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import gradio as gr

import toolcall_f1
from toolcall_f1 import DuplicateKeyError, loads_strict
from toolcall_f1.matching import LEVELS, MATCHINGS
from toolcall_f1.schema import ToolSet, compile_tools
from toolcall_f1.metric import REFERENCE_FORMATS
from toolcall_f1.values import resolve_name_canonicalizer

__all__ = [
    "CANONICALIZERS",
    "PRESETS",
    "InputError",
    "Inputs",
    "Preset",
    "Row",
    "View",
    "build_demo",
    "chart_html",
    "cli_snippet",
    "demo",
    "error_html",
    "matching_preset",
    "parse_warning_html",
    "preset_values",
    "python_snippet",
    "read_examples",
    "read_tools",
    "render_call",
    "render_verdicts",
    "result_rows",
    "run",
    "score_api",
    "score_inputs",
    "scores_html",
    "table_html",
]

CANONICALIZERS = ("default", "bfcl", "exact")
NAME_CANONICALIZERS = ("exact", "underscore")
#: ``auto`` first: it is the default and the one to try first.
PREDICTION_FORMATS = ("auto", *(f for f in toolcall_f1.FORMATS if f != "auto"))
UNMATCHED = "—"
#: At most this many table rows reach the browser (mismatches first when there are more).
ROW_CAP = 200
#: At most this many tools in the chart (worst first).
TOOL_CAP = 40
#: Inputs longer than this are not inlined into the reproduce snippets.
SNIPPET_CAP = 4000
#: The Hub repository, on a Space (``SPACE_ID`` is set by the Space runtime).
SPACE_ID = os.environ.get("SPACE_ID", "")
REPO_ID = SPACE_ID or "<org>/toolcall_f1"


class InputError(ValueError):
    """Text in an input box that does not follow the page's input convention."""


# --------------------------------------------------------------------------- inputs and presets


@dataclass(frozen=True, slots=True)
class Inputs:
    """The text of every input box and every setting, in the page's order."""

    predictions: str = ""
    references: str = ""
    tools: str = ""
    level: str = "call"
    matching: str = "greedy"
    canonicalizer: str = "default"
    name_canonicalizer: str = "exact"
    prediction_format: str = "auto"
    reference_format: str = "auto"

    @classmethod
    def of(cls, *values: Any) -> Inputs:
        """Inputs from the page's values, in order; ``None`` (an emptied box) reads as the default.

        Examples
        --------
        >>> Inputs.of("[f()]", None, None, "arg").level, Inputs.of(None).predictions
        ('arg', '')
        """
        defaults = cls()
        names = [f.name for f in fields(cls)]
        return cls(
            **{n: getattr(defaults, n) if v is None else str(v) for n, v in zip(names, values, strict=False)}
        )

    def values(self) -> tuple[str, ...]:
        """The nine values in the page's order."""
        return tuple(getattr(self, f.name) for f in fields(self))

    def settings(self) -> dict[str, str]:
        """The settings that differ from the defaults (what a snippet must pass)."""
        defaults = Inputs()
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)[3:]
            if getattr(self, f.name) != getattr(defaults, f.name)
        }


@dataclass(frozen=True, slots=True)
class Preset:
    """One ready-made example: a label, what it shows, and its inputs."""

    label: str
    description: str
    inputs: Inputs


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
    "mixed": Preset(
        "Right, extra, missed",
        "One right call, one extra call, one missed call. Call level: TP 1, FP 1, FN 1, "
        "so **F1 = 0.5**.",
        Inputs('[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]'),
    ),
    "greedy": Preset(
        "Greedy vs optimal",
        "The first booking accepts seat 12A or 12B, the second only 12A. Greedy matching pairs "
        "the first predicted call with the first booking (both fit), so `12B` is left against "
        "`12A` only: TP 1, FP 1, FN 1, **F1 = 0.5**. Switch Matching to `optimal`: it pairs "
        "`12A` with the second booking and `12B` with the first, **F1 = 1.0**.",
        Inputs(
            '[book_seat(seat="12A"), book_seat(seat="12B")]',
            _rows([{"book_seat": {"seat": ["12A", "12B"]}}, {"book_seat": {"seat": ["12A"]}}]),
            reference_format="bfcl",
        ),
    ),
    "bfcl": Preset(
        "BFCL parallel",
        "A BFCL-style parallel call in Python syntax, scored against BFCL possible answers "
        '(each parameter lists its accepted values; `""` marks it optional) with the '
        "BFCL-compatible settings. The calls come in another order and still match; one "
        "duration is wrong: TP 2, FP 1, FN 1, **F1 = 0.6667**.",
        Inputs(
            "[spotify.play(artist='Maroon 5', duration=15), "
            "spotify.play(artist='Taylor Swift', duration=20), "
            "spotify.play(artist='Queen', duration=30)]",
            _rows(
                [
                    {"spotify.play": {"artist": ["Taylor Swift", "taylor swift"], "duration": [20]}},
                    {"spotify.play": {"artist": ["Maroon 5"], "duration": [15, ""]}},
                    {"spotify.play": {"artist": ["Queen"], "duration": [25]}},
                ]
            ),
            _pretty(
                [
                    {
                        "name": "spotify.play",
                        "description": "Play specific tracks from a given artist for a specific time duration.",
                        "parameters": {
                            "type": "dict",
                            "properties": {"artist": {"type": "string"}, "duration": {"type": "integer"}},
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
    ),
    "weighted": Preset(
        "Weighted destructive tool",
        '`delete_account` has `"importance": 10` in its schema, and the model deletes the '
        "wrong user. Call level: TP 1, FP 10, FN 10, so **F1 = 0.0909** (unweighted it "
        "would be 0.5).",
        Inputs(
            _rows(
                [
                    {"name": "get_account", "arguments": {"user_id": "u_123"}},
                    {"name": "delete_account", "arguments": {"user_id": "u_321", "confirm": True}},
                ]
            ),
            _rows(
                [
                    {"name": "get_account", "arguments": {"user_id": "u_123"}},
                    {"name": "delete_account", "arguments": {"user_id": "u_123", "confirm": True}},
                ]
            ),
            _pretty(_ACCOUNT_TOOLS),
        ),
    ),
    "hermes": Preset(
        "Hermes <tool_call>",
        "Hermes/Qwen output: prose, then `<tool_call>` blocks. Argument level: `city` agrees "
        "case-insensitively, the omitted-in-gold `unit` agrees through the schema default, "
        "`timezone` is wrong: TP 4, FP 1, FN 1, **F1 = 0.8**.",
        Inputs(
            "I'll check both for you.\n"
            "<tool_call>\n"
            '{"name": "get_weather", "arguments": {"city": "paris", "unit": "celsius"}}\n'
            "</tool_call>\n"
            "<tool_call>\n"
            '{"name": "get_time", "arguments": {"timezone": "Europe/London"}}\n'
            "</tool_call>",
            _rows(
                [
                    {"name": "get_weather", "arguments": {"city": "Paris"}},
                    {"name": "get_time", "arguments": {"timezone": "Europe/Paris"}},
                ]
            ),
            _pretty(_WEATHER_TOOLS),
            level="arg",
        ),
    ),
    "corpus": Preset(
        "Several examples",
        "Two examples as JSON lists (one entry per example). Example 1 is exact, in example "
        "2 the model declined to call: the corpus is micro-averaged, TP 1, FN 1, "
        "**F1 = 0.6667** (the mean of per-example F1s, 0.5, would be wrong).",
        Inputs(
            _rows(['[get_weather(city="Paris")]', "Sorry, I cannot look that up."]),
            _rows(
                [
                    [{"name": "get_weather", "arguments": {"city": "Paris"}}],
                    [{"name": "get_time", "arguments": {"timezone": "UTC"}}],
                ]
            ),
        ),
    ),
}
FIRST_PRESET = next(iter(PRESETS))

_INLINE = re.compile(r"\*\*([^*]+)\*\*|`([^`]+)`")


def _inline_markup(text: str) -> str:
    """HTML for a blurb: escaped text (``<tool_call>`` stays visible), ``**b**`` and ```code```."""

    def one(m: re.Match[str]) -> str:
        return f"<b>{m.group(1)}</b>" if m.group(1) is not None else f"<code>{m.group(2)}</code>"

    return _INLINE.sub(one, html.escape(text, quote=False))


def preset_blurb(key: str | None) -> str:
    """The blurb HTML of a preset, or ``""`` for none.

    Examples
    --------
    >>> "<b>Hermes &lt;tool_call&gt;.</b>" in preset_blurb("hermes")
    True
    >>> preset_blurb(None)
    ''
    """
    if key is None:
        return ""
    p = PRESETS[key]
    return f'<div class="tc-blurb"><b>{html.escape(p.label)}.</b> {_inline_markup(p.description)}</div>'


def preset_values(key: str) -> tuple[str, ...]:
    """The input values a preset fills in, in the order of the page's inputs, then its blurb.

    Raises
    ------
    KeyError
        For an unknown preset.

    Examples
    --------
    >>> preset_values("mixed")[:2]
    ('[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]')
    """
    return (*PRESETS[key].inputs.values(), preset_blurb(key))


def matching_preset(inputs: Inputs) -> str | None:
    """The preset whose inputs these are, if any (the blurb shows only while they match).

    Examples
    --------
    >>> matching_preset(PRESETS["weighted"].inputs)
    'weighted'
    >>> matching_preset(Inputs("[f()]", "[f()]")) is None
    True
    """
    return next((key for key, p in PRESETS.items() if p.inputs == inputs), None)


# --------------------------------------------------------------------------- reading the boxes


def _is_wrapper(value: Any) -> bool:
    """A per-example reference ``{"calls": list | str, ...}`` (SPEC §2)."""
    return isinstance(value, Mapping) and isinstance(value.get("calls"), (list, str))


def read_examples(text: str | None, box: str = "Input") -> list[Any]:
    """Split an input box into examples, following the page's convention.

    A JSON list whose every entry is a list, a string, or a ``{"calls": ...}`` object is a list
    of examples. Anything else is one example: a JSON ``{"calls": ...}`` object is passed as
    the object, all other text is passed unchanged (the metric reads it as model output, so
    text that cannot be read is the metric's business: a parse error or a reference error).

    Parameters
    ----------
    text
        The content of the predictions or the references box (``None`` reads as empty).
    box
        The box's name, for errors (``"Predictions"``, ``"References"``).

    Returns
    -------
    list
        One entry per example; empty text is one example with no calls.

    Raises
    ------
    InputError
        For JSON in which an object names a key twice (as the command line, which would
        otherwise read one of the two values unseen).

    Examples
    --------
    >>> read_examples('[f(a=1)]')
    ['[f(a=1)]']
    >>> read_examples('[{"name": "f", "arguments": {}}]')
    ['[{"name": "f", "arguments": {}}]']
    >>> read_examples('[[{"name": "f", "arguments": {}}], "g()"]')
    [[{'name': 'f', 'arguments': {}}], 'g()']
    >>> read_examples(None)
    ['']
    >>> read_examples('[[{"name": "f", "arguments": {"x": 1, "x": 2}}]]', "References")
    Traceback (most recent call last):
    ...
    app.InputError: References, line 1: duplicate key 'x' (column 39): a JSON object names it twice, and only one of its values would be read
    """
    text = text or ""
    stripped = text.strip()
    if not stripped:
        return [""]
    try:
        data = _loads(text, box)
    except (json.JSONDecodeError, RecursionError):  # not JSON (or absurdly deep): model text
        return [text]
    if isinstance(data, list) and data and all(isinstance(x, (list, str)) or _is_wrapper(x) for x in data):
        return data
    if _is_wrapper(data):
        return [data]
    return [text]


def _loads(text: str, box: str) -> Any:
    """The JSON in a box, read as the command line reads its input: a key named twice in an
    object is an :class:`InputError` naming the box, the line and the column."""
    try:
        return loads_strict(text)
    except DuplicateKeyError as err:
        raise InputError(f"{box}, line {err.line or 1}: {err}") from None


def read_tools(text: str | None) -> list[dict[str, Any]] | None:
    r"""The tool-schemas box: empty for none, else a JSON list of function schemas (or one).

    Raises
    ------
    InputError
        For invalid JSON (or an object naming a key twice), or JSON that is not a schema
        object or a list of them.

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
    >>> read_tools('{"name": "f",\n "name": "g"}')
    Traceback (most recent call last):
    ...
    app.InputError: Tool schemas, line 2: duplicate key 'name' (column 2): a JSON object names it twice, and only one of its values would be read
    """
    if not text or not text.strip():
        return None
    try:
        data = _loads(text, "Tool schemas")
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


def _metric(inputs: Inputs) -> toolcall_f1.ToolCallMetric:
    return toolcall_f1.ToolCallMetric(
        inputs.level,
        canonicalizer=inputs.canonicalizer,
        name_canonicalizer=inputs.name_canonicalizer,
        matching=inputs.matching,
        tools=read_tools(inputs.tools),
        prediction_format=inputs.prediction_format,
        reference_format=inputs.reference_format,
    )


def _examples(inputs: Inputs) -> tuple[list[Any], list[Any]]:
    predictions = read_examples(inputs.predictions, "Predictions")
    references = read_examples(inputs.references, "References")
    if len(predictions) != len(references):
        raise InputError(
            f"predictions hold {len(predictions)} example(s) but references hold {len(references)}: "
            "give one prediction per reference (several examples: a JSON list, one entry each)"
        )
    return predictions, references


def score_inputs(*values: str | None) -> dict[str, Any]:
    """Read the boxes and run the metric: the dict of ``ToolCallMetric.compute`` with
    ``per_tool`` and ``details``.

    Parameters
    ----------
    *values
        The nine page values in order (see :class:`Inputs`); missing ones are the defaults.

    Returns
    -------
    dict
        ``compute(..., per_tool=True, return_details=True)``.

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
    inputs = Inputs.of(*values)
    predictions, references = _examples(inputs)
    return _metric(inputs).compute(predictions, references, per_tool=True, return_details=True)


# --------------------------------------------------------------------------- the match table


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the match table: a pair, an unmatched call, or a parse error.

    ``outcome`` is ``"exact"``, ``"wrong"`` (paired, not exact), ``"extra"`` (unmatched
    prediction), ``"missed"`` (unmatched gold) or ``"parse"``. ``counts`` is what the row adds
    to (TP, FP, FN), or None where it cannot be shown exactly.
    """

    example: int
    outcome: str
    pred: str
    gold: str
    weight: float
    counts: tuple[float, float, float] | None
    flags: tuple[str, ...]
    arguments: str

    @property
    def is_error(self) -> bool:
        """Anything but an exact pair."""
        return self.outcome != "exact"


OUTCOME_LABELS = {
    "exact": "✓ exact",
    "wrong": "≠ not exact",
    "extra": "+ extra call",
    "missed": "− missed call",
    "parse": "parse error",
}


def _is_optional(gold_value: Any) -> bool:
    """A gold argument that may be omitted (``details`` shows it as ``{"any_of", "optional"}``)."""
    return isinstance(gold_value, Mapping) and set(gold_value) == {"any_of", "optional"} and bool(
        gold_value["optional"]
    )


def _call_terms(call: Mapping[str, Any], toolset: ToolSet, level: str, gold: bool) -> list[float]:
    """SPEC §7 for an unmatched call: its name, and at arg level each (non-optional) argument."""
    spec = toolset.spec_for_weights(call["name"])
    terms = [spec.weight]
    if level == "arg":
        terms += [
            spec.weight * spec.arg_weight(k)
            for k, v in call["arguments"].items()
            if not (gold and _is_optional(v))
        ]
    return terms


def _pair_counts(pair: Mapping[str, Any], weight: float, level: str) -> tuple[float, float, float]:
    """SPEC §7 for a pair: at call level one TP, or one FP and one FN, of the tool's weight."""
    if level == "call":
        return (weight, 0.0, 0.0) if pair["exact"] else (0.0, weight, weight)
    tp, fp, fn = [weight], [], []
    for v in pair["arguments"]:
        w = weight * v.get("weight", 1.0)
        if v["verdict"] == "agree":
            tp.append(w)
        if v["verdict"] in ("disagree", "extra"):
            fp.append(w)
        if v["verdict"] in ("disagree", "missing"):
            fn.append(w)
    return math.fsum(tp), math.fsum(fp), math.fsum(fn)


def _flags(call: Mapping[str, Any], toolset: ToolSet) -> tuple[str, ...]:
    """Hallucinations of a predicted call: a tool, or arguments, the schemas do not declare."""
    if not toolset.has_schema:
        return ()
    declared = toolset.lookup(call["name"])
    if declared is None:
        return ("hallucinated tool",)
    return tuple(f"hallucinated argument {k}" for k in call["arguments"] if k not in declared.params)


def _example_rows(n: int, ex: Mapping[str, Any], toolset: ToolSet, level: str) -> list[Row]:
    """The rows of one example, each with its counts (SPEC §7) and hallucination flags."""
    rows: list[Row] = []
    if ex.get("parse_error"):
        rows.append(Row(n, "parse", "(could not be read)", "", 1.0, (0.0, 0.0, 0.0), (), ex["parse_error"]))
    for pair in ex["pairs"]:
        weight = toolset.spec_for_weights(pair["pred"]["name"]).weight
        rows.append(
            Row(
                n,
                "exact" if pair["exact"] else "wrong",
                render_call(pair["pred"]),
                render_call(pair["gold"], gold=True),
                weight,
                _pair_counts(pair, weight, level),
                _flags(pair["pred"], toolset),
                render_verdicts(pair["arguments"]),
            )
        )
    for call in ex["unmatched_pred"]:
        weight = toolset.spec_for_weights(call["name"]).weight
        fp = math.fsum(_call_terms(call, toolset, level, gold=False))
        rows.append(Row(n, "extra", render_call(call), UNMATCHED, weight, (0.0, fp, 0.0), _flags(call, toolset), ""))
    for call in ex["unmatched_gold"]:
        weight = toolset.spec_for_weights(call["name"]).weight
        fn = math.fsum(_call_terms(call, toolset, level, gold=True))
        rows.append(Row(n, "missed", UNMATCHED, render_call(call, gold=True), weight, (0.0, 0.0, fn), (), ""))
    return _checked(rows, ex)


def _checked(rows: list[Row], ex: Mapping[str, Any]) -> list[Row]:
    """Keep per-row counts and flags only where they add up to the metric's own for the
    example (a row never shows a number the metric did not count)."""
    sums = [math.fsum(r.counts[i] for r in rows if r.counts is not None) for i in range(3)]
    counts_ok = all(math.isclose(s, ex[k], rel_tol=1e-9, abs_tol=1e-12) for s, k in zip(sums, ("tp", "fp", "fn")))
    tools_flagged = sum(r.flags == ("hallucinated tool",) for r in rows)
    args_flagged = sum(len(r.flags) for r in rows if r.flags != ("hallucinated tool",))
    flags_ok = (tools_flagged, args_flagged) == (ex["hallucinated_tools"], ex["hallucinated_args"])
    if counts_ok and flags_ok:
        return rows
    return [
        Row(r.example, r.outcome, r.pred, r.gold, r.weight, r.counts if counts_ok else None,
            r.flags if flags_ok else (), r.arguments)
        for r in rows
    ]


def result_rows(result: Mapping[str, Any], inputs: Inputs) -> list[Row]:
    """Every row of the match table, in example order.

    Parameters
    ----------
    result
        ``compute(..., return_details=True)`` for ``inputs``.
    inputs
        The inputs it was computed from (their schemas give each row's weight).

    Returns
    -------
    list of Row

    Examples
    --------
    >>> inputs = PRESETS["weighted"].inputs
    >>> [(r.outcome, r.weight, r.counts) for r in result_rows(score_inputs(*inputs.values()), inputs)]
    [('exact', 1.0, (1.0, 0.0, 0.0)), ('wrong', 10.0, (0.0, 10.0, 10.0))]
    """
    metric = _metric(inputs)
    toolset = compile_tools(metric.tools, metric.weights, resolve_name_canonicalizer(inputs.name_canonicalizer))
    rows: list[Row] = []
    for n, ex in enumerate(result.get("details", []), start=1):
        rows.extend(_example_rows(n, ex, toolset, inputs.level))
    return rows


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



_SURROGATE = re.compile("[\ud800-\udfff]")


def _safe(text: str) -> str:
    """Text the browser can receive: a lone surrogate (not valid UTF-8) becomes U+FFFD.

    Examples
    --------
    >>> _safe("a\\ud800b") == "a\\ufffdb"
    True
    """
    return _SURROGATE.sub("\ufffd", text)


def _score(x: float) -> str:
    return repr(round(float(x), 4))


def _number(x: float) -> str:
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(round(x, 4))


_CARDS = (
    ("f1", "F1", "2·TP / (2·TP + FP + FN)"),
    ("precision", "Precision", "TP / (TP + FP)"),
    ("recall", "Recall", "TP / (TP + FN)"),
    ("exact_match", "Exact match", "share of examples with every call exactly right"),
)
_COUNTS = (
    ("num_examples", "examples"),
    ("num_parse_errors", "parse errors"),
    ("hallucinated_tools", "hallucinated tools"),
    ("hallucinated_args", "hallucinated args"),
)


def scores_html(result: Mapping[str, Any]) -> str:
    """Score cards (F1, precision, recall, exact match), the weighted counts, and the signature,
    each with a one-line explanation.

    Examples
    --------
    >>> html_ = scores_html(score_inputs("[f()]", "[f()]"))
    >>> '<div class="tc-value">1.0</div>' in html_, 'id="count-tp"><b>TP</b> 1' in html_
    (True, True)
    """
    cards = "".join(
        f'<div class="tc-card" id="score-{key.replace("_", "-")}"><div class="tc-label">{label}</div>'
        f'<div class="tc-value">{_score(result[key])}</div><div class="tc-hint">{hint}</div></div>'
        for key, label, hint in _CARDS
    )
    weighted = " ".join(
        f'<span class="tc-count" id="count-{key}"><b>{key.upper()}</b> {_number(result[key])}</span>'
        for key in ("tp", "fp", "fn")
    )
    others = " · ".join(
        f'<span id="count-{key.replace("_", "-")}">{label} <b>{_number(result[key])}</b></span>'
        for key, label in _COUNTS
    )
    return (
        f'<div class="tc-cards">{cards}</div>'
        f'<div class="tc-counts">{weighted} <span class="tc-hint">weighted counts: each call counts its '
        "tool's weight (1 unless a schema gives <code>importance</code>); at call level a pair that "
        "is not exact costs one FP and one FN. The table shows what each row adds.</span></div>"
        f'<div class="tc-counts">{others}</div>'
        f'<div class="tc-sig">signature <code id="score-signature">{html.escape(result["signature"])}</code>'
        ' <span class="tc-hint">every setting that changes the number: quote it with the score.</span></div>'
    )


def error_html(message: str) -> str:
    """A readable error box (no traceback).

    Examples
    --------
    >>> error_html("references[0]: <bad>")
    '<div class="tc-msg tc-error" id="error-box" role="alert"><b>Cannot score these inputs.</b> references[0]: &lt;bad&gt;</div>'
    """
    return (
        '<div class="tc-msg tc-error" id="error-box" role="alert"><b>Cannot score these inputs.</b> '
        f"{html.escape(message)}</div>"
    )


def parse_warning_html(result: Mapping[str, Any]) -> str:
    """A note listing predictions that could not be read (they are counted, not fatal)."""
    errors = [ex["parse_error"] for ex in result.get("details", []) if ex.get("parse_error")]
    if not errors:
        return ""
    items = "".join(f"<li>{html.escape(e)}</li>" for e in errors[:20])
    more = f"<li>… and {len(errors) - 20} more</li>" if len(errors) > 20 else ""
    return (
        '<div class="tc-msg tc-warn" id="parse-warning">'
        f"<b>{len(errors)} prediction(s) could not be read</b> — each is a parse error, scored as "
        f"zero predicted calls:<ul>{items}{more}</ul></div>"
    )


EMPTY_REFERENCES_HINT = (
    '<div class="tc-msg tc-info" id="references-hint"><b>References is empty</b>, so every '
    "predicted call counts as a false positive. Paste the gold calls, e.g. "
    '<code>[{"name": "search", "arguments": {"q": "cats"}}]</code>, or pick a preset.</div>'
)


def _adds(row: Row) -> str:
    if row.counts is None:
        return '<span class="tc-hint">see the example totals</span>'
    parts = [f"{k} +{_number(v)}" for k, v in zip(("TP", "FP", "FN"), row.counts) if v]
    text = " · ".join(parts) if parts else "nothing"
    if row.weight != 1.0:
        text += f'<div class="tc-hint">weight {_number(row.weight)}</div>'
    return text


def _row_html(row: Row) -> str:
    flags = "".join(f'<span class="tc-flag">{html.escape(f)}</span>' for f in row.flags)
    cells = (
        ("Example", str(row.example)),
        ("Predicted", f"<code>{html.escape(row.pred)}</code>"),
        ("Gold", f"<code>{html.escape(row.gold)}</code>"),
        ("Outcome", OUTCOME_LABELS[row.outcome] + flags),
        ("Adds", _adds(row)),
        ("Arguments", html.escape(row.arguments)),
    )
    tds = "".join(
        f'<td data-label="{label}"{"" if value else " class=tc-blank"}>{value}</td>' for label, value in cells
    )
    return f'<tr class="tc-row tc-{row.outcome}">{tds}</tr>'


def table_html(rows: Sequence[Row], errors_only: bool = False, cap: int = ROW_CAP) -> str:
    """The match table: rows coloured by outcome, what each adds to TP/FP/FN and its weight.

    With ``errors_only`` exact pairs are left out; past ``cap`` rows the mismatches come first
    and the rest is cut, with a note saying so.

    Examples
    --------
    >>> inputs = PRESETS["mixed"].inputs
    >>> t = table_html(result_rows(score_inputs(*inputs.values()), inputs))
    >>> t.count('<tr class="tc-row'), 'tc-row tc-extra' in t, "FP +1" in t
    (3, True, True)
    """
    shown = [r for r in rows if r.is_error] if errors_only else list(rows)
    note = f"{len(shown)} row(s)" + (f" with errors, of {len(rows)}" if errors_only else "")
    if len(shown) > cap:
        shown = sorted(shown, key=lambda r: not r.is_error)[:cap]  # stable: example order kept
        note = f"Showing {cap} of {note}, mismatches first (the CLI's --details writes them all)"
    if not shown:
        body = '<tr><td colspan="6" class="tc-empty">Nothing to show: every call is exactly right.</td></tr>'
    else:
        body = "".join(_row_html(r) for r in shown)
    head = "".join(f"<th>{h}</th>" for h in ("#", "Predicted call", "Gold call", "Outcome", "Adds", "Arguments"))
    return (
        f'<div class="tc-note" id="table-note">{note}. <b>Adds</b>: what the row adds to the weighted '
        'TP / FP / FN above.</div><div class="tc-scroll"><table class="tc-table">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def chart_html(result: Mapping[str, Any] | None, cap: int = TOOL_CAP) -> str:
    """Per-tool F1 as horizontal bars, worst first, each labelled with P, R and counts.

    Examples
    --------
    >>> c = chart_html(score_inputs('[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]'))
    >>> c.count('class="tc-bar-row"'), c.index(">answer<") < c.index(">search<")
    (3, True)
    """
    tools = sorted((result or {}).get("per_tool", {}).items(), key=lambda kv: (kv[1]["f1"], kv[0]))
    if not tools:
        return '<div class="tc-chart"><div class="tc-note">No tool calls on either side.</div></div>'
    bars = []
    for name, s in tools[:cap]:
        label = (
            f"F1 {_score(s['f1'])} · P {_score(s['precision'])} R {_score(s['recall'])} · "
            f"TP {_number(s['tp'])} FP {_number(s['fp'])} FN {_number(s['fn'])}"
        )
        zero = " tc-zero" if s["f1"] == 0 else ""
        bars.append(
            f'<div class="tc-bar-row" title="{html.escape(name)}: {label}">'
            f'<div class="tc-bar-name">{html.escape(name)}</div>'
            f'<div class="tc-bar-track{zero}"><div class="tc-bar-fill" style="width:{100 * s["f1"]:.1f}%"></div></div>'
            f'<div class="tc-bar-label">{label}</div></div>'
        )
    more = f'<div class="tc-note">… and {len(tools) - cap} more tools (all in the full result).</div>' if len(tools) > cap else ""
    return f'<div class="tc-chart" id="chart-bars"><div class="tc-chart-title">Per-tool F1, worst first</div>{"".join(bars)}{more}</div>'


# --------------------------------------------------------------------------- reproduce it


def _literal(value: Any, what: str) -> str:
    text = repr(value)
    if len(text) > SNIPPET_CAP:
        return f"...  # {what}: too long to inline here; put your data here"
    return text


def python_snippet(inputs: Inputs) -> str:
    """Python that reproduces the page's result with the metric (``toolcall_f1.load`` or the Hub).

    Examples
    --------
    >>> print(python_snippet(Inputs("[f()]", "[g()]", level="arg")))  # doctest: +ELLIPSIS
    import toolcall_f1  # pip install ...
    <BLANKLINE>
    metric = toolcall_f1.load()  # or: evaluate.load("<org>/toolcall_f1")
    predictions = ['[f()]']
    references = ['[g()]']
    result = metric.compute(
        predictions=predictions,
        references=references,
        level='arg',
        per_tool=True,
    )
    print(result["f1"], result["signature"])
    """
    install = f'"toolcall_f1 @ git+https://huggingface.co/spaces/{REPO_ID}"' if SPACE_ID else "-e . (this repository)"
    try:
        predictions, references = _examples(inputs)
        tools = read_tools(inputs.tools)
    except ValueError:  # shown in the error box; the snippet still shows the settings
        predictions, references, tools = ["..."], ["..."], None
    data = [("predictions", predictions, "the Predictions box"), ("references", references, "the References box")]
    if tools is not None:
        data.append(("tools", tools, "the Tool schemas box"))
    args = [f"{name}={name}" for name, _, _ in data]
    args += [f"{k}={v!r}" for k, v in inputs.settings().items()]
    assignments = "".join(f"{name} = {_literal(value, what)}\n" for name, value, what in data)
    body = "".join(f"    {a},\n" for a in [*args, "per_tool=True"])
    return (
        f"import toolcall_f1  # pip install {install}\n\n"
        f'metric = toolcall_f1.load()  # or: evaluate.load("{REPO_ID}")\n'
        f"{assignments}"
        f"result = metric.compute(\n{body})\n"
        'print(result["f1"], result["signature"])'
    )


def _heredoc(path: str, lines: Sequence[str]) -> str:
    return f"cat > {path} <<'EOF'\n" + "".join(f"{line}\n" for line in lines) + "EOF\n"


def cli_snippet(inputs: Inputs) -> str:
    """A shell session that reproduces the page's result with the command-line tool.

    Examples
    --------
    >>> print(cli_snippet(Inputs("[f()]", "[g()]", matching="optimal")))
    cat > predictions.jsonl <<'EOF'
    "[f()]"
    EOF
    cat > references.jsonl <<'EOF'
    "[g()]"
    EOF
    toolcall-f1 score --predictions predictions.jsonl --references references.jsonl --matching optimal --per-tool
    """
    try:
        predictions, references = _examples(inputs)
        tools = read_tools(inputs.tools)
    except ValueError:
        predictions, references, tools = [], [], None
    files = [("predictions.jsonl", predictions), ("references.jsonl", references)]
    parts = []
    for path, examples in files:
        lines = [json.dumps(x, ensure_ascii=False) for x in examples]
        if sum(map(len, lines)) > SNIPPET_CAP or not lines:
            parts.append(f"# {path}: one JSON value per line, one line per example (too long to inline)\n")
        else:
            parts.append(_heredoc(path, lines))
    command = "toolcall-f1 score --predictions predictions.jsonl --references references.jsonl"
    if tools is not None:
        text = json.dumps(tools, ensure_ascii=False)
        parts.append(_heredoc("tools.json", [text]) if len(text) <= SNIPPET_CAP else "# tools.json: your schemas\n")
        command += " --tools tools.json"
    command += "".join(f" --{k.replace('_', '-')} {v}" for k, v in inputs.settings().items())
    return "".join(parts) + command + " --per-tool"


# --------------------------------------------------------------------------- one computation


@dataclass(frozen=True, slots=True)
class View:
    """What the page shows for one set of inputs: the result (None on an input error), its
    table rows, and the message above the scores (an error, parse errors, or a hint)."""

    inputs: Inputs
    result: dict[str, Any] | None
    rows: tuple[Row, ...]
    message: str


def _describe(err: BaseException) -> str:
    if isinstance(err, RecursionError):
        return "the input is nested too deeply to read"
    return str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err}"


def run(*values: str | None) -> View:
    """Score the page's nine values (see :class:`Inputs`): never raises.

    Bad input comes back as a readable error message (``View.message``) with no result.

    Parameters
    ----------
    *values
        Predictions, references, tools, level, matching, canonicalizer, name canonicalizer,
        prediction format, reference format; ``None`` reads as empty or the default.

    Returns
    -------
    View

    Examples
    --------
    >>> v = run("[f()]", "[f(")
    >>> "Cannot score" in v.message and "references[0]" in v.message, v.result
    (True, None)
    >>> run("[f()]", "[f()]").result["f1"]
    1.0
    """
    inputs = Inputs.of(*values)
    try:
        result = score_inputs(*inputs.values())
        rows = tuple(result_rows(result, inputs))
    except (ValueError, TypeError, RecursionError, OverflowError, LookupError) as err:
        # InputError, ToolCallParseError, the metric's checks; RecursionError on absurd nesting
        return View(inputs, None, (), error_html(_describe(err)))
    hint = EMPTY_REFERENCES_HINT if not inputs.references.strip() else ""
    return View(inputs, result, rows, hint + parse_warning_html(result))


def score_api(
    predictions: str,
    references: str,
    tools: str = "",
    level: str = "call",
    matching: str = "greedy",
    canonicalizer: str = "default",
    name_canonicalizer: str = "exact",
    prediction_format: str = "auto",
    reference_format: str = "auto",
) -> dict[str, Any]:
    """The page's API endpoint: the full result, or ``{"error": message}``; never raises.

    Examples
    --------
    >>> score_api("[f()]", "[f()]")["f1"], score_api("[f()]", "[f(")["error"][:13]
    (1.0, 'references[0]')
    """
    view = run(predictions, references, tools, level, matching, canonicalizer, name_canonicalizer,
               prediction_format, reference_format)
    if view.result is None:
        text = re.sub(r"<[^>]*>", "", view.message).removeprefix("Cannot score these inputs. ")
        return {"error": _safe(html.unescape(text))}
    return json.loads(_safe(json.dumps(view.result, ensure_ascii=False)))


# --------------------------------------------------------------------------- the page

CONVENTION = """
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

HELP = """
- **TP / FP / FN** are *weighted*: each call counts its tool's weight (`"importance"` in the
  schema, 1 by default). Precision = TP/(TP+FP), recall = TP/(TP+FN), F1 = 2TP/(2TP+FP+FN),
  from counts summed over all examples (micro-average).
- **Level** — `call`: a call counts only when it is exactly right; a predicted call paired with a
  gold call but wrong in any argument costs one FP *and* one FN. `arg`: the name and every
  argument count separately, so a call with one wrong argument still earns credit for the rest.
- **Matching** — predicted calls pair with gold calls of the same name, in any order. `greedy`
  takes the best-looking pairs first; `optimal` finds the assignment with the fewest errors.
  They differ only when one predicted call fits several gold calls: greedy may give it to the
  wrong one and strand another call (try the *Greedy vs optimal* preset, then switch).
- **String canonicalizer** — how strings compare: `default` casefolds and folds whitespace
  (`"  new   YORK "` = `"New York"`); `bfcl` is BFCL's rule (also drops spaces and `,./-_*^`:
  `"Jan.28, 2021"` = `"jan 28 2021"`); `exact` compares byte for byte.
- **Tool names** — `underscore` reads `math.factorial` as `math_factorial` (APIs forbid dots).
- **Formats** — `auto` detects the format from its markers; naming one skips the detection
  (`bfcl` reads exactly as strictly as BFCL's own decoder).
- **Exact match**: share of examples with no parse error, every gold call paired exactly and no
  extra call (BFCL's accuracy; weights do not enter it). **Hallucinated**: predicted tools or
  arguments the schemas do not declare (only with schemas). **Signature**: every setting that
  changes the number — quote it with the score.
"""


def header_html(space_id: str = SPACE_ID) -> str:
    """The title, what the metric does, and links to the metric card and the repository.

    Examples
    --------
    >>> "spaces/acme/toolcall_f1/blob/main/README.md" in header_html("acme/toolcall_f1")
    True
    """
    if space_id:
        base = f"https://huggingface.co/spaces/{html.escape(space_id)}"
        links = (
            f'<a href="{base}/blob/main/README.md" target="_blank" rel="noopener">Metric card</a> · '
            f'<a href="{base}/tree/main" target="_blank" rel="noopener">Repository</a>'
        )
    else:
        links = "Metric card: <code>README.md</code> · repository: this folder"
    return (
        '<div class="tc-header"><h1>toolcall_f1: tool-call F1</h1>'
        "<p>Did the model call the right tools with the right arguments? Paste its output and the "
        "gold calls: they are matched as a multiset, judged like BFCL's AST checker (nothing is "
        "executed) and scored as a cost-weighted, micro-averaged F1. Results update as you type.</p>"
        f'<p class="tc-links">{links}</p></div>'
    )


_CSS = """
.tc-header h1 { font-size: 1.6em; margin: 0 0 4px 0; }
.tc-header p { margin: 2px 0; }
.tc-links { font-size: 0.9em; }
.tc-blurb { padding: 8px 12px; border-left: 4px solid #6366f1; background: rgba(99, 102, 241, 0.08);
            border-radius: 4px; }
.tc-msg { border-radius: 8px; padding: 10px 14px; margin: 4px 0; overflow-wrap: anywhere; }
.tc-error { border: 1px solid #d33; background: rgba(221, 51, 51, 0.10); }
.tc-warn { border: 1px solid #c90; background: rgba(204, 153, 0, 0.10); }
.tc-info { border: 1px solid #38c; background: rgba(51, 136, 204, 0.10); }
.tc-msg ul { margin: 4px 0 0 18px; }
.tc-cards { display: flex; gap: 10px; flex-wrap: wrap; margin-bottom: 8px; }
.tc-card { flex: 1 1 140px; border: 1px solid var(--border-color-primary); border-radius: 8px;
           padding: 8px 12px; background: var(--background-fill-secondary); }
.tc-label { font-size: 0.85em; opacity: 0.8; }
.tc-value { font-size: 1.8em; font-weight: 600; }
.tc-hint { font-size: 0.8em; opacity: 0.75; }
.tc-counts { margin: 6px 0; overflow-wrap: anywhere; }
.tc-count { display: inline-block; margin-right: 10px; font-size: 1.15em; }
.tc-sig { overflow-wrap: anywhere; word-break: break-all; }
.tc-sig code { font-size: 0.85em; white-space: normal; }
.tc-note { font-size: 0.85em; opacity: 0.85; margin: 4px 0; }
.tc-scroll { overflow-x: auto; }
.tc-table { width: 100%; border-collapse: collapse; font-size: 0.9em; }
.tc-table th, .tc-table td { text-align: left; vertical-align: top; padding: 5px 8px;
                             border-bottom: 1px solid var(--border-color-primary); }
.tc-table td { overflow-wrap: anywhere; }
.tc-table code { white-space: pre-wrap; background: none; padding: 0; }
.tc-exact { background: rgba(34, 160, 80, 0.14); }
.tc-wrong { background: rgba(230, 150, 0, 0.18); }
.tc-extra { background: rgba(220, 50, 50, 0.14); }
.tc-missed { background: rgba(130, 90, 220, 0.15); }
.tc-parse { background: rgba(128, 128, 128, 0.18); }
.tc-flag { display: inline-block; margin: 2px 0 0 4px; padding: 0 6px; border-radius: 8px;
           background: #d33; color: white; font-size: 0.8em; }
.tc-empty { opacity: 0.75; }
.tc-chart-title { font-weight: 600; margin-bottom: 6px; }
.tc-bar-row { display: grid; grid-template-columns: minmax(70px, 30%) 1fr; gap: 2px 8px;
              align-items: center; margin-bottom: 8px; }
.tc-bar-name { overflow-wrap: anywhere; font-family: var(--font-mono); font-size: 0.85em; }
.tc-bar-track { height: 16px; border-radius: 3px; background: rgba(128, 128, 128, 0.15);
                border: 1px solid rgba(128, 128, 128, 0.4); overflow: hidden; }
.tc-bar-fill { height: 100%; background: #22a050; }
.tc-zero { border-left: 4px solid #d33; }
.tc-bar-label { grid-column: 2; font-size: 0.8em; opacity: 0.85; }
@media (max-width: 640px) {
  .tc-table thead { display: none; }
  .tc-table, .tc-table tbody, .tc-table tr, .tc-table td { display: block; width: 100%; box-sizing: border-box; }
  .tc-table tr { margin-bottom: 8px; border-radius: 6px; border: 1px solid var(--border-color-primary); }
  .tc-table td { border: none; padding: 2px 8px; }
  .tc-table td::before { content: attr(data-label) ": "; font-weight: 600; }
  .tc-table td.tc-blank { display: none; }
  .tc-value { font-size: 1.4em; }
  .tc-card { flex: 1 1 40%; }
}
"""


def _outputs(view: View, errors_only: bool, json_open: bool) -> tuple[Any, ...]:
    """The page's outputs for a view, in the order of ``OUTPUT_NAMES``."""
    result = view.result
    raw = json.dumps(result, indent=1, ensure_ascii=False) if (json_open and result is not None) else ""
    return (
        _safe(preset_blurb(matching_preset(view.inputs))),
        _safe(view.message),
        _safe(scores_html(result)) if result is not None else EMPTY_SCORES,
        _safe(table_html(view.rows, errors_only)) if result is not None else "",
        _safe(chart_html(result)) if result is not None else "",
        _safe(python_snippet(view.inputs)),
        _safe(cli_snippet(view.inputs)),
        _safe(raw),
        view,
    )


EMPTY_SCORES = '<div class="tc-note">No scores: fix the input named above.</div>'


def on_change(*values: Any) -> tuple[Any, ...]:
    """Any input changed, or Compute: the nine values, then errors-only and JSON-open flags."""
    *inputs, errors_only, json_open = values
    return _outputs(run(*inputs), bool(errors_only), bool(json_open))


def on_preset(key: str, errors_only: bool, json_open: bool) -> tuple[Any, ...]:
    """A preset button: its nine values, and its result (no second click needed)."""
    values = PRESETS[key].inputs.values()
    return (*values, *_outputs(run(*values), bool(errors_only), bool(json_open)))


def on_filter(view: View, errors_only: bool) -> str:
    """The errors-only checkbox: the table again from the stored view."""
    return _safe(table_html(view.rows, bool(errors_only))) if view.result is not None else ""


def on_json(view: View) -> tuple[str, bool]:
    """The JSON accordion opened: only now is the full result sent to the browser."""
    raw = json.dumps(view.result, indent=1, ensure_ascii=False) if view.result is not None else ""
    return _safe(raw), True


def _input_boxes(first: Inputs) -> list[Any]:
    predictions = gr.Textbox(
        first.predictions, label="Predictions (model output)", lines=3, max_lines=12,
        info="One example: the model output as-is, or a JSON list of calls. Several: a JSON list, one entry per example.",
        elem_id="predictions",
    )
    references = gr.Textbox(
        first.references, label="References (gold calls)", lines=3, max_lines=12,
        placeholder='[{"name": "search", "arguments": {"q": "cats"}}]',
        info="Same convention; BFCL possible answers with reference format 'bfcl'.",
        elem_id="references",
    )
    tools = gr.Textbox(
        first.tools, label="Tool schemas (optional, JSON)", lines=1, max_lines=12,
        placeholder='[{"name": "search", "importance": 2, "parameters": {...}}]',
        info='"importance" weights a tool or an argument; schemas flag hallucinations.',
        elem_id="tools",
    )
    return [predictions, references, tools]


def _settings(first: Inputs) -> list[Any]:
    """The six settings; the two formats side by side (help on each is in "What ... mean")."""
    settings: list[Any] = [
        gr.Radio(list(LEVELS), value=first.level, label="Level", elem_id="level",
                 info="call: a call counts only when exact · arg: credit per argument"),
        gr.Radio(list(MATCHINGS), value=first.matching, label="Matching", elem_id="matching",
                 info="optimal: fewest errors when a call fits several gold calls"),
        gr.Radio(list(CANONICALIZERS), value=first.canonicalizer, label="String canonicalizer",
                 elem_id="canonicalizer"),
        gr.Radio(list(NAME_CANONICALIZERS), value=first.name_canonicalizer, label="Tool names",
                 elem_id="name-canonicalizer"),
    ]
    with gr.Row():
        settings += [
            gr.Dropdown(list(PREDICTION_FORMATS), value=first.prediction_format, label="Prediction format",
                        elem_id="prediction-format", min_width=120),
            gr.Dropdown(list(REFERENCE_FORMATS), value=first.reference_format, label="Reference format",
                        elem_id="reference-format", min_width=120),
        ]
    return settings


def build_demo() -> gr.Blocks:
    """The Blocks app: presets, inputs, settings, and results that follow them."""
    first = run(*PRESETS[FIRST_PRESET].inputs.values())
    initial = _outputs(first, False, False)
    with gr.Blocks(title="toolcall_f1 — tool-call F1", analytics_enabled=False) as blocks:
        gr.HTML(header_html(), css_template=_CSS, elem_id="header")
        with gr.Row(elem_id="presets"):
            buttons = {
                key: gr.Button(p.label, size="sm", min_width=110, elem_id=f"preset-{key}")
                for key, p in PRESETS.items()
            }
        preset_info = gr.HTML(initial[0], css_template=_CSS, elem_id="preset-info")
        with gr.Row(equal_height=False):
            with gr.Column(scale=3, min_width=280):
                boxes = _input_boxes(first.inputs)
                compute = gr.Button("Compute", variant="primary", elem_id="compute")
            with gr.Column(scale=2, min_width=260):
                settings = _settings(first.inputs)
        message = gr.HTML(initial[1], css_template=_CSS, elem_id="message")
        scores = gr.HTML(initial[2], css_template=_CSS, elem_id="scores")
        with gr.Row(equal_height=False):
            with gr.Column(scale=3, min_width=280):
                errors_only = gr.Checkbox(False, label="Only rows with errors", elem_id="errors-only")
                table = gr.HTML(initial[3], css_template=_CSS, elem_id="match-table")
            with gr.Column(scale=2, min_width=260):
                chart = gr.HTML(initial[4], css_template=_CSS, elem_id="per-tool-chart")
        with gr.Accordion("Reproduce this result (Python, command line)", open=False, elem_id="reproduce"):
            python = gr.Code(initial[5], language="python", label="Python", elem_id="python-snippet")
            cli = gr.Code(initial[6], language="shell", label="Command line", elem_id="cli-snippet")
        with gr.Accordion("What the numbers and settings mean", open=False, elem_id="help"):
            gr.Markdown(HELP)
        with gr.Accordion("Full result (JSON)", open=False, elem_id="raw-accordion") as raw_accordion:
            raw = gr.Code("", language="json", label="compute(..., per_tool=True, return_details=True)",
                          elem_id="raw-result")
        with gr.Accordion("Input convention", open=False, elem_id="convention"):
            gr.Markdown(CONVENTION)
        view = gr.State(first)
        json_open = gr.State(False)

        inputs = [*boxes, *settings]
        outputs = [preset_info, message, scores, table, chart, python, cli, raw, view]
        # One queue for everything that computes or reads the stored view, one at a time, in
        # the order the page sent them: a slower earlier compute can never land after a later one.
        private: dict[str, Any] = {"api_visibility": "private", "show_progress": "hidden", "concurrency_id": "score",
                   "concurrency_limit": 1}
        for key, button in buttons.items():
            button.click(functools.partial(on_preset, key), [errors_only, json_open], [*inputs, *outputs], **private)
        # Text boxes: .change (gradio 6 fires .input on key presses only, not on a paste or a
        # deletion); a preset's own fill triggers it too and recomputes the same result.
        # Settings: .input (a user's choice; a preset has already scored its own settings).
        # "always_last": while one compute runs, only the newest change waits (a debounce).
        for component in boxes:
            component.change(on_change, [*inputs, errors_only, json_open], outputs, trigger_mode="always_last", **private)
        for component in settings:
            component.input(on_change, [*inputs, errors_only, json_open], outputs, trigger_mode="always_last", **private)
        compute.click(on_change, [*inputs, errors_only, json_open], outputs, **private)
        errors_only.input(on_filter, [view, errors_only], table, **private)
        raw_accordion.expand(on_json, view, [raw, json_open], **private)
        raw_accordion.collapse(lambda: ("", False), None, [raw, json_open], **private)  # frees the page
        gr.api(score_api, api_name="score", api_description=API_DESCRIPTION)
    return blocks


API_DESCRIPTION = (
    "Score predictions against references with the page's settings. Returns the metric's full "
    "result (f1, precision, recall, exact_match, weighted tp/fp/fn, counts, signature, per_tool, "
    'details), or {"error": message} for input that cannot be scored.'
)

demo = build_demo()

if __name__ == "__main__":
    demo.launch()  # GRADIO_SERVER_NAME / GRADIO_SERVER_PORT are read by gradio itself
