"""Plans: steps ``{id, tool, action, params}`` whose params may reference earlier outputs.

A reference is ``${step_id.output}`` followed by any path of ``.key`` and ``[index]``, e.g.
``${analyze.output.errors[0]}``. A parameter whose whole value is one reference receives the
referenced value as it is (any type); a reference inside a longer string is written into it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolrig.core.model._names import ActionRef

__all__ = ["Plan", "PlanError", "PlanStep", "Reference", "find_references", "resolve_references"]

_REF = re.compile(r"\$\{([A-Za-z0-9_\-]+)\.output((?:\.[A-Za-z0-9_\-]+|\[-?\d+\])*)\}")
_PATH_PART = re.compile(r"\.([A-Za-z0-9_\-]+)|\[(-?\d+)\]")
_STEP_ID = re.compile(r"^[A-Za-z0-9_\-]{1,100}$")


class PlanError(ValueError):
    """A plan cannot run as written; ``problems`` lists every reason at once."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"the plan has {len(self.problems)} problem(s):\n{lines}")


@dataclass(frozen=True, slots=True)
class Reference:
    """``${step.output<path>}``: which step, and the path into its output."""

    step: str
    path: tuple[str | int, ...]
    text: str

    def lookup(self, output: Any) -> Any:
        """The referenced part of ``output``; ``LookupError`` naming the reference if absent."""
        value = output
        for part in self.path:
            try:
                if isinstance(part, int):
                    if not isinstance(value, list | tuple):
                        raise TypeError
                    value = value[part]
                else:
                    if not isinstance(value, Mapping):
                        raise TypeError
                    value = value[part]
            except (IndexError, KeyError, TypeError):
                raise LookupError(
                    f"{self.text}: the output of step {self.step!r} has no {_describe(part)}"
                ) from None
        return value


def _describe(part: str | int) -> str:
    return f"item [{part}]" if isinstance(part, int) else f"key {part!r}"


def _parse(match: re.Match[str]) -> Reference:
    path: list[str | int] = []
    for key, index in _PATH_PART.findall(match.group(2)):
        path.append(int(index) if index else key)
    return Reference(match.group(1), tuple(path), match.group(0))


def find_references(value: Any) -> list[Reference]:
    """Every reference inside ``value`` (strings, nested in lists and mappings)."""
    found: list[Reference] = []
    if isinstance(value, str):
        found.extend(_parse(m) for m in _REF.finditer(value))
    elif isinstance(value, Mapping):
        for item in value.values():
            found.extend(find_references(item))
    elif isinstance(value, list | tuple):
        for item in value:
            found.extend(find_references(item))
    return found


