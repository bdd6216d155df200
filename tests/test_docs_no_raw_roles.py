"""The API reference shows no raw Sphinx roles: mkdocstrings renders the docstrings as
Markdown, where ``:class:`X``` would appear as it is written. Docstrings use Markdown code
spans (`` `X` ``) instead; this looks at every docstring and comment the site can render
(every module under ``src``) and at every docs page."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RAW_ROLE = re.compile(r":(?:class|meth|func|mod|attr|data|exc|obj|const|ref|py:[a-z]+):`")


def test_no_docstring_or_page_holds_a_raw_role() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in [*sorted((ROOT / "src").rglob("*.py")), *sorted((ROOT / "docs").rglob("*.md"))]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if RAW_ROLE.search(line)
    ]
    assert found == []


def test_the_check_sees_a_raw_role() -> None:
    assert RAW_ROLE.search("See :class:`~toolrig.ToolExecutor` and :meth:`Catalog.memo`.")
    assert not RAW_ROLE.search("See `ToolExecutor` and `Catalog.memo`.")
