"""Core: the tool model (specs and options), schemas, validation, results and the ways to
define a tool.

Its everyday names are re-exported by :mod:`toolrig` itself; this package adds the few that
only library and integration authors need.
"""

from toolrig.core._action import Action
from toolrig.core._base import AssembledTool
from toolrig.core._events import Listeners, Outcome
from toolrig.core._options import ActionOptions, ToolOptions
from toolrig.core._runner import ToolRunner

__all__ = [
    "Action",
    "ActionOptions",
    "AssembledTool",
    "Listeners",
    "Outcome",
    "ToolOptions",
    "ToolRunner",
]
