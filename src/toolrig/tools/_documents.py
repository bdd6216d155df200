"""``documents``: turn a document into text (``load``) or Markdown (``convert_to_md``).

Plain text, Markdown, JSON and CSV need nothing extra. HTML, PDF and DOCX use well-kept parsers
from the ``docs`` extra (markdownify + BeautifulSoup, pypdf, python-docx), imported only when
such a file is read; without them the call answers how to install them.
"""

from __future__ import annotations

import csv
import importlib
import io
import json
import os
import re
from collections.abc import Callable
from dataclasses import replace
from types import ModuleType
from typing import Any, Final

from typing_extensions import TypedDict

from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.tools._budget import Budget, BudgetExceeded
from toolrig.tools._doc_parsers import Blocks, docx_text, markdown_table, pdf_text
from toolrig.tools._sandbox import Sandbox
from toolrig.tools._text import cut_middle, decode

__all__ = ["SUPPORTED_FORMATS", "DocumentTool", "markdown_table"]

_EXTENSIONS: Final = {
    ".txt": "text",
    ".text": "text",
    ".log": "text",
    ".rst": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".json": "json",
    ".csv": "csv",
    ".tsv": "csv",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".docx": "docx",
}
SUPPORTED_FORMATS: Final = tuple(sorted(_EXTENSIONS))
"""File extensions the documents tool reads."""
_INSTALL: Final = "pip install 'toolrig[docs]'"


class LoadOutput(TypedDict):
    path: str
    format: str
    content: str
    truncated: bool


class ConvertOutput(TypedDict):
    path: str
    format: str
    markdown: str
    truncated: bool
    output_path: str | None
    """Where the Markdown was written, when asked."""
    bytes: int | None


class DocumentTool(BaseTool):
    """Read documents as text or Markdown: plain text, Markdown, JSON, CSV, HTML, PDF, DOCX."""

    name = "documents"
    tags = ("files", "documents", "local")
    layer = "tools"
    annotations = ToolAnnotations(open_world=False)

    def __init__(
        self,
        root: str | os.PathLike[str] | Sandbox,
        *,
        max_input_bytes: int = 50_000_000,
        max_output_chars: int = 200_000,
        max_table_rows: int = 1000,
        max_page_stream_bytes: int = 1_000_000,
        budget: Budget | None = None,
    ) -> None:
        """``budget``: time, CPU and memory of one call, checked page by page and paragraph
        by paragraph (its output is set by ``max_output_chars``). ``max_page_stream_bytes``:
        PDF pages whose content decodes to more are skipped with a note (pypdf parses a page's
        content whole, uninterrupted, ~2.7 s per MB). A DOCX may inflate to at most
        ``max_input_bytes``, list at most 10,000 parts and span at most 1,000 columns in a table
        row; XML its parser refuses (nesting, a text over 10 MB, entity expansion) answers
        ``invalid_arguments``."""
        super().__init__()
        self.sandbox = root if isinstance(root, Sandbox) else Sandbox(root)
        self.max_input_bytes = max_input_bytes
        self.max_output_chars = max_output_chars
        self.max_table_rows = max_table_rows
        self.max_page_stream_bytes = max_page_stream_bytes
        self.budget = budget or Budget()
        self._pid = os.getpid()

    @action(
        annotations=ToolAnnotations(read_only=True, destructive=False, idempotent=True),
        output_description="The document's text and its detected format.",
    )
    def load(self, path: str) -> LoadOutput:
        """Load a document as plain text.

        PDF and DOCX give their text, HTML its readable text, JSON is pretty-printed and CSV
        becomes a table. Supported: .txt .md .json .csv .tsv .html .pdf .docx and similar.

        Args:
            path: Document path relative to the workspace root.
        """
        shown, fmt, data = self._read(path)
        text, cut = self._convert(fmt, data, self.max_output_chars, markdown=False)
        return LoadOutput(path=shown, format=fmt, content=text, truncated=cut)

    @action(
        annotations=ToolAnnotations(read_only=False, destructive=True, idempotent=True),
        output_description="The document as Markdown, and where it was written if asked.",
    )
    def convert_to_md(
        self, path: str, output_path: str | None = None, overwrite: bool = False
    ) -> ConvertOutput:
        """Convert a document to Markdown, optionally saving it to a file.

        Headings, lists, links and tables are kept where the format has them; PDF pages
        become `## Page N` sections.

        Args:
            path: Document path relative to the workspace root.
            output_path: Also write the Markdown to this file (relative to the root).
            overwrite: Replace output_path if it exists.
        """
        shown, fmt, data = self._read(path)
        room = self.max_output_chars if output_path is None else self.max_input_bytes
        markdown, cut = self._convert(fmt, data, room, markdown=True)
        out_path: str | None = None
        written: int | None = None
        if output_path is not None:
            target = self.sandbox.resolve(output_path)
            if self.sandbox.lstat(target) is not None and not overwrite:
                raise ToolError(
                    f"`{self.sandbox.relative(target)}` already exists.",
                    code=ErrorCode.INVALID_ARGUMENTS,
                    hint="Pass overwrite=true to replace it, or choose another output_path.",
                )
            written = self.sandbox.atomic_write(
                target, markdown.encode("utf-8"), create_dirs=True, exclusive=not overwrite
            )
            out_path = self.sandbox.relative(target)
        text, shortened = cut_middle(markdown, self.max_output_chars)
        return ConvertOutput(
            path=shown,
            format=fmt,
            markdown=text,
            truncated=cut or shortened,
            output_path=out_path,
            bytes=written,
        )

    def _convert(self, fmt: str, data: bytes, room: int, *, markdown: bool) -> tuple[str, bool]:
        """The document as text, at most about ``room`` characters, within the budget."""
        meter = replace(self.budget, output_bytes=room).start()
        if os.getpid() != self._pid:  # a child process of its own: isolation="process"
            meter.limit_process()
        try:
            if fmt in ("pdf", "docx"):
                out = Blocks(meter)
                if fmt == "pdf":
                    pdf_text(
                        _require("pypdf", "pypdf"),
                        data,
                        out,
                        markdown=markdown,
                        max_page_stream=self.max_page_stream_bytes,
                    )
                else:
                    docx_text(
                        _require("docx", "python-docx"),
                        data,
                        out,
                        markdown=markdown,
                        max_rows=self.max_table_rows,
                        max_expanded=self.max_input_bytes,
                    )
                return out.text("document").strip() + "\n", out.cut
            full = _CONVERTERS[fmt](data, self.max_table_rows, markdown).strip() + "\n"
        except MemoryError:
            raise BudgetExceeded(
                "memory",
                "the process limit",
                f"{(self.budget.memory_bytes or 0) >> 20} MiB",
                where="while parsing",
            ) from None
        meter.check("after parsing")
        return cut_middle(full, room)

    def _read(self, path: str) -> tuple[str, str, bytes]:
        target = self.sandbox.resolve(path)
        shown = self.sandbox.relative(target)
        fmt = _EXTENSIONS.get(target.suffix.lower())
        if fmt is None:
            raise ToolError(
                f"`{shown}`: the file type {target.suffix or '(none)'!r} is not supported.",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint=f"Supported types: {', '.join(SUPPORTED_FORMATS)}. Read other text files "
                "with the file tool.",
            )
        data = self.sandbox.read_bytes(target, self.max_input_bytes + 1)
        if len(data) > self.max_input_bytes:
            raise ToolError(
                f"`{shown}` is over the {self.max_input_bytes:,}-byte document limit.",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint="Use the file tool to read a text file in parts.",
            )
        return shown, fmt, data


