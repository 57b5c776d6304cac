"""Open a report in headless Chromium: broken images, console messages, network references, a
screenshot.

Checks, for one HTML file:

* statically, that every ``<img>`` is a ``data:image/png;base64`` URI that decodes to
  a valid PNG, and that nothing points at the network (``http:``, ``https:``, ``//``);
* in the browser, on a copy with a small probe script (the report itself has no
  script), that every image loaded (``complete`` with a non-zero ``naturalWidth``),
  read back from ``--dump-dom``;
* that the browser logged no console message (read from ``--enable-logging=stderr``;
  a page without scripts logs none, so any is a problem);
* that the report's summary on top (the ``Summary`` section) fits the window's width: nothing in it
  reaches past the right edge or scrolls sideways inside its box (read from the same probe, at
  ``window_size``), and where each model's verdict sentence ends (``verdict_bottoms``: on the first
  screen when all are within its height);
* and it writes a screenshot of the page's top ``window_size`` pixels.

Run as ``python tests/helpers/browser.py REPORT.html --screenshot OUT.png``
(exit code 1 when a check fails). Chromium is ``$XBIAS_CHROMIUM``, else the first
of ``chromium``, ``chromium-browser``, ``google-chrome`` on the PATH.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import html as html_escapes
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from eval_harness.errors import ConfigError, XBiasError

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
    "--virtual-time-budget=10000",
)
PNG_DATA_URI = "data:image/png;base64,"
CONSOLE_LINE = re.compile(r":CONSOLE[:(]\d*\)?\]\s*(.*)")
NETWORK_REFERENCE = re.compile(r"^\s*(https?:|//)", re.IGNORECASE)
STYLE_NETWORK_REFERENCE = re.compile(r"@import|url\(\s*['\"]?(?:https?:|//)", re.IGNORECASE)
PROBE = """<script>window.addEventListener("load", function () {
  var broken = [];
  Array.prototype.forEach.call(document.images, function (img, i) {
    if (!img.complete || img.naturalWidth === 0) broken.push(i + ": " + (img.alt || "").slice(0, 60));
  });
  document.documentElement.setAttribute("data-probe-images", String(document.images.length));
  document.documentElement.setAttribute("data-probe-broken", JSON.stringify(broken));
  var width = window.innerWidth, summary = document.getElementById("summary"), layout = {
    viewport: width, scroll_width: document.documentElement.scrollWidth, summary: null};
  if (summary) {
    var overflows = [], bottom = 0, nodes = [summary];
    for (var n = summary.nextElementSibling; n && n.tagName !== "H2"; n = n.nextElementSibling) nodes.push(n);
    nodes.forEach(function (node) {
      bottom = Math.max(bottom, node.getBoundingClientRect().bottom + window.scrollY);
      [node].concat(Array.prototype.slice.call(node.querySelectorAll("*"))).forEach(function (e) {
        var box = e.getBoundingClientRect(), scrolls = getComputedStyle(e).overflowX !== "visible";
        if (box.right > width + 0.5 || (scrolls && e.scrollWidth > e.clientWidth + 1)) {
          overflows.push(e.tagName.toLowerCase() + " " + Math.round(box.right) + " px: " +
            (e.getAttribute("alt") || e.textContent || "").slice(0, 60));
        }
      });
    });
    layout.summary = {overflows: overflows, bottom: bottom};
  }
  layout.verdicts = Array.prototype.map.call(document.querySelectorAll(".verdict li"), function (li) {
    return li.getBoundingClientRect().bottom + window.scrollY;
  });
  document.documentElement.setAttribute("data-probe-layout", JSON.stringify(layout));
});</script>"""  # noqa: E501
PROBE_RESULT = re.compile(r'data-probe-images="(\d+)"[^>]*data-probe-broken="([^"]*)"')
PROBE_LAYOUT = re.compile(r'data-probe-layout="([^"]*)"')


def find_chromium() -> str | None:
    """The Chromium executable to use, or None when none is installed."""
    configured = os.environ.get("XBIAS_CHROMIUM")
    if configured:
        return configured
    return next((path for name in CHROMIUM_NAMES if (path := shutil.which(name))), None)


@dataclass(frozen=True)
class BrowserCheck:
    """What headless Chromium made of a report.

    Attributes:
        html_path: the page checked.
        n_images: ``<img>`` elements the browser saw.
        broken_images: one line per image that is not an embedded PNG, does not decode, or did not
        load.
        console_messages: every console message the browser logged.
        network_references: attributes that point at the network (a self-contained page has none).
        screenshot: the PNG written, if one was asked for.
        viewport_width, page_scroll_width: the window's width and the page's, at ``window_size``
        (wider: the
            page scrolls sideways).
        summary_overflows: each element of the report's summary (the ``Summary`` section on top)
            that reaches past the window's right edge or scrolls sideways inside its box; the
            summary must need no sideways scroll.
        summary_bottom: where the summary ends, px from the page's top (None: the page has no
        summary).
        verdict_bottoms: where each model's verdict sentence (the summary's ``verdict`` list) ends,
            px from the page's top: all within the window's height when every model's verdict is on
            the first screen.
    """

    html_path: Path
    n_images: int
    broken_images: tuple[str, ...]
    console_messages: tuple[str, ...]
    network_references: tuple[str, ...]
    screenshot: Path | None
    viewport_width: int | None = None
    page_scroll_width: int | None = None
    summary_overflows: tuple[str, ...] = ()
    summary_bottom: float | None = None
    verdict_bottoms: tuple[float, ...] = ()

    @property
    def ok(self) -> bool:
        return not (
            self.broken_images
            or self.console_messages
            or self.network_references
            or self.summary_overflows
        )

    def to_dict(self) -> dict:
        return {
            "html_path": str(self.html_path),
            "n_images": self.n_images,
            "broken_images": list(self.broken_images),
            "console_messages": list(self.console_messages),
            "network_references": list(self.network_references),
            "screenshot": str(self.screenshot) if self.screenshot else None,
            "viewport_width": self.viewport_width,
            "page_scroll_width": self.page_scroll_width,
            "summary_overflows": list(self.summary_overflows),
            "summary_bottom": self.summary_bottom,
            "verdict_bottoms": list(self.verdict_bottoms),
            "ok": self.ok,
        }

    def summary(self) -> str:
        lines = [
            f"{self.html_path}: {self.n_images} images, "
            f"{len(self.broken_images)} broken, {len(self.console_messages)} "
            f"console messages, {len(self.network_references)} network references"
            + (f"; screenshot {self.screenshot}" if self.screenshot else "")
        ]
        lines += [f"broken image: {item}" for item in self.broken_images]
        lines += [f"console: {item}" for item in self.console_messages]
        lines += [f"network reference: {item}" for item in self.network_references]
        if self.summary_bottom is not None:
            lines.append(
                f"summary: ends at {self.summary_bottom:.0f} px; at {self.viewport_width} px wide, "
                f"{len(self.summary_overflows)} element(s) need a sideways scroll"
            )
        lines += [f"summary overflow: {item}" for item in self.summary_overflows]
        lines.append("OK" if self.ok else "FAILED")
        return "\n".join(lines)


class _References(HTMLParser):
    """Collects the ``src`` of every ``<img>`` and every attribute that points at the network."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[tuple[str, str]] = []
        self.network: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "img":
            self.images.append((attributes.get("src") or "", attributes.get("alt") or ""))
        for name, value in attrs:
            if (
                name in ("src", "href", "srcset", "action", "data")
                and value
                and NETWORK_REFERENCE.match(value)
            ):
                self.network.append(f"<{tag} {name}={value[:80]}>")
        if STYLE_NETWORK_REFERENCE.search(attributes.get("style") or ""):
            self.network.append(f"<{tag} style=...url(network)...>")


