"""``ToolIndex``: ranking, filters, actions, and incremental updates of words and vectors."""

from __future__ import annotations

import pytest
from search_doubles import HashingEmbedder, single

from toolrig.core.model._spec import ActionSpec, ToolSpec
from toolrig.search import SearchConfig, SearchFilters, ToolIndex

pytest.importorskip("numpy")

LEXICAL = SearchConfig(embedders=())


def names(hits: list) -> list[str]:
    return [h.name for h in hits]


def test_lexical_ranking_finds_the_tool_by_its_words(catalogue: list[ToolSpec]) -> None:
    index = ToolIndex(catalogue, config=LEXICAL)
    assert not index.dense
    hits = index.search("What's the weather forecast in Paris?", k=3)
    assert hits[0].name == "get_weather"
    assert hits[0].tool == "get_weather" and hits[0].action == "get_weather"
    assert hits[0].score > 0
    assert names(index.search("send an e-mail to Bob"))[0] == "sendEmail"  # camelCase split
    assert names(index.search("share price for a ticker symbol"))[0] == "stock_quote"
    assert index.search("zebra xylophone") == []


def test_one_document_per_action_named_as_the_executor_calls_it(
    catalogue: list[ToolSpec],
) -> None:
    index = ToolIndex(catalogue, config=LEXICAL)
    assert len(index) == 5
    hits = index.search("delete a file", k=2)
    assert hits[0].name == "files.delete"
    assert (hits[0].tool, hits[0].action) == ("files", "delete")
    assert names(index.search("file", k=5, group="tool")) == ["files"]


def test_filters_by_type_layer_tags_annotations_and_name(catalogue: list[ToolSpec]) -> None:
    index = ToolIndex(catalogue, config=LEXICAL)
    query = "weather price email file read delete"
    assert set(names(index.search(query, k=9, filters={"type": "data"}))) == {
        "get_weather",
        "stock_quote",
    }
    assert names(index.search(query, k=9, filters={"layer": "external", "tags": ["finance"]})) == [
        "stock_quote"
    ]
    both = SearchFilters(tags=("web", "weather"), match="all")
    assert names(index.search(query, k=9, filters=both)) == ["get_weather"]
    read_only = index.search(query, k=9, filters={"annotations": {"read_only": True}})
    assert set(names(read_only)) == {"get_weather", "files.read"}  # the action's override counts
    assert names(index.search(query, k=9, filters={"annotations": {"destructive": True}})) == [
        "files.delete"
    ]
    assert set(names(index.search(query, k=9, filters={"name": "files.*"}))) == {
        "files.read",
        "files.delete",
    }
    with pytest.raises(ValueError, match="unknown annotations"):
        SearchFilters(annotations={"readonly": True})


def test_a_filter_for_false_matches_only_actions_that_say_false(
    catalogue: list[ToolSpec],
) -> None:
    """The absent value: an annotation left unset (``stock_quote`` has none, ``get_weather``
    does not say whether it is destructive) matches neither ``True`` nor ``False``."""
    index = ToolIndex(catalogue, config=LEXICAL)
    query = "weather price email file read delete"
    not_destructive = index.search(query, k=9, filters={"annotations": {"destructive": False}})
    assert set(names(not_destructive)) == {"sendEmail", "files.read"}
    writes = index.search(query, k=9, filters={"annotations": {"read_only": False}})
    assert set(names(writes)) == {"sendEmail", "files.delete"}  # the tool's own value counts
    closed = index.search(query, k=9, filters={"annotations": {"open_world": False}})
    assert names(closed) == []


def test_a_grouped_search_returns_k_tools_past_one_tool_of_many_actions() -> None:
    """The second page: one tool's 60 actions outrank every other tool, filling the first
    candidates read (4k + 16); grouped by tool, the search reads on until it has ``k``."""
    crowd = ToolSpec(
        name="forecasts",
        description="Weather forecasts.",
        actions={
            f"f{i}": ActionSpec(name=f"f{i}", description=f"Weather forecast rain wind region {i}.")
            for i in range(60)
        },
    )
    others = [single(f"other{i}", f"Weather notes, number {i}.") for i in range(3)]
    index = ToolIndex([crowd, *others], config=LEXICAL)
    tools = names(index.search("weather forecast rain wind", k=3, group="tool"))
    assert tools[0] == "forecasts" and len(tools) == 3, tools
    assert len(index.search("weather forecast rain wind", k=4, group="tool")) == 4


def test_add_update_remove_change_results_at_once(catalogue: list[ToolSpec]) -> None:
    index = ToolIndex(catalogue, config=LEXICAL)
    assert index.search("translate into French") == []
    index.add(single("translator", "Translate text between languages."))
    assert names(index.search("translate into French"))[0] == "translator"
    index.update(single("translator", "Convert currency amounts."))
    assert names(index.search("between languages")) == []
    assert names(index.search("convert currency"))[0] == "translator"
    assert index.remove("translator") and not index.remove("translator")
    assert index.search("convert currency") == []
    # a multi-action tool losing an action loses its document
    files = catalogue[3]
    index.update(files.model_copy(update={"actions": {"read": files.actions["read"]}}))
    assert "files.delete" not in names(index.search("delete file", k=9))
    assert len(index) == 4


