"""Runtime: the one call pipeline (validation, hooks, middleware, time limits, retries, output
checks, events), the executor that runs it over a catalogue, and plans."""

from toolrig.runtime.calls import CallInfo, ToolCall
from toolrig.runtime.events import EventKind, Listener, ToolEvent
from toolrig.runtime.executor import UNSET, ToolExecutor, default_executor
from toolrig.runtime.pipeline import (
    Call,
    CallNext,
    Middleware,
    Pipeline,
    PostHook,
    PreHook,
    Unset,
)
from toolrig.runtime.retry import RetryPolicy

__all__ = [
    "UNSET",
    "Call",
    "CallInfo",
    "CallNext",
    "EventKind",
    "Listener",
    "Middleware",
    "Pipeline",
    "PostHook",
    "PreHook",
    "RetryPolicy",
    "ToolCall",
    "ToolEvent",
    "ToolExecutor",
    "Unset",
    "default_executor",
]
