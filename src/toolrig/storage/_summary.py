"""A run's records as a short text an LLM can take as context."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolrig.core.model._names import ActionRef
from toolrig.storage._record import ExecutionRecord

__all__ = ["summarise"]


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text) - limit} more characters cut]"


def _render_output(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _line(index: int, record: ExecutionRecord, max_output_chars: int) -> str:
    name = ActionRef.of_record(record.executor, record.action).call_name
    step = f" (step {record.step_id})" if record.step_id else ""
    if record.ok:
        body = _shorten(_render_output(record.output).replace("\n", " "), max_output_chars)
        return f"{index}. [ok] {name}{step} -> {body}"
    code = record.error_code or record.status
    message = _shorten((record.error_message or "").replace("\n", " "), max(max_output_chars, 200))
    return f"{index}. [{code}] {name}{step}: {message}"


def summarise(
    records: Sequence[ExecutionRecord],
    run_id: str,
    *,
    max_chars: int,
    max_output_chars: int,
    lost: int = 0,
) -> str:
    """At most ``max_chars`` characters; errors are kept, the oldest successes go first.
    ``lost`` results that could not be recorded are said in the header."""
    if max_chars < 80:
        raise ValueError("max_chars must be at least 80")
    failed = sum(not r.ok for r in records)
    header = f"Run {run_id}: {len(records)} results ({len(records) - failed} ok, {failed} failed)."
    if lost:
        header += f" {lost} more could not be recorded."
    if not records:
        empty = f"Run {run_id}: no results yet."
        return f"{empty} {lost} could not be recorded." if lost else empty
    lines = [_line(i, r, max_output_chars) for i, r in enumerate(records, start=1)]
    keep = list(range(len(lines)))
    budget = max_chars - len(header) - 60

    def size(indexes: list[int]) -> int:
        return sum(len(lines[i]) + 1 for i in indexes)

    while keep and size(keep) > budget:
        oldest_ok = next((i for i in keep if records[i].ok), None)
        keep.remove(oldest_ok if oldest_ok is not None else keep[0])
    dropped = len(lines) - len(keep)
    parts = [header]
    if dropped:
        parts.append(f"({dropped} earlier results omitted)")
    parts.extend(lines[i] for i in keep)
    text = "\n".join(parts)
    return text if len(text) <= max_chars else text[: max_chars - 3] + "..."
