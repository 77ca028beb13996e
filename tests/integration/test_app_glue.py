"""The Gradio app's glue functions, without a browser: presets, the input convention, the
rendering of the metric's result, and readable errors for bad input.

The numbers asserted here are SPEC §9's worked examples (and hand counts for the presets);
the app itself computes nothing, it only calls ``ToolCallMetric.compute``.
"""

from __future__ import annotations

import os

import pytest

from .app_module import load_app

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
pytest.importorskip("gradio", reason="the app needs gradio (pip install -e .[app])")
pytest.importorskip("pandas", reason="the app needs pandas")

app = load_app()


def run(pred: str, ref: str, tools: str = "", level: str = "call", **settings: str):
    """``app.run`` with default settings unless given."""
    values = {
        "matching": "greedy",
        "canonicalizer": "default",
        "name_canonicalizer": "exact",
        "prediction_format": "auto",
        "reference_format": "auto",
    }
    values.update(settings)
    tools = values.pop("tools", tools)
    return app.run(pred, ref, tools, level, **values)


# --------------------------------------------------------------------------- presets


PRESET_EXPECTED = {
    # key: (f1, tp, fp, fn, exact_match)
    "seed": (0.5, 1, 1, 1, 0.0),  # SPEC §9
    "bfcl": (2 / 3, 2, 1, 1, 0.0),  # two of three parallel calls exact, one wrong duration
    "weighted": (1 / 11, 1, 10, 10, 0.0),  # delete_account weighs 10: 2*1 / (2*1 + 10 + 10)
    "hermes": (0.8, 4, 1, 1, 0.0),  # arg level: 2 names + city + unit (default) agree; timezone wrong
    "corpus": (2 / 3, 1, 0, 1, 0.5),  # SPEC §9 corpus: micro 2/3, never the mean 0.5
}


def test_every_preset_has_an_expectation() -> None:
    assert set(app.PRESETS) == set(PRESET_EXPECTED)


@pytest.mark.parametrize("key", sorted(PRESET_EXPECTED))
def test_preset_scores(key: str) -> None:
    values = app.preset_values(key)
    assert len(values) == 10  # nine inputs and the description
    result = app.score_inputs(*values[:9])
    f1, tp, fp, fn, em = PRESET_EXPECTED[key]
    assert result["f1"] == pytest.approx(f1)
    assert (result["tp"], result["fp"], result["fn"]) == (tp, fp, fn)
    assert result["exact_match"] == em
    assert result["num_parse_errors"] == 0


def test_seed_preset_is_the_page_default() -> None:
    seed = app.PRESETS["seed"]
    assert seed.predictions == '[search(q="cats"), delete_all()]'
    assert seed.references == '[search(q="cats"), answer(a="meow")]'


def test_fill_preset_clears_the_outputs() -> None:
    out = app.fill_preset("weighted")
    assert len(out) == 10 + 5
    message, scores, table, chart, raw = out[10:]
    assert message == "" and "Compute" in scores and raw is None
    assert table.empty and chart.empty


