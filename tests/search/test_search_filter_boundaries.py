"""Search filters and grouping, boundary by boundary (`toolrig.search.SearchFilters`,
``ToolIndex.search(group=...)``; docs/search.md).

The promise: every filter given must hold and ``None`` or empty means "any": a filtered
search returns exactly the unfiltered hits that pass (``k`` large enough; in their order,
except fused ranking, which z-scores over the actions that may be returned), on every ranking
path (words only without numpy, words only with it, embeddings, both); an annotation must say
exactly what is asked (an action's own annotations override its tool's; one left unset never
matches, for ``True`` or ``False``); a name filter is a case-sensitive glob on the call name;
unknown annotations and a ``match`` other than any/all are refused; a mapping of filters is the
same as `SearchFilters`. ``group="tool"`` gives one hit per tool, named by the tool, and still
``k`` of them when one tool's actions fill the first places.

| promise | boundary | test |
|---|---|---|
| each filter | `type`, `layer`, tags any / all, each annotation true / false, a glob | `..._pass` |
| "any" | `None`, `[]` tags, `{}` annotations: the unfiltered hits | `..._pass` |
| each path | words without numpy, with numpy, dense: same order; fused: same set | `..._pass` |
| annotations | the action's override (`files.read` read-only, its tool not) | `..._override` |
| unset | `open_world` set on one tool only: `True` finds it, `False` finds none | `..._override` |
| glob | `files.*`; `files` alone; `SENDEMAIL` (case): none; `*_*` | `..._glob` |
| refused | an unknown annotation; `match="some"`: `ValueError` naming it | `..._refused` |
| mapping | `{"tags": [...], "match": "all"}` equals `SearchFilters(...)` | `..._pass` |
| nothing left | a filter no action passes: `[]`, on every path | `..._pass` |
| grouping | one hit per tool, named by the tool, its best action's score | `..._per_tool` |
| grouping `k` | one tool's 40 actions first: still `k` distinct tools | `..._k_tools` |

Breaks tried (each made the named test fail, then was undone): `predicate` reading an unset
annotation as false (``bool(...) is value``: ``..._override``, ``..._pass``); the glob made
case-blind (``..._glob``); `hits_of` without its ``seen`` check (``..._per_tool``); `top_hits`
and `lexical_hits` returning without widening past ``4k + 16`` candidates (``..._k_tools``,
every path with numpy; the path without it ranks every match at once).
"""

from __future__ import annotations

from typing import Any

import pytest
from search_doubles import HashingEmbedder, catalogue, single

from toolrig.core.model._spec import ActionSpec, ToolSpec
from toolrig.search import SearchFilters, ToolIndex

pytest.importorskip("numpy")

PATHS = ["words-pure", "lexical", "dense", "fused"]
QUERY = "weather email share price file read delete text message city company disk"


def index_for(path: str, specs: list[ToolSpec]) -> tuple[ToolIndex, str]:
    if path.startswith("words"):
        index = ToolIndex(specs, embedders=())
        if path == "words-pure":
            index._numpy = False  # the path taken where numpy is not installed
        return index, "lexical"
    return ToolIndex(specs, embedders=(HashingEmbedder(),)), path


def names(index: ToolIndex, mode: str, filters: Any = None, **kw: Any) -> list[str]:
    hits = index.search(QUERY, k=20, filters=filters, mode=mode, **kw)  # type: ignore[arg-type]
    return [h.name for h in hits]


FILTERS: list[tuple[Any, set[str]]] = [
    (None, {"get_weather", "sendEmail", "stock_quote", "files.read", "files.delete"}),
    ({"tags": []}, {"get_weather", "sendEmail", "stock_quote", "files.read", "files.delete"}),
    (
        {"annotations": {}},
        {"get_weather", "sendEmail", "stock_quote", "files.read", "files.delete"},
    ),
    ({"type": "data"}, {"get_weather", "stock_quote"}),
    ({"layer": "external"}, {"get_weather", "stock_quote"}),
    ({"type": "data", "tags": ["finance"]}, {"stock_quote"}),
    ({"tags": ["web", "email"]}, {"get_weather", "sendEmail", "stock_quote"}),
    ({"tags": ["web", "finance"], "match": "all"}, {"stock_quote"}),
    (SearchFilters(tags=("web", "finance"), match="all"), {"stock_quote"}),
    ({"annotations": {"read_only": True}}, {"get_weather", "files.read"}),
    ({"annotations": {"read_only": False}}, {"sendEmail", "files.delete"}),
    ({"annotations": {"destructive": True}}, {"files.delete"}),
    ({"name": "files.*"}, {"files.read", "files.delete"}),
    ({"type": "comm", "layer": "external"}, set()),
    ({"tags": ["no-such-tag"]}, set()),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("filters", "expected"), FILTERS)
