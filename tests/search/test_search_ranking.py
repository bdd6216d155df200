"""What ranking reads: sample requests once, parameters and outputs in the embedded text, long
texts in pieces, common name words damped, near-duplicates kept apart on request."""

from __future__ import annotations

import pytest
import search_doubles

from toolrig import Tool, tool
from toolrig.search import BM25FParams, SearchConfig, ToolIndex
from toolrig.search._bm25f import BM25F
from toolrig.search._documents import PIECE_WORDS, documents_of
from toolrig.search._tokenize import analyze

np = pytest.importorskip("numpy")


def _weather(city: str) -> str:
    """Weather for a city."""
    return city


def test_sample_requests_are_indexed_once_for_decorated_and_built_tools() -> None:
    decorated = tool(examples=["umbrella needed in Oslo"])(_weather)
    built = Tool(func=_weather, name="weather2", examples=["umbrella needed in Oslo"])
    for spec in (decorated.spec, built.spec):
        [doc] = documents_of(spec)
        assert doc.examples == ("umbrella needed in Oslo",)
        assert doc.fields["examples"] == "umbrella needed in Oslo"
        index = ToolIndex([spec], embedders=())
        [slot] = index._slots.values()
        counts = index._bm25._postings[analyze("umbrella")[0]][slot]  # one count per field
        examples = index._bm25.fields.index("examples")
        assert counts[examples] == 1  # counted once
        assert sum(counts) == 1  # and in no other field


def test_parameters_and_output_are_in_the_embedded_text() -> None:
    spec = search_doubles.single(
        "fuel_costs",
        "Fuel costs at stations.",
        output_description="price per litre in the local currency",
        parameters={
            "type": "object",
            "properties": {
                "province": {"type": "string", "description": "Canadian province or territory"},
                "city": {"type": "string"},
            },
        },
    )
    [doc] = documents_of(spec)
    text = doc.dense_text
    assert "province (Canadian province or territory)" in text and "city" in text
    assert "price per litre" in text
    other = search_doubles.single("news", "Latest news headlines about a topic.")
    index = ToolIndex([spec, other], embedders=(search_doubles.HashingEmbedder(),))
    assert index.search("Ontario province territory", k=1, mode="dense")[0].name == "fuel_costs"


def test_long_texts_are_embedded_in_pieces_and_the_best_piece_counts() -> None:
    filler = " ".join(f"alpha{i}" for i in range(3 * PIECE_WORDS))
    long = search_doubles.single("archive", f"{filler} glacier melting measurements")
    pieces = documents_of(long)[0].dense_pieces
    assert len(pieces) >= 3
    assert all(len(p.split()) <= PIECE_WORDS for p in pieces)
    assert all(p.startswith("archive") for p in pieces[1:])  # each piece says whose it is
    short = search_doubles.single("weather", "Weather forecast for a city.")
    embedder = search_doubles.HashingEmbedder()
    index = ToolIndex([long, short], embedders=(embedder,))
    hits = index.search("glacier melting measurements", k=2, mode="dense")
    assert hits[0].name == "archive"
    assert hits[0].score > 0.3  # the last piece, not the filler-diluted whole


def test_name_words_common_across_the_catalogue_count_less() -> None:
    plain = BM25F(BM25FParams(weights={"name": 2.0, "description": 1.0}))
    damped = BM25F(BM25FParams(weights={"name": 2.0, "description": 1.0}, common={"name": 0.05}))
    for index in (plain, damped):
        for i in range(200):
            name = ["model", "id", f"tool{i}"] if i < 100 else [f"tool{i}"]
            index.add(i, {"name": name, "description": ["thing"]})
    share_plain = plain.scores(["model"])[5] / plain.scores(["tool5"])[5]
    share_damped = damped.scores(["model"])[5] / damped.scores(["tool5"])[5]
    assert share_damped < share_plain / 3
    assert damped.score_array(["model"], 200)[5] == pytest.approx(damped.scores(["model"])[5])
    rare = damped.scores(["tool5"])[5]
    assert rare == pytest.approx(plain.scores(["tool5"])[5])  # rare words are untouched


def test_near_duplicates_move_down_unless_switched_off() -> None:
    specs = [
        search_doubles.single(f"users_list_{i}", "List the users of the account directory.")
        for i in range(4)
    ] + [search_doubles.single("teams", "Teams and roles people belong to.")]
    specs += [search_doubles.single(f"other{i}", f"Unrelated thing number {i}.") for i in range(30)]
    query = "users of the account directory and their roles"
    embedder = search_doubles.HashingEmbedder()
    plain = ToolIndex(specs, config=SearchConfig(diversity=0.0), embedders=(embedder,))
    spread = ToolIndex(specs, config=SearchConfig(diversity=2.0), embedders=(embedder,))
    plain_top = [h.name for h in plain.search(query, k=2)]
    spread_top = [h.name for h in spread.search(query, k=2)]
    assert "teams" not in plain_top
    assert "teams" in spread_top
    assert len(spread.search(query, k=5)) == 5  # nothing is lost, only reordered
