"""What a search request may be: said in words, short enough, asking for at least one tool."""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_QUERY_CHARS", "check_request"]

MAX_QUERY_CHARS: Final = 10_000


def check_request(query: str, k: int) -> None:
    """Refuse, with the reason and what to do instead, a request search cannot answer."""
    if not isinstance(query, str):
        raise TypeError(f"query must be a string, got {type(query).__name__}")
    if not query.strip():
        raise ValueError("query is empty: say in a few words what the tool should do")
    if len(query) > MAX_QUERY_CHARS:
        raise ValueError(
            f"query is {len(query):,} characters; the limit is {MAX_QUERY_CHARS:,}: describe "
            "the task in a sentence or two instead of passing the material it is about"
        )
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a whole number of at least 1, got {k!r}")
