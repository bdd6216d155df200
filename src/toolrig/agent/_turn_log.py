"""A run's model turns in the execution log: what each turn was given (the messages new since
the last turn, the tools offered and the settings; see ``storage._turn_input``) and what the
model answered, secret arguments redacted."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from toolrig.agent._client import Conversation, LLMClient, LLMTurn
from toolrig.agent._toolsets import ToolEntry
from toolrig.core.context._recording import Recording
from toolrig.core.result._result import ToolResult
from toolrig.providers._calls import ParsedCall
from toolrig.runtime._request import ToolCall
from toolrig.storage._log import ExecutionLog
from toolrig.storage._turn_input import redact, schema_hash, secret_parameters, turn_input

__all__ = ["TurnLog", "describe"]


class TurnLog:
    """Records the turns of one run (nothing when the agent has no log)."""

    def __init__(
        self,
        log: ExecutionLog | None,
        recording: Recording | None,
        client: LLMClient,
        conversation: Conversation,
        streaming: bool,
    ) -> None:
        self.log = log
        self.recording = recording
        self.client = client
        self.conversation = conversation
        self.streaming = streaming
        self._sent = 0
        """Messages already recorded as some turn's input."""
        self._secrets: frozenset[str] = frozenset()
        """The offered tools' secret parameter names (redacted in the turns' records)."""
        self.fresh = True
        """Whether the last model turn was asked now (not given back by a durable replay)."""

    def given(self, entries: Sequence[ToolEntry]) -> dict[str, Any] | None:
        """What the model is given this turn (``None`` when nothing is recorded)."""
        if self.recording is None:
            return None
        messages = self.conversation.messages
        first, self._sent = self._sent, len(messages)
        client = self.client
        config = client.config
        settings = {
            "model": client.model,
            "provider": client.provider,
            "max_tokens": getattr(config, "max_tokens", None),
            "temperature": getattr(config, "temperature", None),
            "streaming": self.streaming,
            **dict(getattr(config, "settings", None) or {}),
        }
        tools = [
            {
                "name": e.name,
                "schema_hash": schema_hash([e.action_spec.description, e.action_spec.parameters]),
            }
            for e in entries
        ]
        self._secrets = secret_parameters([e.action_spec.parameters for e in entries])
        return turn_input(
            messages=messages,
            first=first,
            system=self.conversation.system,
            tools=tools,
            settings={k: v for k, v in settings.items() if v is not None},
            secret_keys=self._secrets,
        )

    def record(
        self,
        index: int,
        given: Mapping[str, Any] | None,
        turn: LLMTurn | None,
        error: str | None,
        t0: float,
    ) -> None:
        """Record turn ``index``: what it was ``given`` and the model's ``turn`` (or
        ``error``), timed from ``t0`` (``time.perf_counter()``)."""
        scope, log = self.recording, self.log
        if scope is None or log is None or not self.fresh:  # a replayed turn: recorded
            return
        output = (
            None
            if turn is None
            else {
                "text": turn.text,
                "tool_calls": [describe(c) for c in turn.calls],
                "input_tokens": turn.usage.input_tokens,
                "output_tokens": turn.usage.output_tokens,
                **({"fallbacks": turn.fallbacks} if turn.fallbacks else {}),
            }
        )
        log.record_turn(
            scope.narrowed(step_id=f"turn{index}"),
            model=(turn.model if turn is not None else None) or self.client.model,
            provider=self.client.provider,
            input_data=given,
            output=redact(output, self._secrets),
            error=error,
            duration_ms=(time.perf_counter() - t0) * 1000,
        )


def describe(call: ParsedCall) -> dict[str, Any]:
    """A call as steps and turn records show it: its name, arguments and id (or, for a call
    that could not be read, its error code)."""
    if isinstance(call, ToolCall):
        return {"name": call.name, "arguments": call.arguments, "id": call.tool_call_id}
    meta = call.metadata if isinstance(call, ToolResult) else None
    return {
        "name": meta.tool if meta else "?",
        "id": meta.tool_call_id if meta else None,
        "error": call.error.code if call.error else None,
    }
