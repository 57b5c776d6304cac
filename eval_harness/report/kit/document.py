"""A report as plain data (sections of paragraphs, lists, tables and figures) and its two
renderings.

:func:`render_html` writes one self-contained page: inline CSS, every figure a
``data:image/png;base64`` URI, no script and no network access. :func:`render_markdown`
writes the same content as GitHub-flavoured Markdown whose figures are PNG files
next to it.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field

import pandas as pd


@dataclass(frozen=True)
class Paragraph:
    text: str
    warning: bool = False


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]
    warning: bool = False
    role: str = (
        ""  # HTML: the list's class (``verdict``: the verdict sentences a browser check finds)
    )


@dataclass(frozen=True)
class Link:
    """A link to another page of the report: ``stem`` is its file name without the extension, which
    each rendering adds (``tables`` -> ``tables.html`` in HTML, ``tables.md`` in Markdown)."""

    text: str
    stem: str


@dataclass(frozen=True)
class Table:
    frame: pd.DataFrame
    caption: str = ""
    collapsed: bool = False  # HTML: folded under its caption (<details>); Markdown: shown as usual


@dataclass(frozen=True)
class Image:
    name: str  # file stem, unique in the report (the Markdown version's figures/<name>.png)
    png: bytes
    caption: str


Block = Paragraph | Bullets | Link | Table | Image


@dataclass(frozen=True)
class Section:
    title: str
    blocks: tuple[Block, ...] = ()
    subsections: tuple[Section, ...] = ()


@dataclass(frozen=True)
class Document:
    title: str
    sections: tuple[Section, ...] = field(default_factory=tuple)

    def images(self) -> list[Image]:
        """Every figure of the report, in reading order."""
        found = []

        def collect(section: Section) -> None:
            found.extend(block for block in section.blocks if isinstance(block, Image))
            for subsection in section.subsections:
                collect(subsection)

        for section in self.sections:
            collect(section)
        return found


CSS = """
body { font-family: -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 2rem auto;
       max-width: 1200px; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { border-bottom: 2px solid #333; padding-bottom: .3rem; }
h2 { border-bottom: 1px solid #bbb; margin-top: 2.2rem; }
.table-block { display: inline-block; vertical-align: top; max-width: 100%; margin: .6rem 1.6rem 1.2rem 0; }
.table-title { font-weight: 600; font-size: .92rem; padding-bottom: .3rem; max-width: 30rem; }
table { border-collapse: collapse; font-size: .88rem; }
th, td { border: 1px solid #ccc; padding: .22rem .5rem; text-align: left; white-space: nowrap; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
details { margin: .6rem 0 1.2rem; }
summary { cursor: pointer; font-weight: 600; }
tbody tr:nth-child(even) { background: #fafafa; }
figure { margin: 1rem 0 1.6rem; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: .88rem; color: #555; }
.warning { background: #fff4e5; border-left: 4px solid #f0a030; padding: .4rem .8rem; }
nav ul { columns: 2; }
.scroll { overflow-x: auto; }
"""  # noqa: E501


def _anchor(title: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in title.lower()).strip("-")


NUMBER = re.compile(r"^[-+]?(\d|\.\d)")


def _html_cell(cell) -> str:
    text = str(cell)
    css = ' class="num"' if NUMBER.match(text) else ""
    return f"<td{css}>{html.escape(text)}</td>"


def html_table(table: Table) -> str:
    """One ``<table>``: a header row from the columns, every cell escaped, numbers right-aligned."""
    head = "".join(f"<th>{html.escape(str(column))}</th>" for column in table.frame.columns)
    body = "".join(
        "<tr>" + "".join(_html_cell(cell) for cell in row) + "</tr>"
        for row in table.frame.itertuples(index=False)
    )
    grid = (
        "<div "
        f'class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    )
    if table.collapsed:
        rows = len(table.frame)
        summary = html.escape(f"{table.caption} ({rows} row{'' if rows == 1 else 's'})")
        return f"<details><summary>{summary}</summary>{grid}</details>"
    title = f'<div class="table-title">{html.escape(table.caption)}</div>' if table.caption else ""
    return f'<div class="table-block">{title}{grid}</div>'


def _html_block(block: Block) -> str:
    css = ' class="warning"' if getattr(block, "warning", False) else ""
    if isinstance(block, Paragraph):
        return f"<p{css}>{html.escape(block.text)}</p>"
    if isinstance(block, Bullets):
        items = "".join(f"<li>{html.escape(item)}</li>" for item in block.items)
        classes = " ".join(filter(None, ["warning" if block.warning else "", block.role]))
        attribute = f' class="{classes}"' if classes else ""
        return f"<ul{attribute}>{items}</ul>"
    if isinstance(block, Table):
        return html_table(block)
    if isinstance(block, Link):
        return f'<p><a href="{html.escape(block.stem)}.html">{html.escape(block.text)}</a></p>'
    source = "data:image/png;base64," + base64.b64encode(block.png).decode("ascii")
    caption = html.escape(block.caption)
    return (
        f'<figure><img src="{source}" alt="{caption}"><figcaption>{caption}</figcaption></figure>'
    )


def _html_section(section: Section, level: int) -> str:
    parts = [f'<h{level} id="{_anchor(section.title)}">{html.escape(section.title)}</h{level}>']
    parts += [_html_block(block) for block in section.blocks]
    parts += [_html_section(subsection, min(level + 1, 6)) for subsection in section.subsections]
    return "\n".join(parts)


def render_html(document: Document) -> str:
    """The report as one self-contained HTML page."""
    contents = "".join(
        f'<li><a href="#{_anchor(s.title)}">{html.escape(s.title)}</a></li>'
        for s in document.sections
    )
    body = "\n".join(_html_section(section, 2) for section in document.sections)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(document.title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f"<h1>{html.escape(document.title)}</h1>\n<nav><ul>{contents}</ul></nav>\n{body}\n</body>\n</html>\n"
    )


# Where raw HTML starts in Markdown (CommonMark: a tag, a closing tag, a comment, a declaration, a
# processing instruction); "p < 0.05" is left as it is.
_RAW_HTML_START = re.compile(r"<(?=[A-Za-z/!?])")
# The first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def markdown_text(text: object) -> str:
    """``text`` with every ``<`` that would open raw HTML written ``&lt;``: a label of a run (a
    group, a name, a model's name) shows as text in a Markdown viewer, never as an element (``<img
    src=x onerror=...>``)."""
    return _RAW_HTML_START.sub("&lt;", str(text))


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell that starts like a formula (:data:`FORMULA_STARTS`) prefixed
    with ``'``, as OWASP recommends for CSV files: a spreadsheet shows the cell as text instead of
    running it. Numbers (a negative value) are left as they are."""
    safe = frame.copy()
    for column in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[column]):
            safe[column] = safe[column].map(
                lambda cell: (
                    "'" + cell
                    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS)
                    else cell
                )
            )
    return safe


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as a CSV file safe to open (:func:`spreadsheet_safe`), in UTF-8 with RFC 4180's
    CRLF line ends: the CSV writer then quotes every cell holding a ``\r`` or ``\n``, so a label
    with a carriage return stays one cell of one row (with ``\n`` line ends a bare ``\r`` went
    unquoted and split the row)."""
    return spreadsheet_safe(frame).to_csv(index=False, lineterminator="\r\n").encode("utf-8")


def markdown_cell(value) -> str:
    """``value`` as the text of a pipe table's cell: no raw HTML (:func:`markdown_text`), no ``|``,
    one line."""
    return markdown_text(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(table: Table) -> str:
    """A pipe table (GitHub-flavoured Markdown), preceded by its caption in bold."""
    columns = [markdown_cell(column) for column in table.frame.columns]
    lines = [f"**{markdown_text(table.caption)}**", ""] if table.caption else []
    lines += ["| " + " | ".join(columns) + " |", "|" + "|".join(" --- " for _ in columns) + "|"]
    lines += [
        "| " + " | ".join(markdown_cell(cell) for cell in row) + " |"
        for row in table.frame.itertuples(index=False)
    ]
    return "\n".join(lines)


def _markdown_block(block: Block, figure_folder: str) -> str:
    prefix = "> **Note:** " if getattr(block, "warning", False) else ""
    if isinstance(block, Paragraph):
        return prefix + markdown_text(block.text)
    if isinstance(block, Bullets):
        return "\n".join(f"- {markdown_text(item)}" for item in block.items)
    if isinstance(block, Table):
        return markdown_table(block)
    if isinstance(block, Link):
        return f"[{markdown_cell(block.text)}]({block.stem}.md)"
    caption = markdown_text(block.caption)
    return f"![{caption}]({figure_folder}/{figure_file(block.name)})\n\n*{caption}*"


def figure_file(name: str) -> str:
    """The file name of the figure ``name``: one plain, visible file name whatever the name holds (a
    section may build it from a run folder's records, which never choose where a file goes)."""
    return (re.sub(r"[^A-Za-z0-9._-]+", "-", name).lstrip(".") or "figure") + ".png"


def markdown_blocks(blocks, figure_folder: str = "figures") -> str:
    """``blocks`` as Markdown, one after another (a model card's section)."""
    return "\n\n".join(_markdown_block(block, figure_folder) for block in blocks)


def _markdown_section(section: Section, level: int, figure_folder: str) -> str:
    parts = ["#" * level + " " + markdown_text(section.title)]
    parts += [_markdown_block(block, figure_folder) for block in section.blocks]
    parts += [
        _markdown_section(subsection, min(level + 1, 6), figure_folder)
        for subsection in section.subsections
    ]
    return "\n\n".join(parts)


def render_markdown(document: Document, figure_folder: str = "figures") -> str:
    """The report as Markdown; figures are linked as ``<figure_folder>/<name>.png`` (write them
    there)."""
    parts = [f"# {markdown_text(document.title)}"] + [
        _markdown_section(s, 2, figure_folder) for s in document.sections
    ]
    return "\n\n".join(parts) + "\n"
