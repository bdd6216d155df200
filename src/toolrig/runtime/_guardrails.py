"""Guardrails: checks of a call's arguments (`InputGuardrail`) and of its result
(`OutputGuardrail`), each answering a `Verdict`.

* ``Verdict.allow()``: the call goes on;
* ``Verdict.reject(message)``: the model reads ``message`` instead: the tool does not run
  (input), or its output never reaches the model (output);
* ``Verdict.tripwire(message)``: as reject, and the run ends (`GuardrailScope.tripped`; an
  agent raises ``GuardrailTripped``): no later call in the same scope runs.

A guardrail that raises is a failed check: the call is answered as rejected (fail closed).
Guardrails are set on a pipeline (every call, or the ``tools`` named), or for the calls made
inside a `GuardrailScope` (an agent's and its toolsets'). They are a seam for checks, not a
complete defence.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Collection
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from toolrig.core.model._on_first_use import asyncio
from toolrig.core.result._result import ToolResult
from toolrig.runtime._call import Call

__all__ = [
    "GUARDING",
    "GuardrailOutcome",
    "GuardrailScope",
    "InputGuardrail",
    "OutputGuardrail",
    "Verdict",
    "VerdictKind",
    "verdict_of",
]

VerdictKind = Literal["allow", "reject", "tripwire", "error"]
"""What a guardrail decided (``error``: it raised, and the call is answered as rejected)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A guardrail's answer; build it with `allow`, `reject` or `tripwire`."""

    kind: VerdictKind
    message: str = ""
    """For the model to read (reject and tripwire)."""

    def __post_init__(self) -> None:
        if self.kind not in ("allow", "reject", "tripwire", "error"):
            raise ValueError(f"a verdict is allow, reject or tripwire, not {self.kind!r}")

    @classmethod
    def allow(cls) -> Verdict:
        """The call goes on."""
        return _ALLOW

    @classmethod
    def reject(cls, message: str) -> Verdict:
        """The model reads ``message`` instead of the tool's answer."""
        return cls("reject", message)

    @classmethod
    def tripwire(cls, message: str) -> Verdict:
        """As `reject`, and the run ends."""
        return cls("tripwire", message)


_ALLOW: Final = Verdict("allow")

InputCheck = Callable[[Call], "Verdict | Awaitable[Verdict]"]
OutputCheck = Callable[[Call, ToolResult], "Verdict | Awaitable[Verdict]"]


class InputGuardrail:
    """``check(call)`` before the tool runs (the arguments are valid): a `Verdict`.
    ``name`` is named in outcomes (the check's by default); ``tools`` limits it to the tools
    named (``None``: every tool)."""

    __slots__ = ("check", "name", "tools")

    def __init__(
        self, check: InputCheck, *, name: str = "", tools: Collection[str] | None = None
    ) -> None:
        self.check = check
        self.name: str = name or getattr(check, "__name__", "input_guardrail")
        self.tools = None if tools is None else frozenset(tools)

    def applies_to(self, call: Call) -> bool:
        """Whether it checks ``call``."""
        return self.tools is None or call.tool in self.tools

    def __repr__(self) -> str:
        return f"InputGuardrail({self.name!r})"


class OutputGuardrail:
    """``check(call, result)`` after the tool ran, before anyone reads the result (``name``
    and ``tools`` as for `InputGuardrail`)."""

    __slots__ = ("check", "name", "tools")

    def __init__(
        self, check: OutputCheck, *, name: str = "", tools: Collection[str] | None = None
    ) -> None:
        self.check = check
        self.name: str = name or getattr(check, "__name__", "output_guardrail")
        self.tools = None if tools is None else frozenset(tools)

    def applies_to(self, call: Call) -> bool:
        """Whether it checks ``call``."""
        return self.tools is None or call.tool in self.tools

    def __repr__(self) -> str:
        return f"OutputGuardrail({self.name!r})"


@dataclass(frozen=True, slots=True, kw_only=True)
class GuardrailOutcome:
    """What one guardrail decided on one call (kept in results, events, spans and the log)."""

    guardrail: str
    stage: Literal["input", "output"]
    kind: VerdictKind
    message: str
    tool: str
    action: str
    tool_call_id: str

    def to_dict(self) -> dict[str, Any]:
        """As plain data (``metadata.extra["guardrail"]`` of the result)."""
        return {
            "guardrail": self.guardrail,
            "stage": self.stage,
            "verdict": self.kind,
            "message": self.message,
        }


Checks = tuple[tuple[InputGuardrail, ...], tuple[OutputGuardrail, ...]]
"""Input and output guardrails."""


@dataclass(slots=True, kw_only=True, eq=False)
class GuardrailScope:
    """The guardrails of the calls made inside it (an agent run's), and what they decided."""

    inputs: tuple[InputGuardrail, ...] = ()
    outputs: tuple[OutputGuardrail, ...] = ()
    outcomes: list[GuardrailOutcome] = field(default_factory=list)
    """Every verdict other than allow, in the order given."""
    tripped: GuardrailOutcome | None = None
    """The first tripwire: once set, no call in this scope runs."""
    by_action: dict[tuple[str, str], Checks] = field(default_factory=dict)
    checking: asyncio.Lock = field(default_factory=lambda: asyncio.Lock())
    """Held while a call's input guardrails run: the calls of a turn are checked one at a
    time in the order they started, so none passes a tripwire set before it."""
    """More guardrails for the calls of some actions (a toolset's), by (tool, action) name."""


GUARDING: ContextVar[GuardrailScope | None] = ContextVar("toolrig_guarding", default=None)
"""The guardrail scope of the calls made in this context (an agent run sets it)."""


async def verdict_of(returned: Verdict | Awaitable[Verdict]) -> Verdict:
    """The verdict a check returned (awaited when it is awaitable); anything that is not a
    `Verdict` is a failed check."""
    if inspect.isawaitable(returned):
        returned = await returned
    if not isinstance(returned, Verdict):
        raise TypeError(f"a guardrail must return a Verdict, not {type(returned).__name__}")
    return returned
