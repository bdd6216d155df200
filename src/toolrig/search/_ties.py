"""Words-only ranking's tie-break: tools with the same BM25F score are ordered by how much of
the request's spelling their text shares, not by where they sit in the catalogue.

Equal scores are common among short descriptions of one length matching the same words (a
catalogue loaded from a folder would then rank alphabetically). The signal is the request's
letter trigrams (of its words of four letters or more, stop words left out) found in the
tool's name, description and parameters: "rental" shares "ren" and "ent" with "renting" though
their stems differ. Only tied runs are looked at, so the cost is a few documents per request.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from toolrig.search._documents import ActionDocument
from toolrig.search._hits import SearchHit, hits_of
from toolrig.search._tokenize import STOP_WORDS, words

__all__ = ["break_ties", "lexical_hits"]

_FIELDS = ("name", "description", "parameters")
_TIED = 1e-9
"""Scores this close (relative) are one score."""


def break_ties(
    ranked: list[tuple[int, float]],
    query: str,
    docs: Sequence[ActionDocument | None],
    depth: int,
) -> None:
    """Re-order each run of equal scores in ``ranked`` (best first) that starts in its first
    ``depth`` pairs by the trigram signal, then by slot; the scores are unchanged."""
    if len(ranked) < 2:
        return
    wanted: set[str] | None = None
    start = 0
    while start < min(len(ranked), depth):
        end = start + 1
        top = ranked[start][1]
        while end < len(ranked) and abs(ranked[end][1] - top) <= _TIED * max(abs(top), 1.0):
            end += 1
        if end - start > 1:
            if wanted is None:
                wanted = _trigrams(w for w in words(query) if len(w) >= 4 and w not in STOP_WORDS)
            run = ranked[start:end]
            run.sort(key=lambda pair: (-_shared(wanted, docs[pair[0]]), pair[0]))
            ranked[start:end] = run
        start = end


def lexical_hits(
    total: Any, query: str, docs: Sequence[ActionDocument | None], k: int, group: str
) -> list[SearchHit]:
    """The ``k`` best words-only hits of ``total`` (numpy scores, ``-inf`` where none may be
    returned), ties broken as `break_ties` does without numpy."""
    import numpy as np

    order = np.argsort(-total, kind="stable")[: int(np.isfinite(total).sum())]
    want = k if group == "action" else 4 * k + 16
    while True:
        end = min(len(order), want)
        if 0 < end < len(order):  # the run tied at the cut comes along whole
            cut = float(total[order[end - 1]])
            while end < len(order) and cut - float(total[order[end]]) <= _TIED * max(abs(cut), 1.0):
                end += 1
        ranked = [(int(i), float(total[i])) for i in order[:end]]
        break_ties(ranked, query, docs, want)
        hits = hits_of(docs, ranked, k, group)
        if len(hits) >= k or end >= len(order):
            return hits
        want *= 4


def _shared(wanted: set[str], doc: ActionDocument | None) -> int:
    if doc is None or not wanted:
        return 0
    text = " ".join(doc.fields.get(field, "") for field in _FIELDS)
    return len(wanted & _trigrams(words(text)))


def _trigrams(found: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for word in found:
        out.update(word[i : i + 3] for i in range(len(word) - 2))
    return out
