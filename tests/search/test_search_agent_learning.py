"""An agent showing ``tools_per_turn`` tools learns from its calls through the index: the
request searched and the tool then called are stored when the log keeps requests, and a later
agent on the same log starts from them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolrig import tool
from toolrig.agent import Agent
from toolrig.storage import RequestLog, SQLiteExecutionLog
from toolrig.testing import FunctionModel, ModelTurn


@tool
def fuel_finder(city: str) -> str:
    """Petrol and diesel at filling stations nearby."""
    return "1.52 per litre"


@tool
def stock_quote(city: str) -> str:
    """Latest share values of listed companies."""
    return "up"


def call_the_offered_tool(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
    if any(m.get("role") == "tool" for m in messages):
        return "Done."
    names = [t["function"]["name"] for t in tools if t["function"]["name"] != "attempt_completion"]
    return ModelTurn(calls=[(names[0], {"city": "Toronto"})])


def helper(log: SQLiteExecutionLog) -> Agent:
    """An agent shown one tool per turn (found by searching the request), on ``log``."""
    return Agent(
        "Helper",
        "You help.",
        FunctionModel(call_the_offered_tool),
        [fuel_finder, stock_quote],
        tools_per_turn=1,
        log=log,
    )


@pytest.mark.parametrize("keep", [True, False])
def test_the_request_and_the_tool_called_are_stored_only_when_kept(
    tmp_path: Path, keep: bool
) -> None:
    log = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    log.keep_requests = keep
    result = helper(log).run("gas prices in Toronto")
    assert result.stop_reason == "answer"
    pairs = RequestLog(log).pairs()
    if keep:
        [pair] = pairs
        assert pair.request == "gas prices in Toronto" and pair.source == "search"
        later = helper(log)
        assert later._index.learned == [(pair.request, pair.tool)]  # starts from them
    else:
        assert pairs == []
    log.close()
