"""Fallback models: when a model fails or is too slow, the run asks the next one.

``FallbackModel(primary, backup, ...)`` is an :class:`LLMClient` like any other, so an agent
takes it as its model. Each request goes to the models in order until one answers; a model is
passed over when its client raises (the SDK has already retried) or does not answer within
``timeout`` seconds. The turn names the model that answered and the ones passed over
(``LLMTurn.model``, ``LLMTurn.fallbacks``), so the execution log and the ``chat`` span record
them. A streamed turn moves on only before its first event: text already shown is not taken
back. The models must speak one message format (one provider), since they share the history.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from toolrig.agent._client import Conversation, LLMClient, LLMTurn, StreamEvent
from toolrig.core.result._result import ToolResult
from toolrig.providers._names import ToolSource

__all__ = ["FallbackModel", "ModelsFailed"]


class ModelsFailed(RuntimeError):
    """Every model of a :class:`FallbackModel` failed; ``failures`` holds each model's error."""

    def __init__(self, failures: list[tuple[str, str]]) -> None:
        self.failures = failures
        tried = "; ".join(f"{model}: {error}" for model, error in failures)
        super().__init__(f"every model failed ({tried})")


class FallbackModel(LLMClient):
    """The first of ``models`` that answers; see the module's documentation.

    ``timeout``: seconds each model has to answer (to its first streamed event), ``None`` for
    no limit beyond the run's own. ``fallback_on``: the exception types that move the request
    on (by default any ``Exception``; cancellation always propagates).
    """

    def __init__(
        self,
        *models: LLMClient,
        timeout: float | None = None,
        fallback_on: tuple[type[Exception], ...] = (Exception,),
    ) -> None:
        if len(models) < 2:
            raise ValueError("FallbackModel needs at least two models: the first and a fallback")
        formats = {m.provider for m in models}
        if len(formats) > 1:
            raise ValueError(
                "FallbackModel: the models share one conversation, so they must speak one "
                f"message format; got providers {sorted(formats)}"
            )
        if timeout is not None and timeout <= 0:
            raise ValueError("FallbackModel: timeout must be positive seconds (or None)")
        super().__init__(models[0].config)
        self.provider = models[0].provider
        self.models: tuple[LLMClient, ...] = models
        self.timeout = timeout
        self.fallback_on: tuple[type[Exception], ...] = (TimeoutError, *fallback_on)
        self._answered: LLMClient = models[0]

    @property
    def model(self) -> str:
        """The model that answered the last request (the first one before any request)."""
        return self._answered.model

    async def complete(self, conversation: Conversation, tools: ToolSource | None) -> LLMTurn:
        failures: list[tuple[str, str]] = []
        for client in self.models:
            try:
                async with asyncio.timeout(self.timeout):
                    turn = await client.complete(conversation, tools)
            except self.fallback_on as exc:
                failures.append((client.model, _reason(exc, self.timeout)))
                continue
            return self._answer(client, turn, failures)
        raise ModelsFailed(failures)

    async def stream(
        self, conversation: Conversation, tools: ToolSource | None
    ) -> AsyncIterator[StreamEvent]:
        failures: list[tuple[str, str]] = []
        for client in self.models:
            events = client.stream(conversation, tools)
            try:
                async with asyncio.timeout(self.timeout):
                    first = await anext(events, None)
            except self.fallback_on as exc:
                failures.append((client.model, _reason(exc, self.timeout)))
                await _close(events)
                continue
            try:
                item = first
                while item is not None:
                    yield (
                        self._answer(client, item, failures) if isinstance(item, LLMTurn) else item
                    )
                    item = await anext(events, None)
            finally:
                await _close(events)
            return
        raise ModelsFailed(failures)

    def _answer(self, client: LLMClient, turn: LLMTurn, failures: list[tuple[str, str]]) -> LLMTurn:
        """``turn``, naming the model that gave it and those passed over."""
        self._answered = client
        turn.model = client.model
        turn.fallbacks = [{"model": m, "error": e} for m, e in failures]
        return turn

    def add_turn(self, conversation: Conversation, turn: LLMTurn) -> None:
        self._answered.add_turn(conversation, turn)

    def add_results(
        self, conversation: Conversation, turn: LLMTurn, results: Sequence[ToolResult]
    ) -> None:
        self._answered.add_results(conversation, turn, results)

    def add_user(self, conversation: Conversation, text: str) -> None:
        self.models[0].add_user(conversation, text)

    async def aclose(self) -> None:
        for client in self.models:
            await client.aclose()


def _reason(exc: BaseException, timeout: float | None) -> str:
    if isinstance(exc, TimeoutError):
        return f"no answer within {timeout:g} s" if timeout is not None else "timed out"
    return f"{type(exc).__name__}: {exc}"


async def _close(events: AsyncIterator[StreamEvent]) -> None:
    close = getattr(events, "aclose", None)
    if close is not None:
        await close()
