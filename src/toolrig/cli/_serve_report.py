"""What ``toolrig serve`` tells its operator on stderr while it runs: one line per finished
call (the access log) and one per hot reload, applied or rejected with the reason.

stderr, because over stdio the protocol owns stdout. With ``--json`` each line is a JSON
object, for log collectors.
"""

from __future__ import annotations

import json
import sys
import time
from typing import IO, Any

from toolrig.core.model._names import ActionRef
from toolrig.registry._events import ChangeEvent, ChangeKind
from toolrig.runtime._events import EventKind, ToolEvent

__all__ = ["AccessLog", "ReloadReport"]


def _emit(stream: IO[str], as_json: bool, text: str, data: dict[str, Any]) -> None:
    if as_json:
        line = json.dumps({"time": round(time.time(), 3), **data}, ensure_ascii=False)
    else:
        line = f"{time.strftime('%H:%M:%S')} {text}"
    print(line, file=stream, flush=True)


class AccessLog:
    """An executor listener printing one line per finished call: the call name, ``ok`` or the
    error code, the duration and the attempts."""

    __slots__ = ("as_json", "stream")

    def __init__(self, *, as_json: bool = False, stream: IO[str] | None = None) -> None:
        self.as_json = as_json
        self.stream = stream or sys.stderr

    def __call__(self, event: ToolEvent) -> None:
        if event.kind not in (EventKind.SUCCEEDED, EventKind.FAILED) or event.result is None:
            return
        result = event.result
        meta = result.metadata
        name = ActionRef.of_record(event.tool, event.action).call_name
        outcome = "ok" if result.success else (result.error.code if result.error else "failed")
        ms = meta.duration_ms if meta else 0.0
        attempts = meta.attempts if meta else event.attempt
        text = f"call {name} {outcome} {ms:.1f} ms" + (
            f" ({attempts} attempts)" if attempts > 1 else ""
        )
        data = {
            "event": "call",
            "tool": name,
            "outcome": outcome,
            "duration_ms": round(ms, 3),
            "attempts": attempts,
            "tool_call_id": event.tool_call_id,
        }
        _emit(self.stream, self.as_json, text, data)


class ReloadReport:
    """A catalogue change listener printing what each hot reload did: tools added, updated or
    removed (clients are then sent ``tools/list_changed``), or a file rejected with the reason
    (the last good version stays in service and the list the clients see does not change)."""

    __slots__ = ("as_json", "stream")

    def __init__(self, *, as_json: bool = False, stream: IO[str] | None = None) -> None:
        self.as_json = as_json
        self.stream = stream or sys.stderr

    def __call__(self, event: ChangeEvent) -> None:
        path = None if event.path is None else str(event.path)
        if event.kind is ChangeKind.FAILED:
            reasons = [str(e) for e in event.errors] or ["the file could not be loaded"]
            text = (
                f"reload rejected: {'; '.join(reasons)} (the last good version stays; "
                "tools/list_changed not sent)"
            )
            data = {"event": "reload", "outcome": "rejected", "path": path, "errors": reasons}
        else:
            version = f" v{event.version}" if event.version else ""
            text = f"reload applied: {event.kind} {event.name}{version} (tools/list_changed sent)"
            data = {
                "event": "reload",
                "outcome": "applied",
                "change": str(event.kind),
                "tool": event.name,
                "version": event.version,
                "path": path,
            }
        _emit(self.stream, self.as_json, text, data)
