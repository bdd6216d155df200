"""The scripted model server for the agent tests: see :mod:`llm_server` (``tests/llm_server``),
which checks every request as the real OpenAI and Anthropic APIs do."""

from llm_server import ScriptedLLM, Turn, tool_names, tool_results

__all__ = ["ScriptedLLM", "Turn", "tool_names", "tool_results"]
