"""Text analysis for tool search: words, identifiers split apart, stop words dropped, stems.

``getWeatherForecast``, ``get_weather_forecast`` and ``get-weather-forecast`` all give
``get weather forecast``; a run-together name such as ``airqualityforecast`` is split with the
words of its own description (``air quality forecast``). Stems come from the Snowball English
stemmer, so ``forecasts``/``forecasting`` match ``forecast``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Set
from functools import lru_cache
from typing import Final

import snowballstemmer  # type: ignore[import-untyped]

__all__ = ["STOP_WORDS", "analyze", "field_terms", "segment", "split_identifier", "words"]

_WORD: Final = re.compile(r"[A-Za-z0-9]+")
_CAMEL: Final = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)")
_MIN_PIECE: Final = 3

STOP_WORDS: Final[frozenset[str]] = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "please",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "us",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "also",
        "may",
        "might",
        "must",
        "shall",
        "via",
        "per",
        "etc",
        "e",
        "g",
        "ie",
        "eg",
        "s",
        "t",
        "d",
        "ll",
        "m",
        "o",
        "re",
        "ve",
        "y",
    ]
)
"""Common English words that say nothing about which tool fits."""

_stemmer = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_stemmer.stemWord(word))


def split_identifier(token: str) -> list[str]:
    """``getHTTPResponse2`` -> ``["get", "HTTP", "Response", "2"]`` (case kept)."""
    return [part for part in _CAMEL.split(token) if part]


def words(text: str) -> list[str]:
    """Lowercase words of ``text`` with identifiers split (no stop-word removal, no stems)."""
    out: list[str] = []
    for token in _WORD.findall(text):
        out.extend(part.lower() for part in split_identifier(token))
    return out


def segment(word: str, vocabulary: Set[str]) -> list[str]:
    """Split a run-together ``word`` into the longest cover by words of ``vocabulary`` (three
    letters or more); parts no word covers are kept as they are. ``[]`` when nothing splits."""
    n = len(word)
    if n < 2 * _MIN_PIECE or not vocabulary:
        return []
    # best[i]: (letters covered, -pieces, split point, matched) for the prefix word[:i]
    best: list[tuple[int, int, int, bool]] = [(0, 0, 0, False)] * (n + 1)
    for i in range(1, n + 1):
        covered, pieces, _, _ = best[i - 1]
        choice = (covered, pieces - 1, i - 1, False)
        for j in range(max(0, i - 20), i - _MIN_PIECE + 1):
            if word[j:i] in vocabulary:
                c, p, _, _ = best[j]
                cand = (c + i - j, p - 1, j, True)
                if cand[:2] > choice[:2]:
                    choice = cand
        best[i] = choice
    if best[n][0] == 0:
        return []
    parts: list[str] = []
    i, pending = n, n
    while i > 0:
        _, _, j, matched = best[i]
        if matched:
            if pending > i:
                parts.append(word[i:pending])
            parts.append(word[j:i])
            pending = j
        i = j
    if pending > 0:
        parts.append(word[:pending])
    parts.reverse()
    return parts if len(parts) > 1 else []


def analyze(text: str, vocabulary: Set[str] | None = None) -> list[str]:
    """Index terms of ``text``: words, identifiers split, stop words dropped, stemmed.

    With ``vocabulary`` (lowercase words), run-together words are also split into its words
    (both the whole word and its parts are kept)."""
    out: list[str] = []
    for word in words(text):
        if word in STOP_WORDS:
            continue
        out.append(_stem(word))
        if vocabulary is not None and word not in vocabulary:
            out.extend(_stem(p) for p in segment(word, vocabulary) if p not in STOP_WORDS)
    return out


def field_terms(fields: Mapping[str, str], vocabulary: Set[str]) -> dict[str, list[str]]:
    """Index terms per field; run-together words of the ``name`` field are also split by
    ``vocabulary`` (a tool name such as ``airqualityforecast``)."""
    return {
        name: analyze(text, vocabulary if name == "name" else None) for name, text in fields.items()
    }


def vocabulary_of(texts: Iterable[str]) -> frozenset[str]:
    """Lowercase words (three letters or more, not stop words) found in ``texts``."""
    return frozenset(
        w for text in texts for w in words(text) if len(w) >= _MIN_PIECE and w not in STOP_WORDS
    )
