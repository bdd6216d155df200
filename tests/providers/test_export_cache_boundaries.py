"""The export cache, boundary by boundary (`toolrig.providers._export_cache`).

The promise: a catalogue (or an executor over it) exported again at the same version costs a
lookup: the same tool dicts, in a list of the call's own; any change of the catalogue (a tool
added, replaced, removed) gives an export of the new version, in every export form; each form
and each ``strict`` setting is kept apart; plain tools and lists of them share the export of
their specs, and a list of other tools, or one past the recent lists remembered, is exported
for what it holds.

| promise | boundary | test |
|---|---|---|
| same version | equal lists, the same dicts, a new list per call (private to it) | `..._lookup` |
| each form | OpenAI Chat, Chat strict, Responses, Responses strict, Anthropic | every test |
| each change | `add`, `add(replace=True)` (a new description), `remove` | `..._change` |
| executor | an executor over the registry sees the registry's change | `..._change` |
| kept apart | strict, plain, strict: each form its own; Chat never Responses | `..._apart` |
| plain tools | the same list: the same dicts; one tool more: it is exported | `..._plain` |
| recent lists | past the 8 lists remembered, the first list again: still right | `..._plain` |
| built once | registry, executor, list: built, then served once; changed: none | `..._once` |

Breaks tried (each made the named test fail, then was undone): `cached_export` keyed without
``key`` (one list for every form: ``..._apart``); `Catalog.memo` kept across versions (the
registry's change unseen: ``..._change``); `cached_export` returning the kept list itself
(``..._lookup``); the ``built``/``reused`` counts as ``= 1``, ``-= 1`` or ``+= 2``
(``..._once_then_served``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolrig import ToolExecutor, tool
from toolrig.providers import (
    to_anthropic_tools,
    to_openai_chat_tools,
    to_openai_responses_tools,
)
from toolrig.registry import Registry

Export = Callable[[Any], list[dict[str, Any]]]
FORMS: dict[str, Export] = {
    "chat": to_openai_chat_tools,
    "chat strict": lambda s: to_openai_chat_tools(s, strict=True),
    "responses": to_openai_responses_tools,
    "responses strict": lambda s: to_openai_responses_tools(s, strict=True),
    "anthropic": to_anthropic_tools,
}


def _name(entry: dict[str, Any]) -> str:
    return str(entry.get("name") or entry["function"]["name"])


def _description(entry: dict[str, Any]) -> str:
    return str(entry.get("description") or entry["function"].get("description"))


def _make(name: str, doc: str) -> Any:
    def run(x: int) -> int:
        return x

    run.__name__ = name
    run.__doc__ = doc
    return tool(run)


@pytest.fixture
def registry() -> Registry:
    reg = Registry()
    reg.add(_make("alpha", "First tool."))
    reg.add(_make("beta", "Second tool."))
    return reg


@pytest.mark.parametrize("form", FORMS)
def test_same_version_is_a_lookup(registry: Registry, form: str) -> None:
    export = FORMS[form]
    first, second = export(registry), export(registry)
    assert first == second and first is not second
    assert all(a is b for a, b in zip(first, second, strict=True))  # the same dicts
    first.append({"name": "mine"})
    assert len(export(registry)) == 2  # the caller's list is its own


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("through", ["registry", "executor"])
def test_each_change_gives_the_new_version(registry: Registry, form: str, through: str) -> None:
    export = FORMS[form]
    source: Any = registry if through == "registry" else ToolExecutor(registry)
    assert sorted(map(_name, export(source))) == ["alpha", "beta"]
    registry.add(_make("gamma", "Third tool."))
    assert sorted(map(_name, export(source))) == ["alpha", "beta", "gamma"]
    registry.add(_make("beta", "Second tool, rewritten."), replace=True)
    described = {_name(e): _description(e) for e in export(source)}
    assert described["beta"] == "Second tool, rewritten."
    registry.remove("alpha")
    assert sorted(map(_name, export(source))) == ["beta", "gamma"]
    if isinstance(source, ToolExecutor):
        source.close()


def test_forms_and_strict_are_kept_apart(registry: Registry) -> None:
    for _ in range(2):  # the second round reads every form from the cache
        strict = to_openai_chat_tools(registry, strict=True)
        plain = to_openai_chat_tools(registry)
        assert all(e["function"].get("strict") is True for e in strict)
        assert all("strict" not in e["function"] for e in plain)
        responses = to_openai_responses_tools(registry)
        assert all(e["strict"] is False and "function" not in e for e in responses)
        assert all(e["strict"] is True for e in to_openai_responses_tools(registry, strict=True))
        anthropic = to_anthropic_tools(registry)
        assert all("input_schema" in e and "type" not in e for e in anthropic)


@pytest.mark.parametrize("form", FORMS)
def test_plain_tools_and_recent_lists(form: str) -> None:
    export = FORMS[form]
    one, two = _make("one", "Tool one."), _make("two", "Tool two.")
    tools = [one, two]
    first, again = export(tools), export(tools)
    assert all(a is b for a, b in zip(first, again, strict=True))
    assert sorted(map(_name, export([one, two, _make("three", "Tool three.")]))) == [
        "one",
        "three",
        "two",
    ]
    for i in range(12):  # more lists than are remembered
        assert [_name(e) for e in export([_make(f"other_{i}", "Another.")])] == [f"other_{i}"]
    assert sorted(map(_name, export(tools))) == ["one", "two"]


@pytest.mark.parametrize("through", ["registry", "executor", "list"])
def test_each_form_is_built_once_then_served(registry: Registry, through: str) -> None:
    """Every form, exported twice, is built once and served once from the version's name map,
    whatever the source; a change starts a new map with nothing built yet."""
    from toolrig.providers import NameMap

    tools = [registry.get("alpha"), registry.get("beta")]
    source: Any = {"registry": registry, "executor": ToolExecutor(registry), "list": tools}[through]
    names = NameMap.from_tools(source)
    for export in (*FORMS.values(), *FORMS.values()):
        export(source)
    assert (names.built, names.reused) == (len(FORMS), len(FORMS))
    assert len(names.exports) == len(FORMS)  # one entry per form and strictness
    if through != "list":
        registry.add(_make("gamma", "Third tool."))
        renewed = NameMap.from_tools(source)
        assert renewed is not names and (renewed.built, renewed.reused) == (0, 0)
        to_anthropic_tools(source)
        assert (renewed.built, names.built) == (1, len(FORMS))
    if isinstance(source, ToolExecutor):
        source.close()