def _png_problem(source: str) -> str | None:
    """Why ``source`` is not an embedded, decodable PNG (None when it is one)."""
    if not source.startswith(PNG_DATA_URI):
        return f"src is not a {PNG_DATA_URI} URI: {source[:60]!r}"
    try:
        payload = base64.b64decode(source[len(PNG_DATA_URI) :], validate=True)
    except (binascii.Error, ValueError) as error:
        return f"base64 does not decode: {error}"
    try:
        with Image.open(io.BytesIO(payload)) as image:
            image.verify()
            if image.format != "PNG":
                return f"decodes as {image.format}, not PNG"
    except (UnidentifiedImageError, OSError, SyntaxError) as error:
        return f"not a valid PNG: {error}"
    return None


def static_check(html: str) -> tuple[int, list[str], list[str]]:
    """``(n_images, broken_images, network_references)`` read from the HTML source alone."""
    parser = _References()
    parser.feed(html)
    broken = []
    for index, (source, alt) in enumerate(parser.images):
        problem = _png_problem(source)
        if problem:
            broken.append(f"{index}: {alt[:60]}: {problem}")
    styles = " ".join(re.findall(r"<style.*?</style>", html, re.S))
    style_urls = re.findall(STYLE_NETWORK_REFERENCE, styles)
    return len(parser.images), broken, parser.network + [f"<style> {url}" for url in style_urls]


