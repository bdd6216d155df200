"""The types of the commands' numeric options: a number the option cannot use is refused while
the command line is parsed, with the option's name and what it takes (exit 2), never later as
a traceback or as a call that fails for another reason.

One place for every count, port and duration, so each option is bounded the same way.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = ["at_least", "port", "seconds"]


def at_least(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """A whole number from ``minimum`` (to ``maximum``): the type of a count or a port."""

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum or (maximum is not None and value > maximum):
            wanted = f"at least {minimum}" if maximum is None else f"{minimum} to {maximum}"
            raise argparse.ArgumentTypeError(f"must be {wanted}, not {value}")
        return value

    return whole


def port(text: str) -> int:
    """A TCP port, 0 to 65535; 0 lets the system pick a free one."""
    return at_least(0, 65535)(text)


def seconds(text: str) -> float:
    """A time in seconds: a finite number above 0 (``nan``, ``inf``, 0 and below are not)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value
