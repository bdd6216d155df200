"""Core: the tool model (specs and options), schemas, validation, results and the ways to
define a tool.

Its everyday names are re-exported by :mod:`toolrig` itself; this package adds the few that
only library and integration authors need.
"""

from toolrig.core._action import Action
from toolrig.core._base import AssembledTool
from toolrig.core._content import Audio, Content, EmbeddedResource, Image, TextContent
from toolrig.core._events import Listeners, Outcome
from toolrig.core._interaction import (
    Elicitation,
    Elicitor,
    Interaction,
    LogLevel,
    LogSink,
    Sampler,
    tool_interaction,
)
from toolrig.core._options import ActionOptions, ToolOptions
from toolrig.core._runner import ToolRunner

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
