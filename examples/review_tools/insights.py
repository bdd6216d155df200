"""Turn analyses into insights, a Markdown report and a dashboard description."""

from __future__ import annotations

from typing import Any


def insight_generator(
    sentiment: dict[str, Any],
    keywords: list[dict[str, Any]],
    problems: dict[str, int] | None = None,
    hashtags: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Rule-based insights from sentiment, keywords, problems and hashtags."""
    insights = []
    dist = sentiment.get("distribution", {})
    insights.append(
        f"Overall sentiment is {sentiment.get('overall_sentiment', 'unknown')} "
        f"({dist.get('positive', 0):.0%} positive, {dist.get('negative', 0):.0%} negative)."
    )
    if keywords:
        insights.append(
            "Customers talk most about: " + ", ".join(k["keyword"] for k in keywords[:5]) + "."
        )
    if problems:
        top, count = next(iter(sorted(problems.items(), key=lambda kv: -kv[1])))
        insights.append(f"The most frequent complaint is {top} ({count} review(s)).")
    if hashtags:
        insights.append("Top hashtags: " + ", ".join(h["tag"] for h in hashtags[:3]) + ".")
    actions = [f"Investigate {p} complaints." for p in (problems or {})][:3]
    return {"insights": insights, "recommended_actions": actions}


def report_generator(
    insights: list[str],
    title: str = "Review analysis",
    recommended_actions: list[str] | None = None,
) -> dict[str, Any]:
    """A Markdown report."""
    lines = [f"# {title}", "", "## Insights", *[f"- {i}" for i in insights]]
    if recommended_actions:
        lines += ["", "## Recommended actions", *[f"- {a}" for a in recommended_actions]]
    return {"format": "markdown", "content": "\n".join(lines) + "\n"}


def dashboard_generator(
    sentiment: dict[str, Any],
    keywords: list[dict[str, Any]],
    hashtags: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A dashboard description (widgets with their data) any front end can draw."""
    widgets = [
        {"type": "pie", "title": "Sentiment", "data": sentiment.get("distribution", {})},
        {"type": "bar", "title": "Keywords", "data": {k["keyword"]: k["count"] for k in keywords}},
    ]
    if hashtags:
        widgets.append(
            {"type": "bar", "title": "Hashtags", "data": {h["tag"]: h["count"] for h in hashtags}}
        )
    return {"widgets": widgets}
