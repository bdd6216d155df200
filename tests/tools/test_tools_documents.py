"""documents: load / convert_to_md for text, Markdown, JSON, CSV, HTML, PDF and DOCX."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from toolrig.tools import DocumentTool


def _pdf(lines: list[str]) -> bytes:
    """A minimal one-page PDF whose content stream draws ``lines`` in Helvetica."""
    text = "BT /F1 12 Tf 72 720 Td " + " 0 -16 Td ".join(f"({t}) Tj" for t in lines) + " ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text.encode()),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


@pytest.fixture
def docs(tmp_path: Path) -> DocumentTool:
    return DocumentTool(tmp_path)


def test_text_markdown_and_json(tmp_path: Path, docs: DocumentTool) -> None:
    (tmp_path / "a.txt").write_text("plain\n")
    (tmp_path / "b.md").write_text("# Title\n\ntext\n")
    (tmp_path / "c.json").write_text('{"a": [1, 2], "b": "é"}')
    assert docs.execute("load", path="a.txt").unwrap()["content"] == "plain\n"
    md = docs.execute("convert_to_md", path="b.md").unwrap()
    assert (md["format"], md["markdown"]) == ("markdown", "# Title\n\ntext\n")
    loaded = docs.execute("load", path="c.json").unwrap()
    assert loaded["content"].startswith('{\n  "a": [\n    1,') and '"é"' in loaded["content"]
    assert docs.execute("convert_to_md", path="c.json").unwrap()["markdown"].startswith("```json")
    (tmp_path / "bad.json").write_text("{nope")
    assert docs.execute("load", path="bad.json").code == "invalid_arguments"


def test_csv_becomes_a_table(tmp_path: Path, docs: DocumentTool) -> None:
    (tmp_path / "t.csv").write_text('name,qty\n"a|b",1\nc,"2\n3"\n')
    (tmp_path / "t.tsv").write_text("x\ty\n1\t2\n")
    table = docs.execute("convert_to_md", path="t.csv").unwrap()["markdown"]
    assert table == "| name | qty |\n| --- | --- |\n| a\\|b | 1 |\n| c | 2 3 |\n"
    assert docs.execute("load", path="t.tsv").unwrap()["content"].startswith("| x | y |")
    limited = DocumentTool(tmp_path, max_table_rows=1)
    assert "1 more rows cut" in limited.execute("load", path="t.csv").unwrap()["content"]


def test_html_becomes_readable_markdown(tmp_path: Path, docs: DocumentTool) -> None:
    (tmp_path / "p.html").write_text(
        "<html><head><style>p{}</style><script>alert(1)</script></head><body>"
        "<h1>Hello</h1><p>Some <b>bold</b> and a <a href='https://x.org'>link</a>.</p>"
        "<ul><li>one</li><li>two</li></ul></body></html>"
    )
    md = docs.execute("convert_to_md", path="p.html").unwrap()["markdown"]
    assert md.startswith("# Hello")
    assert "**bold**" in md and "[link](https://x.org)" in md and "- one" in md
    assert "alert" not in md and "p{}" not in md
    text = docs.execute("load", path="p.html").unwrap()["content"]
    assert "Hello" in text and "<" not in text and "alert" not in text


def test_pdf_text(tmp_path: Path, docs: DocumentTool) -> None:
    (tmp_path / "r.pdf").write_bytes(_pdf(["Quarterly report", "Revenue grew 12 percent"]))
    loaded = docs.execute("load", path="r.pdf").unwrap()
    assert loaded["format"] == "pdf"
    assert "Quarterly report" in loaded["content"] and "Revenue grew 12" in loaded["content"]
    md = docs.execute("convert_to_md", path="r.pdf").unwrap()["markdown"]
    assert md.startswith("## Page 1\n\nQuarterly report")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    assert docs.execute("load", path="broken.pdf").code == "invalid_arguments"


def test_docx_with_headings_lists_and_tables(tmp_path: Path, docs: DocumentTool) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Plan", level=1)
    document.add_paragraph("First paragraph.")
    document.add_paragraph("an item", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate([["k", "v"], ["a", "1"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.save(str(tmp_path / "d.docx"))
    md = docs.execute("convert_to_md", path="d.docx", output_path="out/d.md").unwrap()
    assert md["markdown"] == (
        "# Plan\n\nFirst paragraph.\n\n- an item\n\n| k | v |\n| --- | --- |\n| a | 1 |\n"
    )
    assert md["output_path"] == "out/d.md" and md["bytes"] == len(md["markdown"])
    assert (tmp_path / "out" / "d.md").read_text() == md["markdown"]
    again = docs.execute("convert_to_md", path="d.docx", output_path="out/d.md")
    assert again.code == "invalid_arguments" and "overwrite" in again.error.hint
    text = docs.execute("load", path="d.docx").unwrap()["content"]
    assert text.startswith("Plan\n\nFirst paragraph.") and "k\tv" in text


def test_unsupported_types_list_the_supported_ones(tmp_path: Path, docs: DocumentTool) -> None:
    (tmp_path / "x.xyz").write_text("?")
    result = docs.execute("load", path="x.xyz")
    assert result.code == "invalid_arguments"
    assert ".pdf" in result.error.hint and ".docx" in result.error.hint
    assert docs.execute("load", path="../x.txt").code == "permission_denied"
    assert docs.execute("load", path="missing.txt").code == "not_found"


def test_missing_optional_parsers_name_the_extra(
    tmp_path: Path, docs: DocumentTool, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_import = builtins.__import__

    def no_pypdf(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] == "pypdf":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    import importlib
    import sys

    monkeypatch.delitem(sys.modules, "pypdf", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_pypdf)
    monkeypatch.setattr(importlib, "import_module", lambda name: no_pypdf(name))
    (tmp_path / "r.pdf").write_bytes(_pdf(["x"]))
    result = docs.execute("load", path="r.pdf")
    assert result.code == "execution_error"
    assert "pypdf" in result.error.message
    assert "pip install 'toolrig[docs]'" in result.error.hint
