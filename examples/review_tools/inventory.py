"""Inventory from a local JSON file: stock checks and reorder suggestions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolrig import ToolError

_DEFAULT = Path(__file__).resolve().parent.parent / "data" / "inventory.json"


class InventoryManager:
    """Actions ``check_stock`` and ``suggest_reorder`` of the ``inventory_manager`` tool."""

    def __init__(self, path: Path = _DEFAULT) -> None:
        self.items: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))

    def check_stock(self, product: str) -> dict[str, Any]:
        item = self.items.get(product)
        if item is None:
            raise ToolError(
                f"Unknown product {product!r}.",
                code="not_found",
                hint=f"Known: {', '.join(self.items)}.",
            )
        weeks = item["stock"] / item["weekly_sales"] if item["weekly_sales"] else None
        return {"product": product, "stock": item["stock"], "weeks_of_cover": weeks}

    def suggest_reorder(self, weeks_target: int = 4, complaint_rate: float = 0.0) -> dict[str, Any]:
        orders = {}
        for product, item in self.items.items():
            need = item["weekly_sales"] * weeks_target * (1.0 - complaint_rate) - item["stock"]
            if need > 0:
                orders[product] = round(need)
        return {"orders": orders}
