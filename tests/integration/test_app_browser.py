"""The Gradio app in a real headless browser (Debian's Chromium, driven by Playwright).

The app is served on a free localhost port in this process; every request the page makes
to anywhere else is aborted, so the test never touches the network. A screenshot of the
seed preset's result is saved to ``test-artifacts/app.png``.

Skipped (with the reason) only when ``/usr/bin/chromium`` or Playwright is absent.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from .app_module import load_app

CHROMIUM = "/usr/bin/chromium"
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
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT_MS = 30_000

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is absent (apt-get install chromium)", allow_module_level=True)
playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is absent (pip install playwright)"
)
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
pytest.importorskip("gradio", reason="the app needs gradio (pip install -e .[app])")

expect = playwright_api.expect


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    app = load_app()
    blocks = app.build_demo()
    port = _free_port()
    blocks.launch(prevent_thread_lock=True, server_port=port, server_name="127.0.0.1", quiet=True)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        blocks.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser, app_url: str) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)

    def local_only(route) -> None:
        if route.request.url.startswith(app_url):
            route.continue_()
        else:
            route.abort()

    pg.route("**/*", local_only)
    pg.goto(app_url + "/")
    expect(pg.locator("#compute")).to_be_visible(timeout=TIMEOUT_MS)
    try:
        yield pg
    finally:
        context.close()


def _choose_preset(pg, key: str) -> None:
    app = load_app()
    # Empty the box first, so seeing the preset's text proves the preset event has landed
    # (the page opens with the seed preset already filled in).
    pg.fill("#predictions textarea", "")
    pg.click(f"#preset-{key}")
    expect(pg.locator("#predictions textarea")).to_have_value(
        app.PRESETS[key].predictions, timeout=TIMEOUT_MS
    )
    expect(pg.locator("#scores .tc-placeholder")).to_be_visible(timeout=TIMEOUT_MS)


def _compute(pg) -> None:
    pg.click("#compute")
    expect(pg.locator("#scores .tc-cards, #message #error-box").first).to_be_visible(timeout=TIMEOUT_MS)


def _table_rows(pg) -> list[list[str]]:
    rows = pg.locator("#match-table [role=row].virtual-row")
    out = []
    for r in range(rows.count()):
        cells = rows.nth(r).locator("[role=gridcell]")
        out.append([cells.nth(c).inner_text().strip() for c in range(cells.count())])
    return out


def test_seed_preset_in_browser(page) -> None:
    _choose_preset(page, "seed")
    _compute(page)

    # the scores: SPEC §9, call level TP 1, FP 1, FN 1 -> F1 0.5
    expect(page.locator("#score-f1 .tc-value")).to_have_text("0.5")
    expect(page.locator("#score-precision .tc-value")).to_have_text("0.5")
    expect(page.locator("#score-recall .tc-value")).to_have_text("0.5")
    expect(page.locator("#score-exact-match .tc-value")).to_have_text("0.0")
    for key, value in (
        ("tp", "1"),
        ("fp", "1"),
        ("fn", "1"),
        ("num-parse-errors", "0"),
        ("hallucinated-tools", "0"),
        ("hallucinated-args", "0"),
    ):
        expect(page.locator(f"#count-{key} b")).to_have_text(value)
    expect(page.locator("#score-signature")).to_contain_text("level:call|match:greedy|canon:default")
    expect(page.locator("#message #error-box")).to_have_count(0)

    # the match table: the pair, then each unmatched call beside "— (unmatched)"
    expect(page.locator("#match-table [role=row].virtual-row")).to_have_count(3)
    assert _table_rows(page) == [
        ["1", 'search(q="cats")', 'search(q="cats")', "exact (TP)", "q ✓ agree"],
        ["1", "delete_all()", "— (unmatched)", "unmatched prediction (FP)", ""],
        ["1", "— (unmatched)", 'answer(a="meow")', "unmatched gold (FN)", ""],
    ]

    # the chart: rendered by vega as SVG, one bar per tool, the tools on the x axis
    chart = page.locator("#per-tool-chart svg.marks")
    expect(chart).to_be_visible()
    expect(page.locator("#per-tool-chart svg.marks .mark-rect path")).to_have_count(3)
    expect(page.locator("#per-tool-chart svg.marks")).to_contain_text("delete_all")
    box = chart.bounding_box()
    assert box is not None and box["width"] > 100 and box["height"] > 100

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "app.png"), full_page=True)
    assert (ARTIFACTS / "app.png").stat().st_size > 10_000


@pytest.mark.parametrize(
    ("key", "f1", "rows", "bars"),
    [
        ("bfcl", "0.6667", 3, 1),
        ("weighted", "0.0909", 2, 2),
        ("hermes", "0.8", 2, 2),
        ("corpus", "0.6667", 2, 2),
    ],
)
def test_other_presets_in_browser(page, key: str, f1: str, rows: int, bars: int) -> None:
    _choose_preset(page, key)
    _compute(page)
    expect(page.locator("#score-f1 .tc-value")).to_have_text(f1)
    expect(page.locator("#match-table [role=row].virtual-row")).to_have_count(rows)
    expect(page.locator("#per-tool-chart svg.marks .mark-rect path")).to_have_count(bars)


def test_changing_a_setting_changes_the_score(page) -> None:
    """The weighted preset at argument level: TP 22, FP 10, FN 10 -> F1 0.6875."""
    _choose_preset(page, "weighted")
    page.locator("#level label", has_text="arg").click()
    expect(page.locator("#level input[value=arg]")).to_be_checked()
    _compute(page)
    expect(page.locator("#score-f1 .tc-value")).to_have_text("0.6875")
    expect(page.locator("#score-signature")).to_contain_text("level:arg")


def test_bad_reference_shows_a_readable_error(page) -> None:
    _choose_preset(page, "seed")
    page.fill("#references textarea", '[{"name": "search", "arguments": ')
    _compute(page)
    error = page.locator("#message #error-box")
    expect(error).to_be_visible()
    expect(error).to_contain_text("Cannot score these inputs.")
    expect(error).to_contain_text("references[0]: json: invalid JSON")
    expect(page.locator("#scores .tc-placeholder")).to_be_visible()
    expect(page.locator("#match-table [role=row].virtual-row")).to_have_count(0)
    assert "Traceback" not in page.content()


def test_bad_tool_schemas_show_a_readable_error(page) -> None:
    _choose_preset(page, "seed")
    page.fill("#tools textarea", "[{not json")
    _compute(page)
    expect(page.locator("#message #error-box")).to_contain_text("Tool schemas: invalid JSON")
    assert "Traceback" not in page.content()
