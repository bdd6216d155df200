"""``Registry.search`` and the intent fallback, through the registry's own methods."""

from __future__ import annotations

from toolrig import tool
from toolrig.registry import Registry


@tool(tags=["weather"])
def forecast(city: str) -> str:
    """Weather forecast for a city: temperature, rain and wind for the next days."""
    return city


@tool(tags=["money"])
def convert_currency(amount: float, to: str) -> float:
    """Convert an amount of money into another currency at today's exchange rate."""
    return amount


def test_registry_search_follows_the_registry() -> None:
    registry = Registry()
    registry.add(forecast)
    registry.add(convert_currency)
    hits = registry.search("will it rain in Paris tomorrow", k=2, mode="lexical")
    assert hits[0].tool == "forecast" and hits[0].score > 0
    registry.remove("forecast")
    assert all(h.tool != "forecast" for h in registry.search("rain tomorrow", k=2))
    assert registry.select_tools_for_intent(("money", "exchange rate")) == ["convert_currency"]
    registry.close()
