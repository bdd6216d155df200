"""Requests with several parts, and re-ranking of candidates in large catalogues."""

from __future__ import annotations

from typing import Any

import pytest
from search_doubles import HashingEmbedder, single

from toolrig.core.model._spec import ToolSpec
from toolrig.search import SearchConfig, ToolIndex
from toolrig.search._requests import clear_query_cache
from toolrig.search._segments import request_parts

pytest.importorskip("numpy")


def parts(text: str) -> list[str]:
    return [text[a:b] for a, b in request_parts(text)]


def test_a_request_splits_at_sentences_and_joining_words() -> None:
    assert parts(
        "What's the weather in Oslo tomorrow? Also, can you find news about the election."
    ) == ["What's the weather in Oslo tomorrow", "can you find news about the election"]
    assert parts("Play some jazz and then book a table for two") == [
        "Play some jazz",
        "book a table for two",
    ]
    assert parts('"Convert 10 USD to EUR, could you also list cheap flights to Rome?"') == [
        "Convert 10 USD to EUR",
        "could you also list cheap flights to Rome",
    ]


def test_a_request_of_many_asks_keeps_its_later_parts() -> None:
    asks = [
        "convert my weight to Mars gravity",
        "change 5000 dollars into yen",
        "turn 10 miles into kilometres",
        "find a hotel in Tokyo",
        "book a table for two",
        "show the weather in Kyoto",
        "list museums near Osaka",
        "translate hello into Japanese",
    ]
    got = parts(". ".join(asks) + ".")
    assert got == asks  # eight asks, the last ones included
    assert len(parts(". ".join(asks * 2))) == 8  # at most eight are ranked on their own


def test_a_single_request_is_one_part() -> None:
    assert request_parts("What is the weather in Oslo tomorrow?") == []
    assert request_parts("salt and pepper") == []  # a one-word part is no part
    assert request_parts("") == []
    assert request_parts("find flights and hotels. " * 1_000) == []  # too long to split


class CheapEmbedder(HashingEmbedder):
    name = "cheap"
    cheap = True


class CostlyEmbedder(HashingEmbedder):
    """Records how many documents each request is compared with."""

    name = "costly"

    def __init__(self) -> None:
        super().__init__()
        self.widths: list[int] = []


def filler(i: int) -> ToolSpec:
    return single(f"tool_{i}", f"Manages widget number {i} of the assembly line {i % 7}.")


def catalogue() -> list[ToolSpec]:
    return [
        single("weather_forecast", "Weather forecast: rain, wind and temperature for a city."),
        single("news_search", "Search recent news articles and headlines about a topic."),
        single("music_player", "Play songs, albums and playlists."),
        *(filler(i) for i in range(60)),
    ]


def test_the_part_of_a_request_that_names_a_second_tool_pulls_it_up() -> None:
    weather = [
        single("weather_forecast", "Weather forecast: rain, wind, snow and temperature."),
        single("weather_alerts", "Severe weather alerts: storms, wind, snow and rain warnings."),
        single("weather_history", "Past weather of a city: rain, snow, wind and temperatures."),
        single("climate_data", "Climate averages of a city: rain, temperature and wind by month."),
    ]
    tools = [*weather, *catalogue()]
    query = (
        "Will there be rain, wind or snow in Oslo tomorrow, what temperature for the city, "
        "and also find the latest headlines"
    )

    def ranking(part_weight: float) -> list[str]:
        config = SearchConfig(part_weight=part_weight, dense_weights={"fake": 2.0})
        index = ToolIndex(tools, config=config, embedders=(HashingEmbedder(),))
        return [h.name for h in index.search(query, k=len(tools))]

    with_parts, whole_only = ranking(1.0), ranking(0.0)
    assert set(with_parts[:4]) == {s.name for s in weather}
    assert with_parts.index("news_search") < whole_only.index("news_search")
    lexical = ToolIndex(tools, embedders=()).search(query, k=len(tools), mode="lexical")
    assert "news_search" in [h.name for h in lexical]


