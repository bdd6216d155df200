"""An agent run's guardrails: the agent's own and its toolsets', as the run's
`GuardrailScope` (the pipeline's guardrail step reads it), and the run's end when one trips."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolrig.agent._result import AgentResult, AgentRunError
from toolrig.agent._toolsets import ToolEntry
from toolrig.runtime._guardrails import GuardrailScope, InputGuardrail, OutputGuardrail

__all__ = ["GuardrailTripped", "scope_for"]

Guardrail = InputGuardrail | OutputGuardrail


class GuardrailTripped(AgentRunError):
    """A guardrail's tripwire ended the run: no later call and no further model turn ran.
    ``outcome`` is what tripped; ``result`` holds everything the run did before."""

    def __init__(self, result: AgentResult[Any]) -> None:
        super().__init__(result)
        tripped = [o for o in result.guardrails if o.kind == "tripwire"]
        self.outcome = tripped[0] if tripped else None


def scope_for(
    scope: GuardrailScope, agent: Sequence[Guardrail], entries: Sequence[ToolEntry]
) -> GuardrailScope | None:
    """``scope`` set to check this turn's calls with the agent's guardrails and each entry's
    (``None`` when there are none, so calls take the pipeline's plain path)."""
    scope.inputs = tuple(g for g in agent if isinstance(g, InputGuardrail))
    scope.outputs = tuple(g for g in agent if isinstance(g, OutputGuardrail))
    scope.by_action = {
        (entry.spec.name, entry.action): (
            tuple(g for g in entry.guardrails if isinstance(g, InputGuardrail)),
            tuple(g for g in entry.guardrails if isinstance(g, OutputGuardrail)),
        )
        for entry in entries
        if entry.guardrails
    }
    if not agent and not scope.by_action and scope.tripped is None:
        return None
    return scope
