"""The example catalogue (examples/catalog): loads whole and runs a chain end to end."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolrig import ToolExecutor
from toolrig.registry import IntentMap, Registry
from toolrig.search import select_tools_for_intent

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TOOLS = {
    "data_collector",
    "preprocessor",
    "google_trends",
    "sentiment_analyzer",
    "keyword_extractor",
    "hashtag_analyzer",
    "competitor_analyzer",
    "problem_classifier",
    "insight_generator",
    "report_generator",
    "video_generator",
    "ad_creative_generator",
    "storyboard_generator",
    "sales_material_generator",
    "inventory_manager",
    "dashboard_generator",
}


@pytest.fixture
def catalog(monkeypatch: pytest.MonkeyPatch) -> Iterator[Registry]:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.delenv("GOOGLE_TRENDS_API_KEY", raising=False)
    registry = Registry(intents=IntentMap.from_yaml(EXAMPLES / "intents.yaml"))
    report = registry.load(EXAMPLES / "catalog")
    assert report.ok, report
    yield registry
    registry.close()
    for name in [m for m in sys.modules if m.startswith("review_tools")]:
        del sys.modules[name]


@pytest.fixture
def executor(catalog: Registry) -> Iterator[ToolExecutor]:
    with ToolExecutor(catalog) as ex:
        yield ex


def test_whole_catalogue_loads(catalog: Registry) -> None:
    assert set(catalog.names()) == TOOLS
    assert {s.type for s in catalog.specs()} == {"data", "analysis", "content", "business"}
    for name in TOOLS:
        catalog.infer_tool_chain(name)  # every dependency exists, no cycles
        assert catalog.get(name).spec.cost is not None
    assert catalog.infer_tool_chain("video_generator") == [
        "data_collector",
        "preprocessor",
        "sentiment_analyzer",
        "keyword_extractor",
        "problem_classifier",
        "insight_generator",
        "storyboard_generator",
        "video_generator",
    ]


def test_report_chain_runs_end_to_end(catalog: Registry, executor: ToolExecutor) -> None:
    chain = catalog.infer_tool_chain("report_generator")
    outputs: dict[str, Any] = {}

    def run(name: str, args: dict[str, Any]) -> Any:
        result = executor.execute_sync(name, args)
        assert result.success, result
        outputs[name] = result.output
        return result.output

    for name in chain:
        texts = outputs.get("preprocessor", {}).get("texts")
        args: dict[str, Any] = {
            "data_collector": {"source": str(EXAMPLES / "data" / "reviews.csv")},
            "preprocessor": {"reviews": outputs.get("data_collector", {}).get("reviews")},
            "sentiment_analyzer": {"text_data": texts},
            "keyword_extractor": {"text_data": texts, "top_k": 5},
            "problem_classifier": {"text_data": texts},
            "insight_generator": {
                "sentiment": outputs.get("sentiment_analyzer"),
                "keywords": outputs.get("keyword_extractor", {}).get("keywords"),
                "problems": outputs.get("problem_classifier", {}).get("problems"),
            },
            "report_generator": {
                "insights": outputs.get("insight_generator", {}).get("insights"),
                "recommended_actions": outputs.get("insight_generator", {}).get(
                    "recommended_actions"
                ),
                "title": "Kettle and toaster reviews",
            },
        }[name]
        run(name, args)

    assert outputs["data_collector"]["count"] == 12
    assert len(outputs["preprocessor"]["texts"]) == 12
    assert outputs["sentiment_analyzer"]["overall_sentiment"] in {"positive", "negative", "mixed"}
    assert outputs["problem_classifier"]["problems"]["quality"] >= 2
    report = outputs["report_generator"]["content"]
    assert report.startswith("# Kettle and toaster reviews")
    assert "most frequent complaint" in report

    hashtags = run("hashtag_analyzer", {"text_data": outputs["preprocessor"]["texts"]})
    assert hashtags["hashtags"][0] == {"tag": "#kitchen", "count": 3}
    assert (
        catalog.estimate_plan_cost(
            [(n, {"text_data": outputs["preprocessor"]["texts"]}) for n in chain]
        ).total
        > 0
    )


def test_offline_limits_are_clear(executor: ToolExecutor) -> None:
    result = executor.execute_sync("google_trends", {"keywords": ["kettle"]})
    assert result.error is not None and result.error.code == "permission_denied"
    assert "GOOGLE_TRENDS_API_KEY" in result.error.message
    stock = executor.execute_sync("inventory_manager.check_stock", {"product": "Nimbus Toaster"})
    assert stock.output == {"product": "Nimbus Toaster", "stock": 15, "weeks_of_cover": 1.25}


def test_intent_selection_on_the_catalogue(catalog: Registry) -> None:
    selected = select_tools_for_intent(
        catalog, catalog.intents, ("reviews", "sentiment"), {"competitor": ["Zephyr"]}
    )
    assert selected == [
        "data_collector",
        "preprocessor",
        "sentiment_analyzer",
        "keyword_extractor",
        "problem_classifier",
        "insight_generator",
        "report_generator",
        "competitor_analyzer",
    ]