def test_examples_are_ranked() -> None:
    spec = ToolSpec(
        name="lookup",
        description="Query the catalogue service.",
        examples=("is the blue kettle in stock?",),
        actions={"lookup": ActionSpec(name="lookup", description="Query the catalogue service.")},
    )
    index = ToolIndex([spec, single("other", "Query a database.")], config=LEXICAL)
    assert names(index.search("kettle in stock"))[0] == "lookup"


def test_fused_ranking_embeds_lazily_and_only_what_changed(catalogue: list[ToolSpec]) -> None:
    embedder = HashingEmbedder()
    config = SearchConfig(dense_weights={"fake": 1.0})
    index = ToolIndex(catalogue, config=config, embedders=(embedder,))
    assert index.dense and embedder.embedded == []  # nothing embedded before a search
    assert names(index.search("weather forecast", mode="fused"))[0] == "get_weather"
    assert names(index.search("weather forecast", mode="dense"))[0] == "get_weather"
    assert len(embedder.embedded) == 5 + 1  # five documents in one batch, one query
    index.update(catalogue[0])  # same text: vectors kept
    index.add(single("translator", "Translate text between languages."))
    embedder.embedded.clear()
    assert names(index.search("translate languages"))[0] == "translator"
    assert embedder.embedded == [
        "translator. Translate text between languages.",
        "translate languages",
    ]
    index.remove("translator")
    assert "translator" not in names(index.search("translate languages", k=9))
    # a freed slot is reused by the next tool, with its own vector
    index.add(single("dice", "Roll dice for board games."))
    assert names(index.search("roll dice"))[0] == "dice"


def test_sample_requests_pull_a_tool_up_in_semantic_ranking() -> None:
    embedder = HashingEmbedder()
    config = SearchConfig(dense_weights={"fake": 1.0}, lexical_weight=0.0, example_weight=1.0)
    plain = single("lookup", "Query the catalogue service.")
    with_examples = plain.model_copy(update={"examples": ("is the blue kettle in stock",)})
    other = single("kettle_museum", "History of the blue whistling kettle.")
    before = ToolIndex([plain, other], config=config, embedders=(embedder,))
    after = ToolIndex([with_examples, other], config=config, embedders=(embedder,))
    assert names(before.search("blue kettle in stock", mode="dense"))[0] == "kettle_museum"
    assert names(after.search("blue kettle in stock", mode="dense"))[0] == "lookup"


def test_lexical_index_refuses_dense_modes(catalogue: list[ToolSpec]) -> None:
    index = ToolIndex(catalogue, config=LEXICAL)
    with pytest.raises(ValueError, match="optional extra"):
        index.search("weather", mode="dense")


def test_filters_apply_to_fused_ranking(catalogue: list[ToolSpec]) -> None:
    config = SearchConfig(dense_weights={"fake": 1.0})
    index = ToolIndex(catalogue, config=config, embedders=(HashingEmbedder(),))
    hits = index.search("weather email file", k=9, filters={"type": "data"})
    assert {h.name for h in hits} == {"get_weather", "stock_quote"}
    read_only = index.search("delete", k=9, filters={"annotations": {"read_only": True}})
    assert {h.name for h in read_only} == {"get_weather", "files.read"}
    tools = names(index.search("files", k=9, group="tool"))
    assert tools[0] == "files"
    assert sorted(tools) == ["files", "get_weather", "sendEmail", "stock_quote"]  # one per tool


def test_plain_python_and_numpy_lexical_rankings_agree(catalogue: list[ToolSpec]) -> None:
    index = ToolIndex(catalogue, config=LEXICAL)
    queries = ["weather forecast", "read or delete a file", "price of shares", "email"]
    with_numpy = [index.search(q, k=9, filters={"type": "data"}) for q in queries]
    with_numpy += [index.search(q, k=9) for q in queries]
    index._numpy = False  # as without numpy installed
    plain = [index.search(q, k=9, filters={"type": "data"}) for q in queries]
    plain += [index.search(q, k=9) for q in queries]
    assert [names(h) for h in plain] == [names(h) for h in with_numpy]
    for a, b in zip(plain, with_numpy, strict=True):
        assert [h.score for h in a] == pytest.approx([h.score for h in b], rel=1e-5)


def test_a_dotted_tool_name_never_shares_a_document_with_an_action(
    catalogue: list[ToolSpec],
) -> None:
    index = ToolIndex(catalogue, config=LEXICAL)
    index.add(single("files.read", "Read a text file aloud with speech."))
    assert len(index) == 6
    index.remove("files.read")
    assert names(index.search("read a text file"))[0] == "files.read"  # the action is still there
    assert index.search("read a text file")[0].tool == "files"


def test_each_mode_uses_only_its_rankers(catalogue: list[ToolSpec]) -> None:
    embedder = HashingEmbedder()
    index = ToolIndex(
        catalogue, config=SearchConfig(dense_weights={"fake": 1.0}), embedders=(embedder,)
    )
    lexical = ToolIndex(catalogue, config=LEXICAL)
    for query in ("weather forecast", "delete a file", "share price"):
        assert index.search(query, k=9, mode="lexical") == lexical.search(query, k=9)
    assert embedder.embedded == []  # lexical ranking never embeds
