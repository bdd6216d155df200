"""Human approval: calls of destructive tools are held, the run stops with them pending, and a
later run (any process with the same log) approves, denies with a reason, or answers by hand.

Run: python examples/agent_approval.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from toolrig import ToolAnnotations, tool
from toolrig.agent import Agent, Answer, ApprovalPolicy, Deny
from toolrig.storage import SQLiteExecutionLog
from toolrig.testing import ModelTurn, ScriptedModel


@tool(annotations=ToolAnnotations(read_only=False, destructive=True))
def drop_table(name: str) -> str:
    """Drop a database table."""
    return f"dropped {name}"


@tool(annotations=ToolAnnotations(read_only=True))
def count_rows(name: str) -> int:
    """Count the rows of a table."""
    return 42


model = ScriptedModel(
    [
        ModelTurn(
            calls=[
                ("count_rows", {"name": "logs"}, "c1"),
                ("drop_table", {"name": "logs"}, "c2"),
                ("drop_table", {"name": "users"}, "c3"),
            ]
        ),
        "Dropped logs (42 rows); users was kept.",
    ]
)


def dba(log: SQLiteExecutionLog) -> Agent:
    """The agent; any process that builds it on the same log continues its sessions."""
    return Agent(
        "DBA",
        "You maintain the database.",
        model,
        [drop_table, count_rows],
        approval=ApprovalPolicy(destructive=True),
        log=log,
    )


with tempfile.TemporaryDirectory() as folder:
    log = SQLiteExecutionLog(Path(folder) / "log.sqlite3")
    held = dba(log).run("Clean up old tables.", session_id="cleanup")
    print(held.stop_reason, [(p.tool_call_id, p.name, p.arguments) for p in held.pending])

    # later, perhaps in a web request handled by another process:
    done = dba(log).run(
        session_id="cleanup",
        approvals={"c2": True, "c3": Deny(reason="users is still in use")},
    )
    print(done.stop_reason, done.output)
    step = done.steps[0]  # the held turn, finished
    results = {call["id"]: r.to_text() for call, r in zip(step.calls, step.results, strict=True)}
    print(results)
    assert results["c3"] == "Error [permission_denied]: The call was denied: users is still in use"
    log.close()

# Answer(output=...) answers a held call by hand instead of running it:
assert Answer(output="dropped (by the on-call engineer)").output.startswith("dropped")
