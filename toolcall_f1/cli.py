"""Command line: ``toolcall-f1 score`` scores JSONL files of predictions and references.

The files are streamed: each example is scored as soon as it is read and only the corpus's
sufficient statistics are kept (exactly rounded running sums of TP/FP/FN, counts of exact
examples and parse errors, per-tool sums, the set of per-example tool digests). Memory stays
bounded however long the file, and the numbers are exactly those
:meth:`ToolCallMetric.compute <toolcall_f1.ToolCallMetric.compute>` returns for the
same data — same floats to the last digit, same ``signature``.

Usage::

    toolcall-f1 score --input examples/agent_traces.jsonl --tools examples/tools.json --per-tool
    toolcall-f1 score --predictions preds.jsonl --references refs.jsonl --output-format json
    toolcall-f1 score --input run.jsonl --output-format json --details -   # details, then summary
    python -m toolcall_f1 score --input run.jsonl --fail-under 0.8      # CI gate

Exit codes: 0 success, 1 only for F1 below ``--fail-under``, 2 usage or input error (and
output that cannot be written: ``<stdout>: cannot write the result: No space left on device``). A line
that cannot be used as input (not JSON, an object giving a key two values, a missing field, an
unreadable reference) is named with its file and line (``refs.jsonl:17: invalid JSON: ...``,
``refs.jsonl:18: duplicate key 'city' (column 52): ...``) and reading goes on, so one run
lists them all (``--max-errors N`` stops early); then no scores are printed and the exit is 2.
A prediction that cannot be read is model behaviour: scored as no calls, and named on stderr
after the table (``preds.jsonl:3: python: unbalanced brackets ...``). Warnings go to stderr.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import json
import math
import os
import re
import stat
import sys
import tempfile
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, TextIO

from . import COMPILED, VERSION, Score, Settings, Tally, ToolCallMetric, ToolCallParseError
from .metric import mostly_unreadable, reference_group
from .values import MAX_DEPTH, WALK_DEPTH, DuplicateKeyError, held_json, loads_strict
from .resampling import TESTS, Units, check_interval, interval, signature_parts
from .significance import compare
from .templates import TemplateReader

__all__ = [
    "EXIT_FAIL",
    "EXIT_OK",
    "EXIT_USAGE",
    "InputError",
    "build_parser",
    "main",
    "render_table",
    "run_score",
]

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2

PROG = "toolcall-f1"


class InputError(Exception):
    """A usage or input problem: reported on stderr as ``toolcall-f1: <message>``, exit 2."""


# --------------------------------------------------------------------------- JSON, strictly

#: The CLI's reader of JSON text: :func:`~toolcall_f1.values.loads_strict`, the package's one
#: rule for a key given two values (``benchmarks/bench_cli_input.py`` swaps it for ``json.loads``).
_loads = loads_strict


# --------------------------------------------------------------------------- reading input


@dataclass(frozen=True, slots=True)
class _Line:
    line: int  # 1-based line number in its file
    value: Any  # the parsed JSON value (None when ``error`` says why there is none)
    nbytes: int  # bytes consumed up to and including this line (for the progress bar)
    error: str | None = None  # why the line is not a JSON value
    #: the fields of the line (its keys; None: the line's value itself) holding JSON nested
    #: deeper than the decoder recurses, read only to :data:`_KEPT_DEPTH` levels (:func:`_parse_deep`)
    deep: frozenset[str | None] = frozenset()


class _Source:
    """A JSONL file (or ``-`` for stdin) read line by line; blank lines are skipped."""

    def __init__(self, name: str, fh: IO[bytes], size: int | None) -> None:
        self.name = name
        self._fh = fh
        self.size = size  # bytes, when known (for the progress bar)

    def where(self, line: int) -> str:
        return f"{self.name}:{line}"

    def records(self) -> Iterator[_Line]:
        """The non-blank lines, parsed (a blank line's bytes count towards the next one); a
        line that is not JSON comes with its ``error``, and reading goes on. A UTF-8 byte order
        mark at the start is skipped; a file that opens a JSON array over several lines (a
        ``.json`` file, not JSONL) is an :class:`InputError` at its first line."""
        pending = 0
        first = True
        for lineno, raw in enumerate(self._fh, 1):
            if lineno == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM):]
                pending += len(_BOM)
            if not raw.strip():
                pending += len(raw)
                continue
            n, pending = len(raw) + pending, 0
            value, error, deep = _parse_line(raw)
            if first and error is not None and _opens_an_array(raw):
                raise InputError(f"{self.where(lineno)}: this is a JSON array, not JSONL: the input must hold one JSON "
                                 f"object per line (convert it: jq -c '.[]' {self.name} > examples.jsonl)")
            first = False
            yield _Line(lineno, value, n, error, deep)

    def count_rest(self) -> int:
        """Non-blank lines not read yet (not parsed: only counted)."""
        return sum(1 for raw in self._fh if raw.strip())


_BOM = b"\xef\xbb\xbf"


def _opens_an_array(raw: bytes) -> bool:
    """Does this unreadable first line open a JSON array written over several lines (``[``
    alone, or ``[{...},``), as a ``.json`` file does?"""
    line = raw.strip()
    return line.startswith(b"[") and (line == b"[" or line.endswith(b","))


def _parse_line(raw: bytes) -> tuple[Any, str | None, frozenset[str | None]]:
    """One JSONL line → (value, None, the fields nested too deeply to read whole: see
    :func:`_parse_deep`) or (None, why it is not a JSON value, no fields)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return None, f"not valid UTF-8: {err.reason} at byte {err.start}", frozenset()
    text = text.rstrip("\r\n")
    try:
        return _loads(text), None, frozenset()
    except DuplicateKeyError as err:
        return None, str(err), frozenset()
    except json.JSONDecodeError as err:
        return None, f"invalid JSON: {err.msg} (column {err.colno})", frozenset()
    except RecursionError:  # valid JSON may nest deeper than the decoder recurses
        return _parse_deep(text)
    except ValueError as err:  # an integer of more than 4,300 digits
        return None, f"invalid JSON: {err}", frozenset()


# --------------------------------------------------------------------------- JSON nested deeply

#: How many levels of a line nested beyond what the decoder recurses are kept (past every
#: limit of the scorer: :data:`~toolcall_f1.values.WALK_DEPTH`, and so ``MAX_DEPTH``).
_KEPT_DEPTH = max(256, WALK_DEPTH + 1)

#: A JSON string (its brackets are text; one never closed runs to the end), or a run of
#: opening or of closing brackets.
_BRACKETS = re.compile(r'"(?:[^"\\]++|\\.?)*+"?|[\[{]++|[\]}]++', re.S)


def _parse_deep(text: str) -> tuple[Any, str | None, frozenset[str | None]]:
    """A line the decoder could not read for its depth → (its value, None, the fields cut) or
    (None, why it is not JSON, no fields), in linear time, by the same decoder.

    The line is cut into slices of :data:`_KEPT_DEPTH` levels; each slice is decoded with the
    containers below it written as empty ones (``[]``, ``{}``), so every character is decoded
    once and JSON that is not valid at any depth is reported as such. The value is the top
    slice: real to :data:`_KEPT_DEPTH` levels, then an empty container — deeper than every
    limit of the scorer, so a prediction read so gets the verdict the API gives the whole
    value (one parse error: "nested deeper than 64 levels"; under ``--order turns``, its
    turn's). The fields cut are named (a field's key; None when the line is no object): only
    a prediction may be one (:func:`_refuse_deep`)."""
    spans, fields = _deep_spans(text)
    value: Any = None
    errors: list[tuple[int, str]] = []  # (column, message): the first in the line is the decoder's
    for generation, (combined, where) in enumerate(_deep_layers(text, spans)):
        try:
            decoded = _loads(combined)
        except DuplicateKeyError as err:
            column = None if err.column is None else _column(where, err.column - 1, len(text))
            errors.append((column or 0, str(DuplicateKeyError(err.key, line=1, column=column, data=True))))
        except json.JSONDecodeError as err:
            column = _column(where, err.pos, len(text))
            errors.append((column, f"invalid JSON: {err.msg} (column {column})"))
        except RecursionError:  # (the call came in already deep)
            return None, "invalid JSON: nested too deeply", frozenset()
        except ValueError as err:  # an integer of more than 4,300 digits
            errors.append((len(text) + 1, f"invalid JSON: {err}"))
        else:
            if generation == 0:
                value = decoded
    if errors:  # the first in the line: a slice's decoding may also fail further on for an error above it
        return None, min(errors)[1], frozenset()
    return value, None, _cut_fields(text, spans, fields) if isinstance(value, dict) else frozenset([None])


def _cut_fields(text: str, spans: list[tuple[int, int, int]], fields: list[tuple[int, int, int]]) -> frozenset[str | None]:
    """The keys of a JSON object line (valid: decoded) whose values hold a cut ``spans`` (each
    inside one field's value: ``fields``, as (value's start, key's start, key's end) in order)."""
    starts = [start for start, _, _ in fields]
    cut: set[str | None] = set()
    for start, _, _ in spans:
        _, key_start, key_end = fields[bisect.bisect_right(starts, start) - 1]
        cut.add(_loads(text[key_start:key_end]))
    return frozenset(cut)


def _column(where: list[tuple[int, int]], pos: int, size: int) -> int:
    """The 1-based column in the line of position ``pos`` of a text :func:`_deep_layers` made."""
    i = bisect.bisect_right(where, (pos, size)) - 1
    return min(where[i][1] + pos - where[i][0] + 1, size + 1) if i >= 0 else 1


def _deep_layers(text: str, spans: list[tuple[int, int, int]]) -> list[tuple[str, list[tuple[int, int]]]]:
    """The texts :func:`_parse_deep` decodes, top slice first: the line with its containers
    opening :data:`_KEPT_DEPTH` levels down written empty, then, for each slice further down,
    one JSON array of its containers (written so in turn). Each text comes with where it is
    taken from: (offset in the text, offset in ``text``) at the start of each piece."""
    by_generation: list[list[tuple[int, int]]] = [[(0, len(text))]]
    for start, end, generation in sorted(spans):
        while len(by_generation) <= generation:
            by_generation.append([])
        by_generation[generation].append((start, end))
    layers = []
    for generation, parents in enumerate(by_generation):
        children = by_generation[generation + 1] if generation + 1 < len(by_generation) else []
        layers.append(_layer(text, parents, children, wrap=generation > 0))
    return layers


def _layer(text: str, parents: list[tuple[int, int]], children: list[tuple[int, int]],
           wrap: bool) -> tuple[str, list[tuple[int, int]]]:
    """The ``parents`` slices of ``text`` with the ``children`` in them (both in order) written
    as empty containers, joined into one JSON array when ``wrap``; and where each piece is from."""
    pieces: list[str] = ["["] if wrap else []
    where: list[tuple[int, int]] = []
    size = len(pieces)
    k = 0
    for n, (start, end) in enumerate(parents):
        if n:
            pieces.append(",")
            size += 1
        at = start
        while k < len(children) and children[k][0] < end:
            c_start, c_end = children[k]
            where.append((size, at))
            pieces.append(text[at:c_start])
            size += c_start - at
            where.append((size, c_start))
            pieces.append("[]" if text[c_start] == "[" else "{}")
            size += 2
            at = c_end
            k += 1
        where.append((size, at))
        pieces.append(text[at:end])
        size += end - at
    if wrap:
        pieces.append("]")
    return "".join(pieces), where


def _deep_spans(text: str) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
    """(start, end, slice) of every container of ``text`` opening ``k`` × :data:`_KEPT_DEPTH`
    levels down (``k`` ≥ 1, its slice), found by counting brackets outside JSON strings, a run
    of them at once; one left open ends at the end of the text (its decoding then says so).
    And (start, key's start, key's end) of each container one level down, with the string
    before it (its key, when the text is an object)."""
    spans: list[tuple[int, int, int]] = []
    fields: list[tuple[int, int, int]] = []
    opened: list[tuple[int, int]] = []  # (start, depth) of the cut containers not closed yet
    depth = 0
    key = (0, 0)
    for match in _BRACKETS.finditer(text):
        first, run = match.start(), match.end() - match.start()
        if text[first] == '"':
            if depth == 1:
                key = (first, match.end())
            continue
        if text[first] in "[{":
            if depth == 1 or (depth == 0 and run > 1):
                fields.append((first + 1 - depth, *key))
            cut = max(1, -(-depth // _KEPT_DEPTH)) * _KEPT_DEPTH + 1  # the first cut deeper than depth
            while cut <= depth + run:
                opened.append((first + cut - depth - 1, cut))
                cut += _KEPT_DEPTH
            depth += run
        else:
            while opened and opened[-1][1] > depth - run:
                start, cut = opened.pop()
                spans.append((start, first + depth - cut + 1, cut // _KEPT_DEPTH))
            depth -= run
    spans.extend((start, len(text), cut // _KEPT_DEPTH) for start, cut in opened)
    return spans, fields


class _LineError(Exception):
    """One input line that cannot be used: reported, and the run goes on (exit 2 at the end)."""


def _field(src: _Source, rec: _Line, field: str, option: str | None = None) -> Any:
    """The line's ``field``; with ``option`` (the first example), a field absent is the
    option's fault, not the line's: one :class:`InputError` naming the fields found."""
    if not isinstance(rec.value, Mapping):
        hint = " (one JSON object per line: the file holds a JSON array?)" if isinstance(rec.value, list) else ""
        raise _LineError(
            f"{src.where(rec.line)}: expected a JSON object with a field {field!r}, "
            f"got {type(rec.value).__name__}{hint}"
        )
    if field not in rec.value:
        if option is not None:
            found = ", ".join(repr(k) for k in list(rec.value)[:20]) or "none"
            raise InputError(f"{src.where(rec.line)}: no field {field!r}; the fields found are {found}: "
                             f"name the right one with {option}")
        raise _LineError(f"{src.where(rec.line)}: missing field {field!r}")
    return rec.value[field]


def _with_tools(src: _Source, rec: _Line, reference: Any, tools: Any) -> Any:
    """A reference plus per-example tool schemas as ``{"calls": ..., "tools": ...}``; tools
    given as JSON text are the list it holds (SPEC §2, "JSON text"), and so is a reference's
    ``{"calls", "tools"}`` object."""
    if tools is None:
        return reference
    tools = _held(src, rec, tools, "the tools field")
    if isinstance(reference, str) and reference.lstrip()[:1] == "{":
        reference = _held(src, rec, reference, "the reference")
    if not isinstance(tools, list):
        raise _LineError(
            f"{src.where(rec.line)}: the tools field must be a list of function schemas, "
            f"got {type(tools).__name__}"
        )
    if isinstance(reference, Mapping):
        if isinstance(reference.get("turns"), list) and "tools" not in reference:  # a conversation (--order turns)
            return {**reference, "tools": tools}
        if "calls" in reference and isinstance(reference["calls"], (list, str)):
            raise _LineError(
                f"{src.where(rec.line)}: the reference already has the {{'calls', 'tools'}} form; "
                "put its tools there or drop --tools-field"
            )
        reference = [reference]  # one call or one message: {"calls": {...}} would name a tool "calls"
    elif reference is None:
        reference = []
    elif not isinstance(reference, (list, str)):
        raise _LineError(
            f"{src.where(rec.line)}: cannot attach tools to a reference of type {type(reference).__name__}"
        )
    return {"calls": reference, "tools": tools}


def _held(src: _Source, rec: _Line, value: Any, what: str) -> Any:
    """:func:`~toolcall_f1.values.held_json` of a line's field; a key given two values names the line."""
    try:
        return held_json(value)
    except DuplicateKeyError as err:
        raise _LineError(f"{src.where(rec.line)}: {err.describe(what)}") from None


@dataclass(frozen=True, slots=True)
class _Example:
    index: int
    prediction: Any
    reference: Any
    pred_src: _Source
    pred_line: int
    ref_src: _Source
    ref_line: int
    ident: Any
    nbytes: int
    has_tools: bool  # the line has the --tools-field
    unused_tools: bool = False  # the line has a "tools" field, and no --tools-field was given


_NO_ID = object()


class _Problems:
    """Input lines that cannot be used: each reported on stderr as it is met, counted; the
    run stops early after ``--max-errors`` of them."""

    def __init__(self, max_errors: int | None) -> None:
        self.count = 0
        self.max_errors = max_errors

    def add(self, message: str) -> None:
        self.count += 1
        _print_err(f"{PROG}: error: {message}")
        if self.max_errors is not None and self.count >= self.max_errors:
            raise InputError(f"stopped after --max-errors {self.max_errors} unusable input lines")


def _examples(
    args: argparse.Namespace, pred_src: _Source, ref_src: _Source | None, problems: _Problems
) -> Iterator[_Example]:
    """Pairs of (prediction, reference) from one file with two fields, or from two files;
    a line that cannot be used goes to ``problems`` and the next one is read."""
    pairs = _line_pairs(pred_src, ref_src)
    for i, (prec, rrec) in enumerate(pairs):
        try:
            yield _example(args, i, pred_src, prec, ref_src or pred_src, rrec)
        except _LineError as err:
            problems.add(str(err))


def _line_pairs(pred_src: _Source, ref_src: _Source | None) -> Iterator[tuple[_Line, _Line]]:
    if ref_src is None:
        for rec in pred_src.records():
            yield rec, rec
        return
    p_iter, r_iter = pred_src.records(), ref_src.records()
    i = 0
    while True:
        prec = next(p_iter, None)
        rrec = next(r_iter, None)
        if prec is None or rrec is None:
            if prec is None and rrec is None:
                return
            np = i + (prec is not None) + pred_src.count_rest()
            nr = i + (rrec is not None) + ref_src.count_rest()
            raise InputError(
                f"{pred_src.name} has {np} examples but {ref_src.name} has {nr}; "
                "line i of the predictions pairs with line i of the references"
            )
        yield prec, rrec
        i += 1


def _example(
    args: argparse.Namespace, i: int, pred_src: _Source, prec: _Line, ref_src: _Source, rrec: _Line
) -> _Example:
    """One example from its line(s); raises :class:`_LineError` naming the file and line."""
    two_files = pred_src is not ref_src
    for src, rec in ((pred_src, prec), (ref_src, rrec)) if two_files else ((pred_src, prec),):
        if rec.error is not None:
            raise _LineError(f"{src.where(rec.line)}: {rec.error}")
    pf = args.prediction_field or (None if two_files else "prediction")
    rf = args.reference_field or (None if two_files else "reference")
    if prec.deep or rrec.deep:  # (no prediction field: the whole line is the prediction)
        _refuse_deep(pred_src, prec, prec.deep - (prec.deep if pf is None else {pf}), rf, not two_files)
        if two_files:
            _refuse_deep(ref_src, rrec, rrec.deep, rf, True)
    pred = _field(pred_src, prec, pf, "--prediction-field" if i == 0 else None) if pf else prec.value
    ref = _field(ref_src, rrec, rf, "--reference-field" if i == 0 else None) if rf else rrec.value
    has_tools = False
    if args.tools_field is not None:
        has_tools = isinstance(rrec.value, Mapping) and args.tools_field in rrec.value
        ref = _with_tools(ref_src, rrec, ref, rrec.value.get(args.tools_field) if has_tools else None)
    ident: Any = _NO_ID
    if rf and isinstance(rrec.value, Mapping):
        ident = rrec.value.get(args.id_field, _NO_ID)
    if ident is _NO_ID and pf and isinstance(prec.value, Mapping):
        ident = prec.value.get(args.id_field, _NO_ID)
    unused_tools = args.tools_field is None and isinstance(rrec.value, Mapping) and "tools" in rrec.value
    return _Example(i, pred, ref, pred_src, prec.line, ref_src, rrec.line, ident, prec.nbytes, has_tools, unused_tools)


def _refuse_deep(src: _Source, rec: _Line, cut: frozenset[str | None], reference_field: str | None,
                 holds_reference: bool) -> None:
    """A :class:`_LineError` for the fields ``cut`` of a line read only in part
    (:func:`_parse_deep`), the prediction's left out: a reference so deep (the line's
    ``reference_field``, or the line itself when None) is refused in the API's words, and so
    is any other field (tools, an id, ...), whose value would be scored or shown cut. The
    prediction is read so as the API reads it whole: one parse error."""
    if holds_reference and cut and (reference_field is None or reference_field in cut):
        raise _LineError(f"{src.where(rec.line)}: reference: structured: nested deeper than {MAX_DEPTH} levels")
    named = sorted(key for key in cut if key is not None)  # (None: the line is no object, as _field says)
    if named:
        raise _LineError(f"{src.where(rec.line)}: field {named[0]!r}: nested too deeply to read (deeper than the "
                         "JSON decoder recurses; only a prediction may be: it is then one parse error)")


def _load_json_file(path: str, what: str, kind: type, expected: str) -> Any:
    """The JSON value in ``path``, which must be a ``kind``; errors name the file."""
    text = ""
    try:
        with open(path, encoding="utf-8-sig") as fh:  # (a byte order mark is skipped)
            text = fh.read()
        value = _loads(text)
    except DuplicateKeyError as err:
        raise InputError(f"{path}:{err.line or 1}: {err.describe(what)}") from None
    except OSError as err:
        raise InputError(f"{path}: cannot open {what}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise InputError(f"{path}: {what} is not valid UTF-8: {err.reason}") from None
    except json.JSONDecodeError as err:
        raise InputError(
            f"{path}:{err.lineno}: invalid JSON in {what}: {err.msg} (column {err.colno})"
        ) from None
    except RecursionError:
        raise InputError(f"{path}: invalid JSON in {what}: nested too deeply") from None
    except ValueError as err:  # an integer of more than 4,300 digits
        raise InputError(f"{path}: invalid JSON in {what}: {err}") from None
    if not isinstance(value, kind):
        raise InputError(f"{path}: expected {expected}, got {type(value).__name__}")
    return value


# --------------------------------------------------------------------------- output


def _fmt_count(x: float, digits: int) -> str:
    if math.isfinite(x) and float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.{digits}f}"


def render_table(result: Mapping[str, Any], *, digits: int = 4, source: str = "") -> str:
    """The scores as an aligned, human-readable table (plus the per-tool table if present).

    Examples
    --------
    >>> m = ToolCallMetric()
    >>> r = m.compute([[("f", {"x": 1})], []], [[("f", {"x": 1})], [("g", {})]], per_tool=True)
    >>> print(render_table(r))  # doctest: +NORMALIZE_WHITESPACE
    f1                  0.6667
    precision           1.0000
    recall              0.5000
    exact_match         0.5000  (1 of 2)
    tp                  1
    fp                  0
    fn                  1
    num_examples        2
    num_parse_errors    0
    hallucinated_tools  0
    hallucinated_args   0
    superset_match      0.5000  (made at least the gold calls)
    subset_match        1.0000  (made only gold calls)
    call_decision       accuracy 0.5000, relevance 0.5000, irrelevance n/a  (1 called / 1 missed / 0 uncalled-for / 0 rightly not called)
    signature           level:call|match:greedy|order:any|canon:default|names:exact|pred:auto|ref:auto|w:none|v:...
    <BLANKLINE>
    tool  tp  fp  fn  precision  recall      f1
    f      1   0   0     1.0000  1.0000  1.0000
    g      0   0   1     0.0000  0.0000  0.0000
    """
    n = result["num_examples"]
    lines = [f"toolcall_f1 {VERSION}: {n} examples from {source}", ""] if source else []
    rows = _summary_rows(result, digits)
    width = max(len(k) for k, _ in rows)
    lines += [f"{k:<{width}}  {v}" for k, v in rows]
    table = result.get("per_tool")
    if table is not None:
        lines += ["", *_per_tool_lines(table, digits)]
    return "\n".join(lines)


def _summary_rows(result: Mapping[str, Any], digits: int) -> list[tuple[str, str]]:
    """(name, value) for each corpus number, in the table's order."""
    n = result["num_examples"]
    exact_n = round(result["exact_match"] * n)
    return [
        ("f1", f"{result['f1']:.{digits}f}"),
        ("precision", f"{result['precision']:.{digits}f}"),
        ("recall", f"{result['recall']:.{digits}f}"),
        ("exact_match", f"{result['exact_match']:.{digits}f}  ({exact_n} of {n})"),
        ("tp", _fmt_count(result["tp"], digits)),
        ("fp", _fmt_count(result["fp"], digits)),
        ("fn", _fmt_count(result["fn"], digits)),
        ("num_examples", str(n)),
        ("num_parse_errors", str(result["num_parse_errors"])),
        ("hallucinated_tools", str(result["hallucinated_tools"])),
        ("hallucinated_args", str(result["hallucinated_args"])),
        ("superset_match", f"{result['superset_match']:.{digits}f}  (made at least the gold calls)"),
        ("subset_match", f"{result['subset_match']:.{digits}f}  (made only gold calls)"),
        *([("turn_exact_match", f"{result['turn_exact_match']:.{digits}f}  (reference turns exact)")]
          if "turn_exact_match" in result else []),
        ("call_decision", _decision_row(result["call_decision"], digits)),
        *(_interval_rows(result["ci"], digits) if "ci" in result else []),
        ("signature", result["signature"]),
    ]


def _decision_row(d: Mapping[str, Any], digits: int) -> str:
    """One line of the call decisions: accuracy, relevance, irrelevance and the four counts."""
    def num(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.{digits}f}"

    return (f"accuracy {num(d['accuracy'])}, relevance {num(d['relevance'])}, irrelevance {num(d['irrelevance'])}"
            f"  ({d['expected_and_called']} called / {d['expected_not_called']} missed / "
            f"{d['unexpected_called']} uncalled-for / {d['unexpected_not_called']} rightly not called)")


def _interval_rows(ci: Mapping[str, Any], digits: int) -> list[tuple[str, str]]:
    """The ``ci`` rows: each score's interval at its level."""
    level = f"{ci['level']:.0%}" if round(ci["level"] * 100, 6) == int(ci["level"] * 100) else str(ci["level"])
    return [(f"{name} {level} interval", f"[{lo:.{digits}f}, {hi:.{digits}f}]")
            for name in ("f1", "precision", "recall", "exact_match") for lo, hi in [ci[name]]]


def _per_tool_lines(table: Mapping[str, Mapping[str, float]], digits: int) -> list[str]:
    """The per-tool table: a header and one right-aligned row per tool."""
    if not table:
        return ["(no tool calls in the corpus)"]
    header = ["tool", "tp", "fp", "fn", "precision", "recall", "f1"]
    body = [
        [name, *(_fmt_count(c[k], digits) for k in ("tp", "fp", "fn")),
         *(f"{c[k]:.{digits}f}" for k in ("precision", "recall", "f1"))]
        for name, c in table.items()
    ]
    widths = [max(len(r[k]) for r in [header, *body]) for k in range(len(header))]
    return [
        "  ".join([row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]).rstrip()
        for row in [header, *body]
    ]


# --------------------------------------------------------------------------- command line

SCORE_DESCRIPTION = """\
Score predictions against references read from JSONL, streaming (memory stays bounded).
Each line's value is the prediction/reference as JSON: a string is raw model text, a list
holds calls, an object is a message or a call. Blank lines are skipped.
Exit status: 0 ok, 1 F1 below --fail-under, 2 usage or input error."""

#: ``score --help``'s epilog: what each printed number means (the footer under the table points
#: here, as the help is there wherever the package is installed), then example commands.
SCORE_EPILOG = """\
what the numbers mean:
  f1, precision, recall  micro-averaged: weighted counts summed over all examples, then
                         divided (1.0 when nothing was expected and nothing predicted)
  exact_match            the share of ALL examples that are exact: prediction read, every
                         gold call matched exactly, no extra call (BFCL's accuracy; weights
                         do not enter it)
  tp, fp, fn             weighted counts: a call counts its tool's weight (1 unless --tools
                         or --weights set one); with --level arg, each argument too
  num_examples           examples scored
  num_parse_errors       predictions that could not be read (scored as no calls)
  hallucinated_tools     predicted calls to tools that the schemas do not declare
  hallucinated_args      predicted arguments that the schemas do not declare
  superset_match         share of examples read whose gold calls are all matched exactly
                         (the model made at least the gold calls)
  subset_match           share of examples read whose predicted calls are all matched
                         exactly (the model made only gold calls)
  turn_exact_match       with --order turns: the share of reference turns that are exact
  call_decision          examples by "gold has a call" x "model attempted one" (a parse
                         error is an attempt): accuracy, relevance (called / expected),
                         irrelevance (not called / not expected); unweighted
  ... interval           with --confidence: percentile bootstrap intervals of the examples'
                         counts (a reference's "group" resamples its group together)
  signature              every setting that produced the numbers: quote it with the score

examples:
  toolcall-f1 score --input run.jsonl --tools tools.json --per-tool
  toolcall-f1 score -p preds.jsonl -r refs.jsonl -o json --fail-under 0.8
  toolcall-f1 score --input run.jsonl -o json --details - > scored.jsonl   # summary: last line"""



def build_parser() -> argparse.ArgumentParser:
    """The ``toolcall-f1`` argument parser (subcommand ``score``).

    Returns
    -------
    argparse.ArgumentParser
        The parser ``main`` uses; ``score``'s options come in three groups: input, scoring
        settings, output.

    Examples
    --------
    >>> args = build_parser().parse_args(["score", "--input", "run.jsonl", "--level", "arg"])
    >>> args.command, args.input, args.level, args.matching
    ('score', 'run.jsonl', 'arg', 'greedy')
    """
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Cost-weighted, micro-averaged F1 for LLM tool calls (BFCL-style AST matching).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {VERSION} ({'compiled' if COMPILED else 'pure Python'})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    score = sub.add_parser(
        "score",
        help="score JSONL predictions against references",
        description=SCORE_DESCRIPTION,
        epilog=SCORE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_input_options(score.add_argument_group("input (either --input, or --predictions with --references)"))
    _add_scoring_options(score.add_argument_group("scoring settings (all appear in the signature)"))
    _add_output_options(score.add_argument_group("output"))
    _add_compare_parser(sub)
    return parser


COMPARE_DESCRIPTION = """\
Is the difference real? Score every system against the same references with the same
settings, then test each against the first (the baseline) with a paired test over the
examples' counts (SPEC §8b): a paired bootstrap (default) or approximate randomization.
Each system file holds one prediction per line, in the references' order: the line's whole
JSON value (a text, a message, a list of calls), or the field --prediction-field names.
A reference's "group" key (on {"calls": ..., "group": ...}) resamples that group's examples
together (samples of one prompt, turns of one conversation)."""


def _add_compare_parser(sub: Any) -> None:
    """The ``compare`` subcommand's options."""
    cmp = sub.add_parser("compare", help="paired significance test of systems on the same references",
                         description=COMPARE_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    cmp.add_argument("systems", nargs="+", metavar="SYSTEM.jsonl",
                     help="one JSONL file of predictions per system; the first is the baseline")
    src = cmp.add_argument_group("input")
    src.add_argument("--references", "-r", required=True, metavar="FILE", help="JSONL file of references, one per line")
    src.add_argument("--prediction-field", metavar="NAME",
                     help="read this field of each system line (default: the line's whole JSON value)")
    src.add_argument("--reference-field", metavar="NAME",
                     help="read this field of each reference line (default: the line's whole JSON value)")
    src.add_argument("--tools-field", metavar="NAME",
                     help="field holding per-example tool schemas (a list, or JSON text holding one), read from "
                          "the reference line (as score's)")
    src.add_argument("--tools", metavar="FILE", help="JSON file with a list of tool schemas for every example")
    src.add_argument("--weights", metavar="FILE", help="JSON file of weight overrides")
    _add_scoring_options(cmp.add_argument_group("scoring settings (the same for every system)"))
    test = cmp.add_argument_group("the test")
    test.add_argument("--test", choices=tuple(TESTS), default="bootstrap",
                      help="bootstrap: paired bootstrap (default); randomization: approximate randomization")
    test.add_argument("--n-resamples", type=int, metavar="N",
                      help="resamples (bootstrap, default 1000) or trials (randomization, default 10000)")
    test.add_argument("--seed", type=int, default=12345, help="the seed of numpy's default_rng (default 12345)")
    test.add_argument("--confidence", "--confidence-level", dest="confidence",
                      type=float, default=0.95, metavar="LEVEL",
                      help="the level of each system's F1 interval (default 0.95)")
    out = cmp.add_argument_group("output")
    out.add_argument("--output-format", "-o", choices=("table", "json"), default="table",
                     help="table (default) or json: compare()'s result on one line")
    out.add_argument("--digits", type=int, default=4, help="decimals in the table (default 4)")


def _add_input_options(src: argparse._ArgumentGroup) -> None:
    """Where the examples come from: the files, their fields, the tool schemas and weights."""
    src.add_argument(
        "--input",
        "-i",
        metavar="FILE",
        help="one JSONL file with a prediction and a reference field per line ('-' for stdin)",
    )
    src.add_argument("--predictions", "-p", metavar="FILE", help="JSONL file of predictions, one per line")
    src.add_argument(
        "--references",
        "-r",
        metavar="FILE",
        help="JSONL file of references; line i pairs with line i of --predictions",
    )
    for what in ("prediction", "reference"):
        src.add_argument(
            f"--{what}-field",
            metavar="NAME",
            help=(
                f"field holding the {what} (default '{what}' with --input; "
                "with two files, the whole line unless given)"
            ),
        )
    src.add_argument(
        "--tools-field",
        metavar="NAME",
        help="field holding per-example tool schemas (a list, or JSON text holding one), read from the reference line",
    )
    src.add_argument(
        "--id-field",
        metavar="NAME",
        default="id",
        help="field copied into --details when present (default 'id')",
    )
    src.add_argument(
        "--tools",
        metavar="FILE",
        help="JSON file: a list of tool schemas (OpenAI, BFCL, Anthropic, MCP or Gemini form, 'importance' weights)",
    )
    src.add_argument(
        "--weights",
        metavar="FILE",
        help='JSON file: {tool: w} or {tool: {"weight": w, "arguments": {arg: w}}}',
    )


#: ``--rules``: argument rules (SPEC §6b), as a file or JSON text.
RULES_HELP = ('argument rules: a JSON file, or JSON text, {tool: {arg: rule}} ("*" for every argument of the tool '
              'without its own); a rule is exact, ignore, unordered, subset, superset, {"abs_tol": x} or '
              '{"rel_tol": y}. A callable rule (p, g) -> bool is possible only from Python')


def _add_scoring_options(st: argparse._ArgumentGroup) -> None:
    """The settings that change the numbers (each one appears in the signature)."""
    st.add_argument(
        "--level",
        choices=Settings.allowed("level"),
        default="call",
        help="call: exact calls only (default); arg: credit per argument",
    )
    st.add_argument(
        "--matching", choices=Settings.allowed("matching"), default="greedy", help="how calls are paired (default greedy)"
    )
    st.add_argument(
        "--order", choices=Settings.allowed("order"), default="any",
        help="any: calls as a multiset (default); strict: pairs keep both orders; turns: a reference "
             '{"turns": [...]} and a prediction with one entry per turn, calls pair only within a turn',
    )
    st.add_argument(
        "--canonicalizer",
        choices=Settings.allowed("canonicalizer"),
        default="default",
        help="string comparison (default: casefold, fold whitespace)",
    )
    st.add_argument(
        "--name-canonicalizer",
        choices=Settings.allowed("name_canonicalizer"),
        default="exact",
        help="tool-name comparison; underscore reads a.b as a_b",
    )
    pred_formats = Settings.allowed("prediction_format")
    ref_formats = Settings.allowed("reference_format")
    st.add_argument(
        "--prediction-format",
        choices=pred_formats,
        default="auto",
        metavar="FMT",
        help="how prediction text is read: " + ", ".join(pred_formats) + " (default auto)",
    )
    st.add_argument(
        "--response-template",
        metavar="FILE",
        help="read prediction text with the model's own transformers response template: a JSON "
        "file holding it (or a tokenizer_config.json with a response_template); needs transformers>=5.13",
    )
    st.add_argument(
        "--reference-format",
        choices=ref_formats,
        default="auto",
        metavar="FMT",
        help="how references are read: "
        + ", ".join(ref_formats)
        + " (default auto; bfcl for BFCL possible answers)",
    )
    st.add_argument(
        "--on-parse-error",
        choices=Settings.allowed("on_parse_error"),
        default="count",
        help="count unreadable predictions (default) or stop with exit 2",
    )
    st.add_argument("--rules", metavar="FILE|JSON", help=RULES_HELP)


def _add_output_options(out: argparse._ArgumentGroup) -> None:
    """What is printed, and when the run fails."""
    out.add_argument(
        "--output-format",
        "-o",
        choices=("table", "json"),
        default=None,
        help="table (default), or json: the summary as one JSON object on one line (with "
        "--details -, the details come first, one JSON line per example; the summary is the last line)",
    )
    out.add_argument(  # deprecated spelling of --output-format: elsewhere 'format' names how input is read
        "--format", "-f", dest="legacy_format", choices=("table", "json"), help=argparse.SUPPRESS
    )
    out.add_argument("--per-tool", action="store_true", help="also report TP/FP/FN and scores per tool")
    out.add_argument(
        "--details",
        metavar="FILE",
        help="write per-example verdicts as JSONL (line number + Score.to_dict(), the parse "
        "error as file:line: format: reason); '-' writes them to stdout before the summary. "
        "Written once the run has scores: after exit 2, stdout is empty and FILE too",
    )
    out.add_argument(
        "--max-errors",
        type=int,
        metavar="N",
        help="stop after N input lines that cannot be used (default: report them all, then exit 2)",
    )
    out.add_argument("--digits", type=int, default=4, metavar="N", help="decimals in the table (default 4)")
    out.add_argument("--confidence", "--confidence-level", dest="confidence",
                      type=float, metavar="LEVEL",
                     help="add percentile bootstrap intervals at this level (e.g. 0.95) from the examples' counts; "
                     "a reference's \"group\" key resamples its group together (see compute(confidence_level=))")
    out.add_argument("--n-resamples", type=int, default=1000, metavar="N", help="resamples of --confidence (default 1000)")
    out.add_argument("--seed", type=int, default=12345, help="seed of --confidence's resamples (default 12345)")
    out.add_argument(
        "--fail-under", type=float, metavar="F1", help="exit 1 when F1 is below this value (CI gate)"
    )
    progress = out.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="show a progress bar on stderr (default: when stderr is a terminal)",
    )
    progress.add_argument(
        "--no-progress", dest="progress", action="store_false", help="never show a progress bar"
    )


def _check_args(args: argparse.Namespace) -> None:
    if args.input is not None:
        if args.predictions is not None or args.references is not None:
            raise InputError("give either --input, or --predictions with --references, not both")
    elif args.predictions is None or args.references is None:
        raise InputError("give --input FILE, or both --predictions FILE and --references FILE")
    elif args.predictions == "-" and args.references == "-":
        raise InputError("only one of --predictions and --references can be '-' (stdin)")
    if args.fail_under is not None and not 0.0 <= args.fail_under <= 1.0:
        raise InputError(f"--fail-under must be between 0 and 1, got {args.fail_under}")
    if not 0 <= args.digits <= 17:
        raise InputError(f"--digits must be between 0 and 17, got {args.digits}")
    if args.max_errors is not None and args.max_errors < 1:
        raise InputError(f"--max-errors must be at least 1, got {args.max_errors}")
    if args.legacy_format is not None:
        _print_err(f"{PROG}: warning: --format/-f is deprecated, use --output-format/-o")
        if args.output_format is None:
            args.output_format = args.legacy_format
    if args.output_format is None:
        args.output_format = "table"


def _metric(args: argparse.Namespace) -> ToolCallMetric:
    """The metric of the scoring settings (each option's dest is its :class:`Settings` field),
    ``--tools`` and ``--weights`` read from their files; errors name the file."""
    tools = None
    if args.tools is not None:
        tools = _load_json_file(args.tools, "tools", list, "a JSON list of tool schemas")
    weights = None
    if args.weights is not None:
        weights = _load_json_file(args.weights, "weights", dict, "a JSON object of tool weights")
    rules = None if args.rules is None else _rules_option(args.rules)
    chosen = {name: getattr(args, name) for name in Settings.names() if name not in ("tools", "weights", "rules")}
    chosen["prediction_format"] = _response_template(args) or args.prediction_format
    try:
        return ToolCallMetric.from_settings(Settings(**chosen, tools=tools, weights=weights, rules=rules))
    except (ValueError, TypeError, RecursionError) as err:  # schemas the core could not read
        if isinstance(err, RecursionError):
            err = ValueError("nested too deeply")
        culprit = args.weights if str(err).startswith("weights") and args.weights else args.tools
        if str(err).startswith("rules"):
            culprit = "--rules" if args.rules.lstrip().startswith("{") else args.rules
        raise InputError(f"{culprit}: {err}" if culprit else str(err)) from None


def _rules_option(given: str) -> Any:
    """``--rules``: JSON text holding an object (it starts with ``{``), else a JSON file."""
    if not given.lstrip().startswith("{"):
        return _load_json_file(given, "rules", dict, "a JSON object {tool: {argument: rule}}")
    try:
        return _loads(given)
    except (ValueError, RecursionError) as err:  # JSONDecodeError and a key given twice are ValueErrors
        raise InputError(f"--rules: invalid JSON text: {err}") from None


def _strip_where(message: str) -> str:
    """The core's ``predictions[3]`` dropped (the line names the example); a turn's index is kept.

    >>> _strip_where("predictions[3]: python: bad"), _strip_where("predictions[3][1]: python: bad")
    ('python: bad', 'turn 1: python: bad')
    """
    head, sep, rest = message.partition(": ")
    if not sep or not head.startswith(("predictions[", "references[")):
        return message
    _, _, entry = head.partition("][")
    return f"turn {entry.rstrip(']')}: {rest}" if entry else rest


def _response_template(args: argparse.Namespace) -> TemplateReader | None:
    """The reader of ``--response-template FILE``, if given; errors name the file."""
    path = args.response_template
    if path is None:
        return None
    if args.prediction_format != "auto":
        raise InputError("give --prediction-format or --response-template, not both")
    spec = _load_json_file(path, "response template", dict, "a JSON object (a response template)")
    if "fields" not in spec and isinstance(spec.get("response_template"), dict):
        spec = spec["response_template"]  # a tokenizer_config.json
    try:
        return TemplateReader(spec)
    except (ValueError, ImportError) as err:
        raise InputError(f"{path}: {err}") from None


class _Feed:
    """A run's examples as the two streams :meth:`ToolCallMetric.scores` zips, in step: taking
    a prediction reads the next example (``current``), and the reference taken next is its
    reference. Errors of an example come back through :meth:`error`, naming its file and line."""

    def __init__(self, examples: Iterator[_Example], problems: _Problems) -> None:
        self._examples = examples
        self._problems = problems
        self._done = False
        self.current: _Example | None = None

    def predictions(self) -> Iterator[Any]:
        for ex in self._examples:
            self.current = ex
            yield ex.prediction
        self._done = True

    def references(self) -> Iterator[Any]:
        while not self._done and self.current is not None:
            yield self.current.reference

    def error(self, index: int, err: Exception) -> None:
        """``scores()``'s ``on_error``: a bad reference is reported and skipped; a prediction
        that cannot be read with ``--on-parse-error raise`` stops the run."""
        ex = self.current
        assert ex is not None  # an error comes with the example just taken
        if isinstance(err, ToolCallParseError) and err.where is not None and err.where.startswith("predictions"):
            raise InputError(f"{ex.pred_src.where(ex.pred_line)}: prediction: {_strip_where(str(err))}") from None
        if str(err).startswith("predictions"):  # --order turns: a prediction that is no list of turns
            return self._problems.add(f"{ex.pred_src.where(ex.pred_line)}: prediction: {_strip_where(str(err))}")
        self._problems.add(f"{ex.ref_src.where(ex.ref_line)}: reference: {_strip_where(str(err))}")


def _show_progress(args: argparse.Namespace) -> bool:
    if args.progress is not None:
        return bool(args.progress)
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _write(stream: TextIO, text: str) -> None:
    """Write ``text``; what the stream cannot encode (a lone surrogate in a tool name, or any
    character on an ASCII terminal) is written as a backslash escape instead of failing."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    stream.write(text.encode(encoding, "backslashreplace").decode(encoding))


def _print_err(text: str) -> None:
    _write(sys.stderr, text + "\n")


#: Unreadable predictions named on stderr after the table (all of them are in --details).
SHOWN_PARSE_ERRORS = 5


@dataclass
class _Run:
    """What one ``score`` run gathers besides the scores: for the report after the table."""

    parse_errors: list[str]  # the first few, as file:line: format: reason
    warnings: dict[str, int]  # message → times raised
    lines_with_tools: int = 0
    lines_with_unused_tools: int = 0
    parse_error: str | None = None  # the last example's, as file:line: format: reason
    units: Units | None = None  # each example's counts, for --confidence


def _open_sources(args: argparse.Namespace, stack: contextlib.ExitStack) -> list[_Source]:
    sources = []
    for path in [args.input] if args.input is not None else [args.predictions, args.references]:
        if path == "-":
            sources.append(_Source("<stdin>", sys.stdin.buffer, None))
            continue
        try:
            fh = stack.enter_context(open(path, "rb"))
        except OSError as err:
            raise InputError(f"{path}: cannot open: {err.strerror or err}") from None
        sources.append(_Source(path, fh, os.path.getsize(path) if os.path.isfile(path) else None))
    return sources


class _Details:
    """``--details``: one JSON line per example, held in a temporary file (on disk past 1 MB,
    so memory stays bounded) and written to ``--details FILE`` or stdout only once the run has
    scores. A run that stops on unusable input (exit 2) prints nothing on stdout, with or
    without ``--details``, and leaves FILE as it was (an earlier run's details are kept): no
    half output to be taken for a result."""

    def __init__(self, dest: TextIO, stack: contextlib.ExitStack, replace: bool = False) -> None:
        self.dest = dest
        self.replace = replace  # a regular FILE, opened for appending: emptied only in publish
        self.rows: tempfile.SpooledTemporaryFile[str] = stack.enter_context(
            tempfile.SpooledTemporaryFile(max_size=1 << 20, mode="w+", encoding="utf-8", errors="backslashreplace")
        )

    def hold(self, row: str) -> None:
        """Keep one row until :meth:`publish`; a temporary file that cannot be written (a full
        disk) is an :class:`InputError` naming its directory."""
        try:
            self.rows.write(row)
        except OSError as err:
            raise InputError(f"{tempfile.gettempdir()}: cannot hold the details in a temporary file: "
                             f"{err.strerror or err}") from None

    def publish(self) -> None:
        """Copy the rows to their destination (a FILE's earlier content replaced)."""
        if self.replace:
            self.dest.truncate(0)
        self.rows.seek(0)
        while chunk := self.rows.read(1 << 16):
            _write(self.dest, chunk)
        self.dest.flush()


def _open_details(args: argparse.Namespace, stack: contextlib.ExitStack, stdout: TextIO) -> _Details | None:
    """Where ``--details`` go, checked and opened (a FILE is left as it is until the run has
    scores) before any example is read."""
    if args.details is None:
        return None
    if args.details == "-":
        return _Details(stdout, stack)
    for given in (args.input, args.predictions, args.references, args.tools, args.weights):
        if given and given != "-" and os.path.exists(args.details) and os.path.exists(given) \
                and os.path.samefile(given, args.details):
            raise InputError(f"{args.details}: --details would overwrite an input file; write the details elsewhere")
    try:
        dest = open(args.details, "a", encoding="utf-8", errors="backslashreplace")
    except OSError as err:
        raise InputError(f"{args.details}: cannot write details: {err.strerror or err}") from None
    stack.callback(_close_quietly, dest)
    return _Details(dest, stack, replace=stat.S_ISREG(os.fstat(dest.fileno()).st_mode))


def _close_quietly(dest: TextIO) -> None:
    """Close a details FILE. A write that failed (a full disk) was reported when the details
    were published; what is left in the buffer cannot be written on closing either."""
    with contextlib.suppress(OSError):
        dest.close()


def _progress_bar(args: argparse.Namespace, stack: contextlib.ExitStack, size: int | None) -> Any:
    if not _show_progress(args):
        return None
    from tqdm import tqdm

    return stack.enter_context(
        tqdm(total=size, desc=PROG, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr, dynamic_ncols=True)
    )


def _detail_row(ex: _Example, score: Score, two_files: bool, parse_error: str | None) -> str:
    row: dict[str, Any] = {"line": ex.pred_line}
    if two_files:
        row["reference_line"] = ex.ref_line
    row["index"] = ex.index
    if ex.ident is not _NO_ID:
        row["id"] = ex.ident
    row.update(score.to_dict())
    row["parse_error"] = parse_error
    return json.dumps(row, ensure_ascii=False, default=repr) + "\n"


def _stream(
    args: argparse.Namespace, metric: ToolCallMetric, stats: Tally, run: _Run, details: _Details | None
) -> None:
    """Read, score (:meth:`ToolCallMetric.scores`) and fold in every example; unusable lines
    are reported and skipped."""
    problems = _Problems(args.max_errors)
    with contextlib.ExitStack() as stack:
        sources = _open_sources(args, stack)
        pred_src, ref_src = sources[0], (sources[1] if len(sources) == 2 else None)
        bar = _progress_bar(args, stack, pred_src.size)
        feed = _Feed(_examples(args, pred_src, ref_src, problems), problems)
        try:
            for score in metric.scores(feed.predictions(), feed.references(), on_error=feed.error):
                ex = feed.current
                assert ex is not None
                _fold(score, ex, stats, run, pred_src.where(ex.pred_line))
                if details is not None:
                    details.hold(_detail_row(ex, score, ref_src is not None, run.parse_error))
                if bar is not None:
                    bar.update(ex.nbytes)
        except RecursionError:  # a schema (--tools or per-example) nested beyond what can be walked
            ex = feed.current
            assert ex is not None
            raise InputError(f"{ex.ref_src.where(ex.ref_line)}: tool schemas nested too deeply") from None
    if problems.count:
        raise InputError(f"{problems.count} input line(s) could not be used (above); no scores reported")
    if not stats.num_examples:
        names = args.input if args.input is not None else f"{args.predictions} and {args.references}"
        raise InputError(f"no examples: nothing was read from {names} (empty, or only blank lines)")


def _fold(score: Score, ex: _Example, stats: Tally, run: _Run, where: str) -> None:
    """One example's score into the sums, and what the report after the table says of it."""
    stats.add(score)
    if run.units is not None:
        try:
            run.units.add(score.tp, score.fp, score.fn, score.exact, reference_group(ex.reference, ex.index))
        except ValueError as err:
            raise InputError(f"{ex.ref_src.where(ex.ref_line)}: reference: {_strip_where(str(err))}") from None
    run.lines_with_tools += ex.has_tools
    run.lines_with_unused_tools += ex.unused_tools
    run.parse_error = None
    if score.parse_error is not None:
        run.parse_error = f"{where}: {_strip_where(score.parse_error)}"
        if len(run.parse_errors) < SHOWN_PARSE_ERRORS:
            run.parse_errors.append(run.parse_error)


def _collect_warnings(run: _Run) -> Any:
    """A ``showwarning`` that keeps each distinct message once (with a count) for stderr."""

    def show(message: Warning | str, *_: Any, **__: Any) -> None:
        text = str(message)
        if text in run.warnings or len(run.warnings) < 100:
            run.warnings[text] = run.warnings.get(text, 0) + 1

    return show


def _print_warnings(run: _Run) -> None:
    """The warnings :func:`_collect_warnings` kept, on stderr, one line each (with a count)."""
    for text, times in run.warnings.items():
        _print_err(f"{PROG}: warning: {text}" + (f" (x{times})" if times > 1 else ""))


def _notes(result: Mapping[str, Any], args: argparse.Namespace) -> str:
    """The lines under the table that say how to read it (for someone new to the tool)."""
    n_err = result["num_parse_errors"]
    notes = [
        "",
        "tp/fp/fn are weighted counts: a call counts its tool's weight (1 unless --tools or --weights set one).",
        "f1/precision/recall are micro-averaged: counts summed over all examples, then divided.",
        "signature: every setting that produced these numbers; quote it with the score.",
    ]
    if n_err:
        notes.append(f"{n_err} prediction(s) could not be read: scored as no calls (where and why: on stderr, below).")
    more = "--details FILE ('-' for stdout)" if args.details is None else f"--details ({args.details})"
    notes.append(f"Per-example verdicts: {more}. What each number means: {PROG} score --help.")
    return "\n".join(notes)


def _report(run: _Run, result: Mapping[str, Any], args: argparse.Namespace) -> None:
    """After the table, on stderr: warnings, then the predictions that could not be read."""
    if args.tools_field is not None and run.lines_with_tools == 0:
        run.warnings[f"--tools-field {args.tools_field!r} is absent from every line: no per-example tools"] = 1
    if run.lines_with_unused_tools:
        run.warnings[
            f"{run.lines_with_unused_tools} line(s) carry a 'tools' field that was not used: "
            "add --tools-field tools to judge each example with its own tool schemas"
        ] = 1
    n_err, n = result["num_parse_errors"], result["num_examples"]
    if mostly_unreadable(n_err, n):  # the core's compute() warning, in the CLI's words
        run.warnings[f"{n_err} of {n} predictions could not be read: is --prediction-format {args.prediction_format!r} right?"] = 1
    _print_warnings(run)
    if n_err:
        shown = "" if n_err <= len(run.parse_errors) else f"; the first {len(run.parse_errors)}"
        _print_err(f"{PROG}: {n_err} prediction(s) could not be read (scored as no calls){shown}:")
        for line in run.parse_errors:
            _print_err(f"  {line}")
        if args.details is None:
            _print_err("  (every example's verdict and parse error: --details FILE)")


def _publish(args: argparse.Namespace, details: _Details | None, stdout: TextIO, text: str) -> None:
    """Write the details (if asked) and the result. A write that fails (a full disk:
    ``/dev/full``) is an :class:`InputError` naming the file; a closed pipe is silence."""
    where, what = _stdout_name(stdout), "the result"
    try:
        if details is not None:
            where = where if args.details == "-" else args.details
            what = "the details"
            details.publish()
            where, what = _stdout_name(stdout), "the result"
        _write(stdout, text + "\n")
        stdout.flush()
    except BrokenPipeError:  # `toolcall-f1 score ... | head`: silence the exit-time flush
        _silence(stdout)
    except OSError as err:
        _silence(stdout)  # what is left in stdout's buffer could not be written at exit either
        raise InputError(f"{where}: cannot write {what}: {err.strerror or err}") from None


def _stdout_name(stdout: TextIO) -> str:
    """How an error names standard output: ``<stdout>`` (or the file it is, when known)."""
    name = getattr(stdout, "name", None)
    return name if isinstance(name, str) and name != "<stdout>" and not name.startswith("<") else "<stdout>"


def _silence(stdout: TextIO) -> None:
    """Point standard output at the null device, so that the exit-time flush of what could not
    be written raises nothing more (a stream without a file descriptor is left as it is)."""
    try:
        fd = stdout.fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def run_score(args: argparse.Namespace, stdout: TextIO) -> int:
    """The ``score`` subcommand: stream, score, report. Raises :class:`InputError`."""
    run = _Run([], {}, units=None if args.confidence is None else Units())
    if args.confidence is not None:
        try:
            check_interval(args.confidence, args.n_resamples, args.seed)
        except ValueError as err:
            raise InputError(f"--{str(err).replace('confidence_level', 'confidence').replace('_', '-')}") from None
    stats = Tally()
    with contextlib.ExitStack() as stack:
        with warnings.catch_warnings():
            warnings.simplefilter("always", UserWarning)  # the scorer's ToolCallWarning: every one, counted
            warnings.showwarning = _collect_warnings(run)
            metric = _metric(args)
            details = _open_details(args, stack, stdout)
            _stream(args, metric, stats, run, details)
        extra = []
        if run.units is not None:
            extra = signature_parts(f"ci:{args.confidence}", args.n_resamples, args.seed, run.units.grouped)
        result = stats.result(metric.settings.signature(stats.digests, extra), per_tool=args.per_tool)
        if run.units is not None:
            result["ci"] = interval(run.units, args.confidence, args.n_resamples, args.seed)
        if args.output_format == "json":  # one line: the last line of stdout, after any --details -
            text = json.dumps(result, ensure_ascii=False)
        else:
            source = args.input if args.input is not None else f"{args.predictions} vs {args.references}"
            text = render_table(result, digits=args.digits, source=source) + "\n" + _notes(result, args)
        _publish(args, details, stdout, text)
    _report(run, result, args)
    if args.fail_under is not None and result["f1"] < args.fail_under:
        _print_err(f"{PROG}: FAIL: f1 {result['f1']:.{args.digits}f} is below --fail-under {args.fail_under}")
        return EXIT_FAIL
    return EXIT_OK


def _jsonl_values(path: str, field: str | None, what: str, tools_field: str | None = None) -> list[Any]:
    """Every line's JSON value (or its ``field``) of a JSONL file, with the line's
    ``tools_field`` attached as its tools (as ``score --tools-field`` does); unusable lines
    are one :class:`InputError` listing them."""
    try:
        fh = open(path, "rb")
    except OSError as err:
        raise InputError(f"{path}: cannot open: {err.strerror or err}") from None
    values, problems = [], []
    with fh:
        src = _Source(path, fh, None)
        for rec in src.records():
            if rec.error is not None:
                problems.append(f"{src.where(rec.line)}: {what}: {rec.error}")
            elif field is not None and not (isinstance(rec.value, Mapping) and field in rec.value):
                found = ", ".join(map(repr, rec.value)) if isinstance(rec.value, Mapping) else "not an object"
                problems.append(f"{src.where(rec.line)}: {what}: no field {field!r} (found: {found or 'none'})")
            else:
                value = rec.value if field is None else rec.value[field]
                tools = rec.value.get(tools_field) if tools_field and isinstance(rec.value, Mapping) else None
                predicted = what == "prediction"  # (no field: the whole line is the prediction)
                cut = rec.deep - (rec.deep if field is None else {field}) if predicted else rec.deep
                try:
                    _refuse_deep(src, rec, cut, field, not predicted)
                    values.append(_with_tools(src, rec, value, tools))
                except _LineError as err:
                    problems.append(str(err))
    if problems:
        raise InputError("\n".join(problems[:20]) + (f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""))
    return values


def render_comparison(result: Mapping[str, Mapping[str, Any]], *, digits: int = 4, level: float = 0.95) -> str:
    """``compare()``'s result as a table: each system's F1 with its interval, Δ F1 against the
    baseline (the first row) and the p-value, marked ``*`` below 0.05.

    Examples
    --------
    >>> print(render_comparison({"a": {"f1": 0.5, "ci": [0.4, 0.6], "delta": 0.0, "p_value": None},
    ...                          "b": {"f1": 0.75, "ci": [0.6, 0.85], "delta": 0.25, "p_value": 0.002}}, digits=2))
    system  F1    95% interval  Δ F1   p
    a       0.50  [0.40, 0.60]  —      —
    b       0.75  [0.60, 0.85]  +0.25  0.0020 *
    """
    rows = [["system", "F1", f"{level:.0%} interval", "Δ F1", "p"]]
    for name, r in result.items():
        lo, hi = r["ci"]
        p = r["p_value"]
        rows.append([name, f"{r['f1']:.{digits}f}", f"[{lo:.{digits}f}, {hi:.{digits}f}]",
                     "—" if p is None else f"{r['delta']:+.{digits}f}",
                     "—" if p is None else f"{p:.4f}" + (" *" if p < 0.05 else "")])
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows)


def run_compare(args: argparse.Namespace, stdout: TextIO) -> int:
    """The ``compare`` subcommand: read the files, :func:`toolcall_f1.compare`, report.
    Raises :class:`InputError`."""
    references = _jsonl_values(args.references, args.reference_field, "reference", args.tools_field)
    systems: dict[str, list[Any]] = {}
    for path in args.systems:
        name = os.path.basename(path) if os.path.basename(path) not in systems else path
        if name in systems:
            raise InputError(f"{path}: given twice")
        systems[name] = _jsonl_values(path, args.prediction_field, "prediction")
    run = _Run([], {}, units=None)
    try:
        with warnings.catch_warnings():  # the scorer's and the test's warnings, in the CLI's words (as score's)
            warnings.simplefilter("always", UserWarning)
            warnings.showwarning = _collect_warnings(run)
            settings = _metric(args).settings
            chosen = {name: getattr(settings, name) for name in Settings.names()}
            result = compare(systems, references, test=args.test, n_resamples=args.n_resamples, seed=args.seed,
                             confidence_level=args.confidence, **chosen)
    except (ValueError, TypeError) as err:
        raise InputError(str(err)) from None
    finally:
        _print_warnings(run)
    if args.output_format == "json":
        _write(stdout, json.dumps(result, ensure_ascii=False) + "\n")
        return EXIT_OK
    first = next(iter(result.values()))
    n = args.n_resamples or TESTS[args.test]
    test = "paired bootstrap" if args.test == "bootstrap" else "approximate randomization"
    tested = (f"* p < 0.05, two-sided ({test}, {n} {'resamples' if args.test == 'bootstrap' else 'trials'}, "
              f"seed {args.seed}; {len(references)} examples)" if len(result) > 1
              else f"one system: nothing to compare it with ({len(references)} examples)")
    _write(stdout, render_comparison(result, digits=args.digits, level=args.confidence) + "\n\n"
           f"{tested}\nsignature  {first['signature']}\n")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``toolcall-f1`` command line and return its exit status.

    Parameters
    ----------
    argv
        The arguments after the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 only when F1 is below ``--fail-under``, 2 on a usage or input error
        (the message, naming the file and line, goes to stderr) — and on an unexpected error
        (a bug), reported in one line, so that a CI gate never reads a crash as a low score.

    Examples
    --------
    >>> main(["--version"])
    toolcall-f1 ...
    0
    >>> main(["score", "--predictions", "p.jsonl"])
    2
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, --version, or argparse's own usage error (2)
        code = exit_.code
        return code if isinstance(code, int) else EXIT_USAGE
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        if args.command == "compare":
            return run_compare(args, sys.stdout)
        _check_args(args)
        return run_score(args, sys.stdout)
    except InputError as err:
        _print_err(f"{PROG}: error: {err}")
        return EXIT_USAGE
    except Exception as err:  # noqa: BLE001 - the last resort: exit 1 must mean --fail-under only
        _print_err(
            f"{PROG}: error: unexpected {type(err).__name__}: {err} (a bug in toolcall-f1, set off "
            "by this input: please report it with the input)"
        )
        return EXIT_USAGE
