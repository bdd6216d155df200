"""Input-required rounds (MCP 2026-07-28): a tool's ``ctx.elicit`` / ``ctx.sample`` become
``input_required`` results the client answers by calling again, with the SDK's own client.

Attacked: a tampered state and a replayed one are refused, and the tool does not run; a
2025-era session still gets server-initiated requests; a client's round bound holds.
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types
import pytest
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_support import serving

from toolrig import ToolContext, tool
from toolrig.mcp import ToolServer
from toolrig.registry import Catalog

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")

NAME = {"type": "object", "properties": {"name": {"type": "string"}}}
runs: list[str] = []
"""Each start of a tool's body (a tool resumes by running again)."""


@tool
async def interview(ctx: ToolContext) -> str:
    """Ask two questions, then ask the model."""
    runs.append("interview")
    first = await ctx.elicit("First name?", NAME)
    last = await ctx.elicit(f"Last name of {first.content}?", NAME)
    assert first.content is not None and last.content is not None
    poem = await ctx.sample(f"a line about {first.content['name']} {last.content['name']}")
    return f"{first.content['name']} {last.content['name']}: {poem}"


@tool
async def both_at_once(ctx: ToolContext) -> str:
    """Ask two questions together (one round)."""
    runs.append("both")
    a, b = await asyncio.gather(ctx.elicit("A?", NAME), ctx.elicit("B?", NAME))
    return f"{a.action}/{b.action}"


@tool
async def endless(ctx: ToolContext) -> str:
    """Ask again and again."""
    n = 0
    while True:
        await ctx.elicit(f"Question {n}?", NAME)
        n += 1


fickle_runs: list[int] = []


@tool
async def fickle(ctx: ToolContext) -> str:
    """Ask the user on its first run, the model on the next (breaking the replay rule)."""
    fickle_runs.append(1)
    if len(fickle_runs) == 1:
        await ctx.elicit("Who?", NAME)
    else:
        await ctx.sample("Who?")
    return "done"


def server() -> ToolServer:
    return ToolServer(Catalog([interview, both_at_once, endless, fickle]))


asked: list[str] = []


async def answer_name(
    context: Any, params: mcp_types.ElicitRequestParams
) -> mcp_types.ElicitResult:
    asked.append(params.message)
    name = "Ada" if params.message.startswith("First") else "Lovelace"
    return mcp_types.ElicitResult(action="accept", content={"name": name})


async def answer_model(
    context: Any, params: mcp_types.CreateMessageRequestParams
) -> mcp_types.CreateMessageResult:
    return mcp_types.CreateMessageResult(
        role="assistant",
        content=mcp_types.TextContent(type="text", text="counts in verse"),
        model="test",
    )


def callbacks() -> dict[str, Any]:
    return {"elicitation_callback": answer_name, "sampling_callback": answer_model}


async def test_a_tool_that_elicits_twice_and_samples_once_completes_over_rounds() -> None:
    runs.clear()
    asked.clear()
    async with serving(server()) as url, Client(url, mode="2026-07-28", **callbacks()) as c:
        result = await c.call_tool("interview", {})
    assert not result.is_error
    assert result.content[0].text == "Ada Lovelace: counts in verse"  # type: ignore[union-attr]
    assert asked == ["First name?", "Last name of {'name': 'Ada'}?"]
    assert runs == ["interview"] * 4  # three questions: three rounds, then the run that ends


async def test_questions_asked_together_come_in_one_round() -> None:
    runs.clear()
    async with serving(server()) as url, Client(url, mode="2026-07-28", **callbacks()) as c:
        first = await c.session.call_tool("both_at_once", {}, allow_input_required=True)
        assert isinstance(first, mcp_types.InputRequiredResult)
        assert first.input_requests is not None and len(first.input_requests) == 2
        result = await c.call_tool("both_at_once", {})
    assert result.content[0].text == "accept/accept"  # type: ignore[union-attr]


async def _first_round(c: Client) -> mcp_types.InputRequiredResult:
    first = await c.session.call_tool("interview", {}, allow_input_required=True)
    assert isinstance(first, mcp_types.InputRequiredResult)
    assert first.request_state is not None and first.input_requests
    return first


def _answers(first: mcp_types.InputRequiredResult) -> dict[str, Any]:
    assert first.input_requests is not None
    return {
        key: mcp_types.ElicitResult(action="accept", content={"name": "Ada"})
        for key in first.input_requests
    }


