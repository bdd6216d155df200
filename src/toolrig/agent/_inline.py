"""Held calls decided during the run: the agent's ``on_approval`` handler (a function or a
coroutine function) is asked about each call the gate held, and the calls it decides run in the
same turn, so the run goes on without stopping.

The handler decides like a person: its decisions are recorded (first writer wins, as for the
console and ``approvals=``) before any decided call runs. ``None`` leaves a call to a person
(the run stops holding it, as without a handler). A handler that raises, returns something
that is not a decision, or is still deciding when the run's time budget runs out decides
nothing: every call it was asked about stays held, and the run says why in ``result.error``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeAlias

from toolrig.agent._approval import Decision, PendingCall, decision_problem

__all__ = ["OnApproval", "ask_handler"]

OnApproval: TypeAlias = Callable[[PendingCall], "Decision | Awaitable[Decision | None] | None"]
"""Decides one held call: a `Decision`, or ``None`` to leave it to a person."""


async def ask_handler(
    handler: OnApproval, held: Sequence[PendingCall], deadline: float | None
) -> tuple[dict[str, Decision], str | None]:
    """The decisions ``handler`` gives ``held`` by call id (the calls it left out), or no
    decision and why when it failed on any of them."""
    chosen: dict[str, Decision] = {}
    for pending in held:
        call = f"call {pending.tool_call_id} ({pending.name})"
        try:
            async with asyncio.timeout_at(deadline):
                answer = handler(pending)
                if inspect.isawaitable(answer):
                    answer = await answer
        except TimeoutError:
            return {}, f"on_approval was still deciding {call} when the time budget ran out"
        except Exception as exc:  # the handler's own failure: nothing runs, all stay held
            return {}, f"on_approval raised {type(exc).__name__} deciding {call}: {exc}"
        if answer is None:
            continue
        problem = decision_problem(answer)
        if problem is not None:
            return {}, f"on_approval answered {call} with {problem}, or None to leave it"
        chosen[pending.tool_call_id] = answer
    return chosen, None