def test_a_large_catalogue_reranks_only_candidates_and_finds_the_same_tools(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolrig.search import _vectors as vectors

    widths: list[int] = []
    original = vectors.VectorTable.similarities

    def spy(self: Any, queries: Any, n: int, weight: float, slots: Any = None) -> Any:
        out = original(self, queries, n, weight, slots)
        if self.name == "costly":
            widths.append(out.shape[1])
        return out

    monkeypatch.setattr(vectors.VectorTable, "similarities", spy)
    requests = ("rain and wind in Oslo", "latest headlines on the election", "widget 12")
    _reranked_agrees_with_scanned((CheapEmbedder(), CostlyEmbedder()), requests)
    assert widths and set(widths[0::2]) == {10}  # the re-ranking index compared 10 only
    assert set(widths[1::2]) == {len(catalogue())}


def _reranked_agrees_with_scanned(embedders: tuple[Any, ...], requests: tuple[str, ...]) -> Any:
    """Ask each request of an index that re-ranks candidates above 20 tools (10 of them) and
    of one that scans them all: the best tool is the same. Returns the re-ranking config."""
    weights = {"cheap": 1.0, "costly": 2.0}
    small = SearchConfig(rerank_above=20, rerank_depth=10, dense_weights=weights)
    full = SearchConfig(rerank_above=10_000, dense_weights=weights)
    reranked = ToolIndex(catalogue(), config=small, embedders=embedders)
    scanned = ToolIndex(catalogue(), config=full, embedders=embedders)
    for query in requests:
        clear_query_cache()
        assert reranked.search(query, k=1)[0].name == scanned.search(query, k=1)[0].name
    return small


class CoarseCheapEmbedder(CheapEmbedder):
    coarse_dims = 32  # of 64: the cut vectors pick the candidates


def test_a_large_catalogue_picks_candidates_on_cut_vectors_then_scores_them_in_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolrig.search import _vectors as vectors

    coarse: list[int] = []
    original = vectors.VectorTable.coarse_similarities

    def spy(self: Any, queries: Any, n: int) -> Any:
        coarse.append(n)
        return original(self, queries, n)

    monkeypatch.setattr(vectors.VectorTable, "coarse_similarities", spy)
    embedders = (CoarseCheapEmbedder(), CostlyEmbedder())
    small = _reranked_agrees_with_scanned(
        embedders, ("rain and wind in Oslo", "play an album", "widget 12")
    )
    assert coarse == [len(catalogue())] * 3  # the re-ranking index only, once a request
    fast = ToolIndex(catalogue(), config=small, embedders=embedders[:1])
    assert fast.search("rain and wind in Oslo", k=1)[0].name == "weather_forecast"
    assert len(coarse) == 3  # with nothing to re-rank, no rough pass: the full one ranks


def test_costly_models_run_beside_the_word_ranking_and_agree_with_a_plain_call() -> None:
    from toolrig.search._requests import embed_request, embed_request_soon

    embedder = CostlyEmbedder()
    text = "rain in Oslo, and news about the election"
    spans = request_parts(text)
    clear_query_cache()
    soon = embed_request_soon(embedder, text, spans)()
    assert soon.shape[0] == 1 + len(spans) == 3
    clear_query_cache()
    assert (embed_request(embedder, text, spans) == soon).all()
    assert embedder.embedded == [text, *(text[a:b] for a, b in spans)] * 2


def test_bm25f_scores_a_request_and_its_parts_like_separate_queries() -> None:
    import numpy as np

    from toolrig.search._tokenize import analyze

    index = ToolIndex(catalogue(), embedders=())
    bm25 = index._bm25
    texts = ["rain and wind in the city", "rain", "news headlines about rain", "no such words"]
    together = bm25.score_arrays([analyze(t) for t in texts], len(index))
    for row, text in zip(together, texts, strict=True):
        alone = bm25.scores(analyze(text))
        expected = np.zeros(len(index), dtype=np.float32)
        for slot, score in alone.items():
            expected[slot] = score
        assert np.allclose(row, expected, rtol=1e-5), text
    assert together[0].max() > 0 and together[3].max() == 0


@pytest.mark.parametrize(
    ("query", "k", "message"),
    [
        ("", 5, "query is empty"),
        ("   \n", 5, "query is empty"),
        ("x" * 10_001, 5, "10,001 characters; the limit is 10,000"),
        ("weather", 0, "k must be a whole number of at least 1, got 0"),
        ("weather", -1, "got -1"),
        ("weather", True, "got True"),
    ],
)
def test_a_malformed_request_is_refused_with_the_reason(query: str, k: int, message: str) -> None:
    index = ToolIndex(catalogue(), embedders=())
    with pytest.raises(ValueError, match=message):
        index.search(query, k=k)


class StoredCostlyEmbedder(CostlyEmbedder):
    cache_key = "costly-v1"  # its document vectors go to the on-disk cache


def test_a_forked_child_still_searches_with_costly_models(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import multiprocessing

    monkeypatch.setenv("TOOLRIG_CACHE_DIR", str(tmp_path))
    index = ToolIndex(catalogue(), embedders=(CheapEmbedder(), StoredCostlyEmbedder()))
    assert index.search("rain in Oslo", k=1)  # starts the encoding thread, opens the cache
    clear_query_cache()

    def child(queue: Any) -> None:
        index.add(single("ferry_times", "Ferry timetables and crossings between harbours."))
        names = [index.search(q, k=1)[0].name for q in ("headlines on the vote", "ferry times")]
        queue.put(names)

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=child, args=(queue,))
    process.start()
    process.join(30)
    if process.is_alive():
        process.kill()
        pytest.fail("the forked child hung waiting for an encoding thread it does not have")
    assert process.exitcode == 0
    assert queue.get(timeout=5) == ["news_search", "ferry_times"]


def with_samples() -> list[ToolSpec]:
    tools = catalogue()
    tools[0] = single(
        "weather_forecast",
        "Weather forecast: rain, wind and temperature for a city.",
        examples=("do I need an umbrella tomorrow", "will it be sunny this weekend"),
    )
    tools[1] = single(
        "news_search",
        "Search recent news articles and headlines about a topic.",
        examples=("what happened in the election",),
    )
    return tools


def test_sample_requests_of_a_large_catalogue_are_compared_for_candidates_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolrig.search import _vectors as vectors

    widths: list[int] = []
    original = vectors.VectorTable._closest_examples

    def spy(self: Any, queries: Any, n: int, slots: Any, width: int) -> Any:
        widths.append(width)
        return original(self, queries, n, slots, width)

    monkeypatch.setattr(vectors.VectorTable, "_closest_examples", spy)
    weights = {"cheap": 2.0}
    small = SearchConfig(rerank_above=20, rerank_depth=10, dense_weights=weights)
    full = SearchConfig(rerank_above=10_000, dense_weights=weights)
    reranked = ToolIndex(with_samples(), config=small, embedders=(CheapEmbedder(),))
    scanned = ToolIndex(with_samples(), config=full, embedders=(CheapEmbedder(),))
    for query in ("umbrella tomorrow?", "what happened in the election", "widget 3"):
        clear_query_cache()
        assert reranked.search(query, k=1)[0].name == scanned.search(query, k=1)[0].name
    assert widths[0::2] == [10, 10, 10]  # candidates only
    assert widths[1::2] == [len(with_samples())] * 3  # every document


def test_asking_for_more_results_than_candidates_still_gives_k() -> None:
    config = SearchConfig(rerank_above=20, rerank_depth=10, dense_weights={"cheap": 1.0})
    index = ToolIndex(with_samples(), config=config, embedders=(CheapEmbedder(),))
    hits = index.search("widgets of the assembly line", k=30)
    assert len(hits) == 30 and len({h.name for h in hits}) == 30
