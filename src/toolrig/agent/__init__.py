"""Agent: LLM clients over the official SDKs, and the loop in which a model chooses tools."""

from toolrig.agent._approval import (
    AllowForSession,
    Answer,
    ApprovalPolicy,
    Decision,
    Deny,
    Edit,
    PendingCall,
)
from toolrig.agent._claim import AlreadyDecided
from toolrig.agent._client import Conversation, LLMClient, LLMTurn, StreamEvent, TextDelta, Usage
from toolrig.agent._completion import attempt_completion
from toolrig.agent._config import LLMConfig, LLMConfigError
from toolrig.agent._decide import NextAction, decide_next_action
from toolrig.agent._events import (
    AgentEvent,
    ApprovalRequired,
    FinalOutput,
    PartialOutput,
    ToolCallFinished,
    ToolCallStarted,
)
from toolrig.agent._factory import make_client
from toolrig.agent._fallback import FallbackModel, ModelsFailed
from toolrig.agent._guards import GuardrailTripped
from toolrig.agent._limits import ModelPrice, RunLimits
from toolrig.agent._loop import Agent
from toolrig.agent._result import AgentResult, AgentRunError, AgentStep, RunContext
from toolrig.agent._toolsets import CatalogToolset, ToolEntry, Toolset

__all__ = [
    "Agent",
    "AgentEvent",
    "AgentResult",
    "AgentRunError",
    "AgentStep",
    "AllowForSession",
    "AlreadyDecided",
    "Answer",
    "ApprovalPolicy",
    "ApprovalRequired",
    "CatalogToolset",
    "Conversation",
    "Decision",
    "Deny",
    "Edit",
    "FallbackModel",
    "FinalOutput",
    "GuardrailTripped",
    "LLMClient",
    "LLMConfig",
    "LLMConfigError",
    "LLMTurn",
    "ModelPrice",
    "ModelsFailed",
    "NextAction",
    "PartialOutput",
    "PendingCall",
    "RunContext",
    "RunLimits",
    "StreamEvent",
    "TextDelta",
    "ToolCallFinished",
    "ToolCallStarted",
    "ToolEntry",
    "Toolset",
    "Usage",
    "attempt_completion",
    "decide_next_action",
    "make_client",
]