def _run_chromium(chromium: str, arguments: list[str], timeout: float) -> tuple[str, list[str]]:
    """Run Chromium with a fresh profile; return its stdout and the console messages it logged."""
    with tempfile.TemporaryDirectory(prefix="xbias-chromium-") as profile:
        command = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *arguments]
        try:
            completed = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired:
            raise XBiasError(
                f"{chromium} did not finish within {timeout:.0f} s: {' '.join(command)}"
            ) from None
        except OSError as error:
            raise ConfigError(
                f"cannot start {chromium}: {error}; install Chromium (make chromium)"
            ) from None
    if completed.returncode != 0:
        tail = "\n".join(completed.stderr.strip().splitlines()[-5:])
        raise XBiasError(f"{chromium} exited with code {completed.returncode}:\n{tail}")
    console = [
        match.group(1)
        for line in completed.stderr.splitlines()
        if (match := CONSOLE_LINE.search(line))
    ]
    return completed.stdout, console


def check_html(
    html_path: str | Path,
    screenshot: str | Path | None = None,
    window_size: tuple[int, int] = (1400, 1800),
    chromium: str | None = None,
    timeout: float = 120.0,
) -> BrowserCheck:
    """Open ``html_path`` in headless Chromium and check it (see the module docstring)."""
    page = Path(html_path).resolve()
    if not page.is_file():
        raise ConfigError(f"no HTML file at {page}")
    chromium = chromium or find_chromium()
    if not chromium:
        raise ConfigError(
            "no Chromium found (looked for $XBIAS_CHROMIUM and "
            f"{', '.join(CHROMIUM_NAMES)} on the PATH); install it "
            "with `make chromium` (Debian: apt-get install chromium)"
        )
    html = page.read_text(encoding="utf-8")
    n_images, broken, network = static_check(html)

    with tempfile.TemporaryDirectory(prefix="xbias-probe-") as folder:
        probe_page = Path(folder) / page.name
        probe_page.write_text(html.replace("</body>", PROBE + "</body>", 1), encoding="utf-8")
        width, height = window_size
        dom, console = _run_chromium(
            chromium,
            ["--dump-dom", f"--window-size={width},{height}", probe_page.as_uri()],
            timeout,
        )
    probe = PROBE_RESULT.search(dom)
    if not probe:
        broken.append("the browser's DOM carries no probe result: the page did not finish loading")
    else:
        n_images = max(n_images, int(probe.group(1)))
        broken += [
            f"not loaded by the browser: {item}"
            for item in json.loads(html_escapes.unescape(probe.group(2)))
        ]

    layout_match = PROBE_LAYOUT.search(dom)
    layout = json.loads(html_escapes.unescape(layout_match.group(1))) if layout_match else {}
    summary = layout.get("summary") or {}

    shot = None
    if screenshot:
        shot = Path(screenshot).resolve()
        shot.parent.mkdir(parents=True, exist_ok=True)
        _, shot_console = _run_chromium(
            chromium,
            [
                f"--screenshot={shot}",
                f"--window-size={width},{height}",
                "--hide-scrollbars",
                page.as_uri(),
            ],
            timeout,
        )
        console += shot_console
        if not shot.is_file():
            raise XBiasError(f"{chromium} reported success but wrote no screenshot at {shot}")
    return BrowserCheck(
        page,
        n_images,
        tuple(broken),
        tuple(console),
        tuple(network),
        shot,
        layout.get("viewport"),
        layout.get("scroll_width"),
        tuple(summary.get("overflows", ())),
        summary.get("bottom") if summary else None,
        tuple(layout.get("verdicts", ())),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tests/helpers/browser.py", description=__doc__.splitlines()[0]
    )
    parser.add_argument("html", help="the report's HTML file")
    parser.add_argument("--screenshot", help="write a PNG screenshot here")
    parser.add_argument(
        "--window-size",
        default="1400,1800",
        help="WIDTH,HEIGHT of the screenshot (default 1400,1800)",
    )
    args = parser.parse_args(argv)
    size = args.window_size.split(",")
    if len(size) != 2 or not all(part.strip().isdigit() for part in size):
        parser.error(f"--window-size must be WIDTH,HEIGHT, got {args.window_size!r}")
    try:
        result = check_html(args.html, args.screenshot, (int(size[0]), int(size[1])))
    except XBiasError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(result.summary())
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
