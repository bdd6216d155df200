"""Resumable SSE streams: the events each stream sent, kept in memory for a while.

The streamable-HTTP transport stores every event it sends on an SSE stream (and a "priming"
event, with an id and a ``retry`` delay, when a stream opens); a client whose stream broke
reconnects with ``Last-Event-ID`` and gets the events that came after, so the rest of a call
(its result included) is not lost. This is the SDK's ``EventStore`` interface, kept in this
process and bounded twice, because results may be large (an image is megabytes): the oldest
events go first once ``max_events`` are held or their JSON passes ``max_bytes``.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Final

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp_types import JSONRPCMessage

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_EVENTS", "InMemoryEventStore"]

DEFAULT_MAX_EVENTS: Final = 10_000
DEFAULT_MAX_BYTES: Final = 64 * 1024 * 1024


class InMemoryEventStore(EventStore):
    """Events by id, in the order sent; the oldest are dropped beyond ``max_events`` events or
    ``max_bytes`` of their JSON (one event larger than that is kept alone)."""

    def __init__(
        self, max_events: int = DEFAULT_MAX_EVENTS, *, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        if max_events < 1 or max_bytes < 1:
            raise ValueError("max_events and max_bytes must be at least 1")
        self.max_events = max_events
        self.max_bytes = max_bytes
        self._events: OrderedDict[EventId, tuple[StreamId, JSONRPCMessage | None, int]] = (
            OrderedDict()
        )
        self._bytes = 0
        self._ids = itertools.count(1)

    @property
    def size(self) -> int:
        """Events held. (Deliberately not ``__len__``: the SDK tests the store for truth, and an
        empty store must still count as one.)"""
        return len(self._events)

    @property
    def bytes_held(self) -> int:
        """The JSON size of the events held."""
        return self._bytes

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        event_id = f"{next(self._ids)}"
        weight = 0 if message is None else len(message.model_dump_json(by_alias=True))
        self._events[event_id] = (stream_id, message, weight)
        self._bytes += weight
        while len(self._events) > 1 and (
            len(self._events) > self.max_events or self._bytes > self.max_bytes
        ):
            _, (_, _, dropped) = self._events.popitem(last=False)
            self._bytes -= dropped
        return event_id

    async def replay_events_after(
        self, last_event_id: EventId, send_callback: EventCallback
    ) -> StreamId | None:
        found = self._events.get(last_event_id)
        if found is None:
            return None
        stream_id = found[0]
        after = False
        for event_id, (stream, message, _) in list(self._events.items()):
            if event_id == last_event_id:
                after = True
            elif after and stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id
