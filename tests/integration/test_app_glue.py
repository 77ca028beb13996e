"""The Gradio app's glue functions, without a browser: presets, the input convention, the
rendering of the metric's result, the reproduce snippets, and readable errors for bad input.

The numbers asserted here are SPEC §9's worked examples (and hand counts for the presets);
the app itself computes nothing, it only calls ``ToolCallMetric.compute`` and shows its
``details`` (each row's counts, weight and flags are the core's).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys

import pytest

from .app_module import load_app

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
pytest.importorskip("gradio", reason="the app needs gradio (pip install -e .[app])")

app = load_app()
#: The page's values: three boxes and the settings (:class:`app.Inputs`).
N = len(app.Inputs().values())


def run(pred: str, ref: str, tools: str = "", level: str = "call", **settings: str):
    """``app.run`` with default settings unless given."""
    values = {
        "matching": "greedy",
        "order": "any",
        "canonicalizer": "default",
        "name_canonicalizer": "exact",
        "prediction_format": "auto",
        "reference_format": "auto",
    }
    values.update(settings)
    return app.run(pred, ref, tools, level, *values.values())


def _text(html_: str) -> str:
    return html_.replace("&#x27;", "'").replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")


# --------------------------------------------------------------------------- presets


PRESET_EXPECTED = {
    # key: (f1, tp, fp, fn, exact_match)
    "mixed": (0.5, 1, 1, 1, 0.0),  # SPEC §9
    "greedy": (0.5, 1, 1, 1, 0.0),  # greedy strands 12B against "12A only"
    "bfcl": (2 / 3, 2, 1, 1, 0.0),  # two of three parallel calls exact, one wrong duration
    "weighted": (1 / 11, 1, 10, 10, 0.0),  # delete_account weighs 10: 2*1 / (2*1 + 10 + 10)
    "hermes": (0.8, 4, 1, 1, 0.0),  # arg level: 2 names + city + unit (default) agree; timezone wrong
    "corpus": (2 / 3, 1, 0, 1, 0.5),  # SPEC §9 corpus: micro 2/3, never the mean 0.5
    "turns": (2 / 3, 2, 1, 1, 0.0),  # order="turns": cat made a turn early pairs with nothing
}


def test_the_multi_turn_preset_pairs_calls_within_their_turns() -> None:
    inputs = app.PRESETS["turns"].inputs
    assert inputs.order == "turns"
    result = app.score_inputs(*inputs.values())
    assert result["turn_exact_match"] == 1 / 3 and "|order:turns|" in result["signature"]
    assert result["details"][0]["first_failed_turn"] == 1
    assert [(t["fp"], t["fn"]) for t in result["details"][0]["turns"]] == [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]


def test_every_preset_has_an_expectation() -> None:
    assert list(app.PRESETS) == list(PRESET_EXPECTED)  # the first one is the landing page's


@pytest.mark.parametrize("key", list(PRESET_EXPECTED))
def test_preset_scores(key: str) -> None:
    values = app.preset_values(key)
    assert len(values) == N + 1 == 11  # three boxes, seven settings and the blurb
    result = app.score_inputs(*values[:N])
    f1, tp, fp, fn, em = PRESET_EXPECTED[key]
    assert result["f1"] == pytest.approx(f1)
    assert (result["tp"], result["fp"], result["fn"]) == (tp, fp, fn)
    assert result["exact_match"] == em
    assert result["num_parse_errors"] == 0
    assert app.matching_preset(app.Inputs.of(*values[:N])) == key


def test_greedy_preset_is_perfect_with_optimal_matching() -> None:
    values = list(app.PRESETS["greedy"].inputs.values())
    values[4] = "optimal"
    view = app.run(*values)
    assert (view.result["f1"], view.result["tp"], view.result["fp"], view.result["fn"]) == (1.0, 2, 0, 0)
    assert app.matching_preset(view.inputs) is None  # the blurb goes: inputs no longer match


def test_preset_click_returns_its_inputs_and_its_result() -> None:
    out = app.on_preset("weighted", False, False)
    assert out[:N] == app.PRESETS["weighted"].inputs.values()
    blurb, message, scores = out[N:N + 3]
    assert "Weighted destructive tool." in blurb and message == ""
    assert '<div class="tc-value">0.0909</div>' in scores


def test_landing_page_is_scored_at_build_time() -> None:
    blocks = app.build_demo()
    scores = next(b for b in blocks.blocks.values() if getattr(b, "elem_id", None) == "scores")
    assert '<div class="tc-value">0.5</div>' in scores.value


def test_blurbs_escape_tags() -> None:
    blurb = app.preset_blurb("hermes")
    assert "<code>&lt;tool_call&gt;</code>" in blurb and "<tool_call>" not in blurb
    assert "<b>F1 = 0.8</b>" in blurb


def test_unknown_preset() -> None:
    with pytest.raises(KeyError):
        app.preset_values("nope")


def test_auto_is_the_first_prediction_format() -> None:
    assert app.PREDICTION_FORMATS[0] == "auto"
    assert sorted(app.PREDICTION_FORMATS) == sorted(app.toolcall_f1.FORMATS)


# --------------------------------------------------------------------------- the input convention


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("", [""], id="empty-is-one-example"),
        pytest.param("   \n", [""], id="blank-is-one-example"),
        pytest.param("[f(a=1)]", ["[f(a=1)]"], id="python-text-one-example"),
        pytest.param("[]", ["[]"], id="empty-list-one-example"),
        pytest.param(
            '[{"name": "f", "arguments": {}}]',
            ['[{"name": "f", "arguments": {}}]'],
            id="json-calls-one-example-unchanged",
        ),
        pytest.param(
            '{"role": "assistant", "tool_calls": []}',
            ['{"role": "assistant", "tool_calls": []}'],
            id="message-one-example",
        ),
        pytest.param(
            '<tool_call>{"name": "f"}</tool_call>',
            ['<tool_call>{"name": "f"}</tool_call>'],
            id="hermes-one-example",
        ),
        pytest.param(
            '[[{"name": "f", "arguments": {}}], []]',
            [[{"name": "f", "arguments": {}}], []],
            id="list-of-lists-examples",
        ),
        pytest.param('["[f(a=1)]", "no call"]', ["[f(a=1)]", "no call"], id="list-of-strings-examples"),
        pytest.param(
            '[{"calls": "[f()]", "tools": []}, []]',
            [{"calls": "[f()]", "tools": []}, []],
            id="reference-wrappers-examples",
        ),
        pytest.param('{"calls": [], "tools": []}', [{"calls": [], "tools": []}], id="one-wrapper"),
        pytest.param(
            '[{"name": "f", "arguments": {}}, []]',
            ['[{"name": "f", "arguments": {}}, []]'],
            id="mixed-list-one-example",
        ),
    ],
)
def test_read_examples(text: str, expected: list) -> None:
    assert app.read_examples(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", None),
        ('{"name": "f"}', [{"name": "f"}]),
        ('[{"name": "f"}, {"name": "g"}]', [{"name": "f"}, {"name": "g"}]),
    ],
    ids=["empty", "one-schema", "list"],
)
def test_read_tools(text: str, expected: list | None) -> None:
    assert app.read_tools(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[{", "Tool schemas: invalid JSON"),
        ("[1, 2]", "expected a JSON list of function schemas"),
        ('"f"', "expected a JSON list"),
    ],
    ids=["invalid-json", "not-objects", "a-string"],
)
def test_read_tools_errors(text: str, message: str) -> None:
    with pytest.raises(app.InputError, match=message):
        app.read_tools(text)


# --------------------------------------------------------------------------- SPEC §9 through the app


@pytest.mark.parametrize(
    ("pred", "gold", "level", "settings", "counts", "f1"),
    [
        ('[search(q="cats"), answer(a="meow")]', '[search(q="cats"), answer(a="meow")]', "call", {}, (2, 0, 0), 1.0),
        ('[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]', "arg", {}, (2, 1, 2), 4 / 7),
        ("[s(q='b'), s(q='a')]", "[s(q='a'), s(q='b')]", "call", {}, (2, 0, 0), 1.0),
        ("[s(q='a'), s(q='a')]", "[s(q='a')]", "call", {}, (1, 1, 0), 2 / 3),
        ("[f(x=1, y=2)]", "[f(x=1, y=3)]", "call", {}, (0, 1, 1), 0.0),
        ("[f(x=1, y=2)]", "[f(x=1, y=3)]", "arg", {}, (2, 1, 1), 2 / 3),
        ('[f(city="  new   YORK ")]', '[f(city="New York")]', "call", {}, (1, 0, 0), 1.0),
        ('[f(d="Jan.28,2021")]', '[f(d="jan 28 2021")]', "call", {"canonicalizer": "bfcl"}, (1, 0, 0), 1.0),
        ('[f(d="Jan.28,2021")]', '[f(d="jan 28 2021")]', "call", {}, (0, 1, 1), 0.0),
        ("[delete_all()]", "[]", "call", {}, (0, 1, 0), 0.0),
        ("", "", "call", {}, (0, 0, 0), 1.0),
        ('["[g()]", "[]"]', '["[g()]", "[g()]"]', "call", {}, (1, 0, 1), 2 / 3),
    ],
    ids=["identical", "seed-arg", "reordered", "repeat", "wrong-arg-call", "wrong-arg-arg", "default-canon",
         "bfcl-canon", "default-canon-strict", "extra", "empty", "corpus"],
)
def test_spec_worked_examples(pred: str, gold: str, level: str, settings: dict, counts: tuple, f1: float) -> None:
    view = run(pred, gold, level=level, **settings)
    assert 'id="error-box"' not in view.message
    assert (view.result["tp"], view.result["fp"], view.result["fn"]) == counts
    assert view.result["f1"] == pytest.approx(f1)
    assert f'<div class="tc-value">{round(f1, 4)!r}</div>' in app.scores_html(view.result)


def test_run_is_compute_with_details() -> None:
    """The app passes per_tool and return_details, and nothing else changes the number."""
    import toolcall_f1

    pred, gold = '[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]'
    direct = toolcall_f1.ToolCallMetric().compute([pred], [gold], per_tool=True, return_details=True)
    assert run(pred, gold).result == direct


# --------------------------------------------------------------------------- rows: what each adds


def _sums(rows) -> tuple[float, float, float]:
    return tuple(sum(r.counts[i] for r in rows) for i in range(3))


@pytest.mark.parametrize("level", ["call", "arg"])
@pytest.mark.parametrize("key", list(PRESET_EXPECTED))
def test_row_counts_add_up_to_the_totals(key: str, level: str) -> None:
    values = list(app.PRESETS[key].inputs.values())
    values[3] = level
    view = app.run(*values)
    assert all(r.counts is not None for r in view.rows)
    assert _sums(view.rows) == (view.result["tp"], view.result["fp"], view.result["fn"])  # whole weights: exact


def test_weighted_rows_show_the_weight_at_both_levels() -> None:
    values = list(app.PRESETS["weighted"].inputs.values())
    call = app.run(*values).rows
    assert [(r.outcome, r.weight, r.counts) for r in call] == [
        ("exact", 1.0, (1.0, 0.0, 0.0)),
        ("wrong", 10.0, (0.0, 10.0, 10.0)),
    ]
    values[3] = "arg"  # delete_account: name 10 + confirm 10 agree; user_id 10 disagrees
    arg = app.run(*values).rows
    assert [r.counts for r in arg] == [(2.0, 0.0, 0.0), (20.0, 10.0, 10.0)]
    html_ = app.table_html(arg)
    assert "TP +20 · FP +10 · FN +10" in html_ and "weight 10" in html_


def test_unmatched_calls_at_arg_level_count_name_and_arguments() -> None:
    """SPEC §7: an unmatched prediction adds its name and each argument to FP; an unmatched
    gold its name and each non-optional argument to FN."""
    view = run("[f(a=1, b=2)]", "[g(c=3)]", level="arg")
    assert [(r.outcome, r.counts) for r in view.rows] == [("extra", (0, 3, 0)), ("missed", (0, 0, 2))]
    view = run("[h()]", '[{"f": {"a": [1, ""], "b": [2]}}]', level="arg", reference_format="bfcl")
    assert [(r.outcome, r.counts) for r in view.rows] == [("extra", (0, 1, 0)), ("missed", (0, 0, 2))]


def test_hallucinations_are_flagged_per_row() -> None:
    tools = '[{"name": "search", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}]'
    view = run('[search(q="cats", page=2), delete_all()]', '[search(q="cats")]', tools)
    assert [r.flags for r in view.rows] == [("hallucinated argument page",), ("hallucinated tool",)]
    assert (view.result["hallucinated_tools"], view.result["hallucinated_args"]) == (1, 1)
    assert run('[search(q="cats", page=2)]', '[search(q="cats")]').rows[0].flags == ()  # no schemas


def test_rows_show_what_the_metric_counted_with_per_example_schemas() -> None:
    """Per-example schemas (in a reference wrapper) weigh calls the page's boxes do not show:
    the rows still show the metric's own counts and weights (they come from its details)."""
    ref = json.dumps({"calls": [{"name": "f", "arguments": {}}], "tools": [{"name": "f", "importance": 5}]})
    view = run("[g()]", ref)
    assert (view.result["fp"], view.result["fn"]) == (1.0, 5.0)
    assert [(r.outcome, r.weight, r.counts) for r in view.rows] == [("extra", 1.0, (0, 1, 0)), ("missed", 5.0, (0, 0, 5))]
    assert [r.flags for r in view.rows] == [("hallucinated tool",), ()]  # g is not among the example's tools
    assert "FN +5" in app.table_html(view.rows) and "weight 5" in app.table_html(view.rows)


