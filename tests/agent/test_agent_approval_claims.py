"""Deciding held calls claims them before they run: the same approval sent to several
resuming runs at once (threads, separate processes; SQLite and PostgreSQL) runs the destructive
call exactly once, and every other run gets ``AlreadyDecided`` having run nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from agent_support import ROOT
from claim_tools import launch, launcher

from toolrig.agent import Agent, AlreadyDecided, ApprovalPolicy
from toolrig.storage import LogSessionStore, MemorySessionStore
from toolrig.testing import ModelTurn, ScriptedModel

RUNS = 6

CHILD = """
import json, sys, time
sys.path.insert(0, "tests/agent")
from claim_tools import launcher
from toolrig.agent import AlreadyDecided
from toolrig.storage import SessionConflict

agent = launcher(url, ["Done."])
time.sleep(max(0.0, go_at - time.time()))  # every process decides at the same moment
try:
    result = agent.run(session_id=session, approvals={"c1": True})
    print(json.dumps({"ran": result.output}))
except AlreadyDecided as exc:
    print(json.dumps({"already_decided": str(exc), "by": exc.claimed_by}))
except SessionConflict as exc:  # too late: the call ran before the conflict was seen
    print(json.dumps({"conflict": str(exc)}))
"""


def _hold(url: str, ledger: Path) -> str:
    """A session held on one launch (call ``c1``), which has not run."""
    session = f"launch-{uuid.uuid4().hex[:8]}"
    agent = launcher(url, [{"calls": [("launch", {"ledger": str(ledger)}, "c1")]}])
    held = agent.run("Launch.", session_id=session)
    assert [p.tool_call_id for p in held.pending] == ["c1"]
    assert agent.log is not None
    agent.log.close()
    assert not ledger.exists()
    return session


def _launches(ledger: Path) -> int:
    return len(ledger.read_text(encoding="utf-8").splitlines()) if ledger.exists() else 0


def test_threads_deciding_one_held_call_run_it_once(log_url: str, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.txt"
    session = _hold(log_url, ledger)
    agents = [launcher(log_url, ["Done."]) for _ in range(RUNS)]
    start = threading.Barrier(RUNS)
    outcomes: list[str] = []

    def decide(index: int) -> None:
        start.wait()
        try:
            result = agents[index].run(session_id=session, approvals={"c1": True})
            outcomes.append(f"ran: {result.output}")
        except AlreadyDecided as exc:
            outcomes.append(f"already decided by {exc.claimed_by}")

    threads = [threading.Thread(target=decide, args=(i,)) for i in range(RUNS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    for agent in agents:
        assert agent.log is not None
        agent.log.close()
    assert _launches(ledger) == 1
    assert sorted(outcomes)[-1] == "ran: Done." and len(outcomes) == RUNS
    assert sum(o.startswith("already decided") for o in outcomes) == RUNS - 1, outcomes


def test_processes_deciding_one_held_call_run_it_once(log_url: str, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.txt"
    session = _hold(log_url, ledger)
    go_at = time.time() + 4  # after every interpreter has imported toolrig
    prelude = f"url = {log_url!r}\nsession = {session!r}\ngo_at = {go_at!r}\n"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", prelude + CHILD],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        )
        for _ in range(RUNS)
    ]
    answers: list[dict[str, Any]] = []
    for child in children:
        out, err = child.communicate(timeout=90)
        assert child.returncode == 0, err[-3000:]
        answers.append(json.loads(out.strip().splitlines()[-1]))
    assert _launches(ledger) == 1
    ran = [a for a in answers if "ran" in a]
    refused = [a for a in answers if "already_decided" in a]
    assert len(ran) == 1 and ran[0]["ran"] == "Done."
    assert len(refused) == RUNS - 1, answers
    assert all("c1" in a["already_decided"] for a in refused)


def test_a_retried_decision_after_the_turn_finished_runs_nothing(
    log_url: str, tmp_path: Path
) -> None:
    ledger = tmp_path / "ledger.txt"
    session = _hold(log_url, ledger)
    first = launcher(log_url, ["Done."])
    assert first.run(session_id=session, approvals={"c1": True}).output == "Done."
    retry = launcher(log_url, ["Done again."])
    with pytest.raises(AlreadyDecided, match=r"c1 of session .* were already decided"):
        retry.run(session_id=session, approvals={"c1": True})
    assert _launches(ledger) == 1
    for agent in (first, retry):
        assert agent.log is not None
        agent.log.close()


def test_a_claimed_turn_whose_run_stopped_is_not_decided_again(
    log_url: str, tmp_path: Path
) -> None:
    """A run that claimed the turn and died before saving leaves the claim: whether its calls
    ran is in the execution log, so no later run decides them blindly."""
    ledger = tmp_path / "ledger.txt"
    session = _hold(log_url, ledger)
    agent = launcher(log_url, ["Done."])
    store = agent.sessions
    assert isinstance(store, LogSessionStore)
    state = store.load(session)
    assert state is not None and state.pending is not None
    store.save(
        type(state)(
            session_id=session,
            messages=state.messages,
            pending={**state.pending, "claim": {"run_id": "agent-crashed"}},
            policy=state.policy,
            call_ids=state.call_ids,
            version=state.version,
        )
    )
    with pytest.raises(AlreadyDecided, match="by run 'agent-crashed'") as caught:
        agent.run(session_id=session, approvals={"c1": True})
    assert caught.value.call_ids == ["c1"] and caught.value.claimed_by == "agent-crashed"
    assert _launches(ledger) == 0
    assert agent.log is not None
    agent.log.close()


def test_threads_claim_once_in_a_memory_session_store(tmp_path: Path) -> None:
    """Without an execution log, sessions live in memory: the claim holds there too."""
    ledger = tmp_path / "ledger.txt"
    store = MemorySessionStore()
    first = Agent(
        "Controller", "You run launches.",
        ScriptedModel([ModelTurn(calls=[("launch", {"ledger": str(ledger)}, "c1")])]), [launch],
        approval=ApprovalPolicy(destructive=True), sessions=store,
    )  # fmt: skip
    assert first.run("Launch.", session_id="m").stop_reason == "approval"
    agents = [
        Agent("Controller", "You run launches.", ScriptedModel(["Done."]), [launch], sessions=store)
        for _ in range(RUNS)
    ]
    start = threading.Barrier(RUNS)
    outcomes: list[str] = []

    def decide(agent: Agent) -> None:
        start.wait()
        try:
            outcomes.append(str(agent.run(session_id="m", approvals={"c1": True}).output))
        except AlreadyDecided:
            outcomes.append("already decided")

    threads = [threading.Thread(target=decide, args=(a,)) for a in agents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert _launches(ledger) == 1
    assert sorted(outcomes) == ["Done."] + ["already decided"] * (RUNS - 1)
