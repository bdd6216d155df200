"""One run as the run page shows it: its records in order, placed on a waterfall.

Each bar starts at the record's offset from the run's first start and is as long as its
duration, both as percentages of the run's span, so the template only lays them out.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolrig.console._catalog_view import redact
from toolrig.core.model._names import ActionRef
from toolrig.storage._log import ExecutionLog
from toolrig.storage._record import ExecutionRecord

__all__ = ["RunView", "Span", "run_view"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Span:
    """One record and where its bar sits on the waterfall."""

    record: ExecutionRecord
    offset: float
    """Percent of the run's span before the bar starts."""
    width: float
    """Percent of the run's span the bar covers (at least a visible sliver)."""
    json: str
    """The whole record as JSON, for copying."""

    @property
    def name(self) -> str:
        r = self.record
        if r.executor_type == "llm":
            return f"model turn · {r.executor}"
        return ActionRef.of_record(r.executor, r.action).call_name


@dataclass(frozen=True, slots=True, kw_only=True)
class RunView:
    """A run's spans, its totals and its span in milliseconds."""

    run_id: str
    spans: list[Span]
    total_ms: float
    cost: float
    failed: int
    versions: list[str]


def run_view(
    log: ExecutionLog, run_id: str, secrets: Mapping[str, set[str]] | None = None
) -> RunView:
    """The run ``run_id`` (no spans when it has no records); the arguments named in
    ``secrets`` (by call name) are masked."""
    records = log.get_run(run_id)
    if secrets:
        for r in records:
            name = ActionRef.of_record(r.executor, r.action).call_name
            r.input_data = redact(r.input_data, secrets.get(name))
            calls = r.output.get("tool_calls") if isinstance(r.output, dict) else None
            for call in calls if isinstance(calls, list) else ():
                if isinstance(call, dict) and "arguments" in call:
                    call["arguments"] = redact(
                        call["arguments"], secrets.get(str(call.get("name")))
                    )
    if not records:
        return RunView(run_id=run_id, spans=[], total_ms=0.0, cost=0.0, failed=0, versions=[])
    start = min(r.started_at for r in records)
    end = max(max(r.finished_at, r.started_at + r.duration_ms / 1000) for r in records)
    total = max(end - start, 1e-6)
    spans = [
        Span(
            record=r,
            offset=round(100 * (r.started_at - start) / total, 3),
            width=max(0.6, round(100 * (r.duration_ms / 1000) / total, 3)),
            json=json.dumps(_record_data(r), ensure_ascii=False, indent=2, default=str),
        )
        for r in records
    ]
    versions = sorted({r.tool_version for r in records if r.tool_version})
    return RunView(
        run_id=run_id,
        spans=spans,
        total_ms=total * 1000,
        cost=sum(r.cost or 0.0 for r in records),
        failed=sum(not r.ok for r in records if r.status != "skipped"),
        versions=versions,
    )


def _record_data(record: ExecutionRecord) -> dict[str, Any]:
    """The record's fields, for "copy as JSON" (the log's own field list)."""
    return dataclasses.asdict(record)