@pytest.mark.parametrize("key", list(PRESET_EXPECTED))
def test_rows_are_the_details_of_the_result(key: str) -> None:
    """Every row's counts, weight and flags are the ones ``compute(return_details=True)`` gives."""
    view = app.run(*app.PRESETS[key].inputs.values())
    entries = [e for d in view.result["details"] for e in (*d["pairs"], *d["unmatched_pred"], *d["unmatched_gold"])]
    shown = sorted((r.counts, r.weight, r.flags) for r in view.rows if r.outcome != "parse")
    assert shown == sorted(
        ((e["adds"]["tp"], e["adds"]["fp"], e["adds"]["fn"]), e["weight"],
         ("hallucinated tool",) if e.get("hallucinated_tool") else
         tuple(f"hallucinated argument {k}" for k in e.get("hallucinated_args", ())))
        for e in entries
    )


# --------------------------------------------------------------------------- rendering


def test_table_rows_are_coloured_by_outcome() -> None:
    view = run('[search(q="cats"), delete_all(), f(x=1)]', '[search(q="cats"), answer(a="meow"), f(x=2)]')
    html_ = app.table_html(view.rows)
    assert re.findall(r'<tr class="tc-row tc-(\w+)"', html_) == ["exact", "wrong", "extra", "missed"]
    assert "3 row(s)" not in html_ and "4 row(s)" in html_


