"""Gradio demo of the ``toolcall_f1`` metric: glue only, no scoring logic.

Everything that decides a number lives in :mod:`toolcall_f1`. The *Score* tab reads the boxes,
calls :meth:`toolcall_f1.ToolCallMetric.compute` (``per_tool=True, return_details=True``) and lays
the result out: score cards, a match table (what each row adds to TP/FP/FN), a per-tool chart and
snippets that reproduce it. The *Compare* tab scores two systems with :func:`toolcall_f1.compare`.
Both score on arrival and again whenever an input changes, so what they show belongs to what is
beside it. The page's words are data beside this file (``app_data/``).

Run ``python app.py`` (``GRADIO_SERVER_NAME`` / ``GRADIO_SERVER_PORT`` are respected).
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import gradio as gr

import toolcall_f1
from app_render import (DATA, EMPTY_REFERENCES_HINT, EMPTY_SCORES, HTML, ROW_CAP, TEXT, Row,
                        chart_html, compare_html, error_html, parse_warning_html, render_call, render_verdicts,
                        result_rows, safe, scores_html, table_html)

__all__ = ["COMPARE_EXAMPLE", "COMPARE_PRESET", "DATA", "EMPTY_SCORES", "INTERVAL_FROM", "PRESETS",
           "ROW_CAP", "Comparison", "InputError", "Inputs", "Preset", "Row", "View", "build_demo",
           "chart_html", "cli_snippet", "compare_html", "compare_inputs", "compare_snippets", "demo",
           "error_html", "load_presets", "matching_preset", "on_compare", "parse_warning_html",
           "preset_values", "python_snippet", "read_examples", "read_tools", "render_call",
           "render_verdicts", "result_rows", "run", "run_compare", "score_api", "score_inputs",
           "scores_html", "table_html"]

PREDICTION_FORMATS = ("auto", *(f for f in toolcall_f1.Settings.allowed("prediction_format") if f != "auto"))
SNIPPET_CAP = 4000  #: inputs longer than this are not inlined into the reproduce snippets
INTERVAL_FROM = 20  #: from this many examples on, the 95% intervals show (README, "Is the difference real?")
#: The Hub repository, on a Space (``SPACE_ID`` is set by the Space runtime).
SPACE_ID = os.environ.get("SPACE_ID", "")
REPO_ID = SPACE_ID or "<org>/toolcall_f1"
_DEFAULT = toolcall_f1.Settings()


class InputError(ValueError):
    """Text in an input box that does not follow the page's input convention."""


# --------------------------------------------------------------------------- inputs and presets


