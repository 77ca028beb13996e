"""The HTML the Space shows for a result: score cards, the match table, the per-tool chart and
the comparison table, from the page's markup and labels (``app_data/templates.html``,
``app_data/page.json``). Glue only: it reads the metric's result dicts, it computes nothing.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["DATA", "EMPTY_REFERENCES_HINT", "EMPTY_SCORES", "HTML", "OUTCOME_LABELS", "ROW_CAP", "TEXT", "TOOL_CAP",
           "Row", "chart_html", "compare_html", "error_html", "number_text", "parse_warning_html", "render_call",
           "render_verdicts", "result_rows", "safe", "score_text", "scores_html", "table_html"]

#: The page's data files: presets, labels, help text and style, beside this file (the Space pushes them).
DATA = Path(__file__).resolve().with_name("app_data")
#: The page's labels and options (``app_data/page.json``).
TEXT: dict[str, Any] = json.loads((DATA / "page.json").read_text(encoding="utf-8"))
#: The page's markup (``app_data/templates.html``): ``<template id="name">``, a line break between tags dropped.
HTML = {key: re.sub(r">\s*\n\s*<", "><", body.strip())
        for key, body in re.findall(r'<template id="(\w+)">(.*?)</template>', (DATA / "templates.html").read_text("utf-8"), re.S)}
UNMATCHED = "—"
#: At most this many table rows reach the browser (mismatches first when there are more).
ROW_CAP = 200
TOOL_CAP = 40  #: at most this many tools in the chart (worst first)
#: The comparison table's columns, and each test's name, default resamples and their word.
COLUMNS: list[str] = TEXT["compare"]["columns"]
TESTS: dict[str, list[Any]] = TEXT["compare"]["tests"]


# --------------------------------------------------------------------------- the match table


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the match table: a pair, an unmatched call, or a parse error.

    ``outcome`` is ``"exact"``, ``"wrong"`` (paired, not exact), ``"extra"`` (unmatched prediction),
    ``"missed"`` (unmatched gold) or ``"parse"``; ``weight`` and ``counts`` (what the row adds to TP,
    FP, FN) are the metric's own, from ``details``."""

    example: int
    outcome: str
    pred: str
    gold: str
    weight: float
    counts: tuple[float, float, float]
    flags: tuple[str, ...]
    arguments: str


OUTCOME_LABELS: dict[str, str] = TEXT["outcomes"]


def _row(n: int, outcome: str, entry: Mapping[str, Any], pred: str, gold: str, arguments: str = "") -> Row:
    """A row from a pair or unmatched call of ``details``: its counts, weight and flags."""
    adds, undeclared = entry["adds"], entry.get("hallucinated_args", ())
    flags = ("hallucinated tool",) if entry.get("hallucinated_tool") else tuple(f"hallucinated argument {k}" for k in undeclared)
    return Row(n, outcome, pred, gold, entry["weight"], (adds["tp"], adds["fp"], adds["fn"]), flags, arguments)


def _example_rows(n: int, ex: Mapping[str, Any]) -> list[Row]:
    """The rows of one example of ``details``, in its order: pairs, extra calls, missed calls."""
    rows: list[Row] = []
    if ex.get("parse_error"):  # zero predicted calls: the row adds nothing
        rows.append(Row(n, "parse", "(could not be read)", "", 1.0, (0.0, 0.0, 0.0), (), ex["parse_error"]))
    for pair in ex["pairs"]:
        rows.append(_row(n, "exact" if pair["exact"] else "wrong", pair, render_call(pair["pred"]),
                         render_call(pair["gold"], gold=True), render_verdicts(pair["arguments"])))
    rows += [_row(n, "extra", call, render_call(call), UNMATCHED) for call in ex["unmatched_pred"]]
    rows += [_row(n, "missed", call, UNMATCHED, render_call(call, gold=True)) for call in ex["unmatched_gold"]]
    return rows


def result_rows(result: Mapping[str, Any]) -> list[Row]:
    """Every row of the match table, in example order, as the metric's ``details`` give them.

    Parameters
    ----------
    result
        ``compute(..., return_details=True)``.

    Returns
    -------
    list of Row

    Examples
    --------
    >>> from toolcall_f1 import ToolCallMetric
    >>> tools = [{"name": "g", "importance": 10}]
    >>> result = ToolCallMetric(tools=tools).compute(["[f(x=1), g(y=2)]"], ["[f(x=1), g(y=3)]"], return_details=True)
    >>> [(r.outcome, r.weight, r.counts) for r in result_rows(result)]
    [('exact', 1.0, (1.0, 0.0, 0.0)), ('wrong', 10.0, (0.0, 10.0, 10.0))]
    """
    rows: list[Row] = []
    for n, ex in enumerate(result.get("details", []), start=1):
        rows.extend(_example_rows(n, ex))
    return rows