def resolve_references(value: Any, outputs: Mapping[str, Any]) -> Any:
    """``value`` with every reference replaced by the referenced output (a copy)."""
    if isinstance(value, str):
        whole = _REF.fullmatch(value)
        if whole:
            ref = _parse(whole)
            return ref.lookup(outputs[ref.step])

        def text(match: re.Match[str]) -> str:
            ref = _parse(match)
            found = ref.lookup(outputs[ref.step])
            return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)

        return _REF.sub(text, value)
    if isinstance(value, Mapping):
        return {k: resolve_references(v, outputs) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [resolve_references(v, outputs) for v in value]
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanStep:
    """One step: run ``tool`` (``action`` for multi-action tools) with ``params``."""

    id: str
    tool: str
    action: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    depends_on: tuple[str, ...] = ()
    """Steps to wait for besides those its references name."""

    @property
    def call_name(self) -> str:
        """The executor's name for this step's call."""
        if self.action is None:
            return self.tool
        return ActionRef(self.tool, self.action, True).call_name

    @property
    def dependencies(self) -> tuple[str, ...]:
        """Every step this one waits for, in first-mention order."""
        seen = dict.fromkeys(self.depends_on)
        for ref in find_references(self.params):
            seen.setdefault(ref.step)
        return tuple(seen)


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """A named list of steps. Running the same ``id`` again resumes it (with an execution log)."""

    id: str
    steps: tuple[PlanStep, ...]

    @classmethod
    def from_data(
        cls, data: Mapping[str, Any] | Sequence[Any], *, plan_id: str | None = None
    ) -> Plan:
        """From ``{"id": ..., "steps": [...]}`` or a bare list of step mappings."""
        problems: list[str] = []
        if isinstance(data, Mapping):
            unknown = set(data) - {"id", "steps"}
            if unknown:
                problems.append(f"unknown plan keys: {', '.join(sorted(unknown))}")
            raw_steps = data.get("steps")
            plan_id = plan_id or data.get("id")
        else:
            raw_steps = data
        if not isinstance(raw_steps, list | tuple) or not raw_steps:
            raise PlanError([*problems, "a plan needs a non-empty list of steps"])
        steps = []
        for index, raw in enumerate(raw_steps, start=1):
            step = _step(raw, index, problems)
            if step is not None:
                steps.append(step)
        if problems:
            raise PlanError(problems)
        if not plan_id:
            import uuid

            plan_id = f"plan-{uuid.uuid4().hex[:12]}"
        return cls(id=str(plan_id), steps=tuple(steps))

    @classmethod
    def from_json(cls, text: str, *, plan_id: str | None = None) -> Plan:
        """From JSON text."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PlanError([f"not valid JSON: {exc}"]) from None
        return cls.from_data(data, plan_id=plan_id)

    @classmethod
    def from_yaml(cls, text: str, *, plan_id: str | None = None) -> Plan:
        """From YAML text, read as definitions are (no aliases, nesting bounded: see
        ``registry._yamlsrc``)."""
        from toolrig.registry._yamlsrc import YamlSyntaxError, parse_yaml

        try:
            data = parse_yaml(text).data
        except YamlSyntaxError as exc:
            where = f"line {exc.line}: " if exc.line is not None else ""
            raise PlanError([f"not valid YAML: {where}{exc.message}"]) from None
        return cls.from_data(data, plan_id=plan_id)

    @classmethod
    def load(cls, path: str | Path) -> Plan:
        """From a ``.json``, ``.yaml`` or ``.yml`` file."""
        file = Path(path)
        text = file.read_text(encoding="utf-8")
        return cls.from_json(text) if file.suffix == ".json" else cls.from_yaml(text)

    def step(self, step_id: str) -> PlanStep:
        """The step with this id (``KeyError`` if none)."""
        for step in self.steps:
            if step.id == step_id:
                return step
        raise KeyError(step_id)


_STEP_KEYS = {"id", "tool", "action", "params", "depends_on"}


def _step(raw: Any, index: int, problems: list[str]) -> PlanStep | None:
    if not isinstance(raw, Mapping):
        problems.append(f"step #{index} must be a mapping with id, tool, action and params")
        return None
    where = f"step #{index}" + (f" ({raw['id']!r})" if "id" in raw else "")
    unknown = set(raw) - _STEP_KEYS
    if unknown:
        problems.append(f"{where}: unknown keys {', '.join(sorted(map(str, unknown)))}")
    step_id, tool = raw.get("id", f"step{index}"), raw.get("tool")
    if not isinstance(step_id, str) or not _STEP_ID.match(step_id):
        problems.append(f"{where}: id must be 1-100 letters, digits, '_' or '-'")
        return None
    if not isinstance(tool, str) or not tool:
        problems.append(f"{where}: `tool` is required")
        return None
    action = raw.get("action")
    params = raw.get("params") or {}
    depends = raw.get("depends_on") or ()
    if action is not None and not isinstance(action, str):
        problems.append(f"{where}: `action` must be a string")
    if not isinstance(params, Mapping):
        problems.append(f"{where}: `params` must be a mapping")
        return None
    if isinstance(depends, str) or not isinstance(depends, Iterable):
        problems.append(f"{where}: `depends_on` must be a list of step ids")
        depends = ()
    return PlanStep(
        id=step_id,
        tool=tool,
        action=action if isinstance(action, str) else None,
        params=dict(params),
        depends_on=tuple(str(d) for d in depends),
    )
