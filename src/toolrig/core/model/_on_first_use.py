"""Standard-library modules and loggers that only some calls need, imported on first use.

``import asyncio`` costs about 20 ms of CPU here (with ``ssl``, ``socket``, ``subprocess`` and
``concurrent.futures``), ``import logging`` about 4 ms (with ``traceback`` and ``string``):
together a fifth of ``import toolrig`` before this module. A sync call never needs asyncio,
and an async one runs where asyncio is already imported; the executor's loggers are needed
by a call that writes a log line, not by the import.

A module uses ``asyncio.sleep(...)`` or ``logger.info(...)`` as usual. Where the program has
imported the module already (most do, before ``toolrig``: the standard library sorts first),
``asyncio`` and ``logging`` here *are* the modules and ``lazy_logger`` gives the logger
itself. Otherwise ``asyncio`` and ``logging`` are module objects standing for them (not in
``sys.modules``), whose module ``__getattr__`` imports the real one on the first read of a
name and keeps each name read, so later reads are plain module attribute reads.

Every call asks ``logger.isEnabledFor(logging.DEBUG)`` before writing its debug line. Until
something imports ``logging``, nothing can have configured it: the stand-in logger answers
with the root logger's default (WARNING and above), and the stand-in module holds logging's
level numbers (documented, and unchanged since they were introduced). Importing ``logging``
on a first call instead cost 3.3 ms of CPU, ten times the call. Once it is imported, the
stand-in logger passes each method to the real one (kept on the stand-in after its first use).
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

__all__ = ["asyncio", "lazy_logger", "logging"]

_WARNING = 30
"""``logging.WARNING``, the root logger's level until logging is configured."""


def _stand_in(name: str, **known: Any) -> ModuleType:
    """The module ``name`` if it is imported, else a module object standing for it, with
    the ``known`` values already set."""
    if name in sys.modules:
        return sys.modules[name]
    stand_in = ModuleType(name, f"Stands for {name}, imported on the first read of a name.")

    def __getattr__(attribute: str) -> Any:  # PEP 562: called for names not yet read
        value = getattr(importlib.import_module(name), attribute)
        setattr(stand_in, attribute, value)  # later reads find it without coming here
        return value

    vars(stand_in).update(known, __getattr__=__getattr__)
    return stand_in


def _forward(method: str) -> Any:
    """A logger method of the stand-in: the first call makes the logger (importing
    ``logging``) and keeps its own method on the stand-in, so later calls go straight to it."""

    def forward(self: _Logger, *args: Any, **kwargs: Any) -> Any:
        real = getattr(logging.getLogger(self._name), method)
        vars(self)[method] = real  # from now on, the logger's own method
        kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1  # the caller, not this frame
        return real(*args, **kwargs)

    forward.__name__ = method
    return forward


class _Logger:
    """Stands for ``logging.getLogger(name)`` while ``logging`` is not imported. It has the
    methods toolrig's modules call and no ``__getattr__``: an attribute hook on the class
    would keep the interpreter from specialising ``logger.isEnabledFor`` (measured: 0.1 µs,
    3% of a sync call)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def isEnabledFor(self, level: int) -> bool:
        """Whether the logger handles ``level``; before ``logging`` is imported, the default."""
        if "logging" not in sys.modules:
            return level >= _WARNING  # unconfigured: the root logger's level
        enabled = logging.getLogger(self._name).isEnabledFor
        vars(self)["isEnabledFor"] = enabled  # from now on, the logger's own answer
        return enabled(level)

    debug = _forward("debug")
    info = _forward("info")
    warning = _forward("warning")
    error = _forward("error")
    exception = _forward("exception")
    critical = _forward("critical")
    log = _forward("log")

    def __repr__(self) -> str:
        return f"<logger {self._name}, made on first use>"


if TYPE_CHECKING:
    import asyncio as asyncio
    import logging as logging
else:
    asyncio = _stand_in("asyncio")
    logging = _stand_in(
        "logging", NOTSET=0, DEBUG=10, INFO=20, WARNING=_WARNING, ERROR=40, CRITICAL=50
    )


def lazy_logger(name: str) -> logging.Logger:
    """The logger ``name``: itself if ``logging`` is imported, else a stand-in that makes it
    (importing ``logging``) when a line is first written."""
    if "logging" in sys.modules:
        return logging.getLogger(name)
    return cast("logging.Logger", _Logger(name))
