"""A conversation that continues: with the messages of an earlier run, or by session id from
an execution log (as another process would). Offline: the model is a ``ScriptedModel``.

Run: python examples/agent_conversation.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from toolrig import tool
from toolrig.agent import Agent
from toolrig.storage import SQLiteExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


model = ScriptedModel(
    [
        ModelTurn(calls=[("add", {"a": 2, "b": 3})]),
        "2 + 3 = 5.",
        "Doubled, that is 10.",
        "You asked about 2 + 3.",
    ]
)

with tempfile.TemporaryDirectory() as folder:
    log = SQLiteExecutionLog(Path(folder) / "log.sqlite3")
    agent = Agent("Calc", "You do sums.", model, [add], log=log)

    first = agent.run("What is 2 + 3?", session_id="sums")
    print(first.output, f"({len(first.new_messages)} new messages)")

    # 1. pass the messages yourself ...
    again = agent.run("Double it.", history=first.all_messages)
    print(again.output)

    # 2. ... or continue the stored session, here from a new agent on the same log
    later = Agent("Calc", "You do sums.", model, [add], log=log)
    third = later.run("What did I ask first?", session_id="sums")
    print(third.output, f"({len(third.all_messages)} messages in session 'sums')")
    assert [m["role"] for m in model.requests[-1].messages][:3] == ["system", "user", "assistant"]
    log.close()
