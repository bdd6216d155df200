"""``attempt_completion``: the agent's signal that the task is done, with its final result.

Defined with the agent loop that acts on it; offered here with the other built-in tools.
"""

from toolrig.agent._completion import CompletionOutput, attempt_completion

__all__ = ["CompletionOutput", "attempt_completion"]
