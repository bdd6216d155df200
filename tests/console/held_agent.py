"""An agent in its own process: it asks to drop a table, the call is held for approval, and it
waits for a decision taken elsewhere (the console), then resumes and prints how it ended.

Usage: python held_agent.py LOG SESSION_ID"""

from __future__ import annotations

import sys

from console_tools import tools

from toolrig.agent import Agent, ApprovalPolicy
from toolrig.console import wait_for_decisions
from toolrig.storage import SQLiteExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel


def main(path: str, session_id: str) -> None:
    log = SQLiteExecutionLog(path)
    model = ScriptedModel(
        [ModelTurn(calls=[("drop_table", {"name": "logs"}, "c1")]), "The logs table is gone."]
    )
    agent = Agent(
        "DBA",
        "You maintain the database.",
        model,
        tools,
        approval=ApprovalPolicy(destructive=True),
        log=log,
    )
    held = agent.run("Drop the logs table.", session_id=session_id)
    print("HELD", held.stop_reason, flush=True)
    decisions = wait_for_decisions(log, session_id, timeout=60)
    done = agent.run(session_id=session_id, approvals=decisions)
    print("DONE", done.stop_reason, done.output, flush=True)
    log.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
