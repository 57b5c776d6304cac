"""What the report and compare write is safe to open (issue 31, section 3): a label that looks like
a formula is text in a spreadsheet (OWASP's "CSV Injection"), and a label that looks like HTML is
text in a Markdown viewer."""

import io
import re

import pandas as pd
import pytest

from eval_harness.compare.contrasts import WEAT_METRIC
from eval_harness.compare.output import write_comparison
from eval_harness.compare.pairing import Side
from eval_harness.report.build import CSV_FILE, MARKDOWN_FILE, report_contents
from eval_harness.report.kit.document import (
    Bullets,
    Document,
    Paragraph,
    Section,
    Table,
    csv_bytes,
    spreadsheet_safe,
)

HTML_LABEL = "<img src=x onerror=alert(1)>"
FORMULAS = ["=1+1", "+1+1", "-1+1", "@SUM(A1)", "\tx", "\rx", '=HYPERLINK("http://x","y")']


@pytest.mark.parametrize("cell", FORMULAS)
def test_a_text_cell_that_starts_like_a_formula_is_prefixed_with_a_quote(cell):
    frame = pd.DataFrame({"group": [cell, "Anglo"], "value": [-0.5, 0.25]})
    safe = spreadsheet_safe(frame)
    assert safe["group"].tolist() == ["'" + cell, "Anglo"]
    assert safe["value"].tolist() == [-0.5, 0.25]  # a negative number is a number, not a formula
    assert frame["group"][0] == cell  # the caller's frame is left as it was


def test_a_label_with_a_carriage_return_or_newline_stays_one_cell_of_one_row():
    """Guards: with ``\n`` line ends pandas left a bare ``\r`` in a cell unquoted, and a reader
    split the row."""
    labels = ["Arab\rwomen", "Anglo\nmen", "Arab\r\nmen", "plain"]
    frame = pd.DataFrame({"group": labels, "value": [0.5, -0.25, 1.0, 2.0]})
    again = pd.read_csv(io.BytesIO(csv_bytes(frame)))
    assert again["group"].tolist() == labels
    assert again["value"].tolist() == [0.5, -0.25, 1.0, 2.0]


def test_results_csv_neutralises_formulas_and_report_md_shows_html_as_text():
    results = pd.DataFrame({"term": FORMULAS, "value": range(len(FORMULAS))})
    section = Section(
        HTML_LABEL,
        (
            Paragraph(f"group {HTML_LABEL} differs; p < 0.05"),
            Bullets((HTML_LABEL,)),
            Table(pd.DataFrame({"group": [HTML_LABEL]}), caption=HTML_LABEL),
        ),
    )
    contents = report_contents(Document(HTML_LABEL, (section,)), results, ("md",))
    text = contents[CSV_FILE].decode()
    assert not re.search(r'(^|[,\n])"?[=+\-@\t\r]', text)  # no field starts like a formula
    assert all(("'" + cell).replace('"', '""') in text for cell in FORMULAS)
    markdown = contents[MARKDOWN_FILE].decode()
    assert "<img" not in markdown
    assert (
        markdown.count("&lt;img src=x onerror=alert(1)>") == 6
    )  # title, section, paragraph, bullet, caption, cell
    assert "p < 0.05" in markdown  # a "<" that opens no HTML is left as written


def test_the_comparison_shows_html_labels_as_text(tmp_path):
    """comparison.md is a report Document: a model's label, a test's name and a "|" in a cell are
    text, as in the report's Markdown."""
    record = {
        "suite": "xweat",
        "metric": WEAT_METRIC,
        "test": HTML_LABEL,
        "language": "en|x",
        **dict.fromkeys(
            [
                "reference_estimate",
                "other_estimate",
                "value",
                "std_err",
                "ci_low",
                "ci_high",
                "mde",
            ],
            0.1,
        ),
        "p_value": 0.5,
    }
    side = Side(tmp_path / "run", HTML_LABEL, HTML_LABEL)
    written = write_comparison([record], side, side, tmp_path / "comparison")
    markdown = written.markdown.read_text(encoding="utf-8")
    assert (
        "<img" not in markdown and markdown.count("&lt;img") == 5
    )  # the title's two labels, the two sides, the cell
    assert (
        "| WEAT &lt;img src=x onerror=alert(1)> en\\|x |" in markdown
    )  # a "|" in a label does not break the row
