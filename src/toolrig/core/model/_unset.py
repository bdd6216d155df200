"""`UNSET`: an option left out, told apart from ``None`` (which means "none").

A tool's ``timeout`` is unset (the executor's default limit applies), ``None`` (no limit) or
seconds; the same marker leaves a call's own ``timeout=`` to the tool. One marker, so every
layer tells the three states apart the same way.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["UNSET", "Unset"]


class Unset:
    """The type of `UNSET`: an option left out (the tool's or executor's default)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSET"

    def __reduce__(self) -> str:
        return "UNSET"  # one marker, also in a child process

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.is_instance_schema(
            cls,
            serialization=core_schema.plain_serializer_function_ser_schema(lambda _: None),
        )


UNSET: Final = Unset()
"""Marks an option left out (use the tool's or executor's default); ``None`` means "none"."""
