"""Standard-library modules and loggers that only some calls need, imported on first use.

``import asyncio`` costs about 20 ms of CPU here (with ``ssl``, ``socket``, ``subprocess`` and
``concurrent.futures``), ``import logging`` about 4 ms (with ``traceback`` and ``string``):
together a fifth of ``import toolrig``. A sync call never needs asyncio, and an async one runs
where asyncio is already imported; the executor's loggers are needed by its first call, not
by the import. A module uses ``asyncio.sleep(...)`` or ``logger.info(...)`` as usual;
``asyncio`` and ``logging`` here are stand-ins that import the module on their first
attribute read and then keep each attribute read, so later reads cost what a module
attribute costs. ``sys.modules`` only ever holds the real modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, cast

__all__ = ["asyncio", "lazy_logger", "logging"]


class _Module:
    """Stands for the module ``name``, imported on the first attribute read."""

    def __init__(self, name: str) -> None:
        self._name = name

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

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(logging.getLogger(self._name), attribute)
        if callable(value):  # a logger is one object per name: its methods stay, its data not
            setattr(self, attribute, value)
        return value

    def __repr__(self) -> str:
        return f"<logger {self._name}, made on first use>"


if TYPE_CHECKING:
    import asyncio as asyncio
    import logging as logging
else:
    asyncio = _Module("asyncio")
    logging = _Module("logging")


def lazy_logger(name: str) -> logging.Logger:
    """The logger ``name``, made (and ``logging`` imported) on its first use."""
    return cast("logging.Logger", _Logger(name))