def _require(module: str, package: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ToolError(
            f"reading this type of document needs the package `{package}`, which is not installed",
            code=ErrorCode.EXECUTION_ERROR,
            hint=f"Ask the operator to run: {_INSTALL}",
        ) from None


def _text(data: bytes) -> str:
    try:
        return decode(data)[0]
    except ValueError:
        raise ToolError("the file is binary, not text", code=ErrorCode.INVALID_ARGUMENTS) from None


def _json(data: bytes, _rows: int, markdown: bool) -> str:
    text = _text(data)
    try:
        pretty = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError as exc:
        raise ToolError(
            f"the file is not valid JSON: {exc}", code=ErrorCode.INVALID_ARGUMENTS
        ) from None
    return f"```json\n{pretty}\n```" if markdown else pretty


def _csv(data: bytes, max_rows: int, _markdown: bool) -> str:
    text = _text(data)
    try:
        dialect: Any = csv.Sniffer().sniff(text[:65536], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = [row for row in csv.reader(io.StringIO(text), dialect) if row]
    return markdown_table(rows, max_rows)


def _html(data: bytes, _rows: int, markdown: bool) -> str:
    bs4 = _require("bs4", "beautifulsoup4")
    markdownify = _require("markdownify", "markdownify")
    soup = bs4.BeautifulSoup(_text(data), "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "iframe", "svg"]):
        tag.decompose()
    if markdown:
        out = markdownify.MarkdownConverter(heading_style="ATX", bullets="-").convert_soup(soup)
    else:
        out = soup.get_text("\n")
    return re.sub(r"\n\s*\n(\s*\n)+", "\n\n", str(out))


_CONVERTERS: Final[dict[str, Callable[[bytes, int, bool], str]]] = {
    "text": lambda d, _r, _m: _text(d),
    "markdown": lambda d, _r, _m: _text(d),
    "json": _json,
    "csv": _csv,
    "html": _html,
}
