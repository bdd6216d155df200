"""Agent: LLM clients over the official SDKs, and the loop in which a model chooses tools."""

from toolrig.agent._client import Conversation, LLMClient, LLMTurn, Usage
from toolrig.agent._completion import attempt_completion
from toolrig.agent._config import LLMConfig, LLMConfigError
from toolrig.agent._decide import NextAction, decide_next_action
from toolrig.agent._factory import make_client
from toolrig.agent._loop import Agent, AgentResult, AgentStep

__all__ = [
    "Agent",
    "AgentResult",
    "AgentStep",
    "Conversation",
    "LLMClient",
    "LLMConfig",
    "LLMConfigError",
    "LLMTurn",
    "NextAction",
    "Usage",
    "attempt_completion",
    "decide_next_action",
    "make_client",
]
