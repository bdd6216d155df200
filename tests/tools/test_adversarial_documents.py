"""Adversarial suite, document bombs: small DOCX and PDF files that cost seconds to minutes to
read stop at the call's budget (time, output), checked page by page and block by block, with
a clear error or a note where the output was cut.

How long a call took is measured in CPU time (`cpu_clock`): on a loaded machine the wall clock
runs on while the call waits for a core, and the budget's own wall limit then stops it sooner
in work, never later. Read whole, the bombs cost 14-15 s of CPU or more (measured)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from doc_bombs import docx, docx_nested_tables, docx_paragraphs, docx_runs, docx_table, pdf

from cpu_clock import CPU
from toolrig.tools import DocumentTool
from toolrig.tools._budget import Budget, Meter

pytest.importorskip("docx")
pytest.importorskip("pypdf")

BUDGET_S = 1.0
SLACK_S = 2.5
"""CPU seconds past the budget: the block or page in progress (a PDF page's content parse is
bounded by ``max_page_stream_bytes``, 200 KB here: ~0.5 s; measured at most 1.3 s in all)."""

BOMBS: dict[str, Callable[[], bytes]] = {
    "table.docx": lambda: docx_table(130_000),
    "paragraphs.docx": lambda: docx_paragraphs(300_000),
    "runs.docx": lambda: docx_runs(300, 3_000),
    "nested.docx": lambda: docx_nested_tables(3, 60),
    "inflates.docx": lambda: docx("", extra={"word/media/zeros.bin": b"\0" * 60_000_000}),
    "pages.pdf": lambda: pdf(3, 10, 1_000),
    "wide.pdf": lambda: pdf(2, 100, 300),
    "heavy-page.pdf": lambda: pdf(1, 1, 100_000),
    "heavy-pages.pdf": lambda: pdf(2, 30, 12_000),
}


@pytest.fixture(scope="module")
def bombs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bombs")
    for name, make in BOMBS.items():
        (root / name).write_bytes(make())
    return root


@pytest.mark.parametrize("action", ["load", "convert_to_md"])
@pytest.mark.parametrize("name", sorted(BOMBS))
def test_a_document_bomb_stops_at_the_budget(bombs: Path, name: str, action: str) -> None:
    tool = DocumentTool(
        bombs,
        budget=Budget(wall_s=BUDGET_S, cpu_s=BUDGET_S),
        max_output_chars=10**9,
        max_page_stream_bytes=200_000,
    )
    assert (bombs / name).stat().st_size < 64_000
    with CPU() as cpu:
        result = tool.execute(action, path=name)
    assert cpu.seconds < BUDGET_S + SLACK_S, (name, cpu.seconds, result)
    if result.error is not None:
        assert result.code in ("timeout", "invalid_arguments"), result
        assert "stopped at" in result.error.message or "inflates to" in result.error.message
    else:
        text = result.output["content" if action == "load" else "markdown"]
        if name != "nested.docx":  # nested tables' text is not read: it answers at once
            assert "more rows cut" in text or "page skipped" in text, text[-300:]


@pytest.mark.parametrize("name", ["paragraphs.docx", "pages.pdf", "heavy-pages.pdf"])
def test_the_output_limit_stops_the_parse(bombs: Path, name: str) -> None:
    """The output limit is applied while parsing: the call ends when the text is full,
    long before the document's end (each of these took 15 s or more to read whole)."""
    tool = DocumentTool(bombs, max_output_chars=20_000, max_page_stream_bytes=200_000)
    with CPU() as cpu:
        loaded = tool.execute("load", path=name).unwrap()
    assert cpu.seconds < 6.0, cpu.seconds
    assert loaded["truncated"] is True
    assert loaded["content"].rstrip().endswith("goes on past the output limit ...]")
    assert 19_000 < len(loaded["content"]) < 20_200


def test_a_48_kb_docx_and_a_pdf_bomb_load_within_the_default_budget(bombs: Path) -> None:
    tool = DocumentTool(bombs)
    for name in ("table.docx", "pages.pdf"):
        with CPU() as cpu:
            result = tool.execute("load", path=name)
        assert cpu.seconds < 10.0 + SLACK_S, (name, cpu.seconds)
        assert result.error is None or result.code == "timeout", result


def test_ordinary_documents_are_read_whole(tmp_path: Path) -> None:
    (tmp_path / "t.docx").write_bytes(docx_table(50, 3, text="cell"))
    (tmp_path / "p.pdf").write_bytes(pdf(1, 5, 20, text=b"hello"))
    tool = DocumentTool(tmp_path, budget=Budget(wall_s=BUDGET_S, cpu_s=BUDGET_S))
    table = tool.execute("convert_to_md", path="t.docx").unwrap()
    assert table["truncated"] is False and table["markdown"].count("| cell | cell | cell |") == 50
    pages = tool.execute("convert_to_md", path="p.pdf").unwrap()["markdown"]
    assert pages.count("## Page") == 5 and "hello" in pages


def test_os_limits_in_a_child_of_its_own() -> None:
    """``limit_process`` (run where the tool is isolated in a child process) sets RLIMIT_AS
    and RLIMIT_CPU; a parser that never returns to Python is stopped by the kernel."""
    import resource

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            Meter(Budget(wall_s=5, cpu_s=1, memory_bytes=64 << 20)).limit_process()
            soft_as = resource.getrlimit(resource.RLIMIT_AS)[0]
            soft_cpu = resource.getrlimit(resource.RLIMIT_CPU)[0]
            try:
                bytearray(8 << 30)
                grew = b"1"
            except MemoryError:
                grew = b"0"
            os.write(write, b"%d %d %s" % (soft_as, soft_cpu, grew))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        got_as, got_cpu, grew = pipe.read().split()
    os.waitpid(pid, 0)
    assert 0 < int(got_as) < 1 << 40 and 1 <= int(got_cpu) <= 3
    assert grew == b"0"
