"""The Gradio app in a real headless browser (Debian's Chromium, driven by Playwright).

The app is served on a free localhost port in this process; every request the page makes to
anywhere else is aborted, so the test never touches the network. One test per behaviour; each
saves screenshots at 1280 and 390 px wide to ``test-artifacts/`` (``<name>-1280.png``,
``<name>-390.png``).

Skipped, with how to get Chromium, only when Chromium or Playwright is absent — never on CI:
``tests/conftest.py`` fails a CI run that lacks them.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .app_module import load_app

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HOW_TO_GET_CHROMIUM = (
    f"Chromium is absent at {CHROMIUM}: Debian/Ubuntu `sudo apt-get install chromium` (or `sudo make "
    "chromium`); Fedora `sudo dnf install chromium`; macOS `brew install --cask chromium` and "
    "CHROMIUM=/Applications/Chromium.app/Contents/MacOS/Chromium. The rest of the suite runs."
)
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT_MS = 30_000
WIDTHS = (1280, 390)

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():
    pytest.skip(HOW_TO_GET_CHROMIUM, allow_module_level=True)
playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is absent (pip install -e .[test])"
)
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
pytest.importorskip("gradio", reason="the app needs gradio (pip install -e .[app])")

expect = playwright_api.expect
expect.set_options(timeout=TIMEOUT_MS)  # a compute may wait behind the previous test's last one
app = load_app()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    blocks = app.build_demo()
    port = _free_port()
    blocks.launch(prevent_thread_lock=True, server_port=port, server_name="127.0.0.1", quiet=True)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        blocks.close()


@pytest.fixture(scope="module")
def context() -> Iterator[object]:
    """One Chromium with a fresh profile (user-data-dir) for the module."""
    with playwright_api.sync_playwright() as p, tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        ctx = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 900}
        )
        try:
            yield ctx
        finally:
            ctx.close()


def _open(context, app_url: str, width: int = 1280):
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    pg.set_viewport_size({"width": width, "height": 900 if width > 600 else 844})

    def local_only(route) -> None:
        if route.request.url.startswith(app_url):
            route.continue_()
        else:
            route.abort()

    pg.route("**/*", local_only)
    pg.goto(app_url + "/")
    expect(pg.locator("#compute")).to_be_visible()
    return pg


@pytest.fixture
def page(context, app_url: str) -> Iterator[object]:
    pg = _open(context, app_url)
    try:
        yield pg
    finally:
        pg.close()


def _shoot(pg, name: str) -> None:
    """Screenshots of the page as it is, at both widths (the page is left at 1280 px)."""
    ARTIFACTS.mkdir(exist_ok=True)
    for width in WIDTHS:
        pg.set_viewport_size({"width": width, "height": 900 if width > 600 else 844})
        pg.wait_for_timeout(300)  # let the layout settle after the resize
        path = ARTIFACTS / f"{name}-{width}.png"
        pg.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000
    pg.set_viewport_size({"width": 1280, "height": 900})


def _f1(pg):
    return pg.locator("#score-f1 .tc-value")


def _rows(pg):
    return pg.locator("#match-table tr.tc-row")


def _row_texts(pg) -> list[list[str]]:
    rows = _rows(pg)
    return [
        [c.strip() for c in rows.nth(i).locator("td").all_inner_texts()] for i in range(rows.count())
    ]


def _preset(pg, key: str) -> None:
    pg.click(f"#preset-{key}")
    expect(pg.locator("#predictions textarea")).to_have_value(app.PRESETS[key].inputs.predictions)
    expect(pg.locator("#preset-info")).to_contain_text(app.PRESETS[key].label)


def _open_accordion(pg, title: str) -> None:
    pg.get_by_role("button", name=title).click()


# --------------------------------------------------------------------------- results on arrival


def test_landing_page_shows_the_first_presets_result_without_a_click(page) -> None:
    """SPEC §9: TP 1, FP 1, FN 1 -> F1 0.5, with the table, the chart and the blurb."""
    expect(_f1(page)).to_have_text("0.5")
    expect(page.locator("#score-precision .tc-value")).to_have_text("0.5")
    expect(page.locator("#score-recall .tc-value")).to_have_text("0.5")
    expect(page.locator("#score-exact-match .tc-value")).to_have_text("0.0")
    for key in ("tp", "fp", "fn"):
        expect(page.locator(f"#count-{key}")).to_have_text(f"{key.upper()} 1")
    expect(page.locator("#score-signature")).to_contain_text("level:call|match:greedy|order:any|canon:default")
    expect(page.locator("#preset-info")).to_contain_text("Right, extra, missed.")
    assert _row_texts(page) == [
        ["1", 'search(q="cats")', 'search(q="cats")', "✓ exact", "TP +1", "q ✓ agree"],
        ["1", "delete_all()", "—", "+ extra call", "FP +1", ""],
        ["1", "—", 'answer(a="meow")', "− missed call", "FN +1", ""],
    ]
    # rows coloured by outcome
    assert [_rows(page).nth(i).get_attribute("class") for i in range(3)] == [
        "tc-row tc-exact",
        "tc-row tc-extra",
        "tc-row tc-missed",
    ]
    _shoot(page, "landing")


def test_per_tool_chart_is_sorted_bars_with_labels_and_visible_zeros(page) -> None:
    bars = page.locator("#per-tool-chart .tc-bar-row")
    expect(bars).to_have_count(3)
    names = page.locator("#per-tool-chart .tc-bar-name").all_inner_texts()
    assert names == ["answer", "delete_all", "search"]  # worst first, then by name
    expect(bars.nth(2)).to_contain_text("F1 1.0 · P 1.0 R 1.0 · TP 1 FP 0 FN 0")
    expect(bars.nth(0)).to_contain_text("F1 0.0")
    # a zero bar is still visible: its track has a size and a marker
    zero = page.locator("#per-tool-chart .tc-bar-track.tc-zero").first
    box = zero.bounding_box()
    assert box is not None and box["width"] > 50 and box["height"] > 8
    full = page.locator("#per-tool-chart .tc-bar-fill").nth(2).bounding_box()
    assert full is not None and full["width"] > 0.9 * box["width"]
    assert "Error" not in page.locator("#per-tool-chart").inner_text()
    _shoot(page, "chart")


# --------------------------------------------------------------------------- presets and staleness


@pytest.mark.parametrize(
    ("key", "f1", "rows"),
    [
        ("greedy", "0.5", 2),
        ("bfcl", "0.6667", 3),
        ("weighted", "0.0909", 2),
        ("hermes", "0.8", 2),
        ("corpus", "0.6667", 2),
        ("mixed", "0.5", 3),
    ],
)
def test_a_preset_click_shows_its_result_at_once(page, key: str, f1: str, rows: int) -> None:
    if key == "mixed":
        _preset(page, "weighted")  # leave the first preset, then come back to it
    _preset(page, key)
    expect(_f1(page)).to_have_text(f1)
    expect(_rows(page)).to_have_count(rows)
    if key in ("greedy", "weighted"):
        _shoot(page, f"preset-{key}")


def test_changing_a_setting_recomputes_and_the_blurb_goes(page) -> None:
    """The weighted preset at argument level: TP 22, FP 10, FN 10 -> F1 0.6875."""
    _preset(page, "weighted")
    expect(_f1(page)).to_have_text("0.0909")
    page.locator("#level label", has_text="arg").click()
    expect(_f1(page)).to_have_text("0.6875")
    expect(page.locator("#score-signature")).to_contain_text("level:arg")
    expect(page.locator("#preset-info .tc-blurb")).to_have_count(0)  # inputs no longer match it
    page.locator("#level label", has_text="call").click()  # back to the preset's inputs
    expect(_f1(page)).to_have_text("0.0909")
    expect(page.locator("#preset-info")).to_contain_text("Weighted destructive tool.")


def test_typing_recomputes_without_compute(page) -> None:
    page.fill("#predictions textarea", '[search(q="cats"), answer(a="meow")]')
    expect(_f1(page)).to_have_text("1.0")
    expect(page.locator("#preset-info .tc-blurb")).to_have_count(0)
    page.fill("#predictions textarea", '[search(q="dogs")]')  # a wrong value: one FP, two FN
    expect(_f1(page)).to_have_text("0.0")
    expect(page.locator("#count-fn")).to_have_text("FN 2")


def test_greedy_and_optimal_differ_as_the_blurb_says(page) -> None:
    _preset(page, "greedy")
    expect(_f1(page)).to_have_text("0.5")
    page.locator("#matching label", has_text="optimal").click()
    expect(_f1(page)).to_have_text("1.0")
    expect(page.locator("#score-signature")).to_contain_text("match:optimal")


# --------------------------------------------------------------------------- explain the numbers


def test_each_row_shows_what_it_adds_and_its_weight(page) -> None:
    _preset(page, "weighted")
    texts = _row_texts(page)
    assert texts[0][3:5] == ["✓ exact", "TP +1"]
    assert texts[1][3] == "≠ not exact"
    assert texts[1][4].split("\n") == ["FP +10 · FN +10", "weight 10"]
    expect(page.locator("#scores")).to_contain_text("weighted counts")


def test_hallucinations_are_flagged_on_their_row(page) -> None:
    tools = [{"name": "search", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}]
    page.fill("#tools textarea", json.dumps(tools))
    page.fill("#predictions textarea", '[search(q="cats", page=2), delete_all()]')
    expect(page.locator("#count-hallucinated-tools")).to_have_text("hallucinated tools 1")
    expect(page.locator("#count-hallucinated-args")).to_have_text("hallucinated args 1")
    flags = page.locator("#match-table .tc-flag").all_inner_texts()
    assert flags == ["hallucinated argument page", "hallucinated tool"]
    _shoot(page, "hallucinations")


def test_help_explains_level_matching_and_canonicalizers(page) -> None:
    _open_accordion(page, "What the numbers and settings mean")
    help_box = page.locator("#help")
    for needle in ("Level", "Matching", "greedy", "optimal", "String canonicalizer", "Signature"):
        expect(help_box).to_contain_text(needle)
    _shoot(page, "help")


# --------------------------------------------------------------------------- reproduce it


def test_reproduce_snippets_follow_the_settings(page) -> None:
    page.locator("#level label", has_text="arg").click()
    expect(page.locator("#score-signature")).to_contain_text("level:arg")
    _open_accordion(page, "Reproduce this result (Python, command line)")
    python = page.locator("#python-snippet .cm-content")
    cli = page.locator("#cli-snippet .cm-content")
    expect(python).to_contain_text("metric = toolcall_f1.load()")
    expect(python).to_contain_text("level='arg'")
    expect(cli).to_contain_text("toolcall-f1 score --predictions predictions.jsonl")
    expect(cli).to_contain_text("--level arg --per-tool")
    _shoot(page, "reproduce")


# --------------------------------------------------------------------------- read it at a glance


def test_errors_only_filter(page) -> None:
    expect(_rows(page)).to_have_count(3)
    page.locator("#errors-only input").check()
    expect(_rows(page)).to_have_count(2)
    assert "✓ exact" not in page.locator("#match-table").inner_text()
    page.locator("#errors-only input").uncheck()
    expect(_rows(page)).to_have_count(3)


def test_a_large_corpus_shows_mismatches_first_up_to_the_cap(page) -> None:
    n = app.ROW_CAP + 100
    predictions = [f"[f(x={i})]" for i in range(n)]
    references = [[{"name": "f", "arguments": {"x": i if i % 3 else -1}}] for i in range(n)]
    page.fill("#references textarea", json.dumps(references))
    page.fill("#predictions textarea", json.dumps(predictions))
    expect(page.locator("#table-note")).to_contain_text(f"Showing {app.ROW_CAP} of {n} row(s), mismatches first")
    expect(_rows(page)).to_have_count(app.ROW_CAP)
    wrong = n // 3 + (n % 3 > 0)
    classes = [_rows(page).nth(i).get_attribute("class") for i in (0, wrong - 1, wrong)]
    assert classes == ["tc-row tc-wrong", "tc-row tc-wrong", "tc-row tc-exact"]


def test_full_json_is_sent_only_when_its_accordion_opens(page) -> None:
    assert '"signature"' not in page.content()
    _open_accordion(page, "Full result (JSON)")
    raw = page.locator("#raw-result .cm-content")
    expect(raw).to_contain_text('"signature"')
    expect(raw).to_contain_text('"per_tool"')  # the editor renders only the lines in view


# --------------------------------------------------------------------------- errors and small items


def test_bad_reference_shows_a_readable_error(page) -> None:
    page.fill("#references textarea", '[{"name": "search", "arguments": ')
    error = page.locator("#message #error-box")
    expect(error).to_contain_text("Cannot score these inputs.")
    expect(error).to_contain_text("references[0]: json: invalid JSON")
    expect(page.locator("#score-f1")).to_have_count(0)
    expect(_rows(page)).to_have_count(0)
    assert "Traceback" not in page.content()
    _shoot(page, "error")


def test_bad_tool_schemas_show_a_readable_error(page) -> None:
    page.fill("#tools textarea", "[{not json")
    expect(page.locator("#message #error-box")).to_contain_text("Tool schemas: invalid JSON")
    assert "Traceback" not in page.content()


def test_empty_references_get_a_hint(page) -> None:
    page.fill("#references textarea", "")
    expect(page.locator("#references-hint")).to_contain_text("References is empty")
    expect(_f1(page)).to_have_text("0.0")


def test_hermes_blurb_shows_the_tag(page) -> None:
    _preset(page, "hermes")
    expect(page.locator("#preset-info")).to_contain_text("Hermes <tool_call>. Hermes/Qwen output: prose, then <tool_call> blocks.")


def test_auto_is_the_first_prediction_format(page) -> None:
    page.locator("#prediction-format input").click()
    options = page.locator("ul[role=listbox] li")
    expect(options.first).to_contain_text("auto")
    expect(options.nth(1)).not_to_contain_text("auto")


# --------------------------------------------------------------------------- order (issue 22)


def test_the_order_choice_recomputes_and_names_itself(page) -> None:
    """Two right calls in the wrong order: F1 1.0 under any (a multiset), 0.5 under strict."""
    radios = page.locator("#order label")
    assert [t.strip() for t in radios.all_inner_texts()] == list(app.toolcall_f1.Settings.allowed("order"))
    page.fill("#references textarea", "[a(), b()]")
    page.fill("#predictions textarea", "[b(), a()]")
    expect(_f1(page)).to_have_text("1.0")
    page.locator("#order label", has_text="strict").click()
    expect(_f1(page)).to_have_text("0.5")
    expect(page.locator("#score-signature")).to_contain_text("match:greedy|order:strict|")
    _open_accordion(page, "Reproduce this result (Python, command line)")
    expect(page.locator("#cli-snippet .cm-content")).to_contain_text("--order strict --per-tool")
    _shoot(page, "order-strict")


# --------------------------------------------------------------------------- compare two systems (issue 23)


def _compare_tab(pg) -> None:
    pg.get_by_role("tab", name=app.COMPARE_TEXT["tabs"][1]).click()
    expect(pg.locator("#compare-run")).to_be_visible()


def _compare_cells(pg) -> list[list[str]]:
    rows = pg.locator("#compare-table tr.tc-row")
    return [[c.strip() for c in rows.nth(i).locator("td").all_inner_texts()] for i in range(rows.count())]


def _want(**changes) -> list[list[str]]:
    """The table's cells from ``toolcall_f1.compare()`` (through the app's own reading of the boxes)."""
    import dataclasses

    settings = {k: changes.pop(k) for k in list(changes) if k in {f.name for f in dataclasses.fields(app.Inputs)}}
    c = dataclasses.replace(app.COMPARE_EXAMPLE, inputs=dataclasses.replace(app.COMPARE_EXAMPLE.inputs, **settings),
                            **changes)
    out = app.compare_inputs(*c.values())
    return [[name, f"{r['f1']:.4f}", "[{:.4f}, {:.4f}]".format(*r["ci"]),
             "—" if r["p_value"] is None else f"{r['delta']:+.4f}",
             "—" if r["p_value"] is None else f"{r['p_value']:.4f}" + (" *" if r["p_value"] < 0.05 else "")]
            for name, r in out.items()]


def test_the_compare_tab_shows_its_example_on_arrival(page) -> None:
    """30 examples, two systems: F1 with its interval, Δ against the baseline, p marked * below 0.05."""
    _compare_tab(page)
    expect(page.locator("#compare-table")).to_be_visible()
    assert _compare_cells(page) == [["baseline", "0.6316", "[0.4643, 0.7843]", "—", "—"],
                                    ["new", "0.8814", "[0.7451, 0.9818]", "+0.2498", "0.0180 *"]] == _want()
    expect(page.locator("#compare-info")).to_contain_text("Two systems, 30 examples.")
    expect(page.locator("#compare-note")).to_contain_text("paired bootstrap, 1000 resamples, seed 12345; 30 examples")
    expect(page.locator("#compare-signature")).to_contain_text("|test:bootstrap|n:1000|seed:12345|")
    _shoot(page, "compare")


def test_the_compare_tab_follows_its_test_settings_and_example(page) -> None:
    _compare_tab(page)
    page.locator("#compare-test label", has_text="randomization").click()
    expect(page.locator("#compare-note")).to_contain_text("approximate randomization, 10000 trials, seed 12345")
    assert _compare_cells(page) == _want(test="randomization")
    page.locator("#compare-level label", has_text="arg").click()  # the compare tab's own settings
    expect(page.locator("#compare-signature")).to_contain_text("level:arg|")
    expect(page.locator("#compare-table tr.tc-row").nth(1)).to_contain_text(_want(test="randomization", level="arg")[1][1])
    assert _compare_cells(page) == _want(test="randomization", level="arg")
    expect(page.locator("#compare-info .tc-blurb")).to_have_count(0)  # no longer the example
    page.fill("#compare-seed input", "7")
    page.locator("#compare-seed input").press("Enter")
    expect(page.locator("#compare-note")).to_contain_text("seed 7;")
    assert _compare_cells(page) == _want(test="randomization", level="arg", seed=7)
    page.click("#preset-compare")  # back to the example, scored at once
    expect(page.locator("#compare-note")).to_contain_text("paired bootstrap, 1000 resamples, seed 12345")
    expect(page.locator("#compare-info")).to_contain_text("Two systems, 30 examples.")
    assert _compare_cells(page) == _want()
    _open_accordion(page, "Reproduce this comparison (Python, command line)")
    expect(page.locator("#compare-cli .cm-content")).to_contain_text("cat > baseline.jsonl <<'EOF'")  # lines in view
    expect(page.locator("#compare-python .cm-content")).to_contain_text("baseline = [")


def test_bad_compare_input_shows_a_readable_error(page) -> None:
    _compare_tab(page)
    page.fill("#compare-new textarea", '["[f()]"]')
    error = page.locator("#compare-message #error-box")
    expect(error).to_contain_text("compare: system 'new' has 1 predictions for 30 references")
    expect(page.locator("#compare-table")).to_have_count(0)
    assert "Traceback" not in page.content()


def test_the_compare_tab_is_readable_on_a_phone(context, app_url: str) -> None:
    pg = _open(context, app_url, width=390)
    try:
        _compare_tab(pg)
        expect(pg.locator("#compare-table")).to_be_visible()
        assert pg.evaluate("document.documentElement.scrollWidth") <= 392
        cell = pg.locator("#compare-table tr.tc-row").nth(1).locator("td").nth(4).bounding_box()
        assert cell is not None and cell["x"] + cell["width"] <= 392
        _shoot(pg, "compare-mobile")
    finally:
        pg.close()


# --------------------------------------------------------------------------- mobile


def test_mobile_layout_is_readable(context, app_url: str) -> None:
    pg = _open(context, app_url, width=390)
    try:
        expect(_f1(pg)).to_have_text("0.5")
        # no sideways scrolling of the page
        assert pg.evaluate("document.documentElement.scrollWidth") <= 392
        # Compute within two screens (844 px each) of the top
        compute = pg.locator("#compute").bounding_box()
        assert compute is not None and compute["y"] < 2 * 844
        # the table is stacked: no header row, each cell a full-width labelled line
        expect(pg.locator("#match-table thead")).to_be_hidden()
        cell = _rows(pg).nth(0).locator("td").nth(1).bounding_box()
        assert cell is not None and cell["width"] > 250
        # the signature wraps inside the screen
        sig = pg.locator("#score-signature").bounding_box()
        assert sig is not None and sig["x"] + sig["width"] <= 392
        _shoot(pg, "mobile")
    finally:
        pg.close()
