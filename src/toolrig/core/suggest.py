""" "Did you mean" suggestions for misspelt tool, action and parameter names."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["closest"]


def closest(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` candidates close to ``name`` (case-insensitive; substrings count too)."""
    import difflib  # only needed when a name is wrong

    pool = list(candidates)
    lowered = {c.lower(): c for c in pool}
    found = [
        lowered[m] for m in difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.6)
    ]
    if len(found) < n and len(name) >= 3:
        for c in pool:
            if c not in found and (name.lower() in c.lower() or c.lower() in name.lower()):
                found.append(c)
                if len(found) == n:
                    break
    return found
