"""The boundaries of the approval promise: the gate holds exactly the calls its policy names
that were not approved yet, answers them without running them, and a decision gives exactly
the result it says. And the one-step decision (`decide_next_action`) reads the model's first
call and nothing else.

| promise | boundary | test |
|---|---|---|
| a rule holds | each alone: ``tools``, ``destructive``, ``when`` | ``..._each_rule_alone...`` |
| nothing else | a tool not named; a safe or unsaid action of a destructive tool | same |
| ``when`` | any truthy answer holds (a space: hypothesis); asked last | ``..._when_...`` (2) |
| scope | outside a run; a run without a policy: nothing held | ``..._no_run_or_no_policy...`` |
| approved | its id runs; the same tool under another id is held | ``..._an_approval_is...`` |
| held | not run; noted by id; refused naming action, tool, id | ``..._a_held_call...`` |
| decisions | ``True``; ``Answer``; ``Deny(reason)``; ``False`` | ``..._each_decision...`` |
| decisions | ``Edit`` and ``AllowForSession`` run the call | ``..._an_edit_and_an_allow...`` |
| forms | each is one; another type, an edit's non-dict: refused | ``..._every_decision_form...`` |
| allowed for the session | that tool passes, another is held | ``..._a_tool_allowed...`` |
| next action | no call; unreadable; known; unknown name; first only | ``test_next_action_...`` |
| next action | summary absent, empty or given; executor or catalogue | ``test_next_action_...`` |
"""

from __future__ import annotations

import asyncio
import dataclasses
import warnings
from typing import Any

import pytest
from file_tools import delete_file, read_file
from hypothesis import given
from hypothesis import strategies as st

from toolrig import BaseTool, ToolAnnotations, ToolExecutor, action, tool
from toolrig.agent import AllowForSession, Answer, ApprovalPolicy, Deny, Edit, decide_next_action
from toolrig.agent._approval import (
    SCOPE,
    RunScope,
    approval_gate,
    as_decided,
    decided_result,
    decision_problem,
)
from toolrig.agent._decide import SYSTEM
from toolrig.core.result._result import ErrorInfo, ToolResult
from toolrig.registry import Registry
from toolrig.runtime._call import Call
from toolrig.testing import ModelTurn, ScriptedModel

RAN: list[str] = []


class Shelf(BaseTool):
    """A shelf of books: reading is safe, burning is destructive, labelling is neither said."""

    name = "shelf"

    @action(annotations=ToolAnnotations(read_only=True, destructive=False))
    def read(self, title: str) -> str:
        """Read a book."""
        RAN.append(f"read {title}")
        return title

    @action(annotations=ToolAnnotations(destructive=True))
    def burn(self, title: str) -> str:
        """Burn a book."""
        RAN.append(f"burn {title}")
        return "ashes"

    @action
    def label(self, title: str) -> str:
        """Label a book."""
        RAN.append(f"label {title}")
        return title.upper()


@tool
def note(text: str) -> str:
    """Write a note."""
    RAN.append(f"note {text}")
    return text


def _gated() -> ToolExecutor:
    return ToolExecutor([Shelf, note]).with_middleware(approval_gate)


def _run(executor: ToolExecutor, scope: RunScope | None, name: str, call_id: str, **args: Any):  # type: ignore[no-untyped-def]
    async def go() -> Any:
        token = SCOPE.set(scope)
        try:
            return await executor.execute(name, args, tool_call_id=call_id)
        finally:
            SCOPE.reset(token)

    RAN.clear()
    return asyncio.run(go())


def _held(policy: ApprovalPolicy, name: str, **args: Any) -> bool:
    scope = RunScope(policy=policy)
    result = _run(_gated(), scope, name, "c1", **args)
    assert result.success is not bool(scope.held) and bool(RAN) is not bool(scope.held)
    return bool(scope.held)


def test_each_rule_alone_holds_its_calls_and_nothing_else() -> None:
    by_name = ApprovalPolicy(tools={"note"})
    assert _held(by_name, "note", text="x")
    assert not _held(by_name, "shelf.burn", title="x")  # a destructive tool it does not name
    destructive = ApprovalPolicy(destructive=True)
    assert _held(destructive, "shelf.burn", title="x")
    assert not _held(destructive, "shelf.read", title="x")  # the same tool's safe action
    assert not _held(destructive, "shelf.label", title="x")  # not said: not destructive
    assert not _held(destructive, "note", text="x")
    assert not _held(ApprovalPolicy(), "shelf.burn", title="x")  # no rule: nothing held
    picked = ApprovalPolicy(when=lambda call: call.arguments.get("title") == "secret")
    assert _held(picked, "shelf.read", title="secret")
    assert not _held(picked, "shelf.read", title="public")