def test_unknown_preset() -> None:
    with pytest.raises(KeyError):
        app.preset_values("nope")


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
        (
            '[search(q="cats"), answer(a="meow")]',
            '[search(q="cats"), answer(a="meow")]',
            "call",
            {},
            (2, 0, 0),
            1.0,
        ),
        (
            '[search(q="cats"), delete_all()]',
            '[search(q="cats"), answer(a="meow")]',
            "arg",
            {},
            (2, 1, 2),
            4 / 7,
        ),
        ("[s(q='b'), s(q='a')]", "[s(q='a'), s(q='b')]", "call", {}, (2, 0, 0), 1.0),
        ("[s(q='a'), s(q='a')]", "[s(q='a')]", "call", {}, (1, 1, 0), 2 / 3),
        ("[f(x=1, y=2)]", "[f(x=1, y=3)]", "call", {}, (0, 1, 1), 0.0),
        ("[f(x=1, y=2)]", "[f(x=1, y=3)]", "arg", {}, (2, 1, 1), 2 / 3),
        ('[f(city="  new   YORK ")]', '[f(city="New York")]', "call", {}, (1, 0, 0), 1.0),
        ('[f(d="Jan.28,2021")]', '[f(d="jan 28 2021")]', "call", {"canonicalizer": "bfcl"}, (1, 0, 0), 1.0),
        ('[f(d="Jan.28,2021")]', '[f(d="jan 28 2021")]', "call", {}, (0, 1, 1), 0.0),
        (
            "[delete_all()]",
            "[]",
            "call",
            {"tools": '[{"name": "delete_all", "importance": 10}]'},
            (0, 10, 0),
            0.0,
        ),
        ("", "", "call", {}, (0, 0, 0), 1.0),
        ('["[g()]", "[]"]', '["[g()]", "[g()]"]', "call", {}, (1, 0, 1), 2 / 3),
    ],
    ids=[
        "identical",
        "seed-arg",
        "reordered",
        "repeat",
        "wrong-arg-call",
        "wrong-arg-arg",
        "default-canon",
        "bfcl-canon",
        "default-canon-strict",
        "weighted-extra",
        "empty",
        "corpus",
    ],
)
def test_spec_worked_examples(
    pred: str, gold: str, level: str, settings: dict, counts: tuple, f1: float
) -> None:
    message, scores, _table, _chart, raw = run(pred, gold, level=level, **settings)
    assert 'id="error-box"' not in message
    assert (raw["tp"], raw["fp"], raw["fn"]) == counts
    assert raw["f1"] == pytest.approx(f1)
    assert f'<div class="tc-value">{round(f1, 4)!r}</div>' in scores


def test_run_is_compute_with_details() -> None:
    """The app passes per_tool and return_details, and nothing else changes the number."""
    import toolcall_f1

    pred, gold = '[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]'
    raw = run(pred, gold)[4]
    direct = toolcall_f1.ToolCallMetric().compute([pred], [gold], per_tool=True, return_details=True)
    assert raw == direct


# --------------------------------------------------------------------------- rendering


def test_seed_match_table_marks_unmatched_calls() -> None:
    table = run('[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]')[2]
    assert list(table.columns) == app.TABLE_COLUMNS
    assert table.values.tolist() == [
        [1, 'search(q="cats")', 'search(q="cats")', "exact (TP)", "q ✓ agree"],
        [1, "delete_all()", "— (unmatched)", "unmatched prediction (FP)", ""],
        [1, "— (unmatched)", 'answer(a="meow")', "unmatched gold (FN)", ""],
    ]


def test_match_table_argument_verdicts() -> None:
    table = run("[f(x=1, y=2, z=0)]", "[f(x=1, y=3, w=4)]", level="arg")[2]
    (row,) = table.values.tolist()
    assert row[3] == "not exact"
    parts = row[4].split("; ")  # in the order the metric reports them
    assert sorted(parts) == sorted(
        ["x ✓ agree", "y ✗ disagree: 2 vs 3 (value)", "z + extra: 0", "w − missing: 4"]
    )


def test_match_table_shows_bfcl_alternatives() -> None:
    values = app.preset_values("bfcl")
    table = app.match_table(app.score_inputs(*values[:9]))
    golds = table["Gold call"].tolist()
    assert 'spotify.play(artist=("Taylor Swift" | "taylor swift"), duration=20)' in golds
    assert 'spotify.play(artist="Maroon 5", duration=(15 | omitted))' in golds
    assert table["Result"].tolist().count("exact (TP)") == 2


def test_per_tool_frame() -> None:
    chart = run('[search(q="cats"), delete_all()]', '[search(q="cats"), answer(a="meow")]')[3]
    assert list(chart.columns) == app.CHART_COLUMNS
    assert chart[["tool", "f1", "tp", "fp", "fn"]].values.tolist() == [
        ["answer", 0.0, 0.0, 0.0, 1.0],
        ["delete_all", 0.0, 0.0, 1.0, 0.0],
        ["search", 1.0, 1.0, 0.0, 0.0],
    ]


def test_scores_html_has_every_number_and_the_signature() -> None:
    tools = '[{"name": "search", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}]'
    message, scores, *_ = run('[search(q="cats", page=2), delete_all()]', '[search(q="cats")]', tools)
    for element in (
        "score-f1",
        "score-precision",
        "score-recall",
        "score-exact-match",
        "count-tp",
        "count-fp",
        "count-fn",
        "count-num-parse-errors",
        "count-hallucinated-tools",
        "count-hallucinated-args",
        "score-signature",
    ):
        assert f'id="{element}"' in scores
    assert "hallucinated tools <b>1</b>" in scores and "hallucinated args <b>1</b>" in scores
    assert "level:call|match:greedy|canon:default" in scores
    assert message == ""