@dataclass(frozen=True, slots=True)
class Inputs:
    """The text of every input box and every setting, in the page's order; the settings are
    :class:`toolcall_f1.Settings` fields, with its defaults."""

    predictions: str = ""
    references: str = ""
    tools: str = ""
    level: str = _DEFAULT.level
    matching: str = _DEFAULT.matching
    order: str = _DEFAULT.order
    canonicalizer: str = _DEFAULT.canonicalizer
    name_canonicalizer: str = _DEFAULT.name_canonicalizer
    prediction_format: str = _DEFAULT.prediction_format
    reference_format: str = _DEFAULT.reference_format

    @classmethod
    def of(cls, *values: Any) -> Inputs:
        """Inputs from the page's values, in order; ``None`` (an emptied box) reads as the default.

        Examples
        --------
        >>> Inputs.of("[f()]", None, None, "arg").level, Inputs.of(None).predictions
        ('arg', '')
        """
        names, defaults = [f.name for f in fields(cls)], cls()
        return cls(**{n: getattr(defaults, n) if v is None else str(v) for n, v in zip(names, values, strict=False)})

    def values(self) -> tuple[str, ...]:
        """The values in the page's order."""
        return tuple(getattr(self, f.name) for f in fields(self))

    def settings(self, changed: bool = True) -> dict[str, Any]:
        """The settings (the fields after the three boxes) by name; ``changed``: only those that
        differ from the defaults (what a snippet must pass)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)[3:]}
        return {k: v for k, v in values.items() if not changed or v != getattr(_DEFAULT, k)}


@dataclass(frozen=True, slots=True)
class Preset:
    """One ready-made example: a label, what it shows (HTML), and its inputs."""

    label: str
    description: str
    inputs: Inputs


def _box_text(box: str, value: Any) -> str:
    """A box's text in ``presets.json``: a string as it is; JSON data as the page shows it, tool
    schemas indented, a list of calls or examples one entry per line."""
    if isinstance(value, str):
        return value
    if box == "tools":
        return json.dumps(value, indent=2, ensure_ascii=False)
    return "[\n" + ",\n".join("  " + json.dumps(x, ensure_ascii=False) for x in value) + "\n]"


def load_presets(path: Path = DATA / "presets.json") -> dict[str, Preset]:
    """The presets of ``presets.json``: ``{key: {"label", "description", "inputs": {box or
    setting: value}}}``, in the file's order (the first is the landing page's).

    Raises
    ------
    TypeError
        For an input that is not one of :class:`Inputs`' fields.

    Examples
    --------
    >>> print(load_presets()["greedy"].inputs.references)
    [
      {"book_seat": {"seat": ["12A", "12B"]}},
      {"book_seat": {"seat": ["12A"]}}
    ]
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    return {
        key: Preset(p["label"], p["description"], Inputs(**{k: _box_text(k, v) for k, v in p["inputs"].items()}))
        for key, p in data.items()
    }


PRESETS: dict[str, Preset] = load_presets()
FIRST_PRESET = next(iter(PRESETS))

def preset_blurb(key: str | None) -> str:
    """The blurb HTML of a preset, or ``""`` for none.

    Examples
    --------
    >>> "<b>Hermes &lt;tool_call&gt;.</b>" in preset_blurb("hermes")
    True
    >>> preset_blurb(None)
    ''
    """
    return "" if key is None else preset_blurb_of(PRESETS[key])


def preset_blurb_of(preset: Preset) -> str:
    """A preset's blurb: its label (escaped) and its description (HTML)."""
    return HTML["blurb"].format(label=html.escape(preset.label), description=preset.description)


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
    """A reference ``{"calls": list | str, ...}`` (SPEC §2) or a conversation ``{"turns": [...]}`` (§5b)."""
    return isinstance(value, Mapping) and isinstance(value.get("calls", value.get("turns")), (list, str))


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
        return toolcall_f1.loads_strict(text)
    except toolcall_f1.DuplicateKeyError as err:
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
        raise InputError(f"Tool schemas: invalid JSON ({err.msg} at line {err.lineno}, column {err.colno})") from None
    except RecursionError:
        raise InputError("Tool schemas: JSON nested too deeply to read") from None
    data = [data] if isinstance(data, dict) else data
    if not isinstance(data, list) or not all(isinstance(t, dict) for t in data):
        raise InputError("Tool schemas: expected a JSON list of function schemas (objects)")
    return data


def _metric(inputs: Inputs) -> toolcall_f1.ToolCallMetric:
    return toolcall_f1.ToolCallMetric(tools=read_tools(inputs.tools), **inputs.settings(changed=False))


def _examples(inputs: Inputs) -> tuple[list[Any], list[Any]]:
    predictions = read_examples(inputs.predictions, "Predictions")
    references = read_examples(inputs.references, "References")
    if len(predictions) != len(references):
        raise InputError(f"predictions hold {len(predictions)} example(s) but references hold {len(references)}: "
                         "give one prediction per reference (several examples: a JSON list, one entry each)")
    return predictions, references


