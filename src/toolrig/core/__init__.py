"""Core: the tool model (specs and options), schemas, validation, results and the ways to
define a tool.

Its everyday names are re-exported by :mod:`toolrig` itself; this package adds the few that
only library and integration authors need.
"""

from toolrig.core.context._events import Listeners, Outcome
from toolrig.core.context._interaction import (
    Elicitation,
    Elicitor,
    Interaction,
    LogLevel,
    LogSink,
    Sampler,
    tool_interaction,
)
from toolrig.core.context._runner import ToolRunner
from toolrig.core.define._action import Action
from toolrig.core.define._base import AssembledTool
from toolrig.core.model._options import ActionOptions, ToolOptions
from toolrig.core.result._content import Audio, Content, EmbeddedResource, Image, TextContent

__all__ = [
    "Action",
    "ActionOptions",
    "AssembledTool",
    "Audio",
    "Content",
    "Elicitation",
    "Elicitor",
    "EmbeddedResource",
    "Image",
    "Interaction",
    "Listeners",
    "LogLevel",
    "LogSink",
    "Outcome",
    "Sampler",
    "TextContent",
    "ToolOptions",
    "ToolRunner",
    "tool_interaction",
]
