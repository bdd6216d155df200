"""The agent's result budget: a long output reaches the model cut (head, tail, size,
handle), `read_result` is offered from the turn after a cut (never before), runs without
approval even when every call needs one, and reads the whole back; ``max_result_chars=None``
sends everything."""

from __future__ import annotations

import re
from typing import Any

import pytest

from toolrig import tool
from toolrig.agent import Agent, ApprovalPolicy
from toolrig.runtime._budget import DEFAULT_RESULT_CHARS
from toolrig.storage import SQLiteExecutionLog
from toolrig.testing import FunctionModel, ModelTurn

WHOLE = "".join(f"line {i:06d}\n" for i in range(10_000))


@tool
def noisy() -> str:
    """A long output."""
    return WHOLE


@tool
def quiet() -> str:
    """A short output."""
    return "ok"


class Reader:
    """A model that calls ``first``, then reads the cut result whole if it can, then ends."""

    def __init__(self, first: str) -> None:
        self.first = first
        self.offered: list[list[str]] = []
        self.read: list[str] = []
        self.seen: list[str] = []

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn:
        names = [t["function"]["name"] for t in tools]
        self.offered.append(names)
        last = messages[-1]
        if last["role"] == "user":
            return ModelTurn(calls=[(self.first, {})])
        self.seen.append(last["content"])
        if "read_result" in names:
            if last["content"].startswith('{"text"'):
                import json

                part = json.loads(last["content"])
                self.read.append(part["text"])
                if part["next_offset"] is not None:
                    return self._read(part["next_offset"])
            else:
                return self._read(0)
        return ModelTurn(calls=[("attempt_completion", {"result": "done"})])

    def _read(self, offset: int) -> ModelTurn:
        handle = re.search(r'handle="(res_[0-9a-f]{24})"', self.seen[0])
        assert handle is not None
        return ModelTurn(calls=[("read_result", {"handle": handle.group(1), "offset": offset})])


@pytest.mark.parametrize("with_log", [False, True])
def test_the_model_gets_the_cut_and_reads_the_whole(with_log: bool, tmp_path: Any) -> None:
    log = SQLiteExecutionLog(tmp_path / "log.db") if with_log else None
    model = Reader("noisy")
    agent = Agent(
        "a",
        "r",
        FunctionModel(model),
        [noisy, quiet],
        log=log,
        max_result_chars=5_000,
        max_steps=40,
    )
    agent.run("go")
    assert "read_result" not in model.offered[0]  # nothing was cut yet
    assert "read_result" in model.offered[1]
    assert len(model.seen[0]) <= 5_000 and f"{len(WHOLE):,}" in model.seen[0]
    assert "".join(model.read) == WHOLE
    if log is not None:
        handle = re.search(r"res_[0-9a-f]{24}", model.seen[0])
        assert handle is not None and log.read_result(handle.group(0)) == WHOLE


def test_short_results_never_offer_read_result() -> None:
    model = Reader("quiet")
    Agent("a", "r", FunctionModel(model), [quiet]).run("go")
    assert all("read_result" not in names for names in model.offered)
    assert model.seen[0] == "ok"


def test_read_result_needs_no_approval_when_every_call_does() -> None:
    model = Reader("noisy")
    policy = ApprovalPolicy(when=lambda call: call.tool not in ("noisy", "attempt_completion"))
    agent = Agent(
        "a",
        "r",
        FunctionModel(model),
        [noisy],
        approval=policy,
        max_result_chars=5_000,
        max_steps=40,
    )
    result = agent.run("go", raise_on_error=False)
    assert result.stop_reason == "completion"
    assert "".join(model.read) == WHOLE


def test_no_budget_sends_everything() -> None:
    model = Reader("noisy")
    Agent("a", "r", FunctionModel(model), [noisy], max_result_chars=None).run("go")
    assert model.seen[0] == WHOLE
    assert all("read_result" not in names for names in model.offered)


def test_the_default_budget_is_finite_and_bad_ones_are_refused() -> None:
    assert Agent("a", "r", FunctionModel(Reader("quiet")), [quiet]).max_result_chars == (
        DEFAULT_RESULT_CHARS
    )
    for bad in (0, -1):
        with pytest.raises(ValueError, match="max_result_chars"):
            Agent("a", "r", FunctionModel(Reader("quiet")), [quiet], max_result_chars=bad)


def test_a_toolset_budget_wins_over_the_agents_and_a_tools_own_over_both() -> None:
    from toolrig.agent import CatalogToolset
    from toolrig.registry import Catalog

    @tool(max_result_chars=300)
    def tight() -> str:
        """Its own budget."""
        return WHOLE

    class Both:
        def __init__(self) -> None:
            self.seen: list[str] = []

        def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
            if messages[-1]["role"] == "user":
                return ModelTurn(calls=[("noisy", {}), ("tight", {})])
            self.seen = [m["content"] for m in messages if m["role"] == "tool"]
            return ModelTurn(calls=[("attempt_completion", {"result": "done"})])

    model = Both()
    toolset = CatalogToolset(Catalog([noisy, tight])).with_budget(1_000)
    Agent("a", "r", FunctionModel(model), [noisy, tight], toolsets=toolset).run("go")
    noisy_seen, tight_seen = model.seen
    assert len(noisy_seen) <= 1_000 and len(tight_seen) <= 300
    assert f"{len(WHOLE):,}" in noisy_seen
    with pytest.raises(ValueError, match="max_result_chars"):
        toolset.with_budget(0)
