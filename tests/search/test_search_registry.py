"""The index follows a catalogue: Python tools, YAML files, hot reload, failed loads."""

from __future__ import annotations

from pathlib import Path

import pytest
from search_doubles import HashingEmbedder

from toolrig import Tool, tool
from toolrig.registry import Catalog, IntentMap, Registry
from toolrig.search import SearchConfig, ToolIndex, attach, detach, select_tools_for_intent

pytest.importorskip("numpy")

LEXICAL = SearchConfig(embedders=())

WEATHER = """\
name: weather
description: Current weather and forecast for a city.
type: data
tags: [weather]
examples: ["will it rain in Oslo tomorrow?"]
parameters:
  - {name: city, type: string, required: true, description: the city name}
"""


def names(hits: list) -> list[str]:
    return [h.name for h in hits]


@tool
def convert_currency(amount: float, to: str) -> float:
    """Convert an amount of money into another currency."""
    return amount


@tool
def roll_dice(sides: int = 6) -> int:
    """Roll a die for board games."""
    return sides


@pytest.fixture
def registry() -> Registry:
    reg = Registry()
    yield reg
    reg.close()


def test_follow_indexes_the_tools_there_and_every_later_change() -> None:
    catalog = Catalog([roll_dice])
    index = ToolIndex.follow(catalog, config=LEXICAL)
    assert names(index.search("roll the dice")) == ["roll_dice"]
    assert index.search("convert money to euros") == []
    catalog.add(convert_currency)
    assert names(index.search("convert money to euros")) == ["convert_currency"]
    catalog.remove("convert_currency")
    assert index.search("convert money to euros") == []
    assert index.unfollow(catalog)
    assert not index.unfollow(catalog)  # no longer following
    catalog.add(convert_currency)
    assert index.search("convert money to euros") == []
    assert index.tool_names() == ["roll_dice"]  # what was indexed stays


def test_one_index_follows_each_catalogue_separately() -> None:
    first, second = Catalog([roll_dice]), Catalog()
    index = ToolIndex.follow(first, config=LEXICAL)
    other = ToolIndex.follow(second, config=LEXICAL)
    second.add(convert_currency)
    assert index.tool_names() == ["roll_dice"]
    assert other.tool_names() == ["convert_currency"]


def test_attach_and_detach_are_follow_and_unfollow() -> None:
    catalog = Catalog()
    index = attach(catalog, config=LEXICAL)
    catalog.add(roll_dice)
    assert index.tool_names() == ["roll_dice"]
    detach(catalog, index)
    catalog.add(convert_currency)
    assert index.tool_names() == ["roll_dice"]


def test_search_follows_hot_reload_of_yaml_files(registry: Registry, tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    config = SearchConfig(dense_weights={"fake": 1.0})
    path = tmp_path / "weather.yaml"
    path.write_text(WEATHER)
    registry.load(tmp_path)
    index = ToolIndex.follow(registry, config=config, embedders=(embedder,))
    assert names(index.search("rain in Oslo"))[0] == "weather"
    assert names(index.search("city forecast", filters={"tags": ["weather"]})) == ["weather"]

    # the file changes: the new text is searched, the old is gone
    path.write_text(WEATHER.replace("Current weather and forecast for a city.", "Tide tables."))
    assert registry.refresh([path]).ok
    assert names(index.search("tide tables"))[0] == "weather"
    assert "weather" not in names(index.search("forecast", mode="lexical"))

    # a broken file keeps the previous tool in service, and in the index
    path.write_text("name: weather\ndescription: [unclosed\n")
    assert not registry.refresh([path]).ok
    assert names(index.search("tide tables"))[0] == "weather"

    # a second file adds a tool; deleting the first removes its tool
    (tmp_path / "dice.yaml").write_text("name: dice\ndescription: Roll dice for board games.\n")
    registry.refresh([tmp_path / "dice.yaml"])
    assert names(index.search("roll the dice"))[0] == "dice"
    path.unlink()
    registry.refresh([path])
    assert "weather" not in names(index.search("tide tables", k=9))
    assert index.tool_names() == ["dice"]


def test_select_tools_for_intent_uses_the_table_then_search() -> None:
    def score_sentiment(text: str) -> str:
        """Score the sentiment of customer reviews."""
        return text

    sentiment = Tool(func=score_sentiment, name="sentiment", dependencies=["fetch_reviews"])

    @tool
    def fetch_reviews(product: str) -> list[str]:
        """Download the reviews of a product."""
        return []

    catalog = Catalog([fetch_reviews, sentiment])
    index = ToolIndex.follow(catalog, config=LEXICAL)
    intents = IntentMap({("reviews", "collect"): ["fetch_reviews"]})
    assert select_tools_for_intent(catalog, intents, "reviews.collect") == ["fetch_reviews"]
    # no entry in the table: search by the intent's words, dependencies first
    chosen = select_tools_for_intent(catalog, intents, "reviews.sentiment", index=index, k=1)
    assert chosen == ["fetch_reviews", "sentiment"]
