"""Check a plan before running it: every problem at once, the run order, the estimated cost."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolrig.core.model._cost import estimate_spec_cost
from toolrig.core.model._suggest import closest
from toolrig.core.schema._validation import ArgumentsInvalid
from toolrig.runtime._executor import ToolExecutor
from toolrig.runtime._plan import Plan, PlanStep, find_references

__all__ = ["PlanCheck", "check_plan"]

CostFunction = Callable[[PlanStep, Mapping[str, Any]], float]


@dataclass(slots=True, kw_only=True)
class PlanCheck:
    """What checking a plan found."""

    problems: list[str] = field(default_factory=list)
    layers: list[list[str]] = field(default_factory=list)
    """Step ids grouped by depth: each layer depends only on earlier ones."""
    estimated_cost: float = 0.0
    step_costs: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when the plan can run."""
        return not self.problems


def default_cost(executor: ToolExecutor) -> CostFunction:
    """Cost of a step from the tool's declared ``cost`` (0 when it has none)."""
    catalog = executor.catalog

    def cost(step: PlanStep, params: Mapping[str, Any]) -> float:
        entry = catalog.entry(step.call_name)
        if entry is None:
            return 0.0
        tool, action = entry
        return estimate_spec_cost(tool.spec, params, action.name)

    return cost


def check_plan(
    plan: Plan, executor: ToolExecutor, *, cost_of: CostFunction | None = None
) -> PlanCheck:
    """Unknown tools or actions, parameters that cannot validate, references to missing
    steps, duplicate ids and cycles — all reported together — plus the cost estimate."""
    report = PlanCheck()
    ids = [s.id for s in plan.steps]
    for step_id in sorted({i for i in ids if ids.count(i) > 1}):
        report.problems.append(f"step id {step_id!r} is used more than once")
    known = set(ids)
    catalog = executor.catalog
    cost_of = cost_of or default_cost(executor)
    for step in plan.steps:
        for dep in step.dependencies:
            if dep == step.id:
                report.problems.append(f"step {step.id!r} refers to its own output")
            elif dep not in known:
                report.problems.append(
                    f"step {step.id!r} refers to step {dep!r}, which the plan does not have"
                )
        action = catalog.resolve(step.call_name)
        if action is None:
            report.problems.append(f"step {step.id!r}: {catalog.missing_message(step.call_name)}")
            continue
        static = {k: v for k, v in step.params.items() if not find_references(v)}
        report.problems.extend(_param_problems(step, action.validator, static))
        cost = cost_of(step, static)
        report.step_costs[step.id] = cost
        report.estimated_cost += cost
    layers, cycle = _layers(plan)
    if cycle:
        report.problems.append("the steps form a cycle: " + " -> ".join(cycle))
    report.layers = layers
    return report


def _param_problems(step: PlanStep, validator: Any, static: Mapping[str, Any]) -> list[str]:
    referenced = set(step.params) - set(static)
    try:
        validator.validate(dict(static))
    except ArgumentsInvalid as exc:
        found = []
        for detail in exc.error.details or []:
            root = str(detail["path"]).split(".")[0].split("[")[0]
            if detail["problem"] == "missing" and root in referenced:
                continue  # filled in from an earlier output at run time
            expected = detail.get("expected")
            received = detail.get("received")
            text = f"{detail['problem']}"
            if detail["problem"] == "missing":
                text = "required parameter is missing"
            elif detail["problem"] == "extra_forbidden":
                text = "unknown parameter" + _did_you_mean(detail)
            elif expected is not None:
                text = f"expected {expected}, received {received}"
            found.append(f"step {step.id!r} ({step.call_name}): {detail['path']}: {text}")
        return found
    return []


def _did_you_mean(detail: Mapping[str, Any]) -> str:
    """The "did you mean `limit`?" of an unknown parameter close to a declared one."""
    names = detail.get("expected")
    if not isinstance(names, list):
        return ""
    name = re.split(r"[.\[]", str(detail["path"]))[-1]
    near = closest(name, [str(n) for n in names])
    return f"; did you mean {' or '.join(f'`{n}`' for n in near)}?" if near else ""


def _layers(plan: Plan) -> tuple[list[list[str]], list[str]]:
    deps = {s.id: [d for d in s.dependencies if d != s.id] for s in plan.steps}
    known = set(deps)
    remaining = {k: {d for d in v if d in known} for k, v in deps.items()}
    layers: list[list[str]] = []
    done: set[str] = set()
    while remaining:
        layer = [k for k, v in remaining.items() if v <= done]
        if not layer:
            return layers, _find_cycle(remaining)
        layers.append(layer)
        done.update(layer)
        for k in layer:
            del remaining[k]
    return layers, []


def _find_cycle(graph: Mapping[str, set[str]]) -> list[str]:
    for start in graph:
        path: list[str] = [start]
        seen = {start}
        node = start
        while True:
            nxt = next((d for d in sorted(graph.get(node, ())) if d in graph), None)
            if nxt is None:
                break
            if nxt in seen:
                cycle = [*path[path.index(nxt) :], nxt]
                return cycle
            path.append(nxt)
            seen.add(nxt)
            node = nxt
    return sorted(graph)
