"""`DurableAgent`: an agent's runs as workflows of a durable engine.

A run is one workflow: its session is read in a recorded step, each model request and each
tool call is a step (`DurableSteps`), the session is written back in a step when the run ends
or is held. A held run waits in its workflow for a decision (`decide`, a signal the engine
keeps while no process runs the workflow); the decision is claimed in the real session store
in a step before any held call runs, then the run goes on. A worker that starts after a crash
(`recover`) drives the workflow again from its start: every step that finished gives back its
recorded result, and the run continues from the first one that did not.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import Generic

from typing_extensions import TypeVar

from toolrig.agent._approval import Decision, PendingCall
from toolrig.agent._claim import AlreadyDecided, as_decision, record_decisions
from toolrig.agent._loop import Agent
from toolrig.agent._result import AgentResult
from toolrig.durable._engine import DurableEngine
from toolrig.durable._ledger import StepLedger
from toolrig.durable._sessions import RunSessions
from toolrig.durable._steps import DurableSteps
from toolrig.storage._sessions import SessionState, SessionStore

__all__ = ["DECISION", "DurableAgent"]

DepsT = TypeVar("DepsT", default=None)
OutputT = TypeVar("OutputT", default=str)

DECISION = "toolrig.decision"
"""The topic decisions on a held run's calls are sent on."""


class DurableAgent(Generic[DepsT, OutputT]):
    """Runs ``agent``'s runs as workflows of ``engine``; tool calls are claimed in ``ledger``.

    Every worker builds the same durable agents (same ``name``) before `recover`, so that
    any of them can take over a run whose process died. The agent is taken over: its
    sessions are read and written through the workflow, its steps recorded by the engine.
    """

    def __init__(
        self,
        agent: Agent[DepsT, OutputT],
        engine: DurableEngine,
        ledger: StepLedger,
        *,
        name: str | None = None,
    ) -> None:
        self.agent = agent
        self.engine = engine
        self.store: SessionStore = agent.sessions
        """The real session store (the agent's own when it was given)."""
        self._sessions = RunSessions()
        agent.sessions = self._sessions
        agent.step_hooks = DurableSteps(engine, ledger)
        self.workflow = f"toolrig.agent.{name or agent.name}"
        engine.register(self.workflow, self._body)

    async def start(
        self, prompt: str, *, run_id: str | None = None, session_id: str | None = None
    ) -> str:
        """Start a run of ``prompt`` (a new session unless ``session_id`` names one); its id.
        Starting the same ``run_id`` twice starts one run."""
        run_id = run_id or f"agent-{uuid.uuid4().hex[:12]}"
        await self.engine.start(self.workflow, run_id, run_id, prompt, session_id or run_id)
        return run_id

    async def result(self, run_id: str) -> AgentResult[OutputT]:
        """Wait for run ``run_id`` to end (held runs wait for their decision); its result."""
        result: AgentResult[OutputT] = await self.engine.result(run_id)
        return result

    async def decide(self, run_id: str, approvals: Mapping[str, Decision]) -> None:
        """Decide calls the run holds, by call id (kept until the run takes them, even with no
        worker running; a run goes on once every held call is decided)."""
        await self.engine.signal(run_id, DECISION, dict(approvals))

    def recover(self) -> None:
        """Start this worker: take over the runs whose process died."""
        self.engine.recover()

    # -- the workflow --------------------------------------------------------------------------
    async def _body(self, run_id: str, prompt: str, session_id: str) -> AgentResult[OutputT]:
        async def load() -> SessionState | None:
            return self.store.load(session_id)

        state, _ = await self.engine.step("toolrig.session.load", load)
        self._sessions.seed(session_id, state)
        version = 0 if state is None else state.version
        agent = self.agent
        result = await agent.arun(
            prompt, session_id=session_id, run_id=run_id, raise_on_error=False
        )
        version = await self._save(session_id, version)
        while result.stop_reason == "approval":
            held = result.pending
            decisions = await self._decisions(held)
            approvals = await self._claim(run_id, session_id, held, decisions)
            result = await agent.arun(
                session_id=session_id, approvals=approvals, run_id=run_id, raise_on_error=False
            )
            version = await self._save(session_id, version)
        return result

    async def _decisions(self, held: list[PendingCall]) -> dict[str, Decision]:
        """Signals until every held call is decided (a decision for another call is dropped)."""
        wanted = {p.tool_call_id for p in held}
        decided: dict[str, Decision] = {}
        while not wanted <= decided.keys():
            sent = await self.engine.wait_signal(DECISION)
            if isinstance(sent, dict):
                decided.update((k, v) for k, v in sent.items() if k in wanted)
        return decided

    async def _claim(
        self,
        run_id: str,
        session_id: str,
        held: list[PendingCall],
        decisions: dict[str, Decision],
    ) -> dict[str, Decision]:
        """The decisions that stand, recorded in the real store before anything runs (a
        decision recorded there first, by the console or another run, wins)."""

        async def claim() -> dict[str, Decision]:
            try:
                return record_decisions(self.store, session_id, held, decisions, f"run {run_id}")
            except AlreadyDecided:
                ids = [p.tool_call_id for p in held]
                kept = self.store.decisions(session_id, ids)
                return {i: as_decision(kept[i]) if i in kept else decisions[i] for i in ids}

        standing, _ = await self.engine.step("toolrig.decide", claim)
        return standing

    async def _save(self, session_id: str, version: int) -> int:
        """Write the run's session back to the real store; its version there."""
        state = self._sessions.load(session_id)
        if state is None:
            return version

        async def save() -> int:
            now = self.store.load(session_id)
            kept = now.version if now is not None else 0
            return self.store.save(replace(state, version=kept)).version

        saved, _ = await self.engine.step("toolrig.session.save", save)
        return saved
