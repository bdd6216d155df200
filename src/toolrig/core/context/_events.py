"""One listener mechanism for every kind of event: calls, catalogue changes and plan steps.

A `Listeners` list is replaced, never mutated, so emitting needs no lock; a listener that
raises is logged and never stops the others or the work that emitted the event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import StrEnum
from typing import Generic, TypeVar

from toolrig.core.model._on_first_use import lazy_logger

__all__ = ["Listeners", "Outcome"]

E = TypeVar("E")

logger = lazy_logger("toolrig.events")


class Outcome(StrEnum):
    """How something ended, in the words every event and record uses: a call, a plan step,
    an execution-log record."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"


class Listeners(Generic[E]):
    """The callbacks told of one kind of event, in the order they were added."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: tuple[Callable[[E], None], ...] = ()
        """The listeners, in order (read it to test for "anyone listening" without a call)."""

    def add(self, listener: Callable[[E], None]) -> None:
        """Tell ``listener`` of every later event."""
        self.items = (*self.items, listener)

    def remove(self, listener: Callable[[E], None]) -> None:
        """Stop telling ``listener`` (no error when it was not listening).

        Compared by equality, not identity: ``obj.method`` is a new bound-method object on
        every access, yet two of them for the same object and function are equal.
        """
        self.items = tuple(x for x in self.items if not (x is listener or x == listener))

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def emit(self, event: E) -> None:
        """Deliver ``event`` to each listener; a failing listener is logged and skipped."""
        for listener in self.items:
            try:
                listener(event)
            except Exception:
                logger.exception(
                    "listener %s failed on a %s", _name(listener), type(event).__name__
                )

    def emit_all(self, events: Iterable[E]) -> None:
        """Deliver ``events`` in order."""
        for event in events:
            self.emit(event)


def _name(listener: object) -> str:
    """A listener's name for the log (never its ``repr``, which may fail or recurse)."""
    return str(getattr(listener, "__qualname__", None) or type(listener).__qualname__)
