"""Text analyses that run offline: sentiment (lexicon), keywords, hashtags, problems,
competitor mentions."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

_WORD = re.compile(r"[a-z']+")
_HASHTAG = re.compile(r"#(\w+)")
POSITIVE = frozenset(
    [
        "love",
        "great",
        "excellent",
        "good",
        "perfect",
        "fast",
        "quick",
        "nice",
        "recommend",
        "quiet",
        "evenly",
        "value",
        "best",
        "better",
        "happy",
    ]
)
NEGATIVE = frozenset(
    [
        "broke",
        "broken",
        "poor",
        "damaged",
        "never",
        "terrible",
        "awful",
        "rude",
        "slow",
        "expensive",
        "stopped",
        "disappointed",
        "hot",
        "small",
        "issue",
        "worse",
    ]
)
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "had",
        "has",
        "have",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "so",
        "that",
        "the",
        "this",
        "to",
        "too",
        "was",
        "were",
        "with",
        "after",
        "two",
        "three",
        "my",
        "me",
        "not",
        "very",
        "than",
        "it's",
    ]
)
PROBLEMS = {
    "quality": ("broke", "broken", "quality", "stopped", "plastic"),
    "shipping": ("shipping", "delivery", "arrived", "damaged", "box"),
    "support": ("support", "refund", "rude", "answered"),
    "price": ("expensive", "price", "cost"),
    "sizing": ("small", "size", "fit"),
}


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def sentiment_analyzer(
    text_data: list[str],
    model: str = "small",
    batch_size: int = 10,
    include_reasoning: bool = False,
    brand_name: str | None = None,
    threshold: float = 0.5,
    filters: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Lexicon sentiment per text and overall."""
    results = []
    counts: Counter[str] = Counter()
    for text in text_data:
        words = _words(text)
        pos = sum(w in POSITIVE for w in words)
        neg = sum(w in NEGATIVE for w in words)
        score = 0.0 if pos + neg == 0 else (pos - neg) / (pos + neg)
        label = "positive" if score > 0 else "negative" if score < 0 else "neutral"
        counts[label] += 1
        item: dict[str, Any] = {"text": text, "sentiment": label, "score": round(score, 3)}
        if include_reasoning:
            item["reasoning"] = f"{pos} positive and {neg} negative words"
        results.append(item)
    total = len(results) or 1
    shares = {k: counts[k] / total for k in ("positive", "negative", "neutral")}
    top = max(shares, key=lambda k: shares[k])
    tied = sum(share == shares[top] for share in shares.values()) > 1
    # a label is the overall one only when it leads alone, with at least `threshold` of texts
    overall = top if shares[top] >= threshold and not tied else "mixed"
    return {"overall_sentiment": overall, "distribution": shares, "results": results}


def keyword_extractor(text_data: list[str], top_k: int = 10, min_count: int = 1) -> dict[str, Any]:
    """Most frequent content words."""
    counts = Counter(
        w
        for t in text_data
        for w in _words(_HASHTAG.sub("", t))
        if w not in STOPWORDS and len(w) > 2
    )
    keywords = [{"keyword": w, "count": c} for w, c in counts.most_common() if c >= min_count][
        :top_k
    ]
    return {"keywords": keywords}


def hashtag_analyzer(text_data: list[str], top_k: int = 10) -> dict[str, Any]:
    """Hashtags with their counts and the share of texts using any."""
    tags = [[t.lower() for t in _HASHTAG.findall(text)] for text in text_data]
    counts = Counter(t for row in tags for t in row)
    return {
        "hashtags": [{"tag": f"#{t}", "count": c} for t, c in counts.most_common(top_k)],
        "texts_with_hashtags": sum(1 for row in tags if row),
    }


def problem_classifier(text_data: list[str]) -> dict[str, Any]:
    """Count complaints by category using keyword rules."""
    counts: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for text in text_data:
        words = set(_words(text))
        for category, cues in PROBLEMS.items():
            if words.intersection(cues):
                counts[category] += 1
                examples.setdefault(category, text)
    return {"problems": dict(counts.most_common()), "examples": examples}


def competitor_analyzer(text_data: list[str], competitors: list[str]) -> dict[str, Any]:
    """How often each competitor is mentioned, and in what tone."""
    out = {}
    for name in competitors:
        mentions = [t for t in text_data if name.lower() in t.lower()]
        tone = sentiment_analyzer(mentions)["overall_sentiment"] if mentions else "none"
        out[name] = {"mentions": len(mentions), "tone": tone}
    return {"competitors": out}
