"""Runtime: the one call pipeline (validation, hooks, middleware, time limits, retries, output
checks, events), the executor that runs it over a catalogue, and plans.

The pipeline and the executor load with the package; plans load on first use of their names.
"""

import typing as _typing

from toolrig.core.model._lazy import lazy_names as _lazy_names
from toolrig.runtime._budget import DEFAULT_RESULT_CHARS, result_budget
from toolrig.runtime._call import Call, CallNext, Middleware, PostHook, PreHook, Unset
from toolrig.runtime._events import EventKind, Listener, ToolEvent
from toolrig.runtime._executor import UNSET, ToolExecutor, default_executor
from toolrig.runtime._guardrail_checks import secret_scanner, size_check
from toolrig.runtime._guardrails import (
    GuardrailOutcome,
    GuardrailScope,
    InputGuardrail,
    OutputGuardrail,
    Verdict,
)
from toolrig.runtime._pipeline import Pipeline
from toolrig.runtime._policy import DEFAULT_TIMEOUT, TIMEOUT_ENV, CallPolicy
from toolrig.runtime._request import ToolCall
from toolrig.runtime._retry import RetryPolicy
from toolrig.runtime._tracing import disable_tracing, enable_tracing

if _typing.TYPE_CHECKING:
    from toolrig.runtime._plan import Plan, PlanError, PlanStep
    from toolrig.runtime._plan_check import PlanCheck
    from toolrig.runtime._plan_run import PlanResult, PlanRunner, StepEvent, StepStatus
    from toolrig.runtime._read_result import read_result

_LAZY = {
    "Plan": "toolrig.runtime._plan",
    "PlanCheck": "toolrig.runtime._plan_check",
    "PlanError": "toolrig.runtime._plan",
    "PlanResult": "toolrig.runtime._plan_run",
    "PlanRunner": "toolrig.runtime._plan_run",
    "PlanStep": "toolrig.runtime._plan",
    "StepEvent": "toolrig.runtime._plan_run",
    "StepStatus": "toolrig.runtime._plan_run",
    "read_result": "toolrig.runtime._read_result",
}


__getattr__ = _lazy_names(__name__, _LAZY)


__all__ = [
    "DEFAULT_RESULT_CHARS",
    "DEFAULT_TIMEOUT",
    "TIMEOUT_ENV",
    "UNSET",
    "Call",
    "CallNext",
    "CallPolicy",
    "EventKind",
    "GuardrailOutcome",
    "GuardrailScope",
    "InputGuardrail",
    "Listener",
    "Middleware",
    "OutputGuardrail",
    "Pipeline",
    "Plan",
    "PlanCheck",
    "PlanError",
    "PlanResult",
    "PlanRunner",
    "PlanStep",
    "PostHook",
    "PreHook",
    "RetryPolicy",
    "StepEvent",
    "StepStatus",
    "ToolCall",
    "ToolEvent",
    "ToolExecutor",
    "Unset",
    "Verdict",
    "default_executor",
    "disable_tracing",
    "enable_tracing",
    "read_result",
    "result_budget",
    "secret_scanner",
    "size_check",
]
