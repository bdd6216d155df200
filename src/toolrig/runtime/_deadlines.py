"""`Deadlines`: the time limit of the straight line's awaited calls, for a fraction of a
microsecond each.

``asyncio.timeout`` schedules and cancels a timer per call (≈ 3-5 µs, more than the rest of
the straight line). The straight line's calls share one limit, so their deadlines are put in
buckets of `STEP` seconds: a call joins its bucket's set and leaves it, and one timer per
bucket cancels the calls still in it (a call is stopped at most `STEP` late).
"""

from __future__ import annotations

import math
from typing import final

from toolrig.core.model._on_first_use import asyncio

__all__ = ["STEP", "Deadlines"]

STEP = 0.02
"""Seconds of one bucket: how late past its limit a call may be stopped."""


@final
class Deadlines:
    """The running calls of one limit on one event loop, by deadline bucket."""

    __slots__ = ("buckets", "limit", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop, limit: float) -> None:
        self.loop = loop
        self.limit = limit
        self.buckets: dict[int, set[asyncio.Task[object]]] = {}

    def enter(self, task: asyncio.Task[object]) -> int:
        """Stop ``task`` (cancel it) when the limit has passed; the key to `leave` with."""
        key = math.ceil((self.loop.time() + self.limit) / STEP)
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = set()
            self.loop.call_at(key * STEP, self._expire, key)
        bucket.add(task)
        return key

    def leave(self, key: int, task: asyncio.Task[object]) -> bool:
        """``task``'s call is over: whether its limit had passed (it was cancelled for it)."""
        bucket = self.buckets.get(key)
        if bucket is None:
            return True
        bucket.discard(task)
        return False

    def _expire(self, key: int) -> None:
        for task in self.buckets.pop(key, ()):
            task.cancel()
