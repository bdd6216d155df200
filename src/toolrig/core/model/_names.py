"""The names an action is known by, written once: `ActionRef`.

A single-action tool is called by its own name. An action of a multi-action tool is called
``tool.action`` (how people write it) or ``tool__action`` (its exported name, which every LLM
provider accepts once made provider-safe). The catalogue, the providers' name map, the MCP
server, the agent's toolsets, the workers, the log and search all read these names from an
``ActionRef``; nothing else spells the rule out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = ["MAX_NAME_LENGTH", "ActionRef", "provider_safe_name"]

MAX_NAME_LENGTH: Final = 64
"""The longest function name every provider accepts."""

_VALID = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
_INVALID_CHAR = re.compile(r"[^A-Za-z0-9_-]")
_HASH_LENGTH = 8
_DOT, _WIRE = ".", "__"


def provider_safe_name(name: str) -> str:
    """``name`` if every provider accepts it, else a readable valid stand-in.

    Invalid characters become ``_``, a leading digit or ``-`` gets a ``_`` in front, and a name
    longer than 64 characters is cut and given a short hash of the original so that cut names
    stay distinct.
    """
    if _VALID.match(name):
        return name
    safe = _INVALID_CHAR.sub("_", name) or "_"
    if not (safe[0].isalpha() or safe[0] == "_") or not safe[0].isascii():
        safe = "_" + safe
    if len(safe) > MAX_NAME_LENGTH:
        import hashlib  # here, for the rare long name: with its C module it costs 3 ms to import

        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:_HASH_LENGTH]
        safe = f"{safe[: MAX_NAME_LENGTH - _HASH_LENGTH - 1]}_{digest}"
    return safe


@dataclass(frozen=True, slots=True)
class ActionRef:
    """One action of one tool, by name: ``tool``, ``action``, and whether the tool has several
    actions (then every name of the action carries the action's name, even when it equals the
    tool's)."""

    tool: str
    action: str
    multi: bool = False

    @classmethod
    def single(cls, tool: str) -> ActionRef:
        """The action of a single-action tool (it bears the tool's name)."""
        return cls(tool, tool, False)

    @property
    def call_name(self) -> str:
        """How people and plans name it: ``tool`` or ``tool.action``."""
        return f"{self.tool}{_DOT}{self.action}" if self.multi else self.tool

    @property
    def wire_name(self) -> str:
        """How it is exported: ``tool`` or ``tool__action`` (before `provider_name`)."""
        return f"{self.tool}{_WIRE}{self.action}" if self.multi else self.tool

    @property
    def provider_name(self) -> str:
        """The exported name made valid for every LLM provider."""
        return provider_safe_name(self.wire_name)

    @property
    def call_names(self) -> tuple[str, ...]:
        """Every name a catalogue answers to for this action."""
        return (self.call_name, self.wire_name) if self.multi else (self.tool,)

    @classmethod
    def parse(cls, name: str) -> ActionRef:
        """The reference a call name spells: ``tool.action`` and ``tool__action`` name an
        action of a multi-action tool, anything else a single-action tool (the catalogue
        decides whether it exists)."""
        for separator in (_DOT, _WIRE):
            tool, found, action = name.partition(separator)
            if found and tool and action:
                return cls(tool, action, True)
        return cls(name, name, False)

    @classmethod
    def of_record(cls, tool: str, action: str | None) -> ActionRef:
        """The reference a result or log record names: ``action`` missing or equal to ``tool``
        is the tool's one action (a record does not say whether its tool had several)."""
        if not action or action == tool:
            return cls(tool, tool, False)
        return cls(tool, action, True)

    def __str__(self) -> str:
        return self.call_name