def test_errors_only_leaves_out_exact_pairs() -> None:
    view = run('[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]')
    html_ = app.table_html(view.rows, errors_only=True)
    assert re.findall(r'<tr class="tc-row tc-(\w+)"', html_) == ["extra", "missed"]
    assert "2 row(s) with errors, of 3" in html_
    exact = run("[f()]", "[f()]")
    assert "every call is exactly right" in app.table_html(exact.rows, errors_only=True)


def test_large_corpus_is_capped_with_mismatches_first() -> None:
    n = 30
    preds = json.dumps([f"[f(x={i})]" for i in range(n)])
    refs = json.dumps([[{"name": "f", "arguments": {"x": i if i % 3 else -1}}] for i in range(n)])
    view = run(preds, refs)
    html_ = app.table_html(view.rows, cap=12)
    outcomes = re.findall(r'<tr class="tc-row tc-(\w+)"', html_)
    assert outcomes == ["wrong"] * 10 + ["exact"] * 2
    assert "Showing 12 of 30 row(s), mismatches first" in html_
    examples = re.findall(r'<td data-label="Example">(\d+)</td>', html_)
    assert examples[:3] == ["1", "4", "7"]  # mismatches keep their example order


def test_chart_is_sorted_worst_first_with_labels() -> None:
    result = run('[search(q="cats"), delete_all(), f(x=1)]', '[search(q="cats"), answer(a="meow"), f(x=2)]').result
    html_ = app.chart_html(result)
    assert re.findall(r'<div class="tc-bar-name">([^<]+)</div>', html_) == ["answer", "delete_all", "f", "search"]
    assert html_.count("tc-zero") == 3 and "width:100.0%" in html_
    assert "F1 1.0 · P 1.0 R 1.0 · TP 1 FP 0 FN 0" in html_
    assert "No tool calls on either side." in app.chart_html(run("", "").result)
    capped = app.chart_html(result, cap=2)
    assert capped.count('class="tc-bar-row"') == 2 and "and 2 more tools" in capped


