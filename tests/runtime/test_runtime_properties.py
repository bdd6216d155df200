"""Property: whatever JSON-like arguments arrive, executing never raises and the result is
well-formed."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from toolrig import BaseTool, Tool, ToolExecutor, ToolParameter, ToolResult, action, tool


class Item(BaseModel):
    name: str
    qty: Annotated[int, Field(ge=0)]


@tool
def add(a: int, b: int, note: str = "") -> int:
    return a + b


@tool
def order(
    items: list[Item], mode: Literal["fast", "slow"] = "fast", meta: dict[str, str] | None = None
) -> int:
    return sum(i.qty for i in items)


@tool
async def echo(value: Any = None) -> Any:
    return value


@tool
def fragile(x: float) -> float:
    return 1 / x


class Store(BaseTool):
    @action
    def put(self, key: Annotated[str, Field(min_length=1, max_length=10)], value: int) -> bool:
        """Store."""
        return True


declared = Tool(
    name="declared",
    func=lambda **kw: kw,
    parameters=[
        ToolParameter(name="tags", type="array", item_type="string", min_items=1),
        ToolParameter(name="limit", type="integer", default=5, min=1, max=10),
        ToolParameter(name="when", type="string", required=False, format="date"),
    ],
)

EXECUTOR = ToolExecutor([add, order, echo, fragile, Store(), declared])
NAMES = ["add", "order", "echo", "fragile", "store.put", "store__put", "declared", "missing"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
arguments = st.one_of(
    st.dictionaries(
        st.sampled_from(
            [
                "a",
                "b",
                "note",
                "items",
                "mode",
                "meta",
                "value",
                "x",
                "key",
                "tags",
                "limit",
                "when",
                "zzz",
            ]
        )
        | st.text(max_size=6),
        json_values,
        max_size=6,
    ),
    json_values,
    st.text(max_size=30),
)


def well_formed(result: ToolResult) -> None:
    assert isinstance(result, ToolResult)
    assert result.metadata is not None and result.metadata.tool_call_id
    if result.success:
        assert result.error is None
    else:
        assert result.error is not None and result.error.code and result.error.message
    json.loads(result.to_json())
    assert isinstance(result.to_text(), str) and isinstance(result.to_pretty(), str)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), args=arguments, strict=st.booleans())
def test_execute_sync_never_raises(name: str, args: Any, strict: bool) -> None:
    well_formed(EXECUTOR.execute_sync(name, args, strict=strict))


@settings(max_examples=100, deadline=None)
@given(batch=st.lists(st.tuples(st.sampled_from(NAMES), arguments), max_size=8))
def test_execute_many_never_raises(batch: list[tuple[str, Any]]) -> None:
    results = EXECUTOR.execute_many_sync(batch)
    assert len(results) == len(batch)
    for result in results:
        well_formed(result)
