"""Core: the tool model (specs and options), schemas, validation, results and the ways to
define a tool.

Its everyday names are re-exported by `toolrig` itself; this package adds the few that
only library and integration authors need.
"""

import typing as _typing

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
from toolrig.core.model._lazy import lazy_names as _lazy_names
from toolrig.core.result._content import (
    Audio,
    Content,
    EmbeddedResource,
    Image,
    ResourceLink,
    TextContent,
)

if _typing.TYPE_CHECKING:
    from toolrig.core.model._options import ActionOptions, ToolOptions

_LAZY = {
    "ActionOptions": "toolrig.core.model._options",
    "ToolOptions": "toolrig.core.model._options",
}
"""The option models, built with the first tool defined (pydantic's ``Field`` machinery)."""

__getattr__ = _lazy_names(__name__, _LAZY)

__all__ = [
    "Action",
    "ActionOptions",
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
    "ResourceLink",
    "Sampler",
    "TextContent",
    "ToolOptions",
    "ToolRunner",
    "tool_interaction",
]