# --------------------------------------------------------------------------- cards, messages, table, chart


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
        notes = [v["reason"]] if v.get("reason") else []
        if v.get("weight", 1.0) != 1.0:
            notes.append(f"weight {number_text(v['weight'])}")
        template = TEXT["verdicts"].get(v["verdict"], TEXT["verdicts"]["other"])
        parts.append(template.format(name=v["argument"], verdict=v["verdict"], note=f" ({', '.join(notes)})" if notes else "",
                                     pred=_value(v.get("pred")), gold=_gold_value(v.get("gold"))))
    return "; ".join(parts) if parts else "(no arguments)"


_SURROGATE = re.compile("[\ud800-\udfff]")


def safe(text: str) -> str:
    """Text the browser can receive: a lone surrogate (not valid UTF-8) becomes U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def score_text(x: float) -> str:
    return repr(round(float(x), 4))


def number_text(x: float) -> str:
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(round(x, 4))


def scores_html(result: Mapping[str, Any]) -> str:
    """Score cards (F1, precision, recall, exact match), the weighted counts, and the signature,
    each with a one-line explanation.

    Examples
    --------
    >>> from toolcall_f1 import ToolCallMetric
    >>> html_ = scores_html(ToolCallMetric().compute(["[f()]"], ["[f()]"]))
    >>> '<div class="tc-value">1.0</div>' in html_, 'id="count-tp"><b>TP</b> 1' in html_
    (True, True)
    """
    ci = result.get("ci") or {}
    cards = "".join(HTML["card"].format(id=key.replace("_", "-"), label=label, value=score_text(result[key]), hint=hint + (
        HTML["interval"].format(id=key.replace("_", "-"), lo=score_text(ci[key][0]), hi=score_text(ci[key][1])) if ci else ""))
                    for key, label, hint in TEXT["cards"])
    weighted = " ".join(HTML["weighted"].format(key=key, label=key.upper(), value=number_text(result[key]))
                        for key in ("tp", "fp", "fn"))
    others = " · ".join(HTML["count"].format(id=key.replace("_", "-"), label=label, value=number_text(result[key]))
                        for key, label in TEXT["counts"])
    return HTML["scores"].format(cards=cards, weighted=weighted, others=others, signature=html.escape(result["signature"]))


def error_html(message: str) -> str:
    """A readable error box (no traceback).

    Examples
    --------
    >>> error_html("references[0]: <bad>")
    '<div class="tc-msg tc-error" id="error-box" role="alert"><b>Cannot score these inputs.</b> references[0]: &lt;bad&gt;</div>'
    """
    return HTML["error"].format(message=html.escape(message))


def parse_warning_html(result: Mapping[str, Any]) -> str:
    """A note listing predictions that could not be read (they are counted, not fatal)."""
    errors = [ex["parse_error"] for ex in result.get("details", []) if ex.get("parse_error")]
    if not errors:
        return ""
    items = "".join(f"<li>{html.escape(e)}</li>" for e in errors[:20])
    more = f"<li>… and {len(errors) - 20} more</li>" if len(errors) > 20 else ""
    return HTML["parse_warning"].format(n=len(errors), items=items + more)


EMPTY_REFERENCES_HINT = HTML["empty_references"].format()
EMPTY_SCORES = HTML["empty_scores"].format()


def _adds(row: Row) -> str:
    parts = [f"{k} +{number_text(v)}" for k, v in zip(("TP", "FP", "FN"), row.counts) if v]
    text = " · ".join(parts) if parts else "nothing"
    if row.weight != 1.0:
        text += f'<div class="tc-hint">weight {number_text(row.weight)}</div>'
    return text


def _row_html(row: Row) -> str:
    flags = "".join(f'<span class="tc-flag">{html.escape(f)}</span>' for f in row.flags)
    values = (str(row.example), f"<code>{html.escape(row.pred)}</code>", f"<code>{html.escape(row.gold)}</code>",
              OUTCOME_LABELS[row.outcome] + flags, _adds(row), html.escape(row.arguments))
    cells = "".join(f'<td data-label="{label}"{"" if value else " class=tc-blank"}>{value}</td>'
                    for (label, _), value in zip(TEXT["columns"], values, strict=True))
    return HTML["row"].format(outcome=row.outcome, cells=cells)


def table_html(rows: Sequence[Row], errors_only: bool = False, cap: int = ROW_CAP) -> str:
    """The match table: rows coloured by outcome, what each adds to TP/FP/FN and its weight.

    With ``errors_only`` exact pairs are left out; past ``cap`` rows the mismatches come first
    and the rest is cut, with a note saying so.

    Examples
    --------
    >>> from toolcall_f1 import ToolCallMetric
    >>> result = ToolCallMetric().compute(['[search(q="cats"), delete_all()]'], ['[search(q="cats"), answer(a="meow")]'],
    ...                                   return_details=True)
    >>> t = table_html(result_rows(result))
    >>> t.count('<tr class="tc-row'), 'tc-row tc-extra' in t, "FP +1" in t
    (3, True, True)
    """
    shown = [r for r in rows if r.outcome != "exact"] if errors_only else list(rows)
    note = f"{len(shown)} row(s)" + (f" with errors, of {len(rows)}" if errors_only else "")
    if len(shown) > cap:
        shown = sorted(shown, key=lambda r: r.outcome == "exact")[:cap]  # stable: example order kept
        note = f"Showing {cap} of {note}, mismatches first (the CLI's --details writes them all)"
    body = "".join(_row_html(r) for r in shown) or HTML["table_empty"]
    head = "".join(f"<th>{h}</th>" for _, h in TEXT["columns"])
    return HTML["table"].format(note=note, head=head, body=body)


def chart_html(result: Mapping[str, Any] | None, cap: int = TOOL_CAP) -> str:
    """Per-tool F1 as horizontal bars, worst first, each labelled with P, R and counts.

    Examples
    --------
    >>> from toolcall_f1 import ToolCallMetric
    >>> c = chart_html(ToolCallMetric().compute(['[search(q="cats"), delete_all()]'], ['[search(q="cats"), answer(a="meow")]'],
    ...                                         per_tool=True))
    >>> c.count('class="tc-bar-row"'), c.index(">answer<") < c.index(">search<")
    (3, True)
    """
    tools = sorted((result or {}).get("per_tool", {}).items(), key=lambda kv: (kv[1]["f1"], kv[0]))
    if not tools:
        return HTML["chart_empty"]
    bars = []
    for name, s in tools[:cap]:
        label = HTML["bar_label"].format(**{k: score_text(s[k]) for k in ("f1", "precision", "recall")},
                                         **{k: number_text(s[k]) for k in ("tp", "fp", "fn")})
        bars.append(HTML["bar"].format(name=html.escape(name), label=label, zero=" tc-zero" if s["f1"] == 0 else "",
                                       width=100 * s["f1"]))
    more = HTML["chart_more"].format(n=len(tools) - cap) if len(tools) > cap else ""
    return HTML["chart"].format(bars="".join(bars) + more)


def compare_html(result: Mapping[str, Mapping[str, Any]], test: str, n_resamples: int | None, seed: int,
                 examples: int) -> str:
    """The comparison table, as ``toolcall-f1 compare`` prints it: each system's F1 with its 95%
    interval, Δ F1 against the baseline and the two-sided p, marked * below 0.05 (4 decimals).

    Examples
    --------
    >>> result = {"a": {"f1": 0.5, "ci": [0.4, 0.6], "delta": 0.0, "p_value": None, "signature": "level:call|..."},
    ...           "b": {"f1": 0.75, "ci": [0.6, 0.85], "delta": 0.25, "p_value": 0.002, "signature": "level:call|..."}}
    >>> t = compare_html(result, "bootstrap", None, 12345, 40)
    >>> re.findall(r'data-label="p">([^<]*)<', t), "paired bootstrap, 1000 resamples, seed 12345; 40 examples" in t
    (['—', '0.0020 *'], True)
    """
    rows = []
    for name, r in result.items():
        p = r["p_value"]
        cells = (html.escape(name), f"{r['f1']:.4f}", "[{:.4f}, {:.4f}]".format(*r["ci"]),
                 "—" if p is None else f"{r['delta']:+.4f}", "—" if p is None else f"{p:.4f}" + (" *" if p < 0.05 else ""))
        rows.append(HTML["compare_row"].format(mark=" tc-significant" if p is not None and p < 0.05 else "", cells="".join(
            f'<td data-label="{label}">{value}</td>' for label, value in zip(COLUMNS, cells, strict=True))))
    label, default_n, unit = TESTS[test]
    note = f"{label}, {n_resamples or default_n} {unit}, seed {seed}; {examples} examples"
    head = "".join(f"<th>{h}</th>" for h in COLUMNS)
    return HTML["compare"].format(head=head, rows="".join(rows), note=note,
                                  signature=html.escape(next(iter(result.values()))["signature"]))
