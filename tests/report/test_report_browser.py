"""The HTML report opens in headless Chromium with no broken image and no console message, and a
screenshot is written; the checker itself catches broken images, console errors and network references.

Chromium comes from `make chromium` (Debian package `chromium`, a prerequisite of `make test`).
"""

import io

import pytest
from helpers.synthetic_run import write_synthetic_run
from PIL import Image

from eval_harness.report import write_report
from eval_harness.report.browser import check_html, find_chromium, main

pytestmark = pytest.mark.skipif(
    find_chromium() is None, reason="no Chromium: run `make chromium` (as root) or apt-get install chromium"
)


@pytest.fixture(scope="module")
def report_html(tmp_path_factory):
    run_dir = write_synthetic_run(tmp_path_factory.mktemp("run") / "synthetic")
    return write_report(run_dir, formats=("html",)).html


def test_report_opens_in_chromium_without_problems_and_a_screenshot_is_written(report_html):
    screenshot = report_html.parent / "screenshot.png"
    result = check_html(report_html, screenshot=screenshot, window_size=(1280, 1800))
    assert result.ok, result.summary()
    assert result.n_images == 7
    assert (result.broken_images, result.console_messages, result.network_references) == ((), (), ())
    with Image.open(io.BytesIO(screenshot.read_bytes())) as image:
        assert image.format == "PNG" and image.size == (1280, 1800)
        # a rendered page, not a blank one: dark text on the white background
        assert image.convert("L").getextrema()[0] < 60


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
    assert "not a png: not a valid PNG" in broken and "a missing file: src is not a data:image/png" in broken
    assert "not loaded by the browser: 0: not a png" in broken and "not loaded by the browser: 1" in broken
    console = " | ".join(result.console_messages)
    assert "deliberate console error" in console and "undefinedFunction is not defined" in console
    assert result.network_references == ("<link href=https://example.invalid/style.css>",)


def test_command_line_checker_exit_codes(report_html, tmp_path, capsys):
    assert main([str(report_html)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("OK")
    assert main([str(tmp_path / "none.html")]) == 2
    assert "no HTML file" in capsys.readouterr().err
