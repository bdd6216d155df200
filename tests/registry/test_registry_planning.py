"""Planning helpers: dependency chains, intent mapping and cost estimates."""

from __future__ import annotations

from pathlib import Path

import pytest
from registry_helpers import write

from toolrig import Tool, ToolCost, ToolNotFoundError
from toolrig.registry import (
    DependencyCycleError,
    IntentMap,
    IntentNotFoundError,
    MissingDependencyError,
    Registry,
)
from toolrig.search import select_tools_for_intent


def _define(tmp_path: Path, name: str, deps: list[str], extra: str = "") -> None:
    text = f"name: {name}\ndescription: {name}.\ndependencies: [{', '.join(deps)}]\n{extra}"
    write(tmp_path / f"{name}.yaml", text)


@pytest.fixture
def planned(registry: Registry, tmp_path: Path) -> Registry:
    _define(tmp_path, "collect", [])
    _define(tmp_path, "clean", ["collect"])
    _define(tmp_path, "sentiment", ["clean"])
    _define(tmp_path, "keywords", ["clean"])
    _define(tmp_path, "insights", ["sentiment", "keywords"])
    _define(tmp_path, "report", ["insights", "collect"])
    _define(tmp_path, "competitor", ["clean"])
    _define(tmp_path, "trends", [])
    assert registry.load(tmp_path).ok
    return registry


def test_chain_puts_dependencies_first_each_once(planned: Registry) -> None:
    expected = ["collect", "clean", "sentiment", "keywords", "insights", "report"]
    assert planned.infer_tool_chain("report") == expected
    assert planned.infer_tool_chain("report") == expected  # stable
    assert planned.infer_tool_chain("collect") == ["collect"]


def test_cycles_and_missing_dependencies_are_named(registry: Registry, tmp_path: Path) -> None:
    _define(tmp_path, "a", ["b"])
    _define(tmp_path, "b", ["c"])
    _define(tmp_path, "c", ["a"])
    _define(tmp_path, "d", ["a"])
    _define(tmp_path, "e", ["ghost"])
    _define(tmp_path, "f", ["f"])
    assert registry.load(tmp_path).ok
    with pytest.raises(DependencyCycleError) as cycle:
        registry.infer_tool_chain("d")
    assert cycle.value.cycle == ("a", "b", "c", "a")
    assert "a -> b -> c -> a" in str(cycle.value)
    with pytest.raises(DependencyCycleError, match="f -> f"):
        registry.infer_tool_chain("f")
    with pytest.raises(MissingDependencyError) as missing:
        registry.infer_tool_chain("e")
    assert (missing.value.missing, missing.value.required_by) == ("ghost", "e")
    assert "'e' depends on 'ghost'" in str(missing.value)
    with pytest.raises(MissingDependencyError, match="no tool named 'zzz'"):
        registry.infer_tool_chain("zzz")


def test_intents_from_yaml_with_entities(planned: Registry, tmp_path: Path) -> None:
    path = write(
        tmp_path / "intents" / "map.yml",
        """
        intents:
          reviews:
            sentiment: [sentiment, report]
            quick: [keywords]
        entities:
          competitor: [competitor]
          trend: [trends]
        """,
    )
    planned.intents = IntentMap.from_yaml(path)
    assert select_tools_for_intent(planned, planned.intents, ("reviews", "quick")) == [
        "collect",
        "clean",
        "keywords",
    ]
    assert select_tools_for_intent(
        planned,
        planned.intents,
        {"domain": "reviews", "category": "sentiment"},
        ["trend", "competitor", "trend"],
    ) == [
        "collect",
        "clean",
        "sentiment",
        "keywords",
        "insights",
        "report",
        "trends",
        "competitor",
    ]
    assert select_tools_for_intent(
        planned, planned.intents, "reviews.quick", {"competitor": ["Zephyr"], "trend": []}
    ) == [
        "collect",
        "clean",
        "keywords",
        "competitor",
    ]
    with pytest.raises(IntentNotFoundError, match=r"zzqx\.wobble; known: reviews\.quick"):
        select_tools_for_intent(
            planned, planned.intents, ("zzqx", "wobble")
        )  # no entry, and search finds nothing


def test_intents_from_code(planned: Registry) -> None:
    intents = IntentMap({("sales", "pitch"): ["report"]})
    intents.add_entity("competitor", ["competitor", "report"])
    planned.intents = intents
    chain = select_tools_for_intent(planned, planned.intents, ("sales", "pitch"), ["competitor"])
    assert chain == [
        "collect",
        "clean",
        "sentiment",
        "keywords",
        "insights",
        "report",
        "competitor",
    ]


def test_cost_estimates(registry: Registry, tmp_path: Path) -> None:
    write(
        tmp_path / "s.yaml",
        """
        name: scorer
        description: Scores.
        parameters:
          - {name: mode, type: string, default: a}
          - {name: texts, type: array, item_type: string}
          - {name: extra, type: array, required: false}
        cost: {base_cost: 0.001, per_item_cost: 0.0001}
        """,
    )
    assert registry.load(tmp_path).ok
    registry.add(Tool("free", "Free.", func=lambda: 1))
    registry.add(Tool("flat", "Flat.", func=lambda: 1, cost=ToolCost(base_cost=0.5)))
    assert registry.estimate_cost("scorer") == pytest.approx(0.001)
    texts = {"extra": [1] * 50, "texts": ["a", "b", "c"]}
    assert registry.estimate_cost("scorer", texts) == pytest.approx(0.001 + 3 * 0.0001)
    assert registry.estimate_cost("free", {"x": [1, 2]}) == 0.0
    plan = registry.estimate_plan_cost(
        ["flat", ("scorer", {"texts": ["a"] * 10}), {"tool": "free", "params": {}}]
    )
    assert plan.total == pytest.approx(0.5 + 0.001 + 0.001)
    assert [s for s, _ in plan.steps] == ["flat", "scorer", "free"]
    assert float(plan) == plan.total
    with pytest.raises(ToolNotFoundError, match="Tool 'ghost' not found"):
        registry.estimate_cost("ghost")
