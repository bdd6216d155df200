"""Hostile documents made from scratch, small on disk and costly to read: DOCX files whose
XML inflates to many rows, paragraphs, runs or nested tables, and PDFs whose page tree or
content streams multiply the work (also used by ``bench/bounds.py``)."""

from __future__ import annotations

import io
import zipfile
import zlib

__all__ = ["docx", "docx_nested_tables", "docx_paragraphs", "docx_runs", "docx_table", "pdf"]

_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" '
    'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)
_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def docx(body: str, *, extra: dict[str, bytes] | None = None, doctype: str = "") -> bytes:
    """A DOCX whose body is the given WordprocessingML, compressed as hard as zip can;
    ``doctype``: an internal DTD subset for the main part (entity declarations)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", _TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr(
            "word/document.xml",
            '<?xml version="1.0" encoding="UTF-8"?>'
            + (f"<!DOCTYPE w:document [{doctype}]>" if doctype else "")
            + f"<w:document {_W}><w:body>{body}"
            "</w:body></w:document>",
        )
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return buf.getvalue()


def docx_table(rows: int, cols: int = 2, text: str = "x") -> bytes:
    cell = f"<w:tc><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc>"
    return docx("<w:tbl>" + ("<w:tr>" + cell * cols + "</w:tr>") * rows + "</w:tbl>")


def docx_paragraphs(count: int, text: str = "a") -> bytes:
    return docx(f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>" * count)


def docx_runs(paragraphs: int, runs: int) -> bytes:
    return docx(("<w:p>" + "<w:r><w:t>a</w:t></w:r>" * runs + "</w:p>") * paragraphs)


def docx_nested_tables(depth: int, rows: int) -> bytes:
    inner = "<w:p><w:r><w:t>x</w:t></w:r></w:p>"
    for _ in range(depth):
        row = f"<w:tr><w:tc>{inner}<w:p/></w:tc></w:tr>"
        inner = "<w:tbl>" + row * rows + "</w:tbl>"
    return docx(inner + "<w:p><w:r><w:t>end</w:t></w:r></w:p>")


def pdf(levels: int, fan: int, operators: int, *, text: bytes = b"ab") -> bytes:
    """A PDF of ``fan ** levels`` pages (a page tree whose every node lists the same child
    ``fan`` times), all drawing one shared content stream of ``operators`` text operators."""
    content = b"BT /F1 1 Tf " + b"(%s) Tj 0 1 Td " % text * operators + b"ET"
    packed = zlib.compress(content, 9)
    objects: dict[int, bytes] = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        4: b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed)
        + packed
        + b"\nendstream",
        5: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>",
    }
    child = 5
    for level in range(levels):
        kids = b" ".join(b"%d 0 R" % child for _ in range(fan))
        objects[6 + level] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, fan ** (level + 1))
        child = 6 + level
    objects[2] = b"<< /Type /Pages /Kids [%d 0 R] /Count %d >>" % (child, fan**levels)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets: dict[int, int] = {}
    for number in sorted(objects):
        offsets[number] = out.tell()
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, objects[number]))
    xref = out.tell()
    size = max(objects) + 1
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % size)
    for number in range(1, size):
        out.write(b"%010d 00000 n \n" % offsets[number])
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref))
    return out.getvalue()