def test_filtered_hits_are_the_unfiltered_ones_that_pass(
    path: str, filters: Any, expected: set[str]
) -> None:
    index, mode = index_for(path, catalogue())
    everything = names(index, mode)
    assert set(everything) == FILTERS[0][1]  # the query reaches every action
    got = names(index, mode, filters)
    assert set(got) == expected
    if mode != "fused":  # fused scores are z-scored over the actions that pass: order may move
        assert got == [n for n in everything if n in expected]  # the same order


@pytest.mark.parametrize("path", PATHS)
def test_annotations_override_and_unset(path: str) -> None:
    index, mode = index_for(path, catalogue())
    # files is not read-only, its read action is: the action's word holds
    assert "files.read" in names(index, mode, {"annotations": {"read_only": True}})
    assert "files.read" not in names(index, mode, {"annotations": {"read_only": False}})
    # only get_weather says open_world; the others leave it unset and match neither value
    assert names(index, mode, {"annotations": {"open_world": True}}) == ["get_weather"]
    assert names(index, mode, {"annotations": {"open_world": False}}) == []


@pytest.mark.parametrize("path", PATHS)
def test_name_glob(path: str) -> None:
    index, mode = index_for(path, catalogue())
    assert set(names(index, mode, {"name": "files.*"})) == {"files.read", "files.delete"}
    assert names(index, mode, {"name": "files"}) == []  # call names are files.read, ...
    assert names(index, mode, {"name": "SENDEMAIL"}) == []  # case matters
    assert names(index, mode, {"name": "sendEmail"}) == ["sendEmail"]
    assert set(names(index, mode, {"name": "*_*"})) == {"get_weather", "stock_quote"}


def test_unknown_filters_are_refused() -> None:
    index = ToolIndex(catalogue(), embedders=())
    with pytest.raises(ValueError, match="unknown annotations \\['read_olny'\\]"):
        index.search("x", filters={"annotations": {"read_olny": True}})
    with pytest.raises(ValueError, match="match must be"):
        SearchFilters(tags=("a",), match="some")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        index.search("x", filters={"colour": "red"})


@pytest.mark.parametrize("path", PATHS)
def test_one_hit_per_tool(path: str) -> None:
    index, mode = index_for(path, catalogue())
    actions = index.search(QUERY, k=20, mode=mode)  # type: ignore[arg-type]
    tools = index.search(QUERY, k=20, mode=mode, group="tool")  # type: ignore[arg-type]
    assert [h.name for h in tools] == list(dict.fromkeys(h.tool for h in actions))
    best: dict[str, Any] = {}
    for hit in actions:
        best.setdefault(hit.tool, hit)
    for hit in tools:
        assert (hit.action, hit.score) == (best[hit.tool].action, best[hit.tool].score)


def crowded() -> list[ToolSpec]:
    """One tool whose 40 actions all say "invoice" thrice, and six that say it once."""
    big = ToolSpec(
        name="ledger",
        description="Invoice invoice invoice.",
        actions={
            f"invoice_{i}": ActionSpec(name=f"invoice_{i}", description="invoice invoice invoice")
            for i in range(40)
        },
    )
    return [big, *(single(f"tool_{i}", f"An invoice and other paper {i}.") for i in range(6))]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("k", [1, 3, 7])
def test_grouped_search_still_gives_k_tools(path: str, k: int) -> None:
    index, mode = index_for(path, crowded())
    actions = index.search("invoice", k=45, mode=mode)  # type: ignore[arg-type]
    if mode == "lexical":
        assert {h.tool for h in actions[:40]} == {"ledger"}  # the crowd comes first
    tools = index.search("invoice", k=k, mode=mode, group="tool")  # type: ignore[arg-type]
    assert len(tools) == k and len({h.name for h in tools}) == k
