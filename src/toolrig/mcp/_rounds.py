"""Input-required rounds (MCP 2026-07-28, SEP-2322): a tool's questions as results, not requests.

On that revision a server must not send requests to the client during a call. A tool that
awaits ``ctx.elicit(...)`` or ``ctx.sample(...)`` is instead run as far as its first
unanswered question; the call answers ``input_required`` with the questions (``inputRequests``)
and a ``requestState`` holding every answer so far; the client answers and sends the same
call again with ``inputResponses`` and the state, and the tool is **run again from the start**,
each question in order getting its recorded answer, until it finishes or asks something new.

The rule this makes for tools: up to its last question, a tool must ask the same questions in
the same order given the same answers (deterministic up to its elicitations), and what it does
before a question may run once per round (make it idempotent, or do it after the questions).
A tool that asks something else on a later round gets an error saying so.

Questions started together (``asyncio.gather`` of several ``ctx.elicit``) are sent in one round.
The state is sealed by the SDK's `RequestStateBoundary` (AES-256-GCM under a per-server key:
integrity and confidentiality, bound to the method, the tool, a digest of its arguments, an
expiry and the server's name); a nonce inside it is spent on first use, so an answered round
cannot be replayed: in this process, or, with `InputRounds.keep_in` (``toolrig serve --log``),
in every process serving from that log (the workers of ``toolrig serve --workers`` share one
key through `KEY_ENV`; without a shared log a replay across workers is caught only by the
expiry).
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

import mcp_types
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError

from toolrig.core.context._interaction import (
    QUESTION_KEY,
    Elicitation,
    Interaction,
    Root,
    SampleMessage,
)
from toolrig.core.context._recording import CallSink, Recording
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.mcp._client_hooks import check_form

if TYPE_CHECKING:
    from toolrig.storage._log import ExecutionLog
    from toolrig.storage._spent import LogSpentStates

__all__ = ["KEY_ENV", "InputRounds", "RoundHooks", "UntilAnswered", "recorded", "sampling_params"]

Kind = Literal["elicit", "sample", "roots"]

KEY_ENV: Final = "TOOLRIG_MCP_STATE_KEY"
"""A sealing key (hex) shared by the processes of one server, as ``toolrig serve --workers``
sets it; without it each `InputRounds` makes its own."""

_REFUSED: Final = "Invalid or expired requestState"
_SETTLE_TICKS: Final = 3
"""Loop turns an unanswered question waits before ending the round, so that questions the tool
started together (``asyncio.gather``) all join it."""


_ASKED: Final = {
    "elicit": "elicitation/create",
    "sample": "sampling/createMessage",
    "roots": "roots/list",
}


def _refuse(reason: str) -> MCPError:
    """The refusal of a state the server cannot use (the SDK's wording and code)."""
    return MCPError(
        code=mcp_types.INVALID_PARAMS,
        message=_REFUSED,
        data={"reason": "invalid_request_state", "detail": reason},
    )


def sampling_params(
    messages: Sequence[SampleMessage], system: str | None, max_tokens: int
) -> dict[str, Any]:
    """The ``sampling/createMessage`` params of a tool's ``ctx.sample(...)`` (text turns)."""
    wire = [
        {
            "role": "assistant" if m.get("role") == "assistant" else "user",
            "content": {"type": "text", "text": str(m.get("content", ""))},
        }
        for m in messages
    ]
    params: dict[str, Any] = {"messages": wire, "maxTokens": max_tokens}
    if system is not None:
        params["systemPrompt"] = system
    return params


class InputRounds:
    """A server's policy for input-required rounds: the sealing key, how long a round's state
    stays valid, and the nonces already spent."""

    def __init__(self, *, keys: Sequence[bytes | str] | None = None, ttl: float = 600.0) -> None:
        if not keys:
            shared = os.environ.get(KEY_ENV)
            keys = [bytes.fromhex(shared) if shared else os.urandom(32)]
        self.security = RequestStateSecurity(keys=list(keys), ttl=ttl)
        """The SDK's sealing policy (``keys[0]`` seals, every key unseals)."""
        self._spent: dict[str, float] = {}
        self._lock = threading.Lock()
        self._shared: LogSpentStates | None = None

    def keep_in(self, log: ExecutionLog) -> None:
        """Spend nonces in ``log`` (its ``mcp_spent_states`` table), shared with every process
        serving from it: a state replayed to another worker is refused there too."""
        from toolrig.storage._spent import LogSpentStates

        self._shared = LogSpentStates(log)

    def boundary(self, audience: str) -> RequestStateBoundary:
        """The SDK middleware sealing outgoing and verifying incoming states."""
        return RequestStateBoundary(self.security, default_audience=audience)

    def resume(self, params: mcp_types.CallToolRequestParams) -> list[dict[str, Any]]:
        """The answers of earlier rounds, in question order: those recorded in the (verified,
        unsealed) state plus this request's ``inputResponses``. Spends the state's nonce;
        raises `MCPError` (-32602) for a state already used or not minted here."""
        if params.request_state is None:
            if params.input_responses:
                raise _refuse("inputResponses without requestState")
            return []
        try:
            state = json.loads(params.request_state)
            nonce, answers, asks = state["nonce"], state["answers"], state["asks"]
        except (ValueError, KeyError, TypeError):
            raise _refuse("malformed") from None
        if not isinstance(nonce, str) or not isinstance(answers, list):
            raise _refuse("malformed")
        responses = params.input_responses or {}
        for ask in asks:
            response = responses.get(ask["key"])
            if response is None:
                break  # unanswered: the tool asks it again on this run
            try:
                answers.append(recorded(ask["kind"], response))
            except ValueError:  # pydantic's ValidationError included
                raise MCPError(
                    code=mcp_types.INVALID_PARAMS,
                    message=f"inputResponses[{ask['key']!r}] does not answer its "
                    f"{_ASKED[ask['kind']]} request",
                ) from None
        self._spend(nonce)  # only a state whose answers are usable is spent
        return answers

    def _spend(self, nonce: str) -> None:
        if self._shared is not None:
            if not self._shared.spend(nonce, self.security.ttl):
                raise _refuse("replayed")
            return
        now = time.monotonic()
        with self._lock:
            for old in [n for n, until in self._spent.items() if until <= now]:
                del self._spent[old]
            if nonce in self._spent:
                raise _refuse("replayed")
            self._spent[nonce] = now + self.security.ttl

    def missing_capability(self, hooks: RoundHooks) -> MCPError:
        """The protocol's error (-32021) for a call that failed for want of a capability the
        client did not declare (the spec's MUST: not a tool error)."""
        needed = sorted(hooks.missing)
        return MCPError(
            code=mcp_types.MISSING_REQUIRED_CLIENT_CAPABILITY,
            message=f"the tool needs client capabilities not declared: {', '.join(needed)}",
            data={"requiredCapabilities": {name: {} for name in needed}},
        )

    def ask(self, hooks: RoundHooks) -> dict[str, Any]:
        """The ``input_required`` result asking ``hooks``' open questions (its state is sealed
        by the boundary on the way out)."""
        requests = {key: request for key, _kind, request in hooks.open}
        state = {
            "nonce": secrets.token_urlsafe(16),
            "answers": hooks.answers,
            "asks": [{"key": key, "kind": kind} for key, kind, _request in hooks.open],
        }
        return {
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": json.dumps(state, separators=(",", ":")),
        }


def recorded(kind: str, response: Any) -> dict[str, Any]:
    """What a client's answer (a model or its JSON) to a question of ``kind`` is kept as;
    `ValueError` when it does not answer such a question."""
    if isinstance(response, dict):
        data = response
    elif hasattr(response, "model_dump"):
        data = response.model_dump(mode="json", by_alias=True, exclude_none=True)
    else:
        raise ValueError("an answer is an object")
    if kind == "elicit":
        answer = mcp_types.ElicitResult.model_validate(data)
        return {"kind": kind, "action": answer.action, "content": answer.content}
    if kind == "roots":
        listed = mcp_types.ListRootsResult.model_validate(data)
        roots = [root.model_dump(mode="json", exclude_none=True) for root in listed.roots]
        return {"kind": kind, "roots": roots}
    if "role" not in data or "content" not in data:
        raise ValueError("not a sampling result")
    blocks = data.get("content")
    blocks = blocks if isinstance(blocks, list) else [blocks]
    text = "\n".join(
        b["text"] if isinstance(b, dict) and b.get("type") == "text" else "[answer]" for b in blocks
    )
    return {"kind": kind, "text": text}


class RoundHooks:
    """The elicitor and sampler of one round of one call: recorded answers in order, then the
    first unanswered questions, which end the run."""

    def __init__(
        self,
        answers: list[dict[str, Any]],
        capabilities: mcp_types.ClientCapabilities | None,
        base: Interaction,
    ) -> None:
        self.answers = answers
        """The answers given so far, in question order (carried into the next state)."""
        self.open: list[tuple[str, Kind, dict[str, Any]]] = []
        """The questions of this round: ``(key, kind, InputRequest as sent)``."""
        self.missing: set[str] = set()
        """Capabilities a question needed that the client did not declare."""
        self._caps = capabilities
        self._base = base
        self._asked = 0
        self._lock = threading.Lock()

    @property
    def replaying(self) -> bool:
        """Whether the next question has an answer recorded by an earlier round."""
        return self._asked < len(self.answers)

    def interaction(self) -> Interaction:
        """``base`` (its log sink) with this round's elicitor and sampler."""
        return Interaction(
            elicitor=self.elicit, sampler=self.sample, log=self._base.log, roots=self.roots
        )

    async def _answer(self, kind: Kind, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            index = self._asked
            self._asked += 1
            if index < len(self.answers):
                recorded = self.answers[index]
                if recorded.get("kind") != kind:
                    raise ToolError(
                        f"the tool asked differently when run again (question {index + 1} was "
                        f"`{recorded.get('kind')}`, now `{kind}`)",
                        hint="a tool that asks for input must ask the same questions in the "
                        "same order each time it runs with the same answers",
                    )
                return recorded
            key = QUESTION_KEY.get() or f"q{index}"
            if any(key == taken for taken, _kind, _request in self.open):
                key = f"{key}-{index}"
            self.open.append((key, kind, request))
        for _ in range(_SETTLE_TICKS):
            await asyncio.sleep(0)
        raise ToolError(
            "waiting for the client's answer (the call resumes in the next round)",
            code=ErrorCode.CANCELLED,
            retryable=False,
        )

    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicitation:
        """Ask the client's user: the recorded answer, or a question for the next round."""
        if self._caps is None or self._caps.elicitation is None:
            self.missing.add("elicitation")
        check_form(self._caps, message, schema)
        params = {"mode": "form", "message": message, "requestedSchema": dict(schema)}
        answer = await self._answer("elicit", {"method": "elicitation/create", "params": params})
        return Elicitation(action=answer["action"], content=answer.get("content"))

    async def sample(
        self, messages: Sequence[SampleMessage], system: str | None, max_tokens: int
    ) -> str:
        """Ask the client's model: the recorded text, or a question for the next round."""
        if self._caps is None or self._caps.sampling is None:
            self.missing.add("sampling")
            raise ToolError(
                "the MCP client offers no language model (no sampling capability)",
                code=ErrorCode.NOT_SUPPORTED,
                hint="use a client that supports sampling",
            )
        params = sampling_params(messages, system, max_tokens)
        answer = await self._answer(
            "sample", {"method": "sampling/createMessage", "params": params}
        )
        return str(answer["text"])

    async def roots(self) -> list[Root]:
        """The client's roots: the recorded list, or a question for the next round."""
        if self._caps is None or self._caps.roots is None:
            self.missing.add("roots")
            raise ToolError(
                "the MCP client offers no roots (no roots capability)",
                code=ErrorCode.NOT_SUPPORTED,
                hint="use a client that supports roots",
            )
        answer = await self._answer("roots", {"method": "roots/list", "params": {}})
        return list(answer["roots"])


class UntilAnswered:
    """A recording sink that holds a 2026-07-28 round's records until the round ends: the
    call's own record is written only by the round that answers it (one that stopped at a
    question answers nothing yet); the calls it made inside (``ctx.run_tool``) did run, and
    are written whatever the round."""

    def __init__(self, sink: CallSink) -> None:
        self.sink = sink
        self.kept: list[tuple[Any, ...]] = []

    def record_call(
        self,
        scope: Recording,
        result: Any,
        arguments: Mapping[str, Any] | None,
        tool_version: str | None,
        status: str | None = None,
    ) -> None:
        self.kept.append((scope, result, arguments, tool_version, status))

    def __getattr__(self, name: str) -> Any:  # the rest (kept results) goes to the sink
        return getattr(self.sink, name)

    def flush(self, *, asked: bool) -> None:
        for scope, *rest in self.kept:
            if not (asked and scope.parent_call_id is None):
                self.sink.record_call(scope, *rest)
        self.kept.clear()
