"""The approvals inbox: the calls agent sessions hold, and the decisions people take on them.

A decision is recorded once per held call in the log's decisions table (an insert that only
the first decision of a call wins), so of two people deciding at once exactly one wins; the
other gets `AlreadyDecided`, as does anyone deciding a turn a run has claimed, and a resume
that brings a different decision for a call decided here. The agent that holds the session
reads the decisions (`stored_decisions`, or `wait_for_decisions` to block until there are some) and
resumes with ``agent.run(session_id=..., approvals=...)``, exactly as after ``toolrig agent
--session ID --allow CALL_ID``: that run claims the turn before any tool runs, so even two
processes resuming with the same decisions run each approved call once.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from toolrig.agent._approval import Decision
from toolrig.agent._claim import PAST, AlreadyDecided, as_decision, edit_record
from toolrig.registry._catalog import Catalog
from toolrig.storage import _runs as runs
from toolrig.storage._log import ExecutionLog
from toolrig.storage._sessions import LogSessionStore, SessionState

__all__ = [
    "HeldCall",
    "decide",
    "held_calls",
    "stored_decisions",
    "wait_for_decisions",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class HeldCall:
    """One call a session holds for a decision."""

    session_id: str
    tool_call_id: str
    name: str
    tool: str
    arguments: dict[str, Any]
    held_at: float
    decision: dict[str, Any] | None
    """What was decided and not yet acted on by the agent (``None``: undecided)."""

    @property
    def arguments_json(self) -> str:
        return json.dumps(self.arguments, ensure_ascii=False, indent=2, default=str)

    @property
    def approved(self) -> bool:
        """Whether the decision lets the call run (an approval or an edit), whether it is
        recorded (its kind) or a run is carrying it out (the claim's word for it)."""
        kind = None if self.decision is None else self.decision.get("kind")
        return kind in _LETS_RUN


_RUNS = ("allow", "allow_session", "edit")
_LETS_RUN = frozenset(_RUNS) | {PAST[kind] for kind in _RUNS}
"""The decision kinds that run the call, and the words a run's claim records them by."""


def _table(log: ExecutionLog) -> str:
    return LogSessionStore(log).table


def held_calls(
    log: ExecutionLog, *, limit: int = 200, session_id: str | None = None
) -> list[HeldCall]:
    """The calls held by stored sessions (the newest ``limit`` sessions that hold some, or
    only ``session_id``, however old), newest first, each with its decision if one was
    recorded (and not yet acted on)."""
    where, params = "pending IS NOT NULL", list[str]()
    if session_id is not None:  # the key: a session older than the newest ``limit`` too
        where, params = f"session_id = {log.placeholder} AND {where}", [session_id]
    sql = (
        f"SELECT session_id, pending, updated_at FROM {_table(log)} "
        f"WHERE {where} ORDER BY updated_at DESC LIMIT {int(limit)}"
    )
    out: list[HeldCall] = []
    for owner, pending, updated in log._conn().execute(sql, params).fetchall():
        data = json.loads(pending) if pending else None
        if not isinstance(data, dict):
            continue
        items = data.get("pending", [])
        recorded = runs.stored_decisions(log, owner, [item["id"] for item in items])
        decided = {c: _shown(d) for c, d in recorded.items()}
        claim = data.get("claim")
        if isinstance(claim, dict):  # a run is deciding the turn now: show what it decided
            by = f"run {claim.get('run_id')} is carrying it out"
            for call_id, word in (claim.get("decisions") or {}).items():
                decided[call_id] = {"kind": word, "reason": by}
        for item in items:
            out.append(
                HeldCall(
                    session_id=owner,
                    tool_call_id=item["id"],
                    name=item["name"],
                    tool=item["tool"],
                    arguments=item.get("arguments") or {},
                    held_at=float(updated),
                    decision=decided.get(item["id"]),
                )
            )
    return out


def _shown(decision: runs.StoredDecision) -> dict[str, Any]:
    shown: dict[str, Any] = {"kind": decision.kind, "at": decision.decided_at}
    if decision.reason:
        shown["reason"] = decision.reason
    if decision.kind == "answer":
        shown["output"] = decision.output
    if decision.kind == "edit" and isinstance(decision.output, dict):
        shown["arguments"] = decision.output.get("arguments")
    if decision.decided_by:
        shown["by"] = decision.decided_by
    return shown


def decide(
    log: ExecutionLog,
    session_id: str,
    tool_call_id: str,
    decision: dict[str, Any],
    *,
    by: str = "console",
    catalog: Catalog | None = None,
) -> None:
    """Record ``decision`` (``{"kind": "allow" | "allow_session" | "deny" | "answer" |
    "edit", "reason"?, "output"?, "arguments"?}``) for one held call, as the decision that
    stands (see ``storage._runs``); `AlreadyDecided` when it was decided first, or is not
    held; ``ValueError`` for an unknown kind, or an edit whose arguments are not an object or
    (given the ``catalog``) are refused by the held call's own tool."""
    store = LogSessionStore(log)
    state = store.load(session_id)
    pending = None if state is None else state.pending
    items = {} if pending is None else {item["id"]: item for item in pending.get("pending", [])}
    if state is None or pending is None or tool_call_id not in items:
        # decided, and the agent resumed with it (or never held by this session)
        raise AlreadyDecided(session_id, [tool_call_id], None)
    claim = pending.get("claim")
    if claim is not None:  # a run is deciding the turn now (agent.run(approvals=...))
        raise AlreadyDecided(session_id, [tool_call_id], claim.get("run_id"))
    kind = str(decision.get("kind"))
    if kind not in PAST:
        raise ValueError(f"a decision is one of {', '.join(PAST)}, not {kind!r}")
    output = decision.get("output")
    if kind == "edit":
        arguments = decision.get("arguments")
        if not isinstance(arguments, dict):
            raise ValueError("an edit gives the call's arguments as a JSON object")
        entry = None if catalog is None else catalog.entry(str(items[tool_call_id]["name"]))
        if entry is not None:  # the agent's run validates them again, like the model's
            valid, message = entry[0].validate_params(entry[1].name, arguments)
            if not valid:
                raise ValueError(f"The edited arguments were refused: {message}")
        output = edit_record(arguments, items[tool_call_id].get("arguments"))
    wanted = runs.StoredDecision(
        session_id=session_id,
        tool_call_id=tool_call_id,
        kind=kind,
        reason=decision.get("reason"),
        output=output,
        decided_by=by,
        decided_at=time.time(),  # with the rest, tells this decision from a same one
    )
    if not runs.insert_decision(log, wanted):  # one decision per call: the first one written
        existing = runs.stored_decisions(log, session_id, [tool_call_id]).get(tool_call_id)
        detail = None if existing is None else _detail(existing)
        raise AlreadyDecided(session_id, [tool_call_id], None, detail=detail)


def _detail(decision: runs.StoredDecision) -> str:
    word = PAST.get(decision.kind, decision.kind)
    return f"{word} by {decision.decided_by}" if decision.decided_by else word


def stored_decisions(log: ExecutionLog, state: SessionState | None) -> dict[str, Decision] | None:
    """The decisions recorded for every call ``state`` holds, as ``approvals=`` takes them;
    ``None`` until each held call is decided."""
    pending = None if state is None else state.pending
    if state is None or not pending:
        return None
    ids = [item["id"] for item in pending.get("pending", [])]
    decided = runs.stored_decisions(log, state.session_id, ids)
    if not ids or any(i not in decided for i in ids):
        return None
    return {i: as_decision(decided[i]) for i in ids}


def wait_for_decisions(
    log: ExecutionLog, session_id: str, *, timeout: float = 3600.0, poll: float = 0.2
) -> dict[str, Decision]:
    """Block until every call ``session_id`` holds is decided; ``TimeoutError`` after
    ``timeout`` seconds, ``LookupError`` when the session holds no calls (never did, or
    another process decided and resumed it)."""
    store = LogSessionStore(log)
    deadline = time.monotonic() + timeout
    while True:
        state = store.load(session_id)
        pending = None if state is None else state.pending
        if not pending or not pending.get("pending") or "claim" in pending:
            raise LookupError(
                f"session {session_id!r} holds no calls awaiting a decision "
                "(never stored, or already being resumed by another run)"
            )
        found = stored_decisions(log, state)
        if found is not None:
            return found
        if time.monotonic() >= deadline:
            raise TimeoutError(f"no decision on session {session_id!r} in {timeout:g} s")
        time.sleep(poll)
