"""Cheap, process-unique call ids (a random per-process prefix plus a counter)."""

from __future__ import annotations

import itertools
import os

__all__ = ["made_here", "new_call_id"]

_PREFIX = "call_" + os.urandom(6).hex() + "_"
_counter = itertools.count(1)


def new_call_id() -> str:
    """A fresh tool-call id, unique within this process and very likely across processes.

    A counter with a random prefix costs ~0.15 µs where ``uuid4`` costs ~1.5 µs: ids are
    made on every call, so this matters.
    """
    return f"{_PREFIX}{next(_counter):x}"


def made_here(call_id: str) -> bool:
    """Whether ``call_id`` was made by :func:`new_call_id` in this process (so no earlier
    process can have used it)."""
    return call_id.startswith(_PREFIX)


def _reset_after_fork() -> None:
    global _PREFIX, _counter
    _PREFIX = "call_" + os.urandom(6).hex() + "_"
    _counter = itertools.count(1)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)
