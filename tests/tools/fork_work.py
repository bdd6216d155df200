"""Work for the fork server's lifecycle tests: module-level, so a worker can unpickle it."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from toolrig.core.model._errors import ToolError


def work(request: tuple[str, Any]) -> Any:
    """Do what ``request`` names: answer the worker's pid, sleep, die, fail, or return what
    cannot be pickled."""
    kind, value = request
    if kind == "pid":
        return os.getpid()
    if kind == "sleep":
        time.sleep(value)
        return os.getpid()
    if kind == "exit":
        os._exit(3)
    if kind == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if kind == "fail":
        raise ToolError("refused", code="permission_denied", hint="ask", details={"n": value})
    if kind == "unpicklable":
        return lambda: None
    raise ValueError(kind)
