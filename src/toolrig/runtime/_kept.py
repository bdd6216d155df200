"""Where the whole output of a cut result is kept, and read back by its handle.

In the execution log of the run the call is recorded in, when one is open (its sink keeps
results: ``ExecutionLog.keep_result``, the ``results`` table); otherwise in a store in
memory, bounded in size (`MEMORY`: the oldest go first), which lives as long as the process.
A handle is 24 random hex digits: it cannot be guessed, so holding one is what lets a
caller read a result.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from typing import Final

from toolrig.core.context._recording import RECORDING

__all__ = ["HANDLE_PREFIX", "MEMORY", "RESULT_URI", "MemoryResults", "keep", "read_kept"]

HANDLE_PREFIX: Final = "res_"
RESULT_URI: Final = "toolrig://results/"
"""The URI of a kept output is this and its handle (an MCP ``resource_link``)."""


class MemoryResults:
    """Whole outputs by handle, at most ``max_chars`` characters in all (oldest dropped)."""

    def __init__(self, max_chars: int = 64_000_000) -> None:
        self.max_chars = max_chars
        self._texts: OrderedDict[str, str] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def keep(self, handle: str, text: str) -> bool:
        """Keep ``text`` under ``handle``; ``False`` when it is larger than the whole store."""
        if len(text) > self.max_chars:
            return False
        with self._lock:
            self._texts[handle] = text
            self._size += len(text)
            while self._size > self.max_chars:
                _, old = self._texts.popitem(last=False)
                self._size -= len(old)
        return True

    def read(self, handle: str) -> str | None:
        with self._lock:
            return self._texts.get(handle)


MEMORY: Final = MemoryResults()
"""The results cut outside any run with a log (64 million characters at most)."""


def new_handle() -> str:
    return HANDLE_PREFIX + secrets.token_hex(12)


def keep(text: str, tool: str, tool_call_id: str | None) -> str | None:
    """Keep ``text`` (a call's whole output); its handle, or ``None`` when it could not be
    kept anywhere."""
    handle = new_handle()
    scope = RECORDING.get()
    keeper = getattr(scope.sink, "keep_result", None) if scope is not None else None
    if keeper is not None and scope is not None:
        try:
            keeper(handle, text, run_id=scope.run_id, tool=tool, tool_call_id=tool_call_id)
        except Exception:  # the log refused it (told and warned about there): keep it here
            pass
        else:
            return handle
    return handle if MEMORY.keep(handle, text) else None


def read_kept(handle: str) -> str | None:
    """The whole output kept under ``handle``: from the current run's log, else memory."""
    scope = RECORDING.get()
    reader = getattr(scope.sink, "read_result", None) if scope is not None else None
    if reader is not None:
        try:
            text = reader(handle)
        except Exception:
            text = None
        if isinstance(text, str):
            return text
    return MEMORY.read(handle)