async def test_a_tool_that_asks_differently_when_run_again_fails_saying_so() -> None:
    fickle_runs.clear()
    async with serving(server()) as url, Client(url, mode="2026-07-28", **callbacks()) as c:
        result = await c.call_tool("fickle", {})
    assert result.is_error
    assert "asked differently when run again" in result.content[0].text  # type: ignore[union-attr]


async def test_a_tampered_state_is_refused_and_the_tool_does_not_run() -> None:
    async with serving(server()) as url, Client(url, mode="2026-07-28", **callbacks()) as c:
        first = await _first_round(c)
        state = first.request_state
        assert state is not None
        flipped = state[:-2] + ("A" if state[-2] != "A" else "B") + state[-1]
        runs.clear()
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await c.session.call_tool(
                "interview",
                {},
                input_responses=_answers(first),
                request_state=flipped,
                allow_input_required=True,
            )
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await c.session.call_tool(  # the state of a call with other arguments
                "both_at_once",
                {},
                input_responses=_answers(first),
                request_state=state,
                allow_input_required=True,
            )
        assert runs == []


async def test_a_replayed_state_is_refused() -> None:
    async with serving(server()) as url, Client(url, mode="2026-07-28", **callbacks()) as c:
        first = await _first_round(c)
        keywords: dict[str, Any] = {
            "input_responses": _answers(first),
            "request_state": first.request_state,
            "allow_input_required": True,
        }
        second = await c.session.call_tool("interview", {}, **keywords)
        assert isinstance(second, mcp_types.InputRequiredResult)  # the next question
        runs.clear()
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await c.session.call_tool("interview", {}, **keywords)
        assert runs == []


async def test_an_answer_of_the_wrong_kind_is_refused_and_the_state_stays_usable() -> None:
    async with serving(server()) as url, Client(url, mode="2026-07-28", **callbacks()) as c:
        first = await _first_round(c)
        assert first.input_requests is not None
        wrong = {key: mcp_types.ListRootsResult(roots=[]) for key in first.input_requests}
        with pytest.raises(MCPError, match="does not answer its elicitation/create request"):
            await c.session.call_tool(
                "interview",
                {},
                input_responses=wrong,  # type: ignore[arg-type]
                request_state=first.request_state,
                allow_input_required=True,
            )
        second = await c.session.call_tool(
            "interview",
            {},
            input_responses=_answers(first),
            request_state=first.request_state,
            allow_input_required=True,
        )
        assert isinstance(second, mcp_types.InputRequiredResult)


async def test_a_2025_session_still_gets_server_initiated_elicitation() -> None:
    runs.clear()
    asked.clear()
    async with (
        serving(server()) as url,
        streamable_http_client(url, http_client=create_mcp_http_client()) as (read, write),
        ClientSession(read, write, **callbacks()) as session,
    ):
        await session.initialize()
        assert session.protocol_version not in {"2026-07-28"}
        result = await session.call_tool("interview", {})
    assert result.content[0].text == "Ada Lovelace: counts in verse"  # type: ignore[union-attr]
    assert len(asked) == 2
    assert runs == ["interview"]  # one run: the questions went to the client as requests


async def test_the_clients_round_bound_holds() -> None:
    from mcp.client._input_required import InputRequiredRoundsExceededError

    async with (
        serving(server()) as url,
        Client(url, mode="2026-07-28", input_required_max_rounds=3, **callbacks()) as c,
    ):
        with pytest.raises(InputRequiredRoundsExceededError):
            await c.call_tool("endless", {})


# -- toolrig's own client: the import answers the rounds through the caller's hooks -----------
async def test_an_imported_tool_answers_rounds_through_the_callers_hooks() -> None:
    import contextlib
    from collections.abc import Mapping, Sequence

    from toolrig import ToolExecutor
    from toolrig.core import Elicitation
    from toolrig.mcp import add_mcp_server_async
    from toolrig.registry import Registry

    people: list[str] = []

    async def person(message: str, schema: Mapping[str, Any]) -> Elicitation:
        people.append(message)
        return Elicitation(action="accept", content={"name": message.split()[0]})

    async def model(messages: Sequence[Mapping[str, Any]], system: str | None, n: int) -> str:
        return "a model's line"

    runs.clear()
    registry = Registry()
    try:
        async with serving(server()) as url:
            source = await add_mcp_server_async(
                registry,
                prefix="far",
                url=url,
                protocol="2026-07-28",
                elicitor=person,
                sampler=model,
                max_input_rounds=5,
            )
            assert source.protocol_version == "2026-07-28"
            with ToolExecutor(registry) as executor:
                done = await executor.execute("far__interview", {})
                assert done.output == "First Last: a model's line", done.to_text()
                assert people == ["First name?", "Last name of {'name': 'First'}?"]
                assert runs == ["interview"] * 4
                bounded = await asyncio.wait_for(executor.execute("far__endless", {}), 30)
                assert not bounded.success
                assert "after 5 rounds" in bounded.to_text()
    finally:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(registry.close)


