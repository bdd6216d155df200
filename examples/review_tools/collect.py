"""Collect reviews from local CSV/JSON files and clean them."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

from toolrig import ToolError

_FIELDS = ("id", "product", "rating", "date", "text")


def data_collector(
    source: str, product: str | None = None, limit: int | None = None
) -> dict[str, Any]:
    """Read reviews from a CSV file (with a header) or a JSON list of objects."""
    path = Path(source)
    if not path.is_file():
        raise ToolError(
            f"No review file at {source!r}.",
            code="not_found",
            hint="Give a path to a .csv or .json file.",
        )
    if path.suffix.lower() == ".json":
        rows = json.loads(path.read_text(encoding="utf-8"))
    else:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    reviews = []
    for row in rows:
        if product is not None and row.get("product") != product:
            continue
        review = {key: row.get(key) for key in _FIELDS}
        review["rating"] = int(review["rating"]) if review["rating"] not in (None, "") else None
        review["id"] = str(review["id"])
        reviews.append(review)
        if limit is not None and len(reviews) >= limit:
            break
    return {"reviews": reviews, "count": len(reviews), "source": str(path)}


_SPACES = re.compile(r"\s+")
_TOKEN = re.compile(r"[a-z0-9']+")


def preprocessor(
    reviews: list[dict[str, Any]], lowercase: bool = True, min_length: int = 3
) -> dict[str, Any]:
    """Normalise whitespace, drop empty/too-short reviews and duplicates, tokenise."""
    seen: set[str] = set()
    kept: list[dict[str, Any]] = []
    for review in reviews:
        text = _SPACES.sub(" ", str(review.get("text") or "")).strip()
        clean = text.lower() if lowercase else text
        if len(clean) < min_length or clean in seen:
            continue
        seen.add(clean)
        kept.append(
            {**review, "text": text, "clean_text": clean, "tokens": _TOKEN.findall(clean.lower())}
        )
    return {
        "reviews": kept,
        "texts": [r["text"] for r in kept],
        "dropped": len(reviews) - len(kept),
    }
