"""The usage prior: call counts move often-used tools up, follow the tools, and are checked."""

from __future__ import annotations

import csv
import hashlib
import json
import re

import pytest
from search_doubles import HashingEmbedder, single

from ci_rules import CORPORA
from toolrig.core.model._spec import ActionSpec, ToolSpec
from toolrig.search import SearchConfig, ToolIndex

LEXICAL = SearchConfig(embedders=())
METATOOL = CORPORA / "metatool"


def names(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.name for h in hits]


def weather_tools() -> list[ToolSpec]:
    """Two tools that match "weather" about as well, and others that do not."""
    return [
        single("forecast", "Weather forecast for a city, today and the coming days."),
        single("climate", "Weather history and climate statistics of a city."),
        single("news", "Latest news headlines on a topic."),
        single("stocks", "Share prices of listed companies."),
        single("recipes", "Cooking recipes by ingredient."),
        single("translate", "Translate text between languages."),
        single("flights", "Search plane flights between airports."),
        single("email", "Send an email message."),
    ]


def test_counts_move_the_used_tool_up_and_nothing_without_them() -> None:
    index = ToolIndex(weather_tools(), config=LEXICAL)
    before = index.search("weather for a city", k=5)
    assert {h.name for h in before} == {"forecast", "climate"}  # the only ones that match
    first, second = names(before)
    index.set_usage({"news": 0})  # zero calls: no prior at all
    assert index.search("weather for a city", k=5) == before
    index.set_usage({second: 40, first: 2, "news": 100})
    after = names(index.search("weather for a city", k=5))
    assert after == [second, first]  # news: a prior among the matches adds no tool that misses
    assert index.usage == {second: 40, first: 2, "news": 100}
    unweighted = ToolIndex(weather_tools(), config=SearchConfig(embedders=(), usage_weight=0))
    unweighted.set_usage({second: 40})
    assert names(unweighted.search("weather for a city", k=2)) == [first, second]


@pytest.mark.parametrize("query", ["weather for a city", "send an email", "share prices"])
def test_no_count_lifts_a_below_average_tool_over_the_best_match(query: str) -> None:
    index = ToolIndex(weather_tools(), embedders=(HashingEmbedder(),))  # fused ranking
    before = index.search(query, k=8)
    mean = sum(h.score for h in before) / len(before)
    below = [h.name for h in before if h.score <= mean]
    assert below
    index.set_usage(dict.fromkeys(below, 10**9))
    after = index.search(query, k=8)
    assert after[0].name == before[0].name
    old = {h.name: h.score for h in before}
    moved = [h.name for h in after if h.score > old[h.name] + 1e-6]
    assert set(moved) == set(below)  # and every one of them did move up


def test_record_use_counts_calls_and_outlives_a_reload() -> None:
    index = ToolIndex(weather_tools(), config=LEXICAL)
    assert names(index.search("weather for a city", k=1)) == ["climate"]
    for _ in range(30):
        index.record_use("forecast")
    assert names(index.search("weather for a city", k=1)) == ["forecast"]
    index.add(single("forecast", "Weather forecast for a city, today and the next days."))
    assert names(index.search("weather for a city", k=1)) == ["forecast"]  # reloaded
    index.remove("forecast")
    index.record_use("forecast", 5)  # a name not indexed is kept for when it is
    assert names(index.search("weather for a city", k=1)) == ["climate"]
    index.add(single("forecast", "Weather forecast for a city, today and the coming days."))
    assert index.usage == {"forecast": 35}
    assert names(index.search("weather for a city", k=1)) == ["forecast"]


def test_an_action_count_applies_to_that_action_and_its_tool() -> None:
    files = ToolSpec(
        name="files",
        description="Work with files.",
        actions={
            "read": ActionSpec(name="read", description="Read a text file."),
            "write": ActionSpec(name="write", description="Write a text file."),
        },
    )
    index = ToolIndex([files, *weather_tools()], config=LEXICAL)
    assert names(index.search("text file", k=2)) == ["files.read", "files.write"]
    index.record_use("files.write", 10)
    assert index.usage == {"files.write": 10, "files": 10}
    assert names(index.search("text file", k=2)) == ["files.write", "files.read"]
    index.record_use("files__read", 30)  # the exported name counts as the call name
    assert index.usage == {"files.write": 10, "files.read": 30, "files": 40}
    assert names(index.search("text file", k=2)) == ["files.read", "files.write"]