@given(answer=st.one_of(st.integers(), st.text(max_size=3), st.lists(st.none(), max_size=2)))
def test_a_when_rule_holds_on_any_truthy_answer(answer: object) -> None:
    policy = ApprovalPolicy(when=lambda call: answer)
    assert _held(policy, "note", text="x") is bool(answer)


def test_when_is_asked_only_when_no_other_rule_holds_the_call() -> None:
    asked: list[str] = []

    def when(call: Call) -> bool:
        asked.append(call.action)
        return False

    policy = ApprovalPolicy(tools={"note"}, destructive=True, when=when)
    assert _held(policy, "note", text="x") and _held(policy, "shelf.burn", title="x")
    assert not _held(policy, "shelf.read", title="x")
    assert asked == ["read"]


def test_no_run_or_no_policy_holds_nothing() -> None:
    for scope in (None, RunScope(policy=None)):
        result = _run(_gated(), scope, "shelf.burn", "c1", title="x")
        assert result.success and RAN == ["burn x"]
        assert scope is None or scope.held == {}


def test_an_approval_is_for_its_call_id_only() -> None:
    scope = RunScope(policy=ApprovalPolicy(destructive=True), approved={"yes"})
    executor = _gated()
    assert _run(executor, scope, "shelf.burn", "yes", title="a").output == "ashes"
    assert RAN == ["burn a"] and scope.held == {}
    refused = _run(executor, scope, "shelf.burn", "other", title="b")
    assert not refused.success and RAN == [] and list(scope.held) == ["other"]


def test_a_held_call_does_not_run_and_is_refused_by_name() -> None:
    scope = RunScope(policy=ApprovalPolicy(destructive=True))
    result = _run(_gated(), scope, "shelf.burn", "h1", title="Dune")
    assert RAN == []
    held = scope.held["h1"]
    assert (held.tool, held.action, held.arguments) == ("shelf", "burn", {"title": "Dune"})
    assert not result.success and result.error is not None
    assert result.error.code == "permission_denied"
    assert result.error.message == "`burn` is awaiting approval."
    meta = result.metadata
    assert meta is not None
    assert (meta.tool, meta.action, meta.tool_call_id) == ("shelf", "burn", "h1")
    assert meta.started_at == held.started_at > 0
    assert meta.decision == "held"


def test_a_tool_allowed_for_the_session_passes_and_no_other() -> None:
    executor = _gated()
    scope = RunScope(policy=ApprovalPolicy(destructive=True), allowed={"shelf"})
    assert _run(executor, scope, "shelf.burn", "c1", title="a").output == "ashes"
    assert RAN == ["burn a"] and scope.held == {}
    other = RunScope(policy=ApprovalPolicy(destructive=True), allowed={"note"})
    assert not _run(executor, other, "shelf.burn", "c2", title="b").success
    assert RAN == [] and list(other.held) == ["c2"]


def test_every_decision_form_is_one_and_nothing_else() -> None:
    forms = (True, False, Deny(), Answer(output=1), Edit(arguments={}), AllowForSession())
    assert [decision_problem(d) for d in forms] == [None] * len(forms)
    assert decision_problem("yes") == (
        "str is not a decision (True, False, Deny, Answer, Edit or AllowForSession)"
    )
    bad = Edit(arguments=[1])  # type: ignore[arg-type]
    assert decision_problem(bad) == "an Edit's arguments are a dict, not list"


def test_an_edit_and_an_allow_for_the_session_run_the_call() -> None:
    assert as_decided(Edit(arguments={"title": "y"})) is None
    assert as_decided(AllowForSession()) is None


def test_each_decision_gives_its_own_result() -> None:
    assert as_decided(True) is None  # run it
    assert as_decided(False) == Deny()
    shelf = Shelf()
    burn = shelf.get_action("burn")
    assert burn is not None
    held = Call(
        owner=shelf,
        target=burn,
        arguments={"title": "x"},
        raw={"title": "x"},
        tool_call_id="p1",
        started_at=12.5,
    )
    answered = decided_result(held, Answer(output={"kept": True}))
    denied = decided_result(held, Deny(reason="keep it"))
    refused = decided_result(held, Deny())
    assert answered.success and answered.output == {"kept": True}
    for result, word in ((answered, "answered"), (denied, "denied"), (refused, "denied")):
        assert result.metadata is not None
        meta = result.metadata
        assert (meta.tool, meta.action, meta.tool_call_id, meta.decision) == (
            "shelf",
            "burn",
            "p1",
            word,
        )
        assert meta.started_at == 12.5
    assert denied.error is not None and refused.error is not None
    assert denied.error.code == "permission_denied" and not denied.success
    assert denied.error.message == "The call was denied: keep it"
    assert refused.error.code == "permission_denied"
    assert refused.error.message == f"The call was denied: {Deny().reason}"
    assert Deny().reason == "The user did not approve this call."


