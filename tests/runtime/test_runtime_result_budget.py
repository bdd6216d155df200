"""The result budget, a step of the one pipeline: every tool form over budget reaches its
caller cut, with a handle whose whole text `read_result` and the console read back exactly;
under budget nothing changes; hostile reads are results, never exceptions; structured data
stays valid JSON; without a log the whole is kept in a bounded store in memory."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from budget_tools import WHOLE

from asgi_server import serve_asgi
from toolrig import BaseTool, Tool, ToolExecutor, ToolResult, action, tool
from toolrig.console import app
from toolrig.registry import Registry
from toolrig.runtime._budget import DEFAULT_RESULT_CHARS, cut_json, result_budget
from toolrig.runtime._kept import MEMORY, MemoryResults
from toolrig.runtime._read_result import read_result
from toolrig.storage import LogWriteWarning, SQLiteExecutionLog

BUDGET = 2_000


@tool
def sync_tool() -> str:
    """Sync."""
    return WHOLE


@tool
async def async_tool() -> str:
    """Async."""
    await asyncio.sleep(0)
    return WHOLE


class Texts(BaseTool):
    name = "texts"
    description = "A class with actions."

    @action
    def long(self) -> str:
        """Long."""
        return WHOLE


data_tool = Tool(name="from_data", description="From data.", parameters=[], func=lambda: WHOLE)


def _yaml_tool(folder: Path) -> BaseTool:
    (folder / "noisy.yaml").write_text(
        "name: yaml_noisy\ndescription: From YAML.\nexecutor: budget_tools.noisy\n",
        encoding="utf-8",
    )
    registry = Registry()
    registry.load(folder)
    return registry.get("yaml_noisy")


def _openapi_app() -> Any:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def dump(request: Any) -> PlainTextResponse:
        return PlainTextResponse(WHOLE)

    return Starlette(routes=[Route("/dump", dump)])


OPENAPI_DOC = {
    "openapi": "3.1.0",
    "info": {"title": "dumps", "version": "1"},
    "paths": {
        "/dump": {
            "get": {
                "operationId": "dump",
                "responses": {"200": {"description": "ok", "content": {"text/plain": {}}}},
            }
        }
    },
}


@pytest.fixture(scope="module")
def openapi_url() -> Iterator[str]:
    with serve_asgi(_openapi_app(), lifespan="off") as base:
        yield base


def _forms(tmp_path: Path, openapi_url: str) -> dict[str, tuple[BaseTool, str]]:
    from toolrig.tools import NetPolicy, openapi_tool

    api = openapi_tool(OPENAPI_DOC, base_url=openapi_url, network=NetPolicy(allow=("127.0.0.1",)))
    return {
        "sync": (sync_tool, "sync_tool"),
        "async": (async_tool, "async_tool"),
        "basetool_action": (Texts(), "long"),
        "tool_from_data": (data_tool, "from_data"),
        "yaml": (_yaml_tool(tmp_path), "yaml_noisy"),
        "openapi": (api, "dump"),
    }


FORMS = ["sync", "async", "basetool_action", "tool_from_data", "yaml", "openapi"]


def _console_text(log: SQLiteExecutionLog, url: str) -> httpx.Response:
    async def fetch() -> httpx.Response:
        transport = httpx.ASGITransport(app=app(log=log))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            return await c.get(url)

    return asyncio.run(fetch())


def _read_all(handle: str) -> str:
    parts, offset = [], 0
    while offset is not None:
        part = read_result.run(handle=handle, offset=offset)
        assert part.success, part.error
        parts.append(part.output["text"])
        offset = part.output["next_offset"]
    return "".join(parts)


@pytest.mark.parametrize("form", FORMS)
def test_every_form_over_budget_is_cut_and_read_back_exactly(
    form: str, tmp_path: Path, openapi_url: str
) -> None:
    owner, name = _forms(tmp_path, openapi_url)[form]
    log = SQLiteExecutionLog(tmp_path / "log.db")
    with ToolExecutor([owner]) as executor, log.run("r1"), result_budget(BUDGET):
        result = asyncio.run(executor.run_tool(owner, name, {}))
        assert result.success, result.error
        meta = result.metadata
        assert meta is not None and meta.result_handle is not None
        handle = meta.result_handle
        assert len(result.output) <= BUDGET
        assert result.output.startswith("000000 \u00e9\t\x00 line")
        assert result.output.endswith("007999 \u00e9\t\x00 line\n")
        assert handle in result.output and f"{len(WHOLE):,}" in result.output
        assert meta.result_chars == len(WHOLE)
        assert _read_all(handle) == WHOLE
    assert log.read_result(handle) == WHOLE
    record, *reads = log.get_run("r1")
    assert record.output == result.output  # the log's record holds what the caller got
    assert {r.executor for r in reads} == {"read_result"}
    page = _console_text(log, f"/results/{handle}?raw=1")
    assert page.status_code == 200 and page.text == WHOLE
    html = _console_text(log, f"/results/{handle}")
    assert html.status_code == 200 and handle in html.text and "007999" in html.text
    assert _console_text(log, "/results/res_nothing").status_code == 404
    run_page = _console_text(log, "/runs/r1")
    assert f'href="/results/{handle}"' in run_page.text


@pytest.mark.parametrize("form", FORMS)
def test_every_form_under_budget_is_unchanged(form: str, tmp_path: Path, openapi_url: str) -> None:
    owner, name = _forms(tmp_path, openapi_url)[form]
    with ToolExecutor([owner]) as executor, result_budget(len(WHOLE) + 100):
        result = asyncio.run(executor.run_tool(owner, name, {}))
    assert result.output == WHOLE
    assert result.metadata is not None and result.metadata.result_handle is None


def test_sync_straight_line_and_tool_run_are_cut_too() -> None:
    with result_budget(BUDGET):
        straight = sync_tool.run()
        through = ToolExecutor([sync_tool]).execute_sync("sync_tool", {})
    for result in (straight, through):
        assert result.metadata is not None and result.metadata.result_handle
        assert len(result.output) <= BUDGET


def test_no_budget_scope_means_whole_outputs() -> None:
    result = sync_tool.run()
    assert result.output == WHOLE and result.metadata.result_handle is None  # type: ignore[union-attr]


def test_a_tools_own_budget_wins_either_way() -> None:
    @tool(max_result_chars=500)
    def tight() -> str:
        """Tight."""
        return WHOLE

    @tool(max_result_chars=None)
    def loose() -> str:
        """Loose."""
        return WHOLE

    assert len(tight.run().output) <= 500  # even with no scope: the tool said so
    with result_budget(BUDGET):
        assert loose.run().output == WHOLE
        assert len(tight.run().output) <= 500


def test_bad_budgets_are_refused() -> None:
    from toolrig import ToolDefinitionError

    for bad in (0, -5):
        with pytest.raises(ValueError, match="at least 1"), result_budget(bad):
            pass
        with pytest.raises(ToolDefinitionError):

            @tool(max_result_chars=bad)
            def nope() -> str:
                """Nope."""
                return ""


def test_failed_calls_and_small_values_pass_unchanged() -> None:
    @tool
    def boom() -> str:
        """Boom."""
        raise RuntimeError("x" * 10_000)

    @tool
    def number() -> int:
        """A number."""
        return 10**50

    with result_budget(50):
        failed = boom.run()
        assert not failed.success and failed.metadata.result_handle is None  # type: ignore[union-attr]
        assert number.run().output == 10**50


# -- read_result, attacked ---------------------------------------------------------------------
def _cut_handle() -> str:
    result = sync_tool.run()
    assert result.metadata is not None and result.metadata.result_handle
    return result.metadata.result_handle


@pytest.mark.parametrize(
    ("arguments", "code", "words"),
    [
        ({"offset": -1}, "invalid_arguments", "greater than or equal to 0"),
        ({"length": 0}, "invalid_arguments", "greater than or equal to 1"),
        ({"length": 10**12}, "invalid_arguments", "over the most one read returns"),
        ({"offset": 10**9}, "invalid_arguments", "past the end"),
        ({"handle": "res_" + "0" * 24}, "not_found", "No result is kept"),
        ({"handle": "../../etc/passwd"}, "not_found", "No result is kept"),
        ({"handle": ""}, "invalid_arguments", "handle"),
        ({"handle": "x" * 10_000}, "invalid_arguments", "handle"),
        ({"offset": "zero"}, "invalid_arguments", "offset"),
    ],
)
def test_hostile_reads_are_results_never_exceptions(
    arguments: dict[str, Any], code: str, words: str
) -> None:
    with result_budget(BUDGET):
        handle = _cut_handle()
        got = read_result.run(**{"handle": handle, **arguments})
    assert isinstance(got, ToolResult) and not got.success
    assert got.error is not None and got.error.code == code
    assert words in got.error.message + (got.error.hint or "")


def test_a_handle_from_another_log_is_not_read(tmp_path: Path) -> None:
    first, second = SQLiteExecutionLog(tmp_path / "a.db"), SQLiteExecutionLog(tmp_path / "b.db")
    with first.run("a"), result_budget(BUDGET):
        handle = _cut_handle()
        assert read_result.run(handle=handle, length=10).success
    with second.run("b"), result_budget(BUDGET):
        got = read_result.run(handle=handle)
    assert got.error is not None and got.error.code == "not_found"
    assert second.read_result(handle) is None and first.read_result(handle) is not None


def test_read_result_reads_no_more_than_the_budget() -> None:
    with result_budget(BUDGET):
        handle = _cut_handle()
        part = read_result.run(handle=handle)
    assert len(part.output["text"]) == BUDGET and part.output["next_offset"] == BUDGET
    assert part.output["total_chars"] == len(WHOLE)
    outside = read_result.run(handle=handle, length=DEFAULT_RESULT_CHARS + 1)
    assert outside.error is not None and outside.error.code == "invalid_arguments"


# -- structured results --------------------------------------------------------------------
@pytest.mark.parametrize(
    "value",
    [
        {"rows": [{"id": i, "name": "n" * 40, "tags": ["a", "b"]} for i in range(2_000)]},
        [["x" * 300] * 50 for _ in range(40)],
        {f"key{i}": "v" * 200 for i in range(1_000)},
        {"deep": json.loads("[" * 300 + "]" * 300), "pad": ["p" * 100] * 100},
        {"one": "z" * 100_000, "\u00e9\x00": "\ud83d\ude00" * 5_000},
    ],
)
def test_structured_cuts_stay_valid_json_within_budget(value: Any) -> None:
    @tool
    def data() -> Any:
        """Data."""
        return value

    with result_budget(BUDGET):
        result = data.run()
    text = result.to_text()
    shown = json.loads(text)  # valid JSON, or this raises
    assert len(text) <= BUDGET * 1.1
    assert shown["cut"]["handle"] == result.metadata.result_handle  # type: ignore[union-attr]
    assert json.loads(_read_all_under(shown["cut"]["handle"])) == json.loads(
        ToolResult(success=True, output=value).to_text()
    )


def _read_all_under(handle: str) -> str:
    with result_budget(BUDGET):
        return _read_all(handle)


def test_cut_json_without_a_handle_says_so() -> None:
    shown = cut_json({"a": "b" * 5_000}, 300, None, 5_010)
    assert shown["cut"]["handle"] is None and "could not be kept" in shown["cut"]["read_with"]


# -- without a log ---------------------------------------------------------------------------
def test_without_a_log_the_whole_is_kept_in_memory_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    small = MemoryResults(max_chars=len(WHOLE) * 2)
    monkeypatch.setattr("toolrig.runtime._kept.MEMORY", small)
    with result_budget(BUDGET):
        handles = [_cut_handle() for _ in range(3)]
        assert _read_all(handles[-1]) == WHOLE
        gone = read_result.run(handle=handles[0])  # the oldest went first
    assert gone.error is not None and gone.error.code == "not_found"
    assert MEMORY is not small


def test_an_output_larger_than_the_memory_store_is_cut_without_a_handle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("toolrig.runtime._kept.MEMORY", MemoryResults(max_chars=100))
    with result_budget(BUDGET):
        result = sync_tool.run()
    assert result.metadata is not None and result.metadata.result_handle is None
    assert "could not be kept" in result.output and len(result.output) <= BUDGET


def test_a_log_that_cannot_keep_the_whole_falls_back_to_memory(tmp_path: Path) -> None:
    log = SQLiteExecutionLog(tmp_path / "log.db")
    with sqlite3.connect(tmp_path / "log.db") as conn:
        conn.execute("DROP TABLE results")
    with log.run("r"), result_budget(BUDGET):
        with pytest.warns(LogWriteWarning, match="could not record"):
            handle = _cut_handle()
        assert _read_all(handle) == WHOLE


# -- the schema ------------------------------------------------------------------------------
def test_a_version_7_log_is_migrated_to_the_newest(tmp_path: Path) -> None:
    from toolrig.storage._sqlite import MIGRATIONS

    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        for script in MIGRATIONS[:7]:
            for statement in filter(str.strip, script.split(";")):
                conn.execute(statement)
        conn.execute("PRAGMA user_version=7")
    log = SQLiteExecutionLog(path)
    assert log.schema_version == 9
    with log.run("r"), result_budget(BUDGET):
        handle = _cut_handle()
    assert log.read_result(handle) == WHOLE
    assert log.result_handle("r", log.get_run("r")[0].tool_call_id or "") == handle


def test_both_backends_keep_and_read_the_whole(log_url: str) -> None:
    from toolrig.storage import open_log

    log = open_log(log_url)
    assert log.schema_version == 9
    with log.run(f"budget-{id(log)}"), result_budget(BUDGET):
        handle = _cut_handle()
        assert _read_all(handle) == WHOLE
    assert log.read_result(handle) == WHOLE


# -- over MCP, every form ----------------------------------------------------------------------
@pytest.mark.parametrize("form", FORMS)
async def test_every_form_served_over_mcp_links_to_its_whole_text(
    form: str, tmp_path: Path, openapi_url: str
) -> None:
    import contextlib

    import mcp_types
    from mcp import Client

    from toolrig.mcp import ToolServer, serve_http
    from toolrig.registry import Catalog

    owner, _ = _forms(tmp_path, openapi_url)[form]
    server = ToolServer(Catalog([owner]), max_result_chars=BUDGET)
    (name,) = [t.name for t in server.list_tools()]
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve_http(server, port=0, on_ready=ready.set_result))
    try:
        url = await asyncio.wait_for(ready, 30)
        async with Client(url) as client:
            result = await client.call_tool(name, {})
            text, link = result.content
            assert isinstance(text, mcp_types.TextContent) and len(text.text) <= BUDGET
            assert isinstance(link, mcp_types.ResourceLink) and link.size == len(WHOLE)
            read = await client.read_resource(str(link.uri))
            body = read.contents[0]
            assert isinstance(body, mcp_types.TextResourceContents) and body.text == WHOLE
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        server.close()
