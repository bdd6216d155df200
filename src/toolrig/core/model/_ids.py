"""Cheap, process-unique call ids (a random per-process prefix plus a counter).

The prefix and the counter belong to an `IdSource`; `IDS` is the process's one instance, made
afresh in a forked child (whose ids must not repeat its parent's), and `new_call_id` and
`made_here` are its methods.
"""

from __future__ import annotations

import itertools
import os
from typing import Final

__all__ = ["IDS", "IdSource", "made_here", "new_call_id"]


class IdSource:
    """Call ids ``call_<random prefix>_<counter>``, unique among the ids it makes."""

    __slots__ = ("_counter", "prefix")

    def __init__(self) -> None:
        self.prefix = ""
        """What every id made here starts with (12 random hex digits between ``call_`` and
        ``_``)."""
        self._counter = itertools.count(1)
        self.reset()

    def reset(self) -> None:
        """A new random prefix and a counter from 1: no id made before can come again."""
        self.prefix = "call_" + os.urandom(6).hex() + "_"
        self._counter = itertools.count(1)

    def new(self) -> str:
        """A fresh tool-call id, unique within this source and very likely across processes.

        A counter with a random prefix costs ~0.15 µs where ``uuid4`` costs ~1.5 µs: ids are
        made on every call, so this matters.
        """
        return f"{self.prefix}{next(self._counter):x}"

    def made_here(self, call_id: str) -> bool:
        """Whether ``call_id`` was made by this source since its last reset (so no earlier
        process can have used it)."""
        return call_id.startswith(self.prefix)


IDS: Final = IdSource()
"""The call ids of this process (reset in a forked child)."""

new_call_id: Final = IDS.new
"""A fresh call id of this process (`IdSource.new` of `IDS`; bound once, as it runs on every
call)."""

made_here: Final = IDS.made_here
"""Whether a call id was made by `new_call_id` in this process."""


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=IDS.reset)
