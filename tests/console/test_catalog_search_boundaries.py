"""The catalogue page's search box, boundary by boundary (docs/console.md, "Catalogue"), through
the console's real ASGI app: what the tool search takes is searched, what it refuses is a 400
saying why (it was a 500), and an empty box lists every action.

| promise | boundary | test |
|---|---|---|
| searched | a word; 10,000 characters (the search's limit); a NUL | `test_the_search_box` |
| refused | 10,001 and 60,000 characters: 400 with the search's reason, never a 500 | `..._box` |
| no query | absent, empty, blanks: every action | `test_the_search_box` |
"""

from __future__ import annotations

import httpx
import pytest

from toolrig import ToolExecutor, tool
from toolrig.console import app
from toolrig.storage import SQLiteExecutionLog


@tool
def send_mail(to: str) -> str:
    """Send an email to someone."""
    return to


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@pytest.mark.parametrize(
    ("query", "status", "shown"),
    [
        ("email", 200, ["send_mail"]),
        ("email " + "x" * 9_994, 200, ["send_mail"]),
        ("email\x00", 200, ["send_mail"]),
        ("x" * 10_001, 400, None),
        ("x" * 60_000, 400, None),
        (None, 200, ["add", "send_mail"]),
        ("", 200, ["add", "send_mail"]),
        ("   ", 200, ["add", "send_mail"]),
    ],
)
async def test_the_search_box(query: str | None, status: int, shown: list[str] | None) -> None:
    log = SQLiteExecutionLog(":memory:")
    asgi = app(log=log, catalog=ToolExecutor([send_mail, add]))
    transport = httpx.ASGITransport(app=asgi, raise_app_exceptions=False)
    params = {} if query is None else {"q": query}
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        page = await http.get("/catalog", params=params)
    log.close()
    assert page.status_code == status, page.text[-300:]
    if shown is None:
        assert "Cannot search the catalogue: query is" in page.text
        assert "the limit is 10,000" in page.text
        return
    listed = [name for name in ("add", "send_mail") if f'href="/catalog/{name}"' in page.text]
    assert listed == sorted(shown)
