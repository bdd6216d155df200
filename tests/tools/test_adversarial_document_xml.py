"""Adversarial suite, bombs inside a DOCX's zip and XML: nesting past the XML parser's depth,
a text node or attribute past its size, billion laughs and external entities, a directory of
300,000 parts, a zip whose directory lies about sizes, table cells spanning a billion columns
or merged down thousands of rows, and XLSX/PPTX bombs (huge shared strings, deep slides).
Each answers `invalid_arguments` naming the reason, `timeout`, or the text so far with
`truncated` and a note, within a small CPU time; never a parser's `execution_error`. Every
file is built here, by hand, with `zipfile`."""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from doc_bombs import docx

from cpu_clock import CPU
from toolrig.tools import DocumentTool
from toolrig.tools._budget import Budget

pytest.importorskip("docx")

CPU_S = 2.0
"""CPU seconds a refused bomb may cost: each is refused before or while its XML is parsed
(measured at most 0.1 s; the 300,000-part directory alone took 3.2 s to read before)."""


def _laughs(levels: int) -> str:
    """Entity declarations where each level repeats the one below ten times."""
    decl = '<!ENTITY a0 "ha">'
    for i in range(1, levels + 1):
        decl += f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">'
    return decl


def _lying_sizes(data: bytes, name: str, size: int) -> bytes:
    """The zip with ``name``'s uncompressed size declared as ``size`` in both its local header
    and its central directory entry (a zip bomb that lies to a size check)."""
    out = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        offset = archive.getinfo(name).header_offset
    struct.pack_into("<I", out, offset + 22, size)
    at = out.find(b"PK\x01\x02")
    while at != -1:
        length = struct.unpack_from("<H", out, at + 28)[0]
        if out[at + 46 : at + 46 + length] == name.encode():
            struct.pack_into("<I", out, at + 24, size)
        at = out.find(b"PK\x01\x02", at + 4)
    return bytes(out)


