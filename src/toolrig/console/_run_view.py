"""One run as the run page shows it: its records in order, placed on a waterfall.

Each bar starts at the record's offset from the run's first start and is as long as its
duration, both as percentages of the run's span, so the template only lays them out. A model
turn carries what it was given (`TurnGiven`: the new messages, the tools offered with their
schema hashes, the settings); a call made from inside another names its parent's span.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolrig.console._catalog_view import redact
from toolrig.console._runs import derived_status
from toolrig.console._session_view import message_view
from toolrig.core.model._names import ActionRef
from toolrig.storage._log import ExecutionLog
from toolrig.storage._record import ExecutionRecord, RecordStatus
from toolrig.storage._runs import RunInfo, run_info

__all__ = ["RunView", "Span", "TurnGiven", "run_view"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnGiven:
    """What a model was given for one turn, as the log recorded it."""

    messages: list[dict[str, Any]]
    """The messages new since the previous turn, as the session page shows them."""
    first_message: int
    total_messages: int
    omitted: int
    """New messages left out to keep the record within its size cap."""
    system: str | None
    tools: list[dict[str, Any]]
    """``{"name", "schema_hash"}`` of each tool offered."""
    settings: dict[str, Any]


def turn_given(data: Any, secrets: Mapping[str, set[str]]) -> TurnGiven | None:
    """The turn input recorded in ``data`` (``None`` for a record without one), secret
    arguments of the tool calls in its messages masked."""
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        return None
    tools = [t for t in data.get("tools") or () if isinstance(t, dict)]
    messages = [
        message_view(m, dict(secrets)) if isinstance(m, dict) else {"role": "?", "content": m}
        for m in data["messages"]
    ]
    settings = data.get("settings")
    system = data.get("system")
    return TurnGiven(
        messages=messages,
        first_message=int(data.get("first_message") or 0),
        total_messages=int(data.get("total_messages") or len(messages)),
        omitted=int(data.get("omitted_messages") or 0),
        system=system if isinstance(system, str) else None,
        tools=tools,
        settings=settings if isinstance(settings, dict) else {},
    )


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
    given: TurnGiven | None = None
    """For a model turn: what it was given."""
    parent: int | None = None
    """For a call made from inside another: the index of that call's span."""

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
    denied: int = 0
    """Calls a person denied (not failures)."""
    info: RunInfo | None = None
    """The run's row: kind, agent or plan name, session, status, how it stopped."""

    @property
    def status(self) -> str:
        """The run row's status, else the one its records give."""
        if self.info is not None:
            return self.info.status
        return derived_status(self.failed, self.denied)

    @property
    def newest_id(self) -> int:
        return max((s.record.id or 0 for s in self.spans), default=0)


def run_view(
    log: ExecutionLog, run_id: str, secrets: Mapping[str, set[str]] | None = None
) -> RunView:
    """The run ``run_id`` (no spans when it has no records); the arguments named in
    ``secrets`` (by call name) are masked."""
    records = log.get_run(run_id)
    info = run_info(log, run_id)
    if secrets:
        for r in records:
            name = ActionRef.of_record(r.executor, r.action).call_name
            r.input_data = redact(r.input_data, secrets.get(name))
            if r.executor_type == "llm":
                r.input_data = _masked_turn(r.input_data, secrets)
            calls = r.output.get("tool_calls") if isinstance(r.output, dict) else None
            for call in calls if isinstance(calls, list) else ():
                if isinstance(call, dict) and "arguments" in call:
                    call["arguments"] = redact(
                        call["arguments"], secrets.get(str(call.get("name")))
                    )
    if not records:
        return RunView(
            run_id=run_id, spans=[], total_ms=0.0, cost=0.0, failed=0, versions=[], info=info
        )
    start = min(r.started_at for r in records)
    end = max(max(r.finished_at, r.started_at + r.duration_ms / 1000) for r in records)
    total = max(end - start, 1e-6)
    by_call = {r.tool_call_id: i for i, r in enumerate(records) if r.tool_call_id}
    spans = [
        Span(
            record=r,
            offset=round(100 * (r.started_at - start) / total, 3),
            width=max(0.6, round(100 * (r.duration_ms / 1000) / total, 3)),
            json=json.dumps(_record_data(r), ensure_ascii=False, indent=2, default=str),
            given=turn_given(r.input_data, secrets or {}) if r.executor_type == "llm" else None,
            parent=by_call.get(r.parent_call_id) if r.parent_call_id else None,
        )
        for r in records
    ]
    versions = sorted({r.tool_version for r in records if r.tool_version})
    return RunView(
        run_id=run_id,
        spans=spans,
        total_ms=total * 1000,
        cost=sum(r.cost or 0.0 for r in records),
        failed=sum(r.status == RecordStatus.FAILED for r in records),
        denied=sum(r.status == RecordStatus.DENIED for r in records),
        versions=versions,
        info=info,
    )


def _masked_turn(data: Any, secrets: Mapping[str, set[str]]) -> Any:
    """A turn input whose messages' tool calls have their secret arguments masked (they are
    JSON text in the client's format, which the log's own redaction does not open)."""
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        return data
    messages = []
    for message in data["messages"]:
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        if isinstance(calls, list):
            message = {**message, "tool_calls": [_masked_call(c, secrets) for c in calls]}
        messages.append(message)
    return {**data, "messages": messages}


def _masked_call(call: Any, secrets: Mapping[str, set[str]]) -> Any:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        return call
    hidden = secrets.get(str(function.get("name")))
    arguments = function.get("arguments")
    if not hidden or not isinstance(arguments, (str, dict)):
        return call
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return call
    masked = redact(parsed, hidden)
    text = json.dumps(masked, ensure_ascii=False) if isinstance(arguments, str) else masked
    return {**call, "function": {**function, "arguments": text}}


def _record_data(record: ExecutionRecord) -> dict[str, Any]:
    """The record's fields, for "copy as JSON" (the log's own field list)."""
    return dataclasses.asdict(record)
