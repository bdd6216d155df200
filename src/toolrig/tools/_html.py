"""HTML to readable text: trafilatura's Markdown when installed, a small built-in fallback when
not (or when it finds no main content), and the page title either way."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Final

__all__ = ["html_title", "html_to_markdown", "trafilatura_available"]

_SKIP: Final = frozenset({"script", "style", "noscript", "template", "svg", "head", "iframe"})
_BLOCK: Final = frozenset(
    {
        "p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "br",
        "li", "ul", "ol", "table", "tr", "pre", "blockquote", "form", "h1", "h2", "h3", "h4",
        "h5", "h6", "hr", "dl", "dt", "dd", "figure", "figcaption",
    }
)  # fmt: skip
_TITLE: Final = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def trafilatura_available() -> bool:
    """Whether the ``web`` extra (trafilatura) can be imported."""
    try:
        import trafilatura  # noqa: F401
    except ImportError:
        return False
    return True


def html_title(document: str) -> str | None:
    """The text of the ``<title>`` element, whitespace collapsed; ``None`` when there is none."""
    match = _TITLE.search(document)
    if not match:
        return None
    title = " ".join(html.unescape(match.group(1)).split())
    return title or None


def html_to_markdown(document: str, url: str | None = None) -> str:
    """The page's main content as Markdown (headings, lists, links), or plain text as fallback."""
    try:
        import trafilatura
    except ImportError:
        return _fallback_text(document)
    text = trafilatura.extract(
        document,
        url=url,
        output_format="markdown",
        include_links=True,
        include_formatting=True,
        include_tables=True,
        favor_recall=True,
    )
    return text if text and text.strip() else _fallback_text(document)


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self._skip += 1
        elif tag in _BLOCK:
            self.parts.append("\n")
            if tag.startswith("h") and tag[1:].isdigit():
                self.parts.append("#" * int(tag[1:]) + " ")
            elif tag == "li":
                self.parts.append("- ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def _fallback_text(document: str) -> str:
    parser = _TextParser()
    parser.feed(document)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()
