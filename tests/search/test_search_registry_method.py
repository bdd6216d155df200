"""Search over a registry: ``ToolIndex.follow(registry)``."""

from __future__ import annotations

from toolrig import tool
from toolrig.registry import Registry
from toolrig.search import ToolIndex, select_tools_for_intent


@tool(tags=["weather"])
def forecast(city: str) -> str:
    """Weather forecast for a city: temperature, rain and wind for the next days."""
    return city


@tool(tags=["money"])
def convert_currency(amount: float, to: str) -> float:
    """Convert an amount of money into another currency at today's exchange rate."""
    return amount


def test_an_index_follows_the_registry() -> None:
    with Registry() as registry:
        registry.add(forecast)
        registry.add(convert_currency)
        index = ToolIndex.follow(registry)
        hits = index.search("will it rain in Paris tomorrow", k=2, mode="lexical")
        assert hits[0].tool == "forecast" and hits[0].score > 0
        registry.remove("forecast")
        assert all(h.tool != "forecast" for h in index.search("rain tomorrow", k=2))
        chosen = select_tools_for_intent(
            registry, registry.intents, ("money", "exchange rate"), index=index
        )
        assert chosen == ["convert_currency"]
