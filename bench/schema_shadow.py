"""Is toolrig's own signature -> schema builder worth keeping beside pydantic's?

``core/schema/_type_core.py`` and ``_type_schema.py`` build the pydantic-core and JSON schemas of tool
parameters for the common types themselves (anything else falls back to pydantic's own
``GenerateSchema``). This measures defining and exporting N generated tools both ways in one
run: with the builder, and with every signature sent to pydantic's fallback, which is what
dropping the builder would give. The answer decides whether the ~650 lines stay.

Run: ``.venv/bin/python bench/schema_shadow.py`` (``--quick``: 200 tools, for CI).
"""

from __future__ import annotations

import argparse
import statistics
import time
import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field

import toolrig.core.define._signature as signature
from toolrig import tool
from toolrig.core.schema._type_schema import Unsupported


def _functions(n: int) -> list[Callable[..., Any]]:
    salt = uuid.uuid4().hex[:8]
    made = []
    for i in range(n):

        def func(
            query: str,
            limit: Annotated[int, Field(ge=1, le=100)] = 10,
            mode: Literal["fast", "deep"] = "fast",
            tags: list[str] | None = None,
            score: float = 0.5,
        ) -> dict[str, Any]:
            return {}

        func.__name__ = f"tool_{salt}_{i}"
        func.__doc__ = f"Tool {i} ({salt}).\n\nArgs:\n    query: What to look for."
        made.append(func)
    return made


def _define_and_export(n: int) -> float:
    funcs = _functions(n)
    t0 = time.perf_counter()
    for func in funcs:
        made = tool(func)
        _ = made.spec.actions[made.spec.name].parameters
        made.get_action(made.spec.name).validator.validate({"query": "q"})  # type: ignore[union-attr]
    return (time.perf_counter() - t0) * 1000 / n


def _without_builder() -> Callable[[], None]:
    """Send every signature to pydantic (as if the builder were gone); returns the undo."""
    original_args, original_value = signature.arguments_schemas, signature.value_schemas

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise Unsupported("measured without the builder")

    signature.arguments_schemas = refuse  # type: ignore[assignment]
    signature.value_schemas = refuse  # type: ignore[assignment]

    def undo() -> None:
        signature.arguments_schemas = original_args  # type: ignore[assignment]
        signature.value_schemas = original_value  # type: ignore[assignment]

    return undo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 tools, 2 repeats (CI)")
    args = parser.parse_args()
    n, repeats = (200, 2) if args.quick else (1000, 5)
    own, fallback = [], []
    for _ in range(repeats):  # interleaved, so machine noise hits both alike
        own.append(_define_and_export(n))
        undo = _without_builder()
        try:
            fallback.append(_define_and_export(n))
        finally:
            undo()
    a, b = statistics.median(own), statistics.median(fallback)
    print(f"define + export + first call, per tool ({n} tools, median of {repeats}):")
    print(f"  toolrig's builder: {a:.3f} ms")
    print(f"  pydantic's own:    {b:.3f} ms   ({b / a:.2f}x)")
    print(f"  10,000 tools: {a * 10:.1f} s against {b * 10:.1f} s")


if __name__ == "__main__":
    main()