async def test_an_imported_tools_rounds_are_bounded_in_time() -> None:
    import contextlib
    from collections.abc import Mapping

    from toolrig import ToolExecutor
    from toolrig.core import Elicitation
    from toolrig.mcp import add_mcp_server_async
    from toolrig.registry import Registry

    async def slow_person(message: str, schema: Mapping[str, Any]) -> Elicitation:
        await asyncio.sleep(30)
        return Elicitation(action="cancel")

    registry = Registry()
    try:
        async with serving(server()) as url:
            await add_mcp_server_async(
                registry,
                prefix="far",
                url=url,
                protocol="2026-07-28",
                elicitor=slow_person,
                input_timeout=0.5,
            )
            with ToolExecutor(registry) as executor:
                late = await asyncio.wait_for(executor.execute("far__interview", {}), 20)
            assert not late.success and late.error is not None
            assert late.error.code == "timeout" and "took longer than allowed" in late.to_text()
    finally:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(registry.close)


async def test_servers_sharing_a_key_resume_each_others_rounds_and_others_refuse() -> None:
    from toolrig.mcp import InputRounds

    key = b"k" * 32
    one = ToolServer(Catalog([interview]), input_rounds=InputRounds(keys=[key]))
    two = ToolServer(Catalog([interview]), input_rounds=InputRounds(keys=[key]))
    stranger = ToolServer(Catalog([interview]))
    async with (
        serving(one) as first_url,
        serving(two) as second_url,
        serving(stranger) as third_url,
        Client(first_url, mode="2026-07-28", **callbacks()) as a,
        Client(second_url, mode="2026-07-28", **callbacks()) as b,
        Client(third_url, mode="2026-07-28", **callbacks()) as c,
    ):
        first = await _first_round(a)
        keywords: dict[str, Any] = {
            "input_responses": _answers(first),
            "request_state": first.request_state,
            "allow_input_required": True,
        }
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await c.session.call_tool("interview", {}, **keywords)
        second = await b.session.call_tool("interview", {}, **keywords)
        assert isinstance(second, mcp_types.InputRequiredResult)
        assert second.input_requests is not None and "q1" in second.input_requests


async def test_rounds_work_on_a_stateless_server() -> None:
    """The mode several workers serve in: no session, one JSON body per request."""
    import contextlib

    from toolrig.mcp import serve_http

    runs.clear()
    tools = server()
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve_http(tools, port=0, on_ready=ready.set_result, stateless=True))
    try:
        url = await asyncio.wait_for(ready, 30)
        async with Client(url, mode="2026-07-28", **callbacks()) as c:
            result = await c.call_tool("interview", {})
        assert result.content[0].text == "Ada Lovelace: counts in verse"  # type: ignore[union-attr]
        assert runs == ["interview"] * 4
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        tools.close()


async def test_a_call_over_several_rounds_is_recorded_once(tmp_path: Any) -> None:
    from toolrig.storage import SQLiteExecutionLog

    @tool
    def spell(word: str) -> str:
        """Spell a word."""
        return "-".join(word)

    @tool
    async def greet(ctx: ToolContext) -> str:
        """Spell a name it asks for (its nested call runs in every round)."""
        spelled = await ctx.run_tool(spell, "spell", {"word": "hi"})
        who = await ctx.elicit("First name?", NAME)
        assert who.content is not None
        return f"{spelled.output} {who.content['name']}"

    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    served = ToolServer(Catalog([greet]))
    served.recording = log.start_run("serve-test", "serve")
    async with serving(served) as url, Client(url, mode="2026-07-28", **callbacks()) as c:
        result = await c.call_tool("greet", {})
    assert result.content[0].text == "h-i Ada"  # type: ignore[union-attr]
    records = log.get_run("serve-test")
    outer = [r for r in records if r.executor == "greet"]
    assert [(r.status, r.output) for r in outer] == [("succeeded", "h-i Ada")]  # once
    inner = [r for r in records if r.executor == "spell"]
    assert len(inner) == 2 and all(r.parent_call_id for r in inner)  # it ran in both rounds
    log.close()