def test_html_is_escaped() -> None:
    message = run('<tool_call>{"name": "<script>alert(1)</script>", </tool_call>', "[f()]")[0]
    assert 'id="parse-warning"' in message
    assert "<script>" not in message and "&lt;script&gt;" in message
    message = run("[f()]", '[{"name": "<script>", "arguments": ')[0]
    assert 'id="error-box"' in message
    assert "<script>" not in message and "&lt;script&gt;" in message


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("pred", "ref", "tools", "settings", "needle"),
    [
        (
            '[search(q="cats")]',
            '[{"name": "search", "arguments": ',
            "",
            {},
            "references[0]: json: invalid JSON",
        ),
        ('[search(q="cats")]', '[search(q="cats")', "", {}, "references[0]: python: unbalanced brackets"),
        (
            '[search(q="cats")]',
            '[{"search": {"q": "cats"}}]',
            "",
            {"reference_format": "bfcl"},
            "expected a list of accepted values",
        ),
        ('[search(q="cats")]', '[search(q="cats")]', "[{", {}, "Tool schemas: invalid JSON"),
        ('[search(q="cats")]', '[search(q="cats")]', '[{"name": "search", "importance": -1}]', {}, "search"),
        ('["[f()]", "[g()]"]', "[f()]", "", {}, "predictions hold 2 example(s) but references hold 1"),
        ('[search(q="cats")]', "[" * 100_000, "", {}, "references[0]"),
        ('[search(q="cats")]', '[search(q="cats")]', "[" * 100_000, {}, "Tool schemas: JSON nested too deeply"),
    ],
    ids=["ref-bad-json", "ref-bad-python", "ref-not-bfcl", "tools-bad-json", "negative-weight", "lengths",
         "ref-too-deep", "tools-too-deep"],
)
def test_bad_input_is_a_readable_error(pred: str, ref: str, tools: str, settings: dict, needle: str) -> None:
    message, scores, table, chart, raw = run(pred, ref, tools, **settings)
    assert 'id="error-box"' in message and "Cannot score these inputs." in message
    assert needle in message.replace("&#x27;", "'").replace("&quot;", '"')
    assert "Traceback" not in message
    assert raw is None and table.empty and chart.empty and scores == app.EMPTY_SCORES


def test_deeply_nested_prediction_is_a_parse_error_in_the_page() -> None:
    message, _scores, _table, _chart, raw = run("[" * 100_000, '[search(q="cats")]')
    assert 'id="parse-warning"' in message and raw["num_parse_errors"] == 1


def test_unreadable_prediction_is_counted_not_fatal() -> None:
    message, _scores, table, _chart, raw = run('<tool_call>{"name": "x", </tool_call>', '[search(q="cats")]')
    assert 'id="parse-warning"' in message and "predictions[0]: hermes" in message
    assert raw["num_parse_errors"] == 1 and (raw["tp"], raw["fp"], raw["fn"]) == (0, 0, 1)
    rows = table.values.tolist()
    assert rows[0][1] == "— (parse error)" and rows[0][4].startswith("predictions[0]: hermes")
    assert rows[1][1:4] == ["— (unmatched)", 'search(q="cats")', "unmatched gold (FN)"]


# --------------------------------------------------------------------------- the page


def test_build_demo_has_the_elements_the_browser_test_uses() -> None:
    import gradio as gr

    blocks = app.build_demo()
    assert isinstance(blocks, gr.Blocks) and isinstance(app.demo, gr.Blocks)
    ids = {getattr(b, "elem_id", None) for b in blocks.blocks.values()}
    expected = {
        "predictions",
        "references",
        "tools",
        "level",
        "matching",
        "canonicalizer",
        "name-canonicalizer",
        "prediction-format",
        "reference-format",
        "compute",
        "message",
        "scores",
        "match-table",
        "per-tool-chart",
        "raw-result",
        "preset-info",
    }
    expected |= {f"preset-{key}" for key in app.PRESETS}
    assert expected <= ids