def test_scores_html_has_every_number_explained() -> None:
    tools = '[{"name": "search", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}]'
    view = run('[search(q="cats", page=2), delete_all()]', '[search(q="cats")]', tools)
    scores = app.scores_html(view.result)
    for element in ("score-f1", "score-precision", "score-recall", "score-exact-match", "count-tp", "count-fp",
                    "count-fn", "count-num-parse-errors", "count-hallucinated-tools", "count-hallucinated-args",
                    "score-signature"):
        assert f'id="{element}"' in scores
    assert "hallucinated tools <b>1</b>" in scores and "hallucinated args <b>1</b>" in scores
    assert "weighted counts" in scores and "2·TP / (2·TP + FP + FN)" in scores
    assert "level:call|match:greedy|order:any|canon:default" in scores
    assert view.message == ""


def test_html_is_escaped() -> None:
    message = run('<tool_call>{"name": "<script>alert(1)</script>", </tool_call>', "[f()]").message
    assert 'id="parse-warning"' in message
    assert "<script>" not in message and "&lt;script&gt;" in message
    message = run("[f()]", '[{"name": "<script>", "arguments": ').message
    assert 'id="error-box"' in message
    assert "<script>" not in message and "&lt;script&gt;" in message
    view = run('[{"name": "<b>x</b>", "arguments": {}}]', "[f()]")
    assert "<b>x</b>" not in app.table_html(view.rows) + app.chart_html(view.result)


def test_empty_references_get_a_hint() -> None:
    view = run("[f()]", "  ")
    assert 'id="references-hint"' in view.message and view.result["fp"] == 1
    assert "references-hint" not in run("[f()]", "[f()]").message


def test_header_links_to_the_metric_card_and_repository() -> None:
    header = app.header_html("acme/toolcall_f1")
    assert 'href="https://huggingface.co/spaces/acme/toolcall_f1/blob/main/README.md"' in header
    assert 'href="https://huggingface.co/spaces/acme/toolcall_f1/tree/main"' in header
    assert "href" not in app.header_html("")


# --------------------------------------------------------------------------- reproduce it


@pytest.mark.slow
@pytest.mark.parametrize("key", ["bfcl", "weighted", "hermes", "corpus"])
def test_python_snippet_reproduces_the_page(key: str) -> None:
    inputs = app.PRESETS[key].inputs
    snippet = app.python_snippet(inputs)
    namespace: dict = {}
    exec(compile(snippet.replace("print(", "(lambda *a: None)("), "<snippet>", "exec"), namespace)  # our own code
    page = app.run(*inputs.values()).result
    assert namespace["result"]["f1"] == page["f1"]
    assert namespace["result"]["signature"] == page["signature"]


@pytest.mark.slow
@pytest.mark.parametrize("key", ["mixed", "bfcl", "weighted", "corpus"])
def test_cli_snippet_reproduces_the_page(key: str, tmp_path) -> None:
    inputs = app.PRESETS[key].inputs
    script = app.cli_snippet(inputs).replace("toolcall-f1 score", f"{sys.executable} -m toolcall_f1 score")
    script += " --format json"
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    page = app.run(*inputs.values()).result
    assert (out["f1"], out["signature"]) == (page["f1"], page["signature"])


def test_snippets_name_only_the_settings_that_differ() -> None:
    snippet = app.python_snippet(app.PRESETS["bfcl"].inputs)
    assert "matching='optimal'" in snippet and "canonicalizer='bfcl'" in snippet and "level=" not in snippet
    cli = app.cli_snippet(app.PRESETS["bfcl"].inputs)
    assert "--matching optimal --canonicalizer bfcl --prediction-format bfcl --reference-format bfcl" in cli
    assert "--tools tools.json" in cli


def test_snippets_do_not_inline_a_huge_corpus() -> None:
    big = json.dumps([f"[f(x={i})]" for i in range(2000)])
    inputs = app.Inputs(big, big)
    snippet = app.python_snippet(inputs)
    assert len(snippet) < 2000 and "too long to inline" in snippet
    compile(snippet, "<snippet>", "exec")  # still valid Python
    assert "too long to inline" in app.cli_snippet(inputs)


# --------------------------------------------------------------------------- the API endpoint


def test_score_api_returns_the_result_or_an_error() -> None:
    assert app.score_api('[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]')["f1"] == 0.5
    error = app.score_api("[f()]", "[f(")["error"]
    assert error.startswith("references[0]: python") and "<" not in error


