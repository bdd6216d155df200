"""The edges of `SearchFilters`, one filter at a time on documents that differ in that one
respect only (the index-level behaviour is in test_search_index.py).

| promise | boundary | test |
|---|---|---|
| settings | an unknown annotation, the known named; ``match`` not any/all | ``test_settings`` |
| type, layer, name | each alone: equal passes, other fails; ``None``: all | ``test_each`` |
| tags | any: one shared; all: every one; empty or ``None``: any | ``test_tags`` |
| annotations | exactly the value; unset never matches; all must hold | ``test_annotations`` |
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from toolrig.core.model._spec import ToolAnnotations
from toolrig.search import SearchFilters
from toolrig.search._documents import ActionDocument

BASE = ActionDocument(
    call_name="github.issues",
    tool="github",
    action="issues",
    fields={},
    examples=(),
    type="api",
    layer="core",
    tags=frozenset({"web", "code"}),
    annotations=ToolAnnotations(read_only=True, destructive=False),
)


def passes(filters: SearchFilters, doc: ActionDocument = BASE) -> bool:
    return filters.predicate()(doc)


def test_settings() -> None:
    with pytest.raises(ValueError, match="unknown annotations") as unknown:
        SearchFilters(annotations={"readonly": True, "title": True})
    known = sorted(set(ToolAnnotations.model_fields) - {"title"})
    assert str(unknown.value) == f"unknown annotations ['readonly', 'title']; known: {known}"
    with pytest.raises(ValueError, match=r"^match must be 'any' or 'all'$"):
        SearchFilters(match="most")  # type: ignore[arg-type]
    assert passes(SearchFilters())


def test_each_of_type_layer_and_name_alone() -> None:
    assert passes(SearchFilters(type="api"))
    assert not passes(SearchFilters(type="cli"))
    assert not passes(SearchFilters(type="api"), replace(BASE, type=None))
    assert passes(SearchFilters(layer="core"))
    assert not passes(SearchFilters(layer="edge"))
    assert not passes(SearchFilters(layer="core"), replace(BASE, layer=None))
    assert passes(SearchFilters(name="github.*"))
    assert passes(SearchFilters(name="github.issues"))
    assert not passes(SearchFilters(name="GitHub.*"))  # a glob in the name's own case
    assert not passes(SearchFilters(name="gitlab.*"))
    assert passes(SearchFilters(type="api", layer="core", name="*issues"))
    assert not passes(SearchFilters(type="api", layer="edge", name="*issues"))


def test_tags() -> None:
    assert passes(SearchFilters(tags=("web", "mail")))
    assert not passes(SearchFilters(tags=("mail",)))
    assert not passes(SearchFilters(tags=("web", "mail"), match="all"))
    assert passes(SearchFilters(tags=["web", "code"], match="all"))
    assert passes(SearchFilters(tags=frozenset({"code"}), match="all"))
    assert passes(SearchFilters(tags=()))
    assert passes(SearchFilters(tags=(), match="all"), replace(BASE, tags=frozenset()))
    assert not passes(SearchFilters(tags=("web",)), replace(BASE, tags=frozenset()))


def test_annotations() -> None:
    assert passes(SearchFilters(annotations={"read_only": True}))
    assert not passes(SearchFilters(annotations={"read_only": False}))
    assert passes(SearchFilters(annotations={"destructive": False}))
    assert not passes(SearchFilters(annotations={"idempotent": False}))  # unset: no match
    assert not passes(SearchFilters(annotations={"idempotent": True}))
    assert passes(SearchFilters(annotations={"read_only": True, "destructive": False}))
    assert not passes(SearchFilters(annotations={"read_only": True, "destructive": True}))
