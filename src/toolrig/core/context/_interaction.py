"""What a running tool may ask of whoever runs it: log, ask a person, ask a model, list roots.

A tool calls ``ctx.log(...)``, ``await ctx.elicit(...)``, ``await ctx.sample(...)`` and
``await ctx.roots()`` on its
`ToolContext`; the answers come from an `Interaction`, the hooks set by
whoever runs the call. The MCP server sets hooks that go to the client; the agent sets a
sampler over its own LLM client; an application sets an elicitor that asks its user (or an
approval policy). The hooks travel in a context variable, so the call pipeline carries them
without knowing them, and a call started inside `tool_interaction` sees them.

Where nothing can answer, the tool gets an error it can report, never a wait: eliciting
without an elicitor is ``permission_denied``, sampling without a sampler (or roots without a
lister) ``not_supported``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any, Final, Literal, TypeAlias

from toolrig.core.model._on_first_use import logging

__all__ = [
    "LOG_LEVELS",
    "QUESTION_KEY",
    "Elicitation",
    "Elicitor",
    "Interaction",
    "LogLevel",
    "LogSink",
    "Root",
    "RootsLister",
    "SampleMessage",
    "Sampler",
    "current_interaction",
    "log_to_python",
    "offer_hooks",
    "tool_interaction",
]

LogLevel: TypeAlias = Literal[
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
]
"""The syslog severities MCP uses, least severe first."""

LOG_LEVELS: Final[tuple[LogLevel, ...]] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)

_PYTHON_LEVELS: Final = {
    "debug": 10,  # logging.DEBUG
    "info": 20,  # logging.INFO
    "notice": 25,
    "warning": 30,  # logging.WARNING
    "error": 40,  # logging.ERROR
    "critical": 50,  # logging.CRITICAL
    "alert": 55,
    "emergency": 60,
}
"""MCP's levels as ``logging``'s numbers (its documented values, written out so that defining
the table does not import ``logging``; the default sink imports it on its first use)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Elicitation:
    """A person's answer to `elicit`: ``accept`` with ``content``
    (matching the requested schema), ``decline``, or ``cancel`` (dismissed)."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None

    @property
    def accepted(self) -> bool:
        """True when the person answered."""
        return self.action == "accept"


SampleMessage: TypeAlias = Mapping[str, Any]
"""``{"role": "user" | "assistant", "content": "text"}``."""

Elicitor: TypeAlias = Callable[[str, Mapping[str, Any]], Awaitable[Elicitation]]
"""``await elicitor(message, requested_schema)``: ask a person; never raises for a refusal
(that is ``Elicitation(action="decline")``)."""

Sampler: TypeAlias = Callable[[Sequence[SampleMessage], str | None, int], Awaitable[str]]
"""``await sampler(messages, system_prompt, max_tokens)``: the model's text answer."""

Root: TypeAlias = Mapping[str, Any]
"""``{"uri": "file:///...", "name": "..."}``: a place the client lets the tool work in."""

RootsLister: TypeAlias = Callable[[], Awaitable[Sequence[Root]]]
"""``await roots()``: the client's roots (MCP ``roots/list``)."""

QUESTION_KEY: ContextVar[str | None] = ContextVar("toolrig_question_key", default=None)
"""The name the tool gave the question being asked (``ctx.elicit(..., key=...)``), read by
hooks that name questions: MCP 2026-07-28 keys its input requests by it."""

LogSink: TypeAlias = Callable[[LogLevel, Any, str | None], None]
"""``sink(level, data, logger_name)``; called from any thread, must not block."""


def log_to_python(level: LogLevel, data: Any, logger: str | None) -> None:
    """The default sink: Python's ``logging``, under ``toolrig.tool`` (or ``logger``)."""
    logging.getLogger(logger or "toolrig.tool").log(_PYTHON_LEVELS[level], "%s", data)


@dataclass(frozen=True, slots=True, kw_only=True)
class Interaction:
    """The hooks a running tool reaches through its context; ``None`` means nothing answers."""

    elicitor: Elicitor | None = None
    sampler: Sampler | None = None
    log: LogSink = log_to_python
    roots: RootsLister | None = None


_NONE: Final = Interaction()
_CURRENT: ContextVar[Interaction | None] = ContextVar("toolrig_interaction", default=None)


def current_interaction() -> Interaction:
    """The hooks in effect here (those of the innermost `tool_interaction`)."""
    return _CURRENT.get() or _NONE


@contextlib.contextmanager
def tool_interaction(
    *,
    elicitor: Elicitor | None = None,
    sampler: Sampler | None = None,
    log: LogSink | None = None,
    roots: RootsLister | None = None,
    fill_only: bool = False,
) -> Iterator[Interaction]:
    """Calls started inside the block reach these hooks through their context; hooks not given
    stay as they were. With ``fill_only``, only hooks that are still unset are set (how a
    runner offers a default without overriding the application's choice)."""
    now = current_interaction()
    changes: dict[str, Any] = {}
    hooks = (("elicitor", elicitor), ("sampler", sampler), ("log", log), ("roots", roots))
    for name, hook in hooks:
        if hook is None:
            continue
        unset = getattr(now, name) is None or (name == "log" and now.log is log_to_python)
        if not fill_only or unset:
            changes[name] = hook
    token = _CURRENT.set(replace(now, **changes))
    try:
        yield current_interaction()
    finally:
        _CURRENT.reset(token)


def offer_hooks(*, elicitor: Elicitor | None = None, sampler: Sampler | None = None) -> None:
    """Set the hooks still unset in the current context (for a runner that owns a copied
    context, such as an agent run: ``run.context.run(offer_hooks, sampler=...)``)."""
    now = current_interaction()
    _CURRENT.set(replace(now, elicitor=now.elicitor or elicitor, sampler=now.sampler or sampler))
