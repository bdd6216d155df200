"""Exports of a catalogue are kept per catalogue version, and those of a list of tools per list
of specs (the last eight): the same turn again costs a lookup, and any change of the catalogue
or the list gives a fresh export."""

from __future__ import annotations

from toolrig import ToolExecutor, tool
from toolrig.providers import to_anthropic_tools, to_openai_chat_tools, to_openai_responses_tools


@tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


@tool
def shout(text: str) -> str:
    """Shout."""
    return text.upper()


def test_an_export_is_kept_until_the_catalogue_changes() -> None:
    executor = ToolExecutor([add])
    for export in (to_openai_chat_tools, to_openai_responses_tools, to_anthropic_tools):
        first, again = export(executor), export(executor)
        assert again == first and again is not first  # a list of each call's own
        assert all(a is b for a, b in zip(again, first, strict=True))  # the dicts are kept
        assert export(executor.catalog)[0] is first[0]  # the catalogue and its executor agree
    strict = to_openai_chat_tools(executor, strict=True)
    assert strict[0]["function"]["strict"] is True  # strictness is part of the key
    assert "strict" not in to_openai_chat_tools(executor)[0]["function"]
    before = to_openai_chat_tools(executor)
    executor.catalog.add(shout)
    after = to_openai_chat_tools(executor)
    assert [t["function"]["name"] for t in after] == ["add", "shout"]
    assert after[0] is not before[0]  # a new version: exported again
    executor.catalog.remove("shout")
    assert [t["function"]["name"] for t in to_openai_chat_tools(executor)] == ["add"]


def _echo(text: str) -> str:
    """Echo."""
    return text


def test_a_list_of_tools_is_kept_by_its_specs_for_the_last_few_lists() -> None:
    first, again = to_openai_chat_tools([add]), to_openai_chat_tools([add])
    assert first == again and first is not again and first[0] is again[0]
    assert to_anthropic_tools([add])[0] is to_anthropic_tools((add,))[0]  # any sequence
    both = to_openai_chat_tools([add, shout])
    assert [t["function"]["name"] for t in both] == ["add", "shout"] and both[0] is not first[0]
    reversed_ = to_openai_chat_tools([shout, add])
    assert [t["function"]["name"] for t in reversed_] == ["shout", "add"]

    @tool(name="add")
    def other_add(a: int, b: int, c: int = 0) -> int:
        """Add three."""
        return a + b + c

    changed = to_openai_chat_tools([other_add])  # same name, another spec: exported afresh
    assert changed[0]["function"]["description"] == "Add three." and changed[0] is not first[0]
    for n in range(8):  # eight other lists push the first one out
        to_openai_chat_tools([add, tool(_echo, name=f"t{n}")])
    assert to_openai_chat_tools([add])[0] is not first[0]
    assert to_openai_chat_tools([add]) == first


def test_a_version_keeps_one_name_map_when_two_builds_overlap() -> None:
    """An export notes its strictness on the version's name map, so the map a parse reads must
    be the one the export wrote to: when a second build finishes first (another thread), the
    first build's caller gets the kept map, not its own."""
    from toolrig.providers import NameMap

    executor = ToolExecutor([add])
    catalog = executor.catalog
    inner: list[NameMap] = []

    def overlapped() -> NameMap:
        inner.append(NameMap.from_tools(executor))  # the other build, done first
        return NameMap.from_specs(catalog.specs())

    outer = catalog.memo(NameMap, overlapped)
    assert outer is inner[0] is NameMap.from_tools(executor)
    to_openai_chat_tools(executor, strict=True)
    assert inner[0].strict and NameMap.from_tools(executor).strict
