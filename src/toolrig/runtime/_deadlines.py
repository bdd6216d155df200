"""`Deadlines`: the time limit of the straight line's awaited calls, for a fraction of a
microsecond each.

``asyncio.timeout`` schedules and cancels a timer per call (≈ 3-5 µs, more than the rest of
the straight line). The straight line's calls share one limit, so their deadlines are put in
buckets of `STEP` seconds: a call joins its bucket (a set of tasks) and leaves it, and one
timer per bucket cancels the tasks still in it, then marks it `EXPIRED` (a call is stopped at
most `STEP` late).
"""

from __future__ import annotations

import math
from typing import Final, final

from toolrig.core.model._on_first_use import asyncio

__all__ = ["EXPIRED", "STEP", "Deadlines"]

STEP: Final = 0.02
"""Seconds of one bucket: how late past its limit a call may be stopped."""

EXPIRED: Final = object()
"""Added to a bucket whose time has come (its tasks were cancelled for it)."""


@final
class Deadlines:
    """The running calls of one limit on one event loop, by deadline bucket."""

    __slots__ = ("buckets", "limit", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop, limit: float) -> None:
        self.loop = loop
        self.limit = limit
        self.buckets: dict[int, set[object]] = {}

    def enter(self, task: object) -> set[object]:
        """Cancel ``task`` when the limit has passed; its bucket (the call leaves it with
        ``bucket.discard(task)``, and was stopped for its limit if ``EXPIRED in bucket``)."""
        key = math.ceil((self.loop.time() + self.limit) / STEP)
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = set()
            self.loop.call_at(key * STEP, self._expire, key)
        bucket.add(task)
        return bucket

    def _expire(self, key: int) -> None:
        bucket = self.buckets.pop(key)
        for task in bucket:
            task.cancel()  # type: ignore[attr-defined]
        bucket.add(EXPIRED)