def _decide(turns: list[ModelTurn | str], source: Any, summary: str | None = None) -> Any:
    model = ScriptedModel(turns)
    decision = asyncio.run(decide_next_action(model, "Tidy the shelf.", source, summary=summary))
    return decision, model.requests[-1].messages


def test_next_action_with_no_call_is_done_with_the_text() -> None:
    decision, messages = _decide(["Nothing left."], ToolExecutor([Shelf]))
    assert decision.done and decision.text == "Nothing left."
    assert (decision.tool, decision.action, decision.call_name, decision.params) == (
        None,
        None,
        None,
        {},
    )
    assert decision.error is None and decision.usage.output_tokens > 0
    assert messages == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Tidy the shelf."},
    ]


@pytest.mark.parametrize("summary", [None, ""])
def test_next_action_without_a_summary_sends_the_request_alone(summary: str | None) -> None:
    _, messages = _decide(["Done."], ToolExecutor([Shelf]), summary)
    assert messages[-1]["content"] == "Tidy the shelf."


def test_next_action_reads_the_first_known_call_only() -> None:
    turn = ModelTurn(
        text="Reading first.",
        calls=[("shelf.read", {"title": "Dune"}, "a"), ("shelf.burn", {"title": "x"}, "b")],
    )
    registry = Registry()
    registry.add(Shelf)
    decision, messages = _decide([turn], registry, "Run r: 0 results.")
    assert decision.done is False and decision.error is None and decision.text == "Reading first."
    assert decision.usage.input_tokens > 0
    assert (decision.tool, decision.action, decision.call_name) == ("shelf", "read", "shelf__read")
    assert decision.params == {"title": "Dune"}
    assert messages[-1]["content"] == "Tidy the shelf.\n\nResults so far:\nRun r: 0 results."
    assert any(t["function"]["name"] == "shelf__burn" for t in _tools(registry))


def _tools(source: Any) -> list[dict[str, Any]]:
    model = ScriptedModel(["x"])
    asyncio.run(decide_next_action(model, "q", source))
    return list(model.requests[0].tools)


def test_next_action_names_an_unknown_call_by_its_first_part() -> None:
    turn = ModelTurn(calls=[("archive.pack", {"box": 3}, "a")])
    decision, _ = _decide([turn], ToolExecutor([delete_file, read_file]))
    assert (decision.tool, decision.action, decision.call_name) == ("archive", None, "archive.pack")
    assert decision.params == {"box": 3} and not decision.done


def test_next_action_reports_a_call_it_cannot_read() -> None:
    turn = ModelTurn(text="Trying.", calls=[("shelf.read", '{"title": ', "a")])
    decision, _ = _decide([turn], ToolExecutor([Shelf]))
    assert decision.done is False and decision.text == "Trying."
    assert decision.usage.input_tokens > 0
    assert decision.error is not None and not decision.error.success
    assert decision.error.error is not None
    assert decision.error.error.code == "invalid_arguments"
    assert (decision.tool, decision.action, decision.params) == ("shelf", "read", {})
    assert decision.call_name is None


def test_next_action_with_an_executor_uses_its_catalogue_not_the_old_methods() -> None:
    turn = ModelTurn(calls=[("shelf.read", {"title": "Dune"}, "a")])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        decision, _ = _decide([turn], ToolExecutor([Shelf]))
    assert (decision.tool, decision.action) == ("shelf", "read")


def test_next_action_with_arguments_that_are_not_an_object_has_no_params() -> None:
    turn = ModelTurn(calls=[("note", "[1, 2]", "a")])
    decision, _ = _decide([turn], ToolExecutor([note]))
    assert (decision.tool, decision.params, decision.error) == ("note", {}, None)


class Unreadable(ScriptedModel):
    """A model client whose turn carries a failed call without metadata."""

    async def complete(self, conversation: Any, tools: Any) -> Any:
        turn = await super().complete(conversation, tools)
        failed = ToolResult(success=False, error=ErrorInfo(code="invalid_arguments", message="?"))
        return dataclasses.replace(turn, calls=[failed])


def test_next_action_reports_a_failed_call_without_metadata() -> None:
    model = Unreadable([ModelTurn(text="Hm.", calls=[("note", {"text": "x"}, "a")])])
    decision = asyncio.run(decide_next_action(model, "q", ToolExecutor([note])))
    assert (decision.tool, decision.action, decision.done) == (None, None, False)
    assert decision.error is not None and decision.text == "Hm."