def _ooxml(main: str, content_type: str, parts: dict[str, str]) -> bytes:
    """An Office Open XML package (XLSX, PPTX) whose main part is ``main``."""
    types = (
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-'
        'package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        f'<Override PartName="/{main}" ContentType="{content_type}"/></Types>'
    )
    rels = (
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
        '2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
        f'officeDocument/2006/relationships/officeDocument" Target="{main}"/></Relationships>'
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", types)
        archive.writestr("_rels/.rels", rels)
        for name, text in parts.items():
            archive.writestr(name, text)
    return buf.getvalue()


_SML = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
_PML = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"'
_PPTX_TYPE = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"


def _xlsx_shared_strings() -> bytes:
    strings = "<si><t>x</t></si>" * 1_000_000
    return _ooxml(
        "xl/workbook.xml",
        _XLSX_TYPE,
        {
            "xl/workbook.xml": f"<workbook {_SML}><sheets/></workbook>",
            "xl/sharedStrings.xml": f'<sst {_SML} count="1000000">{strings}</sst>',
        },
    )


def _pptx_deep() -> bytes:
    return _ooxml(
        "ppt/presentation.xml",
        _PPTX_TYPE,
        {
            "ppt/presentation.xml": f"<p:presentation {_PML}/>",
            "ppt/slides/slide1.xml": "<p:sp>" * 100_000 + "</p:sp>" * 100_000,
        },
    )


def _cell_table(properties: str, rows: int = 1) -> str:
    """A one-column table whose cells carry the given ``w:tcPr`` properties."""
    cell = f"<w:tc><w:tcPr>{properties}</w:tcPr><w:p><w:r><w:t>c</w:t></w:r></w:p></w:tc>"
    return "<w:tbl>" + f"<w:tr>{cell}</w:tr>" * rows + "</w:tbl>"


REFUSED: dict[str, tuple[Callable[[], bytes], str]] = {
    "deep-body.docx": (lambda: docx("<w:p>" * 5_000 + "</w:p>" * 5_000), "Excessive depth"),
    "deep-text.docx": (
        lambda: docx("<w:p><w:r><w:t>" + "<x>" * 100_000 + "</x>" * 100_000 + "</w:t></w:r></w:p>"),
        "Excessive depth",
    ),
    "huge-text.docx": (
        lambda: docx("<w:p><w:r><w:t>" + "a" * 20_000_000 + "</w:t></w:r></w:p>"),
        "Text node too long",
    ),
    "huge-attribute.docx": (
        lambda: docx(f'<w:p><w:r w:x="{"a" * 20_000_000}"><w:t>x</w:t></w:r></w:p>'),
        "limit exceeded",
    ),
    "billion-laughs.docx": (
        lambda: docx("<w:p><w:r><w:t>&a9;</w:t></w:r></w:p>", doctype=_laughs(9)),
        "amplification",
    ),
    "quadratic-blowup.docx": (
        lambda: docx(
            "<w:p><w:r><w:t>" + "&a;" * 10_000 + "</w:t></w:r></w:p>",
            doctype=f'<!ENTITY a "{"x" * 100_000}">',
        ),
        "amplification",
    ),
    "many-parts.docx": (
        lambda: docx("", extra={f"p/{n:x}": b"" for n in range(300_000)}),
        "over the 10,000-part limit",
    ),
    "lying-sizes.docx": (
        lambda: _lying_sizes(
            docx("<w:p><w:r><w:t>a</w:t></w:r></w:p>" * 500_000), "word/document.xml", 100
        ),
        "Bad CRC-32",
    ),
    "deep-rels.docx": (
        lambda: docx("", extra={"word/_rels/document.xml.rels": "<a>" * 5_000 + "</a>" * 5_000}),
        "Excessive depth",
    ),
    "wide-span.docx": (
        lambda: docx(_cell_table('<w:gridSpan w:val="1000000000"/>')),
        "spans 1,000,000,000 columns, over the 1,000-column limit",
    ),
    "bad-span.docx": (lambda: docx(_cell_table('<w:gridSpan w:val="x"/>')), "ValueError"),
    "orphan-merge.docx": (lambda: docx(_cell_table("<w:vMerge/>")), "no tr above"),
    "shared-strings.xlsx": (_xlsx_shared_strings, "is not supported"),
    "deep-slide.pptx": (_pptx_deep, "is not supported"),
    "shared-strings-renamed.docx": (_xlsx_shared_strings, "not a Word file"),
    "deep-slide-renamed.docx": (_pptx_deep, "not a Word file"),
}


@pytest.fixture(scope="module")
def bombs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("xml-bombs")
    for name, (make, _) in REFUSED.items():
        (root / name).write_bytes(make())
    (root.parent / "secret.txt").write_text("NOT-FOR-THE-MODEL")
    return root


@pytest.mark.parametrize("action", ["load", "convert_to_md"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_an_xml_or_zip_bomb_is_refused_with_its_reason(bombs: Path, name: str, action: str) -> None:
    tool = DocumentTool(bombs, budget=Budget(wall_s=CPU_S, cpu_s=CPU_S))
    assert (bombs / name).stat().st_size < 64_000 or name == "many-parts.docx"
    with CPU() as cpu:
        result = tool.execute(action, path=name)
    assert cpu.seconds < CPU_S, (name, cpu.seconds)
    assert result.error is not None, result.output
    assert result.code == "invalid_arguments", result.error
    assert REFUSED[name][1] in result.error.message, result.error.message


def test_a_chain_of_vertical_merges_stops_at_the_budget(tmp_path: Path) -> None:
    """Each cell of a vertical merge is read from the row above, recursively: the work grows
    with the square of the rows, and the budget (checked per row) ends it."""
    top = _cell_table('<w:vMerge w:val="restart"/>')[len("<w:tbl>") : -len("</w:tbl>")]
    rest = _cell_table("<w:vMerge/>", rows=5_000)[len("<w:tbl>") :]
    (tmp_path / "merges.docx").write_bytes(docx("<w:tbl>" + top + rest))
    tool = DocumentTool(tmp_path, budget=Budget(wall_s=1.0, cpu_s=1.0), max_table_rows=10**6)
    with CPU() as cpu:
        result = tool.execute("load", path="merges.docx")
    assert cpu.seconds < 1.0 + CPU_S, cpu.seconds
    assert result.error is not None and result.code in ("timeout", "invalid_arguments")
    assert "stopped at block 1" in result.error.message or "Recursion" in result.error.message


def test_a_long_text_under_the_parser_limit_is_cut_with_a_note(tmp_path: Path) -> None:
    """One 9 MB run (the most libxml2 allows in a node is 10 MB), 9 KB zipped."""
    (tmp_path / "long.docx").write_bytes(
        docx("<w:p><w:r><w:t>" + "ab" * 4_500_000 + "</w:t></w:r></w:p>")
    )
    tool = DocumentTool(tmp_path, max_output_chars=20_000)
    with CPU() as cpu:
        loaded = tool.execute("load", path="long.docx").unwrap()
    assert cpu.seconds < CPU_S
    assert loaded["truncated"] is True
    assert loaded["content"].rstrip().endswith("goes on past the output limit ...]")
    assert len(loaded["content"]) < 20_200


def test_entities_are_never_expanded_nor_fetched(bombs: Path) -> None:
    """A few levels of laughs under the amplification limit, and external entities naming a
    file outside the root: the text holds neither the expansion nor the file."""
    secret = (bombs.parent / "secret.txt").as_uri()
    (bombs / "entities.docx").write_bytes(
        docx(
            "<w:p><w:r><w:t>[&a3;][&file;]</w:t></w:r></w:p>",
            doctype=_laughs(3) + f'<!ENTITY file SYSTEM "{secret}">',
        )
    )
    (bombs / "parameter.docx").write_bytes(
        docx("<w:p><w:r><w:t>p</w:t></w:r></w:p>", doctype=f'<!ENTITY % p SYSTEM "{secret}"> %p;')
    )
    tool = DocumentTool(bombs)
    for name in ("entities.docx", "parameter.docx"):
        result = tool.execute("load", path=name)
        shown = result.output["content"] if result.error is None else result.error.message
        assert result.error is None or result.code == "invalid_arguments", result.error
        assert "NOT-FOR-THE-MODEL" not in shown and "haha" not in shown, shown


def test_an_ordinary_docx_with_many_images_still_opens(tmp_path: Path) -> None:
    """The part limit leaves room for real documents: 2,000 parts (one per image) open."""
    media = {f"word/media/image{n}.png": b"\x89PNG" for n in range(2_000)}
    (tmp_path / "album.docx").write_bytes(
        docx("<w:p><w:r><w:t>album</w:t></w:r></w:p>", extra=media)
    )
    loaded = DocumentTool(tmp_path).execute("load", path="album.docx").unwrap()
    assert loaded["content"].strip() == "album"
