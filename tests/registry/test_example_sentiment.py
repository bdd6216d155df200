"""The example catalogue's sentiment wording: an even split is "mixed", never "positive"."""

from __future__ import annotations

from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_an_even_split_is_mixed_and_the_insight_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    from review_tools.insights import insight_generator
    from review_tools.text import sentiment_analyzer

    even = sentiment_analyzer(["great product, love it", "terrible, broken on arrival"])
    assert even["distribution"]["positive"] == even["distribution"]["negative"] == 0.5
    assert even["overall_sentiment"] == "mixed"
    first = insight_generator(even, [])["insights"][0]
    assert first == "Overall sentiment is mixed (50% positive, 50% negative)."
    lead = sentiment_analyzer(["great", "love it", "terrible"])
    assert lead["overall_sentiment"] == "positive"
