"""What every page handler shares: the console's state and its template environment.

Templates are autoescaped (a tool's output holding ``<script>`` shows as text); the filters
render times (in UTC, shown in the viewer's zone by the page's script), durations and JSON.
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from toolrig.console._watch import LogWatch
from toolrig.registry._catalog import Catalog
from toolrig.registry._events import ChangeEvent
from toolrig.runtime._executor import ToolExecutor
from toolrig.storage._log import ExecutionLog

__all__ = ["HERE", "Console", "templates"]

HERE = Path(__file__).parent


@dataclass(slots=True, kw_only=True)
class Console:
    """What every page handler reads: the log (and its watch), the catalogue, the executor
    and the token forms carry."""

    log: ExecutionLog
    watch: LogWatch
    catalog: Catalog
    executor: ToolExecutor
    csrf: str
    read_only: bool
    templates: Jinja2Templates
    changes: deque[tuple[float, ChangeEvent]] = field(default_factory=lambda: deque(maxlen=200))
    """The catalogue's changes since the console started (hot reloads), newest last."""

    def note_change(self, event: ChangeEvent) -> None:
        """A catalogue change listener: keep ``event`` for the catalogue page."""
        self.changes.append((time.time(), event))

    def page(self, request: Any, name: str, status: int = 200, **context: Any) -> Response:
        """Render template ``name`` with the shared context."""
        context.update(
            csrf=self.csrf,
            read_only=self.read_only,
            section=name.split(".")[0].split("_")[0],
        )
        response: Response = self.templates.TemplateResponse(
            request, name, context, status_code=status
        )
        return response


def _time(value: float | None) -> Markup:
    """A ``<time>`` element in UTC; the page's script shows it in the viewer's zone."""
    if value is None:
        return Markup("—")
    moment = datetime.fromtimestamp(float(value), tz=UTC)
    iso = moment.isoformat(timespec="milliseconds")
    return Markup('<time datetime="{0}">{1}</time>').format(
        iso, moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    )


def _ms(value: float | None) -> str:
    if value is None:
        return "—"
    if value >= 60_000:
        return f"{value / 60_000:.1f} min"
    if value >= 1000:
        return f"{value / 1000:.2f} s"
    return f"{value:.1f} ms" if value < 100 else f"{value:.0f} ms"


def _json(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _handles(text: str) -> list[str]:
    """The handles of cut results a record's output names (each links to its whole text)."""
    return list(dict.fromkeys(_HANDLE.findall(text)))


_HANDLE = re.compile(r"\bres_[0-9a-f]{24}\b")


def _size(value: int | None) -> str:
    if value is None:
        return "—"
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if value >= size:
            return f"{value / size:.1f} {unit}"
    return f"{value} B"


def _ago(value: float) -> str:
    seconds = max(0.0, time.time() - value)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit} ago"
    return f"{seconds:.0f} s ago"


def templates() -> Jinja2Templates:
    """The templates, autoescaped, with the console's filters."""
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"), autoescape=True, trim_blocks=True
    )
    env.filters.update(time=_time, ms=_ms, json=_json, ago=_ago, size=_size, handles=_handles)
    return Jinja2Templates(env=env)
