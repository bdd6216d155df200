"""Define a tool three ways, execute good and bad calls, print structured results.

Run: python examples/quickstart.py
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from pydantic import Field

from toolrig import BaseTool, Tool, ToolExecutor, ToolParameter, action, tool


@tool
def add(a: int, b: int, note: str = "") -> int:
    """Add two integers.

    Args:
        a: First addend.
        b: Second addend.
        note: Ignored.
    """
    return a + b


class Counter(BaseTool):
    """A counter with two actions."""

    def __init__(self) -> None:
        super().__init__()
        self.value = 0

    @action
    def increment(self, by: Annotated[int, Field(ge=1, le=10)] = 1) -> int:
        """Increase the counter; returns the new value."""
        self.value += by
        return self.value

    @action
    def read(self) -> int:
        """The current value."""
        return self.value


greet = Tool(
    name="greet",
    description="Greet someone.",
    parameters=[ToolParameter(name="who", type="string", min_length=1)],
    func=lambda who: f"Hello, {who}!",
)


async def main() -> None:
    executor = ToolExecutor([add, Counter(), greet])
    for name, args in [
        ("add", {"a": 1, "b": 2}),
        ("add", {"a": "one"}),
        ("counter.increment", {"by": 3}),
        ("counter.increment", {"by": 30}),
        ("greet", {"who": "world"}),
        ("greeet", {"who": "world"}),
    ]:
        result = await executor.execute(name, args)
        print(f"{name}: {result}")
    results = await executor.execute_many([("add", {"a": i, "b": i}) for i in range(5)])
    print("many:", [r.output for r in results])


if __name__ == "__main__":
    asyncio.run(main())
