"""Exports of a catalogue are kept per catalogue version: the same turn again costs a lookup,
and any change of the catalogue gives a fresh export."""

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


def test_tools_given_as_a_list_are_exported_each_time() -> None:
    first, again = to_openai_chat_tools([add]), to_openai_chat_tools([add])
    assert first == again and first[0] is not again[0]