def test_plain_python_and_numpy_agree_with_usage() -> None:
    index = ToolIndex(weather_tools(), config=LEXICAL)
    index.set_usage({"climate": 40, "news": 3, "flights": 7})
    queries = ["weather for a city", "latest news", "plane flights and weather"]
    with_numpy = [index.search(q, k=8) for q in queries]
    index._numpy = False  # as without numpy installed
    plain = [index.search(q, k=8) for q in queries]
    assert [names(h) for h in plain] == [names(h) for h in with_numpy]
    for a, b in zip(plain, with_numpy, strict=True):
        assert [h.score for h in a] == pytest.approx([h.score for h in b], rel=1e-4)


@pytest.mark.parametrize(
    ("counts", "error", "message"),
    [
        ({"climate": -1}, ValueError, "must be a whole number >= 0"),
        ({"climate": 2.5}, ValueError, "must be a whole number >= 0"),
        ({"climate": True}, ValueError, "must be a whole number >= 0"),
        ({3: 1}, TypeError, "keys must be tool names"),
        ([("climate", 1)], TypeError, "must be a mapping"),
    ],
)
def test_bad_counts_are_refused_and_the_old_ones_kept(
    counts: object, error: type[Exception], message: str
) -> None:
    index = ToolIndex(weather_tools(), config=LEXICAL)
    index.set_usage({"news": 4})
    with pytest.raises(error, match=message):
        index.set_usage(counts)  # type: ignore[arg-type]
    assert index.usage == {"news": 4}
    with pytest.raises(ValueError, match="whole number"):
        index.record_use("news", -2)
    with pytest.raises(TypeError, match="tool name"):
        index.record_use("")  # type: ignore[arg-type]
    assert index.usage == {"news": 4}


# -- on public data ----------------------------------------------------------------------------
def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\- ]", "_", name)


def _is_dev(query: str) -> bool:
    return int(hashlib.sha1(query.encode()).hexdigest()[:8], 16) % 10 < 3


@pytest.mark.corpus(
    "metatool/plugin_des.json",
    "metatool/all_clean_data.csv",
    "metatool/multi_tool_query_golden.json",
)
def test_usage_from_past_requests_finds_more_of_the_right_tools_on_metatool() -> None:
    """MetaTool: counts of the tools that answered the dev slice's requests raise recall@5 on
    the held-out two-tool requests (words-only ranking, to stay fast)."""
    descriptions = json.loads((METATOOL / "plugin_des.json").read_text())
    index = ToolIndex(
        [single(_safe(name), text) for name, text in descriptions.items()], config=LEXICAL
    )
    with open(METATOOL / "all_clean_data.csv", newline="", encoding="utf-8") as f:
        dev_tools = [_safe(row["Tool"]) for row in csv.DictReader(f) if _is_dev(row["Query"])]
    counts: dict[str, int] = {}
    for name in dev_tools:
        counts[name] = counts.get(name, 0) + 1
    held_out = [
        (d["query"], {_safe(t) for t in d["tool"]})
        for d in json.loads((METATOOL / "multi_tool_query_golden.json").read_text())
        if not _is_dev(d["query"])
    ]

    def recall_at_5() -> float:
        found = sum(
            len(gold & {h.tool for h in index.search(query, k=5)}) / len(gold)
            for query, gold in held_out
        )
        return 100 * found / len(held_out)

    without = recall_at_5()
    index.set_usage(counts)
    with_usage = recall_at_5()
    assert without > 60  # BM25F alone (plain BM25 in the corpus notes: 35.8)
    assert with_usage > without + 3, (without, with_usage)
