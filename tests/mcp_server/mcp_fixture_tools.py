"""Functions the YAML tools of the MCP tests run (imported by the served subprocess)."""

from __future__ import annotations

import asyncio
import os


def add(a: int, b: int) -> int:
    return a + b


def boom(reason: str) -> str:
    raise RuntimeError(f"boom: {reason}")


async def nap(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "rested"


def pid() -> int:
    return os.getpid()
