"""The HTML report opens in headless Chromium with no broken image and no console message, and a
screenshot is written; the checker itself catches broken images, console errors and network
references.

Chromium comes from `make chromium` (Debian package `chromium`, a prerequisite of `make test`).
"""

import io
import re

import pytest
from helpers.browser import check_html, find_chromium, main
from helpers.synthetic_run import MINILM, SVM, write_synthetic_run
from PIL import Image

from eval_harness.report import write_report

pytestmark = pytest.mark.skipif(
    find_chromium() is None,
    reason="no Chromium: run `make chromium` (as root) or apt-get install chromium",
)


@pytest.fixture(scope="module")
def report_html(tmp_path_factory):
    run_dir = write_synthetic_run(tmp_path_factory.mktemp("run") / "synthetic")
    return write_report(run_dir, formats=("html",)).html


def test_report_opens_in_chromium_without_problems_and_a_screenshot_is_written(report_html):
    screenshot = report_html.parent / "screenshot.png"
    result = check_html(report_html, screenshot=screenshot, window_size=(1280, 1800))
    assert result.ok, result.summary()
    assert (
        result.n_images == 1
    )  # the summary's heatmap; the sections' figures are on the linked tables page
    tables = check_html(report_html.parent / "tables.html", window_size=(1280, 1800))
    assert tables.ok and tables.n_images == 7, tables.summary()
    assert (result.broken_images, result.console_messages, result.network_references) == (
        (),
        (),
        (),
    )
    with Image.open(io.BytesIO(screenshot.read_bytes())) as image:
        assert image.format == "PNG" and image.size == (1280, 1800)
        # a rendered page, not a blank one: dark text on the white background
        assert image.convert("L").getextrema()[0] < 60


def test_the_summary_on_top_needs_no_sideways_scroll_at_1400_px(report_html):
    screenshot = report_html.parent / "summary_1400.png"
    result = check_html(report_html, screenshot=screenshot, window_size=(1400, 1200))
    assert result.ok, result.summary()
    assert result.viewport_width == 1400 and result.summary_overflows == ()
    assert result.page_scroll_width <= 1400  # nor does the page as a whole
    html = report_html.read_text(encoding="utf-8")
    assert (
        html.index('id="summary"') < html.index('id="overview"') < html.index('id="findings-after')
    )
    assert "summary_eec_effects" in html or "EEC effects per model" in html
    # The full findings table is folded (HTML <details>) on the linked page of full tables.
    assert '<a href="tables.html">' in html and "<details><summary>Findings" not in html
    assert (
        "<details><summary>Findings that survive Holm"
        in (report_html.parent / "tables.html").read_text()
    )


def test_every_models_verdict_is_on_the_first_screen_at_1280_by_800(report_html):
    """The answer first: in a real browser at 1280 x 800, every EEC model's verdict sentence ends
    within the first screen (the screenshot shows them), each naming its model."""
    screenshot = report_html.parent / "first_screen.png"
    result = check_html(report_html, screenshot=screenshot, window_size=(1280, 800))
    assert result.ok, result.summary()
    html = report_html.read_text(encoding="utf-8")
    verdicts = re.search(r'<ul class="verdict">(.*?)</ul>', html).group(1)
    assert (
        verdicts.count("<li>") == 2 and MINILM in verdicts and SVM in verdicts
    )  # the run's two EEC models
    assert len(result.verdict_bottoms) == 2 and all(
        0 < bottom <= 800 for bottom in result.verdict_bottoms
    )
    with Image.open(io.BytesIO(screenshot.read_bytes())) as image:
        assert image.size == (1280, 800) and image.convert("L").getextrema()[0] < 60


def test_the_checker_finds_a_summary_wider_than_the_window(tmp_path):
    page = tmp_path / "wide.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>wide</title></head><body>'
        '<h2 id="summary">Summary</h2><div style="width: 2000px">a summary too wide</div>'
        '<div style="overflow-x: auto; width: 300px"><div '
        'style="width: 900px">a box that scrolls</div></div>'
        '<h2 id="next">Next</h2><div style="width: '
        '3000px">below the summary: not its business</div>'
        "</body></html>",
        encoding="utf-8",
    )
    result = check_html(page, window_size=(1400, 900))
    assert not result.ok
    overflows = " | ".join(result.summary_overflows)
    assert "a summary too wide" in overflows and "a box that scrolls" in overflows
    assert "not its business" not in overflows and result.page_scroll_width > 1400


def test_checker_catches_broken_images_console_errors_and_network_references(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title>'
        '<link rel="stylesheet" href="https://example.invalid/style.css"></head><body>'
        '<img src="data:image/png;base64,AAAA" alt="not a png">'
        '<img src="missing.png" alt="a missing file">'
        '<script>console.error("deliberate console error"); undefinedFunction();</script>'
        "</body></html>",
        encoding="utf-8",
    )
    result = check_html(page)
    assert not result.ok
    assert result.n_images == 2
    broken = " | ".join(result.broken_images)
    assert (
        "not a png: not a valid PNG" in broken
        and "a missing file: src is not a data:image/png" in broken
    )
    assert (
        "not loaded by the browser: 0: not a png" in broken
        and "not loaded by the browser: 1" in broken
    )
    console = " | ".join(result.console_messages)
    assert "deliberate console error" in console and "undefinedFunction is not defined" in console
    assert result.network_references == ("<link href=https://example.invalid/style.css>",)


def test_command_line_checker_exit_codes(report_html, tmp_path, capsys):
    assert main([str(report_html)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("OK")
    assert main([str(tmp_path / "none.html")]) == 2
    assert "no HTML file" in capsys.readouterr().err