def test_api_panel_shows_one_endpoint_without_doctest_markup() -> None:
    info = app.build_demo().get_api_info()
    assert list(info["named_endpoints"]) == ["/score"]
    text = json.dumps(info)
    assert ">>>" not in text and "Examples" not in text


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("pred", "ref", "tools", "settings", "needle"),
    [
        ('[search(q="cats")]', '[{"name": "search", "arguments": ', "", {}, "references[0]: json: invalid JSON"),
        ('[search(q="cats")]', '[search(q="cats")', "", {}, "references[0]: python: unbalanced brackets"),
        ('[search(q="cats")]', '[{"search": {"q": "cats"}}]', "", {"reference_format": "bfcl"},
         "expected a list of accepted values"),
        ('[search(q="cats")]', '[search(q="cats")]', "[{", {}, "Tool schemas: invalid JSON"),
        ('[search(q="cats")]', '[search(q="cats")]', '[{"name": "search", "importance": -1}]', {}, "search"),
        ('["[f()]", "[g()]"]', "[f()]", "", {}, "predictions hold 2 example(s) but references hold 1"),
        ('[search(q="cats")]', "[" * 100_000, "", {}, "references[0]"),
        ('[search(q="cats")]', '[search(q="cats")]', "[" * 100_000, {}, "Tool schemas: JSON nested too deeply"),
        ("[f()]", "[f()]", "", {"matching": "best"}, "matching"),
        # a key named twice: rejected as the command line rejects it (json.loads keeps the last value)
        ("[f()]", "[f()]", '[{"name": "f", "importance": 1,\n  "importance": 5}]', {},
         "Tool schemas, line 2: duplicate key 'importance' (column 3): a JSON object names it twice, "
         "and only one of its values would be read"),
        ("[f()]", '[{"calls": [{"name": "f", "arguments": {"x": 1, "x": 2}}], "tools": []}]', "", {},
         "References, line 1: duplicate key 'x' (column 49)"),
        ('[[{"name": "f", "arguments": {"x": 1, "x": 2}}]]', "[f(x=1)]", "", {},
         "Predictions, line 1: duplicate key 'x' (column 39)"),
    ],
    ids=["ref-bad-json", "ref-bad-python", "ref-not-bfcl", "tools-bad-json", "negative-weight", "lengths",
         "ref-too-deep", "tools-too-deep", "unknown-setting", "tools-duplicate-key", "ref-duplicate-key",
         "pred-duplicate-key"],
)
def test_bad_input_is_a_readable_error(pred: str, ref: str, tools: str, settings: dict, needle: str) -> None:
    view = run(pred, ref, tools, **settings)
    assert 'id="error-box"' in view.message and "Cannot score these inputs." in view.message
    assert needle in _text(view.message)
    assert "Traceback" not in view.message
    assert view.result is None and view.rows == ()
    outputs = app.on_change(*view.inputs.values(), False, True)
    assert outputs[2] == app.EMPTY_SCORES and outputs[3] == outputs[4] == outputs[7] == ""


def test_deeply_nested_prediction_is_a_parse_error_in_the_page() -> None:
    view = run("[" * 100_000, '[search(q="cats")]')
    assert 'id="parse-warning"' in view.message and view.result["num_parse_errors"] == 1


def test_unreadable_prediction_is_counted_not_fatal() -> None:
    view = run('<tool_call>{"name": "x", </tool_call>', '[search(q="cats")]')
    assert 'id="parse-warning"' in view.message and "predictions[0]: hermes" in view.message
    assert view.result["num_parse_errors"] == 1 and (view.result["tp"], view.result["fp"], view.result["fn"]) == (0, 0, 1)
    assert [(r.outcome, r.counts) for r in view.rows] == [("parse", (0, 0, 0)), ("missed", (0, 0, 1))]
    assert view.rows[0].arguments.startswith("predictions[0]: hermes")


def _deep_any_of(depth: int) -> str:
    schema = '{"type": "string"}'
    for _ in range(depth):
        schema = '{"anyOf": [' + schema + "]}"
    return '[{"name": "f", "parameters": {"type": "object", "properties": {"a": ' + schema + "}}}]"


HOSTILE = [
    pytest.param(('[{"name": "\\ud800", "arguments": {}}]', '[{"name": "\\ud800", "arguments": {}}]', ""),
                 id="lone-surrogate-tool-name"),
    pytest.param(('[{"name": "f", "arguments": {"\\udfff": "\\ud800"}}]', "[f()]", ""), id="lone-surrogate-args"),
    pytest.param(("[\ud800()]", "[f(\udc00=1)]", ""), id="lone-surrogate-text"),
    pytest.param(("[f()]", "[f()]", '[{"name": "\\ud800"}]'), id="lone-surrogate-schema"),
    pytest.param(("[f(a='x')]", "[f(a='x')]", _deep_any_of(500)), id="anyOf-500"),
    pytest.param(("[f(a='x')]", "[f(a='x')]", _deep_any_of(5000)), id="anyOf-5000"),
    pytest.param((None, "[f()]", ""), id="none-predictions"),
    pytest.param(("[f()]", None, None), id="none-references-and-tools"),
    pytest.param((None,) * N, id="every-box-none"),
    pytest.param(("[f()]", "[f()]", "", "call", None, None, None, "nonsense", "auto", "auto"), id="none-settings"),
    pytest.param(("[f()]", "[f()]", "", "call", "greedy", "sideways"), id="unknown-order"),
    pytest.param(("[f()]", "[f()]", "5"), id="tools-a-number"),
    pytest.param(("[f()]", "[f()]", '[{"name": "f", "parameters": {"$ref": "#"}}]'), id="self-reference"),
]


@pytest.mark.parametrize("values", HOSTILE)
def test_run_never_raises_and_the_page_can_send_the_outputs(values: tuple) -> None:
    """issue 11: app.run, documented never to raise, raised on a lone surrogate, a deep anyOf
    and a None box. Every output is also valid UTF-8 (the browser's JSON needs it)."""
    values = tuple(values) + app.Inputs().values()[len(values):]
    view = app.run(*values[:N])
    assert (view.result is None) == ('id="error-box"' in view.message)
    outputs = app.on_change(*values[:N], False, True)
    for out in outputs[:8]:
        out.encode("utf-8")  # no lone surrogate reaches the browser
    api = app.score_api(**{k: "" if v is None else v for k, v in zip([f.name for f in dataclasses.fields(app.Inputs)], values[:N])})
    json.dumps(api, ensure_ascii=False).encode("utf-8")


