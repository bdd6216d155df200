"""Tools that need an outside service (search trends, video or image generation, an LLM).

Offline they fail with a clear ``permission_denied`` error naming what is missing.
"""

from __future__ import annotations

import os
from typing import Any

from toolrig import ToolError


def _needs(service: str, variable: str) -> None:
    if not os.environ.get(variable):
        raise ToolError(
            f"This tool needs {service}; set {variable} to enable it.",
            code="permission_denied",
            hint="Continue without this tool.",
        )
    raise ToolError(f"{service} is not wired in this example.", hint="Continue without this tool.")


def google_trends(keywords: list[str], timeframe: str = "today 3-m", geo: str | None = None) -> Any:
    _needs("Google Trends access", "GOOGLE_TRENDS_API_KEY")


def video_generator(
    storyboard: list[dict[str, Any]], duration: int = 30, aspect_ratio: str = "16:9"
) -> Any:
    _needs("a video generation service", "VIDEO_API_KEY")


def ad_creative_generator(
    insights: list[str], channel: str = "instagram", variants: int = 3
) -> Any:
    _needs("an image/copy generation model", "LLM_API_KEY")


def storyboard_generator(insights: list[str], scenes: int = 5) -> Any:
    _needs("an LLM", "LLM_API_KEY")


def sales_material_generator(
    insights: list[str], audience: str = "retail buyers", format: str = "one_pager"
) -> Any:
    _needs("an LLM", "LLM_API_KEY")
