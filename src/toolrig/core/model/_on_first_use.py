"""Standard-library modules and loggers that only some calls need, imported on first use.

``import asyncio`` costs about 20 ms of CPU here (with ``ssl``, ``socket``, ``subprocess`` and
``concurrent.futures``), ``import logging`` about 4 ms (with ``traceback`` and ``string``):
together a fifth of ``import toolrig``. A sync call never needs asyncio, and an async one runs
where asyncio is already imported; the executor's loggers are needed by its first call, not
by the import, nor by a call that logs nothing. A module uses ``asyncio.sleep(...)`` or
``logger.info(...)`` as usual; ``asyncio`` and ``logging`` here are stand-ins that import the
module on their first attribute read and then keep each attribute read, so later reads cost
what a module attribute costs. ``sys.modules`` only ever holds the real modules.

Every call asks ``logger.isEnabledFor(logging.DEBUG)`` before writing its debug line. Until
something imports ``logging``, nothing can have configured it: the answer is the root
logger's default (WARNING and above), given without importing it, along with logging's level
numbers (documented, and unchanged since they were introduced). Importing it on a first call
instead cost 3.3 ms of CPU, ten times the call.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any, cast

__all__ = ["asyncio", "lazy_logger", "logging"]


class _Module:
    """Stands for the module ``name``, imported on the first attribute read."""

    def __init__(self, name: str, **known: Any) -> None:
        self._name = name
        self.__dict__.update(known)  # values read without importing the module

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(importlib.import_module(self._name), attribute)
        setattr(self, attribute, value)  # later reads find it without coming here
        return value

    def __repr__(self) -> str:
        return f"<{self._name}, imported on first use>"


class _Logger:
    """Stands for ``logging.getLogger(name)``, made on the first attribute read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def isEnabledFor(self, level: int) -> bool:
        """Whether the logger handles ``level``; before ``logging`` is imported, the default."""
        if "logging" not in sys.modules:
            return level >= _WARNING  # unconfigured: the root logger's level
        enabled = logging.getLogger(self._name).isEnabledFor
        self.__dict__["isEnabledFor"] = enabled  # from now on, the logger's own answer
        return enabled(level)

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(logging.getLogger(self._name), attribute)
        if callable(value):  # a logger is one object per name: its methods stay, its data not
            setattr(self, attribute, value)
        return value

    def __repr__(self) -> str:
        return f"<logger {self._name}, made on first use>"


_WARNING = 30

if TYPE_CHECKING:
    import asyncio as asyncio
    import logging as logging
else:
    asyncio = _Module("asyncio")
    logging = _Module(
        "logging", NOTSET=0, DEBUG=10, INFO=20, WARNING=_WARNING, ERROR=40, CRITICAL=50
    )


def lazy_logger(name: str) -> logging.Logger:
    """The logger ``name``, made (and ``logging`` imported) on its first use that needs it."""
    return cast("logging.Logger", _Logger(name))