# --------------------------------------------------------------------------- the page


def test_build_demo_has_the_elements_the_browser_test_uses() -> None:
    import gradio as gr

    blocks = app.build_demo()
    assert isinstance(blocks, gr.Blocks) and isinstance(app.demo, gr.Blocks)
    ids = {getattr(b, "elem_id", None) for b in blocks.blocks.values()}
    expected = {
        "predictions", "references", "tools", "level", "matching", "canonicalizer", "name-canonicalizer",
        "prediction-format", "reference-format", "compute", "message", "scores", "match-table", "errors-only",
        "per-tool-chart", "raw-result", "raw-accordion", "preset-info", "python-snippet", "cli-snippet", "help",
    }
    expected |= {f"preset-{key}" for key in app.PRESETS}
    assert expected <= ids


def test_full_json_is_sent_only_when_asked() -> None:
    view = app.run(*app.PRESETS["mixed"].inputs.values())
    assert app.on_change(*view.inputs.values(), False, False)[7] == ""
    assert '"signature"' in app.on_change(*view.inputs.values(), False, True)[7]
    raw, is_open = app.on_json(view)
    assert json.loads(raw) == view.result and is_open is True


def test_a_corpus_of_20_examples_shows_the_core_interval() -> None:
    """Issue 23: the Space shows F1's 95% interval from 20 examples on (the core's numbers),
    and none for fewer (a percentile interval over so few examples is too narrow to trust)."""
    import toolcall_f1

    preds, refs = ["[f(x=1)]"] * 15 + ["[f(x=2)]"] * 6, ["[f(x=1)]"] * 21
    result = app.score_inputs(json.dumps(preds), json.dumps(refs))
    want = toolcall_f1.ToolCallMetric().compute(preds, refs, confidence_level=0.95)
    assert result["ci"] == want["ci"] and result["signature"] == want["signature"]
    lo, hi = want["ci"]["f1"]
    assert f'<div class="tc-ci" id="ci-f1">95% interval [{round(lo, 4)}, {round(hi, 4)}]</div>' in app.scores_html(result)
    small = app.score_inputs(json.dumps(preds[:19]), json.dumps(refs[:19]))
    assert "ci" not in small and "tc-ci" not in app.scores_html(small)


# --------------------------------------------------------------------------- order (issue 22)


def test_the_order_choice_is_the_metric_s_own() -> None:
    """The page offers what ``Settings.allowed("order")`` names (``turns`` appears with it), in
    the settings after matching, as the signature orders them."""
    import toolcall_f1

    assert [f.name for f in dataclasses.fields(app.Inputs)][3:6] == ["level", "matching", "order"]
    blocks = app.build_demo()
    radio = next(b for b in blocks.blocks.values() if getattr(b, "elem_id", None) == "order")
    assert [c[0] for c in radio.choices] == list(toolcall_f1.Settings.allowed("order")) and radio.value == "any"
    assert radio.info.split(" · ")[:2] == ["any: calls pair in any order", "strict: pairs keep the gold order"]
    assert len(radio.info.split(" · ")) == len(toolcall_f1.Settings.allowed("order"))  # a note per offered order


def test_order_strict_is_passed_to_the_metric_and_shown_in_the_signature() -> None:
    """Two right calls in the wrong order: a multiset under ``any`` (F1 1), one order-keeping pair
    under ``strict`` (TP 1, FP 1, FN 1: F1 0.5, SPEC §6b)."""
    import toolcall_f1

    any_ = run("[b(), a()]", "[a(), b()]")
    strict = run("[b(), a()]", "[a(), b()]", order="strict")
    assert any_.result["f1"] == 1.0 and "order:any" in any_.result["signature"]
    want = toolcall_f1.ToolCallMetric(order="strict").compute(["[b(), a()]"], ["[a(), b()]"], per_tool=True,
                                                              return_details=True)
    assert strict.result == want and (strict.result["tp"], strict.result["fp"], strict.result["fn"]) == (1, 1, 1)
    assert "order:strict" in app.scores_html(strict.result)
    assert "order='strict'" in app.python_snippet(strict.inputs) and "--order strict" in app.cli_snippet(strict.inputs)
    assert app.score_api("[b(), a()]", "[a(), b()]", order="strict")["f1"] == 0.5
    assert "order" in _text(run("[f()]", "[f()]", order="sideways").message)