def score_inputs(*values: str | None) -> dict[str, Any]:
    """Read the boxes and run the metric: the dict of ``ToolCallMetric.compute`` with
    ``per_tool`` and ``details`` (and a 95% interval from :data:`INTERVAL_FROM` examples on).

    Parameters
    ----------
    *values
        The page values in order (see :class:`Inputs`); missing ones are the defaults.

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
    predictions, references = _examples(inputs := Inputs.of(*values))
    return _metric(inputs).compute(predictions, references, per_tool=True, return_details=True,
                                   confidence_level=0.95 if len(predictions) >= INTERVAL_FROM else None)


# --------------------------------------------------------------------------- reproduce it


def _literal(value: Any, what: str) -> str:
    text = repr(value)
    return text if len(text) <= SNIPPET_CAP else f"...  # {what}: too long to inline here; put your data here"


def _snippet_data(inputs: Inputs, unreadable: list[Any]) -> tuple[list[Any], list[Any], list[dict[str, Any]] | None]:
    """Predictions, references and tools as the boxes give them; ``unreadable`` for the boxes
    when they cannot be read (the error box says why; the snippet still shows the settings)."""
    try:
        return (*_examples(inputs), read_tools(inputs.tools))
    except ValueError:
        return unreadable, unreadable, None


def _python(head: str, data: Sequence[tuple[str, Any, str]], call: str, args: Sequence[str], tail: str) -> str:
    """A Python snippet: the import, ``head``, the data (``(name, value, which box)``), ``call``
    with one argument a line, then ``tail``."""
    install = f'"toolcall_f1 @ git+https://huggingface.co/spaces/{REPO_ID}"' if SPACE_ID else "-e . (this repository)"
    assignments = "".join(f"{name} = {_literal(value, what)}\n" for name, value, what in data)
    body = "".join(f"    {a},\n" for a in args)
    return f"import toolcall_f1  # pip install {install}\n\n{head}{assignments}result = {call}(\n{body})\n{tail}"


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
    predictions, references, tools = _snippet_data(inputs, ["..."])
    data = [("predictions", predictions, "the Predictions box"), ("references", references, "the References box")]
    data += [("tools", tools, "the Tool schemas box")] if tools is not None else []
    args = [*(f"{name}={name}" for name, _, _ in data), *(f"{k}={v!r}" for k, v in inputs.settings().items()), "per_tool=True"]
    return _python(f'metric = toolcall_f1.load()  # or: evaluate.load("{REPO_ID}")\n', data, "metric.compute", args,
                   'print(result["f1"], result["signature"])')


def _heredoc(path: str, lines: Sequence[str]) -> str:
    return f"cat > {path} <<'EOF'\n" + "".join(f"{line}\n" for line in lines) + "EOF\n"


def _shell(files: Sequence[tuple[str, list[Any]]], tools: Any, command: str, settings: Mapping[str, Any]) -> str:
    """A shell snippet: a heredoc writing each JSONL file (one line per example) and the tools,
    then ``command`` with ``--tools`` and the settings' flags."""
    parts = []
    for path, examples in files:
        lines = [json.dumps(x, ensure_ascii=False) for x in examples]
        if sum(map(len, lines)) > SNIPPET_CAP or not lines:
            parts.append(f"# {path}: one JSON value per line, one line per example (too long to inline)\n")
        else:
            parts.append(_heredoc(path, lines))
    if tools is not None:
        text = json.dumps(tools, ensure_ascii=False)
        parts.append(_heredoc("tools.json", [text]) if len(text) <= SNIPPET_CAP else "# tools.json: your schemas\n")
        command += " --tools tools.json"
    return "".join(parts) + command + "".join(f" --{k.replace('_', '-')} {v}" for k, v in settings.items())


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
    predictions, references, tools = _snippet_data(inputs, [])
    return _shell([("predictions.jsonl", predictions), ("references.jsonl", references)], tools,
                  "toolcall-f1 score --predictions predictions.jsonl --references references.jsonl",
                  inputs.settings()) + " --per-tool"


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
    """Score the page's values (see :class:`Inputs`): never raises.

    Bad input comes back as a readable error message (``View.message``) with no result.

    Parameters
    ----------
    *values
        The three boxes, then the settings (:class:`Inputs`); ``None`` reads as empty or the default.

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
        rows = tuple(result_rows(result))
    except (ValueError, TypeError, RecursionError, OverflowError, LookupError) as err:
        # InputError, ToolCallParseError, the metric's checks; RecursionError on absurd nesting
        return View(inputs, None, (), error_html(_describe(err)))
    hint = EMPTY_REFERENCES_HINT if not inputs.references.strip() else ""
    return View(inputs, result, rows, hint + parse_warning_html(result))


def score_api(predictions: str, references: str, tools: str = "", level: str = _DEFAULT.level,
              matching: str = _DEFAULT.matching, canonicalizer: str = _DEFAULT.canonicalizer,
              name_canonicalizer: str = _DEFAULT.name_canonicalizer, prediction_format: str = _DEFAULT.prediction_format,
              reference_format: str = _DEFAULT.reference_format, order: str = _DEFAULT.order) -> dict[str, Any]:
    """The page's API endpoint: the full result, or ``{"error": message}``; never raises
    (``order`` last: the positional order of the endpoint's first clients holds).

    Examples
    --------
    >>> score_api("[f()]", "[f()]")["f1"], score_api("[f()]", "[f(")["error"][:13]
    (1.0, 'references[0]')
    """
    view = run(*Inputs(predictions, references, tools, level, matching, order, canonicalizer, name_canonicalizer,
                       prediction_format, reference_format).values())
    if view.result is None:
        text = re.sub(r"<[^>]*>", "", view.message).removeprefix("Cannot score these inputs. ")
        return {"error": safe(html.unescape(text))}
    return json.loads(safe(json.dumps(view.result, ensure_ascii=False)))


# --------------------------------------------------------------------------- compare two systems

#: The compare tab's words: system names, boxes, tests (``app_data/page.json``, ``"compare"``).
COMPARE_TEXT: dict[str, Any] = TEXT["compare"]
BASELINE, NEW = COMPARE_TEXT["systems"]
RESAMPLES_CAP = 100_000  #: the most resamples (or trials) one comparison may ask of the Space


@dataclass(frozen=True, slots=True)
class Comparison:
    """The compare tab's values in the page's order: the new system's box, the test, its
    resamples (None, or 0 from the page's number box: the test's default) and seed, then
    :class:`Inputs` whose predictions are the baseline's."""

    new: str = ""
    test: str = "bootstrap"
    n_resamples: int | None = None
    seed: int = 12345
    inputs: Inputs = Inputs()

    @classmethod
    def of(cls, new: Any = None, test: Any = None, n_resamples: Any = None, seed: Any = None, *values: Any) -> Comparison:
        """The page's values, in order; ``None`` reads as the default (numbers as whole numbers).

        Examples
        --------
        >>> c = Comparison.of("[g()]", None, 200.0, None, "[f()]")
        >>> c.test, c.n_resamples, c.seed, c.inputs.predictions, Comparison.of("", "bootstrap", 0).n_resamples
        ('bootstrap', 200, 12345, '[f()]', None)
        """
        d = cls()
        return cls(d.new if new is None else str(new), d.test if test is None else str(test),
                   int(n_resamples or 0) or None, d.seed if seed is None else int(seed),
                   Inputs.of(*values))

    def values(self) -> tuple[Any, ...]:
        """The values in the page's order."""
        return (self.new, self.test, self.n_resamples, self.seed, *self.inputs.values())


def _load_comparison(path: Path = DATA / "compare.json") -> tuple[Preset, Comparison]:
    """The compare tab's example (``compare.json``: a preset's keys, the ``new`` system, the test)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    inputs = Inputs(**{k: _box_text(k, v) for k, v in data["inputs"].items()})
    return (Preset(data["label"], data["description"], inputs),
            Comparison(_box_text("new", data["new"]), data["test"], data["n_resamples"], data["seed"], inputs))


COMPARE_PRESET, COMPARE_EXAMPLE = _load_comparison()


def compare_inputs(*values: Any) -> dict[str, dict[str, Any]]:
    """Read the compare tab and run :func:`toolcall_f1.compare`: the baseline, then the new system.

    Parameters
    ----------
    *values
        The page's values in order (see :class:`Comparison`).

    Returns
    -------
    dict
        ``toolcall_f1.compare()``'s: system name → ``{"f1", "ci", "delta", "p_value", "signature"}``.

    Raises
    ------
    ValueError
        :class:`InputError` for boxes that break the convention, else ``compare()``'s own.

    Examples
    --------
    >>> out = compare_inputs(*COMPARE_EXAMPLE.values())
    >>> list(out), round(out["new"]["f1"], 4), round(out["new"]["delta"], 4), out["new"]["p_value"] < 0.05
    (['baseline', 'new'], 0.8814, 0.2498, True)
    """
    c = Comparison.of(*values)
    if (c.n_resamples or 0) > RESAMPLES_CAP:
        raise InputError(f"Resamples / trials: at most {RESAMPLES_CAP:,} here, got {c.n_resamples:,} "
                         "(the command line's toolcall-f1 compare takes any number)")
    systems = {BASELINE: read_examples(c.inputs.predictions, "Baseline"), NEW: read_examples(c.new, "New system")}
    return toolcall_f1.compare(systems, read_examples(c.inputs.references, "References"), test=c.test,
                               n_resamples=c.n_resamples, seed=c.seed, tools=read_tools(c.inputs.tools),
                               **c.inputs.settings(changed=False))


#: Appended to a count mismatch under order="turns": a box of one conversation is read as one example per turn.
TURNS_COUNT_HINT = ("; under order=\"turns\" a box is a list of conversations, each its list of turns: write one "
                    "conversation as [[[\"f(a=1)\"], [\"g(b=2)\"]]], not [[\"f(a=1)\"], [\"g(b=2)\"]]")


def run_compare(*values: Any) -> tuple[Comparison, dict[str, dict[str, Any]] | None, str]:
    """The compare tab's values, ``compare()``'s result (None on bad input) and the message above
    it (the error, or the warnings ``compare()`` gave: too few examples, unreadable output); never raises.

    Examples
    --------
    >>> _, result, message = run_compare("[g()]", "bootstrap", None, 12345, "[f()]", "[f()]")
    >>> result["new"]["delta"], "too few for a paired test" in message
    (-1.0, True)
    """
    try:
        c = Comparison.of(*values)
    except (ValueError, TypeError, OverflowError) as err:  # a number box holding NaN, infinity or text
        return (Comparison.of(*values[:2], None, None, *values[4:]), None,
                error_html(f"resamples and seed: expected whole numbers, got {values[2:4]!r} ({err})"))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = compare_inputs(*c.values())
    except (ValueError, TypeError, RecursionError, OverflowError, LookupError) as err:
        turns = c.inputs.order == "turns" and "predictions for" in str(err)
        return c, None, error_html(_describe(err) + (TURNS_COUNT_HINT if turns else ""))
    ours = [w for w in caught if issubclass(w.category, toolcall_f1.ToolCallWarning)]  # the reader's business
    for w in caught:
        if w not in ours:  # anyone else's: warned as if not caught
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    notes = "".join(f"<li>{html.escape(str(w.message))}</li>" for w in ours)
    return c, result, HTML["compare_warning"].format(items=notes) if notes else ""


def compare_snippets(c: Comparison) -> tuple[str, str]:
    r"""Python (:func:`toolcall_f1.compare`) and a shell session (``toolcall-f1 compare``) that
    reproduce the compare tab's numbers (the command line names the systems by their files).

    Examples
    --------
    >>> python, shell = compare_snippets(Comparison("[g()]", seed=3, inputs=Inputs("[f()]", "[g()]", level="arg")))
    >>> print(python.split("\n", 2)[2])
    baseline = ['[f()]']
    new = ['[g()]']
    references = ['[g()]']
    result = toolcall_f1.compare(
        {'baseline': baseline, 'new': new},
        references,
        test='bootstrap',
        seed=3,
        level='arg',
    )
    for name, r in result.items():
        print(name, r["f1"], r["ci"], r["delta"], r["p_value"])
    >>> print(shell.splitlines()[-1])
    toolcall-f1 compare --references references.jsonl baseline.jsonl new.jsonl --test bootstrap --seed 3 --level arg
    """
    baseline, references, tools = _snippet_data(c.inputs, ["..."])
    try:
        new = read_examples(c.new)
    except ValueError:
        new = ["..."]
    data = [(BASELINE, baseline, "the Baseline box"), (NEW, new, "the New system box"),
            ("references", references, "the References box")]
    data += [("tools", tools, "the Tool schemas box")] if tools is not None else []
    test = {"test": c.test, "n_resamples": c.n_resamples, "seed": c.seed}
    test = {k: v for k, v in test.items() if v is not None}
    args = [f"{{{BASELINE!r}: {BASELINE}, {NEW!r}: {NEW}}}", "references", *(["tools=tools"] if tools is not None else []),
            *(f"{k}={v!r}" for k, v in {**test, **c.inputs.settings()}.items())]
    python = _python("", data, "toolcall_f1.compare", args,
                     'for name, r in result.items():\n    print(name, r["f1"], r["ci"], r["delta"], r["p_value"])')
    files = [(f"{BASELINE}.jsonl", baseline), (f"{NEW}.jsonl", new), ("references.jsonl", references)]
    command = f"toolcall-f1 compare --references references.jsonl {BASELINE}.jsonl {NEW}.jsonl"
    return python, _shell([(p, [] if v == ["..."] else v) for p, v in files], tools, command, {**test, **c.inputs.settings()})


# --------------------------------------------------------------------------- the page

#: The page's help: the input convention and what the numbers and settings mean (markdown).
CONVENTION = (DATA / "convention.md").read_text(encoding="utf-8")
HELP = (DATA / "help.md").read_text(encoding="utf-8")


def header_html(space_id: str = SPACE_ID) -> str:
    """The title, what the metric does, and links to the metric card and the repository.

    Examples
    --------
    >>> "spaces/acme/toolcall_f1/blob/main/README.md" in header_html("acme/toolcall_f1")
    True
    """
    links = HTML["links"].format(base=f"https://huggingface.co/spaces/{html.escape(space_id)}") if space_id else HTML["links_local"]
    return HTML["header"].format(links=links)


_CSS = (DATA / "style.css").read_text(encoding="utf-8")


def _outputs(view: View, errors_only: bool, json_open: bool) -> tuple[Any, ...]:
    """The page's outputs for a view, in the order ``build_demo`` lists them (``outputs``)."""
    result = view.result
    raw = json.dumps(result, indent=1, ensure_ascii=False) if (json_open and result is not None) else ""
    return (
        safe(preset_blurb(matching_preset(view.inputs))),
        safe(view.message),
        safe(scores_html(result)) if result is not None else EMPTY_SCORES,
        safe(table_html(view.rows, errors_only)) if result is not None else "",
        safe(chart_html(result)) if result is not None else "",
        safe(python_snippet(view.inputs)),
        safe(cli_snippet(view.inputs)),
        safe(raw),
        view,
    )



def on_change(*values: Any) -> tuple[Any, ...]:
    """Any input changed, or Compute: the values, then errors-only and JSON-open flags."""
    *inputs, errors_only, json_open = values
    return _outputs(run(*inputs), bool(errors_only), bool(json_open))


def on_preset(key: str, errors_only: bool, json_open: bool) -> tuple[Any, ...]:
    """A preset button: its values, and its result (no second click needed)."""
    values = PRESETS[key].inputs.values()
    return (*values, *_outputs(run(*values), bool(errors_only), bool(json_open)))


def on_filter(view: View, errors_only: bool) -> str:
    """The errors-only checkbox: the table again from the stored view."""
    return safe(table_html(view.rows, bool(errors_only))) if view.result is not None else ""


def on_json(view: View) -> tuple[str, bool]:
    """The JSON accordion opened: only now is the full result sent to the browser."""
    raw = json.dumps(view.result, indent=1, ensure_ascii=False) if view.result is not None else ""
    return safe(raw), True


def _settings(first: Inputs, prefix: str = "") -> list[Any]:
    """The settings, each offering what :meth:`toolcall_f1.Settings.allowed` names (so a new
    ``order`` appears by itself); the two formats side by side (help in "What ... mean")."""

    def choice(kind: Any, name: str) -> Any:
        options = PREDICTION_FORMATS if name == "prediction_format" else toolcall_f1.Settings.allowed(name)
        spec = dict(TEXT["settings"][name])
        if isinstance(spec.get("info"), dict):  # a note per option: only the options the metric offers
            spec["info"] = " · ".join(f"{o}: {spec['info'][o]}" for o in options if o in spec["info"])
        return kind(list(options), value=getattr(first, name), elem_id=prefix + name.replace("_", "-"), **spec)

    names = list(first.settings(changed=False))
    settings: list[Any] = [choice(gr.Radio, name) for name in names[:-2]]
    with gr.Row():
        settings += [choice(gr.Dropdown, name) for name in names[-2:]]
    return settings


#: Every handler that computes or reads a stored view: one queue, one at a time, in the order the
#: page sent them (a slower earlier compute can never land after a later one).
PRIVATE: dict[str, Any] = {"api_visibility": "private", "show_progress": "hidden", "concurrency_id": "score", "concurrency_limit": 1}


def _score_tab() -> None:
    """The Score tab: presets, boxes, settings, and the result that follows them."""
    first = run(*PRESETS[FIRST_PRESET].inputs.values())
    initial = _outputs(first, False, False)
    with gr.Row(elem_id="presets"):
        buttons = {key: gr.Button(p.label, size="sm", min_width=110, elem_id=f"preset-{key}") for key, p in PRESETS.items()}
    preset_info = gr.HTML(initial[0], css_template=_CSS, elem_id="preset-info")
    with gr.Row(equal_height=False):
        with gr.Column(scale=3, min_width=280):
            boxes = [gr.Textbox(getattr(first.inputs, name), elem_id=name, **spec) for name, spec in TEXT["boxes"].items()]
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
        raw = gr.Code("", language="json", label="compute(..., per_tool=True, return_details=True)", elem_id="raw-result")
    with gr.Accordion("Input convention", open=False, elem_id="convention"):
        gr.Markdown(CONVENTION)
    view, json_open = gr.State(first), gr.State(False)
    inputs = [*boxes, *settings]
    outputs = [preset_info, message, scores, table, chart, python, cli, raw, view]
    for key, button in buttons.items():
        button.click(functools.partial(on_preset, key), [errors_only, json_open], [*inputs, *outputs], **PRIVATE)
    _follow(boxes, settings, compute, on_change, [*inputs, errors_only, json_open], outputs)
    errors_only.input(on_filter, [view, errors_only], table, **PRIVATE)
    raw_accordion.expand(on_json, view, [raw, json_open], **PRIVATE)
    raw_accordion.collapse(lambda: ("", False), None, [raw, json_open], **PRIVATE)  # frees the page


def _follow(boxes: list[Any], settings: list[Any], button: Any, handler: Any, inputs: list[Any], outputs: list[Any]) -> None:
    """Recompute on every change. Text boxes: .change (gradio 6 fires .input on key presses only,
    not on a paste or a deletion); a preset's own fill triggers it too and recomputes the same
    result. Settings: .input (a user's choice; a preset has already scored its own settings).
    "always_last": while one compute runs, only the newest change waits (a debounce)."""
    for component in boxes:
        component.change(handler, inputs, outputs, trigger_mode="always_last", **PRIVATE)
    for component in settings:
        component.input(handler, inputs, outputs, trigger_mode="always_last", **PRIVATE)
    button.click(handler, inputs, outputs, **PRIVATE)


def on_compare(*values: Any) -> tuple[str, ...]:
    """A compare-tab input changed, or Compare: its blurb, message, table and two snippets."""
    c, result, message = run_compare(*values)
    blurb = preset_blurb_of(COMPARE_PRESET) if c == COMPARE_EXAMPLE else ""
    table = "" if result is None else compare_html(result, c.test, c.n_resamples, c.seed,
                                                   len(read_examples(c.inputs.references)))
    return tuple(safe(x) for x in (blurb, message, table, *compare_snippets(c)))


def _compare_tab() -> None:
    """The Compare tab: two systems' boxes, the references, the test, and compare()'s table."""
    first, text = COMPARE_EXAMPLE, COMPARE_TEXT
    initial = on_compare(*first.values())
    with gr.Row():
        example = gr.Button(COMPARE_PRESET.label, size="sm", min_width=110, scale=0, elem_id="preset-compare")
    info = gr.HTML(initial[0], css_template=_CSS, elem_id="compare-info")
    with gr.Row(equal_height=False):
        with gr.Column(scale=3, min_width=280):
            box = {name: gr.Textbox(getattr(first.inputs, name, first.new), elem_id=f"compare-{name}", **spec)
                   for name, spec in text["boxes"].items()}
            button = gr.Button("Compare", variant="primary", elem_id="compare-run")
        with gr.Column(scale=2, min_width=260):
            test = gr.Radio(list(text["tests"]), value=first.test, elem_id="compare-test", **text["test"])
            with gr.Row():
                number = [gr.Number(getattr(first, k) or 0, precision=0, elem_id=f"compare-{k.replace('_', '-')}", **text[k])
                          for k in ("n_resamples", "seed")]
            settings = _settings(first.inputs, "compare-")
    message = gr.HTML(initial[1], css_template=_CSS, elem_id="compare-message")
    table = gr.HTML(initial[2], css_template=_CSS, elem_id="compare-result")
    with gr.Accordion("Reproduce this comparison (Python, command line)", open=False, elem_id="compare-reproduce"):
        python = gr.Code(initial[3], language="python", label="Python", elem_id="compare-python")
        cli = gr.Code(initial[4], language="shell", label="Command line", elem_id="compare-cli")
    inputs = [box["new"], test, *number, box["predictions"], box["references"], box["tools"], *settings]
    outputs = [info, message, table, python, cli]
    example.click(lambda: (*first.values(), *on_compare(*first.values())), None, [*inputs, *outputs], **PRIVATE)
    _follow(list(box.values()), [test, *number, *settings], button, on_compare, inputs, outputs)


def build_demo() -> gr.Blocks:
    """The Blocks app: a Score tab (presets, inputs, settings, and results that follow them) and a
    Compare tab (two systems, a paired test)."""
    with gr.Blocks(title=TEXT["title"], analytics_enabled=False) as blocks:
        gr.HTML(header_html(), css_template=_CSS, elem_id="header")
        with gr.Tabs(elem_id="tabs"):
            with gr.Tab(COMPARE_TEXT["tabs"][0], elem_id="score-tab"):
                _score_tab()
            with gr.Tab(COMPARE_TEXT["tabs"][1], elem_id="compare-tab"):
                _compare_tab()
        gr.api(score_api, api_name="score", api_description=API_DESCRIPTION)
    return blocks


API_DESCRIPTION: str = TEXT["api"]

demo = build_demo()

if __name__ == "__main__":
    demo.launch()  # GRADIO_SERVER_NAME / GRADIO_SERVER_PORT are read by gradio itself
