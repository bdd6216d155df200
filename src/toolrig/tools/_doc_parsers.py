"""PDF and DOCX text for the ``documents`` tool, under a `Meter`.

Both formats pack a lot of work in few bytes (a 37 KB DOCX holds 100,000 table rows, 19 s to
walk; a 3.6 KB PDF page holds 300,000 text operators, 9 s to extract), so the budget is
checked as the work goes: per PDF page and every 256 text operators (pypdf's
``visitor_operand_before``), per DOCX paragraph and table row. Output stops at the meter's
output budget with a note, rather than being built whole and cut afterwards.

Two steps cannot be interrupted from Python and are bounded before they start: a DOCX whose
parts would inflate past ``max_expanded`` bytes, or that lists more than `MAX_DOCX_PARTS`
parts (reading a zip's directory costs ~10 µs a part), is refused before it is unzipped; its
XML is parsed with libxml2's default limits (256 levels of nesting, 10 MB text nodes, entity
amplification; entities are never resolved), and a part past them is refused; a table row
spanning more than `MAX_TABLE_COLUMNS` is refused before python-docx makes its cells. A PDF
page whose content stream decodes to more than ``max_page_stream`` bytes is skipped with a
note (pypdf parses a content stream whole before the first operator is seen, ~2.7 s per MB
here). For a hard bound on everything, run the tool with ``isolation="process"``, where the
meter also sets ``RLIMIT_AS`` and ``RLIMIT_CPU``.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.tools._budget import Meter

__all__ = [
    "MAX_DOCX_PARTS",
    "MAX_TABLE_COLUMNS",
    "Blocks",
    "docx_text",
    "markdown_table",
    "pdf_text",
]

MAX_DOCX_PARTS = 10_000
"""Parts a DOCX may list; a real one has tens to a few thousand (one per image)."""
MAX_TABLE_COLUMNS = 1_000
"""Grid columns a DOCX table row may span: python-docx repeats a spanning cell once per column
it spans, so ``gridSpan="1000000000"`` would build a billion-item row before any check."""


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\r", " ").replace("\n", " ").strip()


def markdown_table(rows: list[list[str]], max_rows: int) -> str:
    """Rows (the first one the header) as a Markdown table, cut after ``max_rows`` rows."""
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    padded = [[_cell(c) for c in r] + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(padded[0]) + " |", "|" + " --- |" * width]
    lines += ["| " + " | ".join(r) + " |" for r in padded[1 : max_rows + 1]]
    if len(padded) - 1 > max_rows:
        lines.append(f"\n[... {len(padded) - 1 - max_rows} more rows cut ...]")
    return "\n".join(lines)


class Blocks:
    """Blocks of output joined by blank lines, taken from the meter's output budget; once it
    is spent, `cut` is true and further blocks are dropped."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter
        self.parts: list[str] = []
        self.cut = False

    def add(self, text: str) -> bool:
        """Add one block; False once the output budget is spent (the caller should stop)."""
        if self.cut:
            return False
        if not self.meter.take(len(text) + 2):
            room = (self.meter.budget.output_bytes or 0) - self.meter.output
            if room > 0:
                self.parts.append(text[:room])
            self.cut = True
            return False
        self.parts.append(text)
        return True

    def text(self, what: str) -> str:
        body = "\n\n".join(self.parts)
        if self.cut:
            body += f"\n\n[... cut: the {what} goes on past the output limit ...]"
        return body


def pdf_text(pypdf: Any, data: bytes, out: Blocks, *, markdown: bool, max_page_stream: int) -> None:
    """The text of each page of a PDF into ``out``, page by page within the budget."""
    meter = out.meter
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ToolError(
                "the PDF is encrypted", code=ErrorCode.INVALID_ARGUMENTS, hint="Give a plain PDF."
            )
        for number, page in enumerate(reader.pages, start=1):
            where = f"at page {number}"
            meter.check(where)
            text = _page_text(page, meter, where, max_page_stream).strip()
            if not out.add(f"## Page {number}\n\n{text}" if markdown else text):
                return
    except (pypdf.errors.PdfReadError, pypdf.errors.LimitReachedError) as exc:
        raise ToolError(
            f"the PDF cannot be read: {exc}", code=ErrorCode.INVALID_ARGUMENTS
        ) from None


def _page_text(page: Any, meter: Meter, where: str, max_stream: int) -> str:
    contents = page.get_contents()
    size = 0 if contents is None else len(contents.get_data())
    if size > max_stream:
        return (
            f"[page skipped: its content stream is {size:,} bytes, "
            f"over the {max_stream:,}-byte limit]"
        )

    def visit(_op: bytes, _args: Any, _cm: Any, _tm: Any) -> None:
        meter.tick(where)

    return str(page.extract_text(visitor_operand_before=visit) or "")