@pytest.mark.slow
def test_order_strict_is_the_command_line_s_number(tmp_path) -> None:
    """The page's CLI snippet under ``order="strict"``: the command line gives the page's number."""
    inputs = app.Inputs("[b(), a()]", "[a(), b()]", order="strict")
    script = app.cli_snippet(inputs).replace("toolcall-f1 score", f"{sys.executable} -m toolcall_f1 score")
    done = subprocess.run(["bash", "-c", script + " --format json"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    out, page = json.loads(done.stdout), app.run(*inputs.values()).result
    assert (out["f1"], out["signature"]) == (page["f1"], page["signature"]) == (0.5, out["signature"])
    assert "order:strict" in out["signature"]


# --------------------------------------------------------------------------- compare two systems (issue 23)


def _example_data() -> tuple[list, list, list]:
    data = json.loads((app.DATA / "compare.json").read_text(encoding="utf-8"))
    return data["inputs"]["predictions"], data["new"], data["inputs"]["references"]


@pytest.mark.parametrize(
    ("test", "n_resamples", "seed", "settings"),
    [("bootstrap", None, 12345, {}), ("randomization", 2000, 7, {"level": "arg"}),
     ("bootstrap", 300, 1, {"matching": "optimal", "order": "strict"})],
    ids=["example", "randomization-arg", "strict"],
)
def test_the_compare_tab_gives_compare_s_dict(test: str, n_resamples: int | None, seed: int, settings: dict) -> None:
    """The compare tab's numbers are ``toolcall_f1.compare()``'s, exactly (the same dict)."""
    import toolcall_f1

    base, new, refs = _example_data()
    c = dataclasses.replace(app.COMPARE_EXAMPLE, test=test, n_resamples=n_resamples, seed=seed,
                            inputs=dataclasses.replace(app.COMPARE_EXAMPLE.inputs, **settings))
    got = app.compare_inputs(*c.values())
    want = toolcall_f1.compare({"baseline": base, "new": new}, refs, test=test, n_resamples=n_resamples, seed=seed,
                               **settings)
    assert got == want and list(got) == ["baseline", "new"]
    table = app.compare_html(got, c.test, c.n_resamples, c.seed, len(refs))
    assert re.findall(r'<td data-label="F1">([^<]*)<', table) == [f"{r['f1']:.4f}" for r in want.values()]
    assert f'data-label="Δ F1">{want["new"]["delta"]:+.4f}<' in table
    assert html_unescape(re.search(r'id="compare-signature">([^<]*)<', table)[1]) == want["new"]["signature"]


def html_unescape(text: str) -> str:
    import html

    return html.unescape(text)


def test_the_bundled_example_shows_an_interval_and_a_real_difference() -> None:
    """30 examples (past INTERVAL_FROM): baseline F1 0.6316, new 0.8814, Δ +0.2498, p 0.018 < 0.05,
    as its blurb says; at argument level Δ +0.1588, p 0.004 (the blurb's other numbers)."""
    base, new, refs = _example_data()
    assert len(base) == len(new) == len(refs) == 30 >= app.INTERVAL_FROM
    blurb, message, table, _, _ = app.on_compare(*app.COMPARE_EXAMPLE.values())
    assert "Two systems, 30 examples." in blurb and message == ""
    rows = re.findall(r'<tr class="tc-row([^"]*)">(.*?)</tr>', table)
    cells = [re.findall(r'<td data-label="[^"]*">([^<]*)</td>', r) for _, r in rows]
    assert cells == [["baseline", "0.6316", "[0.4643, 0.7843]", "—", "—"],
                     ["new", "0.8814", "[0.7451, 0.9818]", "+0.2498", "0.0180 *"]]
    assert [mark for mark, _ in rows] == ["", " tc-significant"]  # the significant row is marked
    assert "paired bootstrap, 1000 resamples, seed 12345; 30 examples" in table
    for number in ("0.6316", "0.8814", "+0.2498", "p = 0.018", "+0.1588", "p = 0.004"):
        assert number in blurb
    arg = app.compare_inputs(*dataclasses.replace(app.COMPARE_EXAMPLE, inputs=dataclasses.replace(
        app.COMPARE_EXAMPLE.inputs, level="arg")).values())
    assert (round(arg["new"]["delta"], 4), round(arg["new"]["p_value"], 3)) == (0.1588, 0.004)


def test_the_table_is_the_command_line_s(tmp_path) -> None:
    """``toolcall-f1 compare`` on the boxes written as JSONL files: the same numbers, and its
    table's cells are the page's (systems named by their files there)."""
    from toolcall_f1.cli import main, render_comparison

    c = dataclasses.replace(app.COMPARE_EXAMPLE, test="randomization", n_resamples=500, seed=3)
    page = app.compare_inputs(*c.values())
    paths = []
    for name, values in zip(("baseline", "new", "refs"), _example_data()):
        paths.append(tmp_path / f"{name}.jsonl")
        paths[-1].write_text("".join(json.dumps(v) + "\n" for v in values), encoding="utf-8")
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["compare", "-r", str(paths[2]), str(paths[0]), str(paths[1]), "--test", "randomization",
                     "--n-resamples", "500", "--seed", "3", "-o", "json"]) == 0
    cli = json.loads(out.getvalue())
    assert list(cli.values()) == json.loads(json.dumps(list(page.values())))
    text = render_comparison(page).splitlines()[1:]
    table = app.compare_html(page, c.test, c.n_resamples, c.seed, 30)
    for line, (_, row) in zip(text, re.findall(r'<tr class="tc-row([^"]*)">(.*?)</tr>', table), strict=True):
        cells = re.findall(r'<td data-label="[^"]*">([^<]*)</td>', row)
        assert line.split() == " ".join(cells).split()


def test_the_test_choices_and_their_defaults_are_compare_s() -> None:
    from toolcall_f1.resampling import TESTS

    assert {k: v[1] for k, v in app.COMPARE_TEXT["tests"].items()} == TESTS
    assert app.Comparison().test == "bootstrap" and app.Comparison().seed == 12345


@pytest.mark.parametrize(
    ("values", "needle"),
    [
        (("[f()]", "bootstrap", None, 1, '["[f()]", "[g()]"]', '["[f()]", "[g()]"]'),
         "compare: system 'new' has 1 predictions for 2 references"),
        (("[f()]", "bootstrap", -5, 1, "[f()]", "[f()]"), "n_resamples: expected a positive integer, got -5"),
        (("[f()]", "bootstrap", 10**9, 1, "[f()]", "[f()]"), "Resamples / trials: at most 100,000 here, got 1,000,000,000"),
        (("[f()]", "sideways", None, 1, "[f()]", "[f()]"), "test: unknown value 'sideways'"),
        (("[f()]", "bootstrap", None, 1, "[f()]", "[f("), "references[0]"),
        (("[f()]", "bootstrap", None, 1, "[f()]", "[f()]", "[{"), "Tool schemas: invalid JSON"),
        (('[[{"name": "f", "arguments": {"x": 1, "x": 2}}]]', "bootstrap", None, 1, "[f()]", "[f()]"),
         "New system, line 1: duplicate key 'x'"),
    ],
    ids=["lengths", "negative-resamples", "too-many-resamples", "unknown-test", "bad-reference", "bad-tools", "duplicate-key"],
)
def test_bad_compare_input_is_a_readable_error(values: tuple, needle: str) -> None:
    _, result, message = app.run_compare(*values)
    assert result is None and 'id="error-box"' in message and needle in _text(message)
    _, message2, table, _, shell = app.on_compare(*values)
    assert table == "" and message2 == message and "toolcall-f1 compare" in shell


def test_too_few_examples_are_warned_about_on_the_page() -> None:
    """compare() warns below 10 units (the bootstrap's p sits at its floor): the page shows it."""
    _, result, message = app.run_compare("[g()]", "bootstrap", None, 1, "[f()]", "[f()]")
    assert result is not None and 'id="compare-warning"' in message and "too few for a paired test" in message
    assert app.run_compare(*app.COMPARE_EXAMPLE.values())[2] == ""


def test_only_the_metric_s_warnings_reach_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another library's warning is not the reader's business: warned as usual, not shown."""
    import warnings

    real = app.toolcall_f1.compare

    def noisy(*args, **kwargs):
        warnings.warn("someone else's", UserWarning, stacklevel=2)
        return real(*args, **kwargs)

    monkeypatch.setattr(app.toolcall_f1, "compare", noisy)
    with pytest.warns(UserWarning, match="someone else's"):
        _, result, message = app.run_compare(*app.COMPARE_EXAMPLE.values())
    assert result is not None and message == ""


def test_the_blurb_shows_only_while_the_example_is_unchanged() -> None:
    changed = dataclasses.replace(app.COMPARE_EXAMPLE, seed=4)
    assert app.on_compare(*changed.values())[0] == ""
    assert "Two systems, 30 examples." in app.on_compare(*app.COMPARE_EXAMPLE.values())[0]


def test_the_python_snippet_reproduces_the_comparison() -> None:
    c = dataclasses.replace(app.COMPARE_EXAMPLE, test="randomization", n_resamples=400,
                            inputs=dataclasses.replace(app.COMPARE_EXAMPLE.inputs, level="arg"))
    python, shell = app.compare_snippets(c)
    namespace: dict = {}
    exec(compile(python.replace("print(", "(lambda *a: None)("), "<snippet>", "exec"), namespace)  # our own code
    assert namespace["result"] == app.compare_inputs(*c.values())
    assert shell.endswith("toolcall-f1 compare --references references.jsonl baseline.jsonl new.jsonl "
                          "--test randomization --n-resamples 400 --seed 12345 --level arg")


@pytest.mark.slow
def test_the_shell_snippet_reproduces_the_comparison(tmp_path) -> None:
    c = dataclasses.replace(app.COMPARE_EXAMPLE, seed=9)
    script = app.compare_snippets(c)[1].replace("toolcall-f1 compare", f"{sys.executable} -m toolcall_f1 compare")
    done = subprocess.run(["bash", "-c", script + " -o json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert list(json.loads(done.stdout).values()) == list(app.compare_inputs(*c.values()).values())


def test_the_compare_tab_has_the_elements_the_browser_test_uses() -> None:
    blocks = app.build_demo()
    ids = {getattr(b, "elem_id", None) for b in blocks.blocks.values()}
    expected = {"score-tab", "compare-tab", "preset-compare", "compare-info", "compare-predictions", "compare-new",
                "compare-references", "compare-tools", "compare-test", "compare-n-resamples", "compare-seed",
                "compare-run", "compare-message", "compare-result", "compare-python", "compare-cli"}
    expected |= {f"compare-{name.replace('_', '-')}" for name in app.Inputs().settings(changed=False)}
    assert expected <= ids
    result = next(b for b in blocks.blocks.values() if getattr(b, "elem_id", None) == "compare-result")
    assert "0.0180 *" in result.value  # scored at build time: the tab shows its example on arrival


def test_run_compare_never_raises_on_a_bad_number_and_hints_at_turns() -> None:
    """A NaN or infinite resamples box is a readable error, not a ValueError; under order="turns"
    one conversation written as its bare list of turns gets a hint on the count mismatch."""
    for bad in (float("nan"), float("inf")):
        c, result, message = app.run_compare("[g()]", "bootstrap", bad, 12345, "[f()]", "[f()]")
        assert result is None and "expected whole numbers" in message and c.new == "[g()]"
    turns = dataclasses.replace(app.COMPARE_EXAMPLE.inputs, predictions='[["f(a=1)"], ["g(b=2)"]]',
                                references='{"turns": [["f(a=1)"], ["g(b=2)"]]}', tools="", order="turns")
    c = dataclasses.replace(app.COMPARE_EXAMPLE, new='[["f(a=1)"], ["g(b=3)"]]', inputs=turns)
    _, result, message = app.run_compare(*c.values())
    assert result is None and "has 2 predictions for 1 references" in message and "list of turns" in message
    one = dataclasses.replace(c, new='[[["f(a=1)"], ["g(b=3)"]]]', inputs=dataclasses.replace(
        turns, predictions='[[["f(a=1)"], ["g(b=2)"]]]'))
    assert app.run_compare(*one.values())[1]["new"]["delta"] == -0.5
