"""Tokenising and BM25F: identifiers split, stems, and scores exact after incremental changes."""

from __future__ import annotations

import random

import pytest

from toolrig.search import BM25FParams
from toolrig.search._bm25f import BM25F
from toolrig.search._tokenize import analyze, segment, vocabulary_of, words


def test_identifiers_split_in_every_style() -> None:
    expected = ["get", "weather", "forecast"]
    for name in ("getWeatherForecast", "get_weather_forecast", "get-weather-forecast"):
        assert words(name) == expected
    assert words("HTTPServer2go") == ["http", "server", "2go"]


def test_stop_words_dropped_and_words_stemmed() -> None:
    assert analyze("What are the forecasts for the running races?") == ["forecast", "run", "race"]


def test_run_together_names_split_with_the_tools_own_words() -> None:
    vocabulary = vocabulary_of(["Get the air quality forecast for a zip code."])
    assert segment("airqualityforecast", vocabulary) == ["air", "quality", "forecast"]
    assert segment("airqualityforeast", vocabulary) == ["air", "quality", "foreast"]
    assert segment("weather", vocabulary) == []
    terms = analyze("airqualityforecast", vocabulary)
    assert terms[0] == "airqualityforecast"
    assert {"air", "qualiti", "forecast"} <= set(terms)


PARAMS = BM25FParams(weights={"name": 2.0, "description": 1.0}, default_b=0.5, k1=2.0)
VOCAB = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]


def _doc(rng: random.Random) -> dict[str, list[str]]:
    return {
        "name": rng.choices(VOCAB, k=rng.randint(1, 3)),
        "description": rng.choices(VOCAB, k=rng.randint(0, 12)),
    }


def test_incremental_changes_score_like_a_fresh_index() -> None:
    np = pytest.importorskip("numpy")
    rng = random.Random(7)
    live: dict[int, dict[str, list[str]]] = {}
    index = BM25F(PARAMS)
    for step in range(300):
        if step % 7 == 0:  # the numpy scores remember terms: every change must reach them
            index.score_array(rng.choices(VOCAB, k=4), 64)
        doc = rng.randrange(40)
        if doc in live and rng.random() < 0.4:
            index.remove(doc)
            del live[doc]
        else:
            live[doc] = _doc(rng)
            index.add(doc, live[doc])  # add or replace
        if step % 50 == 49:
            fresh = BM25F(PARAMS)
            for d, terms in live.items():
                fresh.add(d, terms)
            query = rng.choices(VOCAB, k=3)
            got, want = index.scores(query), fresh.scores(query)
            assert got.keys() == want.keys()
            for d in want:
                assert got[d] == pytest.approx(want[d], rel=1e-9)
            np.testing.assert_allclose(
                index.score_array(query, 64), fresh.score_array(query, 64), rtol=1e-5
            )
    assert len(index) == len(live)


def test_rarer_terms_and_name_matches_weigh_more() -> None:
    index = BM25F(PARAMS)
    index.add(1, {"name": ["weather"], "description": ["forecast", "city"]})
    index.add(2, {"name": ["mail"], "description": ["send", "weather", "report"]})
    index.add(3, {"name": ["stock"], "description": ["price", "city"]})
    scores = index.scores(["weather"])
    assert scores[1] > scores[2] > 0
    assert 3 not in scores
    assert index.idf("forecast") > index.idf("city") > 0
    assert index.idf("unknown") == 0


def test_vectorised_scores_equal_the_plain_ones() -> None:
    np = pytest.importorskip("numpy")
    rng = random.Random(3)
    index = BM25F(PARAMS)
    for doc in range(30):
        index.add(doc, _doc(rng))
    query = ["alpha", "beta", "beta", "kappa", "nothing"]
    for step in range(3):
        plain = index.scores(query)
        array = index.score_array(query, 100)
        assert np.count_nonzero(array) == len(plain)
        for doc, score in plain.items():
            assert array[doc] == pytest.approx(score, rel=1e-5)
        index.remove(step)  # the numpy copies follow changes
        index.add(100 + step - 50, _doc(rng))