def docx_text(
    docx: Any, data: bytes, out: Blocks, *, markdown: bool, max_rows: int, max_expanded: int
) -> None:
    """The paragraphs and tables of a DOCX into ``out``, block by block within the budget."""
    _check_parts(data)
    _check_expansion(data, max_expanded)
    meter = out.meter
    try:
        document = docx.Document(io.BytesIO(data))
    except SyntaxError as exc:  # lxml's XMLSyntaxError: nesting, text size, entities
        raise ToolError(
            f"the DOCX file cannot be read: its XML is refused by the parser: {exc}",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Malformed XML, nesting deeper than 256 levels, a text or attribute over 10 MB "
            "and entity expansion are refused; give an ordinary document.",
        ) from None
    except (ValueError, KeyError, OSError, zipfile.BadZipFile) as exc:
        raise ToolError(
            f"the DOCX file cannot be read: {exc}", code=ErrorCode.INVALID_ARGUMENTS
        ) from None
    where = "at block 1"
    try:
        for index, block in enumerate(document.iter_inner_content(), start=1):
            where = f"at block {index}"
            meter.check(where)
            if hasattr(block, "rows"):
                text = _table(block, meter, where, max_rows, markdown)
            else:
                text = _paragraph(block, markdown)
            if text and not out.add(text):
                return
    except (ValueError, RecursionError, docx.exceptions.PythonDocxError) as exc:
        # python-docx reads attribute values as they are used: ``gridSpan="x"``, a vertical
        # merge with no cell above, a chain of merges deeper than Python's stack
        raise ToolError(
            f"the DOCX file cannot be read {where}: {type(exc).__name__}: {exc}",
            code=ErrorCode.INVALID_ARGUMENTS,
        ) from None


def _check_parts(data: bytes) -> None:
    """Refuse a DOCX listing more than `MAX_DOCX_PARTS` parts before its directory is read.
    Every entry of a zip's central directory starts with the signature ``PK\\1\\2`` (the zip
    module refuses one that does not), so their count bounds the entries it would read."""
    count = data.count(b"PK\x01\x02")
    if count > MAX_DOCX_PARTS:
        raise ToolError(
            f"the DOCX file lists about {count:,} parts, over the {MAX_DOCX_PARTS:,}-part limit",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Give a document with fewer parts (a real one has tens to a few thousand).",
        )


def _check_expansion(data: bytes, limit: int) -> None:
    """Refuse a DOCX whose parts inflate past ``limit`` (read from the zip's directory; the
    zip module never inflates a member past its declared size)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            total = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ToolError(
            f"the DOCX file cannot be read: {exc}", code=ErrorCode.INVALID_ARGUMENTS
        ) from None
    if total > limit:
        raise ToolError(
            f"the DOCX file inflates to {total:,} bytes, over the {limit:,}-byte limit",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Give a smaller document, or ask the operator to raise max_input_bytes.",
        )


def _paragraph(block: Any, markdown: bool) -> str:
    text = str(block.text).strip()
    if not text or not markdown:
        return text
    style = (block.style.name if block.style is not None else "") or ""
    if style.startswith("Heading"):
        level = int(style.split()[-1]) if style.split()[-1].isdigit() else 1
        return "#" * min(level, 6) + " " + text
    if style == "Title":
        return "# " + text
    if style.startswith("List"):
        return ("1. " if "Number" in style else "- ") + text
    return text


def _table(block: Any, meter: Meter, where: str, max_rows: int, markdown: bool) -> str:
    """The table's first ``max_rows`` rows after its header; the others are counted, not read
    (reading a row's cells is the slow part)."""
    rows: list[list[str]] = []
    more = 0
    for row in block.rows:
        meter.check(where)
        width = sum(tc.grid_span for tc in row._tr.tc_lst)  # cells repeat once per column
        if width > MAX_TABLE_COLUMNS:
            raise ToolError(
                f"the DOCX file cannot be read {where}: a table row spans {width:,} columns, "
                f"over the {MAX_TABLE_COLUMNS:,}-column limit",
                code=ErrorCode.INVALID_ARGUMENTS,
            )
        if len(rows) > max_rows:
            more += 1
        else:
            rows.append([cell.text for cell in row.cells])
    text = markdown_table(rows, max_rows) if markdown else "\n".join("\t".join(r) for r in rows)
    return text + (f"\n\n[... {more} more rows cut ...]" if more else "")
