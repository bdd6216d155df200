"""Which recorded step results a re-run of a plan may re-use.

A step is re-used only when its last successful record ran the same tool and action, at the
same tool version, with the same arguments once its references are resolved: change a step's
arguments, an output it reads, or the tool's version, and it runs again (and so does every step
that reads its output, whose resolved arguments change with it). Records that do not say their
version (written by other writers) are never re-used.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from toolrig.core.result._jsonable import to_jsonable

__all__ = ["RecordedSteps", "same_arguments"]


def _canonical(arguments: Any) -> str:
    """One text per JSON value (key order ignored), so equal arguments compare equal."""
    return json.dumps(to_jsonable(arguments), sort_keys=True, separators=(",", ":"))


def same_arguments(recorded: Any, resolved: Mapping[str, Any]) -> bool:
    """Whether ``recorded`` (decoded from the log) are the arguments ``resolved``."""
    return isinstance(recorded, Mapping) and _canonical(recorded) == _canonical(dict(resolved))


class RecordedSteps:
    """The records of a plan run's steps: the last successful one of each step, found again
    by step id, and how many each step has (which names its next call)."""

    def __init__(self, records: Iterable[Any], step_ids: Iterable[str]) -> None:
        ids = set(step_ids)
        self._last: dict[str, Any] = {}
        self._count: dict[str, int] = {}
        for record in records:  # oldest first: the last one of a step wins
            step_id = getattr(record, "step_id", None)
            if step_id in ids:
                self._count[step_id] = self._count.get(step_id, 0) + 1
                if getattr(record, "ok", True):
                    self._last[step_id] = record

    def call_id(
        self, plan_id: str, step_id: str, *, version: str, arguments: Mapping[str, Any]
    ) -> str:
        """The id of the step's next call: the same until the step has a new record, so a
        runner resumed after dying mid-step finds the call it had started (on a worker, say)
        instead of starting a second one; a new one once that call's outcome is recorded."""
        digest = hashlib.sha256(f"{version}\n{_canonical(arguments)}".encode()).hexdigest()
        return f"{plan_id}.{step_id}.{self._count.get(step_id, 0)}.{digest[:12]}"

    def reusable(
        self, step_id: str, *, tool: str, action: str, version: str, arguments: Mapping[str, Any]
    ) -> Any:
        """The record to re-use for this step run this way, or ``None``."""
        record = self._last.get(step_id)
        if record is None:
            return None
        if (
            getattr(record, "executor", None) != tool
            or getattr(record, "action", None) != action
            or getattr(record, "tool_version", None) != version
        ):
            return None
        return record if same_arguments(getattr(record, "input_data", None), arguments) else None
