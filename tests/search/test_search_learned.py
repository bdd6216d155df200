"""Learning from use: (request, tool) pairs raise a tool for requests like the ones that led
to it, not for every request; stored only when the request log is enabled; switchable off."""

from __future__ import annotations

from pathlib import Path

import pytest
import search_doubles

from toolrig.search import SearchConfig, ToolIndex
from toolrig.storage import RequestLog, SQLiteExecutionLog

np = pytest.importorskip("numpy")

TOOLS = [
    search_doubles.single("fuel_finder", "Petrol and diesel at filling stations nearby."),
    search_doubles.single("stock_quote", "Latest share values of listed companies."),
    search_doubles.single("news_search", "Find news articles about a topic."),
    search_doubles.single("recipe_finder", "Recipes for a dish or ingredients."),
    search_doubles.single("flight_search", "Flights between two airports on a date."),
]
# requests that name what the user wants, not the tool's words
LEARNED = [
    ("gas prices in ontario toronto", "fuel_finder"),
    ("how much is gas in toronto ontario today", "fuel_finder"),
    ("cheapest gas near toronto", "fuel_finder"),
    ("what happened in parliament today", "news_search"),
    ("pasta carbonara ingredients", "recipe_finder"),
]


def index(config: SearchConfig | None = None) -> ToolIndex:
    return ToolIndex(TOOLS, config=config, embedders=(search_doubles.HashingEmbedder(),))


def rank_of(idx: ToolIndex, query: str, tool: str) -> int:
    names = [h.tool for h in idx.search(query, k=5, group="tool")]
    return names.index(tool) if tool in names else 99


def test_a_request_asked_before_finds_the_tool_it_led_to() -> None:
    query = "cheapest gas near toronto"
    plain = index()
    taught = index()
    taught.learn(LEARNED)

    def margin(idx: ToolIndex) -> float:
        """How far fuel_finder stands above the best other tool."""
        scores = {h.tool: h.score for h in idx.search(query, k=5, group="tool")}
        return scores.pop("fuel_finder") - max(scores.values())

    assert margin(plain) <= 0  # the words do not lead to it
    assert margin(taught) > 1.0
    taught.learn([])  # forgets everything
    assert taught.learned == [] and margin(taught) == margin(plain)


def test_the_weight_is_conditional_on_the_request_not_global_popularity() -> None:
    many = [(f"gas prices in ontario city {i}", "fuel_finder") for i in range(200)]
    taught = index()
    taught.learn(many)
    plain = index()
    for query in ("flights from oslo to rome on friday", "recipes with ingredients for a dish"):
        # a tool learned 200 times for other requests gains nothing here
        assert [h.tool for h in taught.search(query, k=5, group="tool")] == [
            h.tool for h in plain.search(query, k=5, group="tool")
        ]


def test_learning_can_be_switched_off() -> None:
    off = index(SearchConfig(learned_weight=0.0))
    off.learn(LEARNED)
    plain = index()
    query = "gas prices in ontario"
    assert off.search(query, k=5) == plain.search(query, k=5)
    off.search("cheapest gas today", k=1)
    off.record_use("fuel_finder")
    assert ("cheapest gas today", "fuel_finder") not in off.learned  # nothing remembered


def test_uses_after_a_search_are_learned_and_stored_only_when_enabled(tmp_path: Path) -> None:
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    stored = RequestLog(log, enabled=True)
    stored.record("gas prices in ontario toronto", "fuel_finder")
    idx = index()
    idx.learn_from(stored)
    assert idx.learned == [("gas prices in ontario toronto", "fuel_finder")]
    idx.search("what happened in parliament", k=2)
    idx.record_use("news_search")  # the request searched just before led to this call
    assert ("what happened in parliament", "news_search") in idx.learned
    assert next((p.request, p.tool, p.source) for p in stored.pairs()) == (
        "what happened in parliament",
        "news_search",
        "search",
    )
    private = index()
    private.learn_from(RequestLog(log))  # not enabled: learns, never stores
    private.search("cheapest gas near me", k=1)
    private.record_use("fuel_finder")
    assert len(stored.pairs()) == 2
    assert stored.purge() == 2 and stored.pairs() == []
    log.close()


def test_bad_pairs_are_refused() -> None:
    idx = index()
    with pytest.raises(TypeError):
        idx.learn([("a request", None)])  # type: ignore[list-item]


def test_requests_learned_one_by_one_vote_as_if_learned_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolrig.search import _learned

    monkeypatch.setattr(_learned, "MAX_LEARNED", 4)  # the oldest are forgotten
    embedder = search_doubles.HashingEmbedder()
    query = embedder.embed(["gas prices in toronto"])[0]
    grown = _learned.LearnedRequests()
    for request, tool in LEARNED:
        grown.add(request, tool)
        grown.votes(embedder, query, neighbours=10, floor=0.0)  # embeds what is new
    grown.add("gas prices in ontario toronto", "stock_quote")  # a second tool, same request
    fresh = _learned.LearnedRequests()
    fresh.replace(grown.pairs())
    assert len(grown) == 4
    assert grown.votes(embedder, query, neighbours=10, floor=0.0) == pytest.approx(
        fresh.votes(embedder, query, neighbours=10, floor=0.0)
    )


def test_a_request_log_that_cannot_write_never_fails_the_call(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    stored = RequestLog(log, enabled=True)
    idx = index()
    idx.learn_from(stored)
    with log._conn() as conn:  # the table is gone: every write now fails
        conn.execute("DROP TABLE tool_requests")
    idx.search("what happened in parliament", k=1)
    with caplog.at_level("WARNING", logger="toolrig.search"):
        idx.record_use("news_search")
    assert "could not store the request" in caplog.text
    assert ("what happened in parliament", "news_search") in idx.learned  # still learned
    log.close()
