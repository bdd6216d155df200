"""Agent: LLM clients over the official SDKs, and the loop in which a model chooses tools."""

from toolrig.agent.client import Conversation, LLMClient, LLMTurn, Usage
from toolrig.agent.completion import attempt_completion
from toolrig.agent.config import LLMConfig, LLMConfigError
from toolrig.agent.decide import NextAction, decide_next_action
from toolrig.agent.factory import make_client
from toolrig.agent.loop import Agent, AgentResult, AgentStep

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
