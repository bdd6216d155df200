"""A 2026-07-28 round's state replayed to another worker: refused when the workers spend
their nonces in one log (``toolrig serve --workers N --log``), and the tool does not run.

Two ``ToolServer`` objects sharing one sealing key stand for two workers behind one address;
a state answered on the first is replayed to the second. Both log backends.
"""

from __future__ import annotations

import os
from typing import Any

import mcp_types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_support import serving

from toolrig import ToolContext, tool
from toolrig.mcp import InputRounds, ToolServer
from toolrig.registry import Catalog
from toolrig.storage import ExecutionLog, SQLiteExecutionLog

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")

NAME = {"type": "object", "properties": {"name": {"type": "string"}}}
runs: list[str] = []


@tool
async def interview(ctx: ToolContext) -> str:
    """Ask two questions."""
    runs.append("interview")
    first = await ctx.elicit("First name?", NAME)
    last = await ctx.elicit("Last name?", NAME)
    return f"{(first.content or {}).get('name')} {(last.content or {}).get('name')}"


async def _answer(context: Any, params: mcp_types.ElicitRequestParams) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content={"name": "Ada"})


def _worker(key: bytes, log: ExecutionLog | None) -> ToolServer:
    server = ToolServer(Catalog([interview]), input_rounds=InputRounds(keys=[key]))
    if log is not None:
        server.input_rounds.keep_in(log)
    return server


def _answers(first: mcp_types.InputRequiredResult) -> dict[str, Any]:
    assert first.input_requests is not None
    return {
        key: mcp_types.ElicitResult(action="accept", content={"name": "Ada"})
        for key in first.input_requests
    }


async def _replayed_on_second(
    first_worker: ToolServer, second_worker: ToolServer
) -> MCPError | None:
    """Answer a round on the first worker, replay it to the second: the refusal, if any."""
    async with (
        serving(first_worker) as one,
        serving(second_worker) as two,
        Client(one, mode="2026-07-28", elicitation_callback=_answer) as a,
        Client(two, mode="2026-07-28", elicitation_callback=_answer) as b,
    ):
        first = await a.session.call_tool("interview", {}, allow_input_required=True)
        assert isinstance(first, mcp_types.InputRequiredResult)
        again = {
            "input_responses": _answers(first),
            "request_state": first.request_state,
            "allow_input_required": True,
        }
        second = await a.session.call_tool("interview", {}, **again)
        assert isinstance(second, mcp_types.InputRequiredResult)  # answered on the first
        runs.clear()
        try:
            await b.session.call_tool("interview", {}, **again)  # the replay, on the second
        except MCPError as refused:
            return refused
        return None


@pytest.fixture(params=["sqlite", "postgres"])
def shared_log(request: pytest.FixtureRequest, tmp_path: Any) -> Any:
    if request.param == "sqlite":
        yield SQLiteExecutionLog(tmp_path / "log.db")
        return
    from postgres_db import scratch_database
    from toolrig.storage import open_log

    with scratch_database("toolrig_spent") as dsn:
        log = open_log(dsn)
        yield log
        log.close()


async def test_a_state_replayed_to_another_worker_of_one_log_is_refused(shared_log: Any) -> None:
    key = os.urandom(32)
    refused = await _replayed_on_second(_worker(key, shared_log), _worker(key, shared_log))
    assert refused is not None and "Invalid or expired requestState" in str(refused)
    assert runs == []  # the tool did not run on the replay


async def test_without_a_shared_log_each_worker_knows_only_its_own_spent_states() -> None:
    """The documented limit, shown: the replay reaches the tool on the second worker (so
    the test above is what the shared log buys)."""
    key = os.urandom(32)
    assert await _replayed_on_second(_worker(key, None), _worker(key, None)) is None
    assert runs == ["interview"]


def test_two_spenders_of_one_nonce_one_wins(tmp_path: Any) -> None:
    from toolrig.storage._spent import LogSpentStates

    log = SQLiteExecutionLog(tmp_path / "log.db")
    first, second = LogSpentStates(log), LogSpentStates(SQLiteExecutionLog(tmp_path / "log.db"))
    assert first.spend("n1", 600) is True
    assert second.spend("n1", 600) is False
    assert second.spend("n2", 600) is True
    assert first.spend("gone", -1) is True  # an expired nonce is forgotten...
    assert first.spend("gone", 600) is True  # ...so its (expired, refused) state alone guards it
