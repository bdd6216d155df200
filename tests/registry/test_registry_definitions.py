# ruff: noqa: E501  (YAML examples keep their one-line parameters)
"""Definition files: the full vocabulary, strict validation, located errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from registry_helpers import write

from toolrig import ToolExecutor
from toolrig.registry import ActionDefinition, Registry, ToolDefinition

FULL = r"""
name: sentiment_analyzer          # unique, provider-safe
display_name: Sentiment analyzer
version: 1.2.0                    # semantic version
description: |
  Classifies texts as positive / negative / neutral with per-emotion scores.
when_to_use: When the user asks how customers feel.
type: analysis
layer: ml
parameters:
  - {name: text_data, type: array, required: true, item_type: string, min_items: 1, description: texts to analyse}
  - {name: model, type: string, required: false, default: small, enum: [small, large]}
  - {name: batch_size, type: integer, required: false, default: 10, min: 1, max: 100}
  - {name: include_reasoning, type: boolean, required: false, default: false}
  - {name: brand_name, type: string, required: false, pattern: "^[\\w\\s]+$", max_length: 50}
  - {name: threshold, type: float, required: false, default: 0.5, min: 0.0, max: 1.0}
  - {name: filters, type: object, required: false, properties: {start_date: {type: string, format: date}, rating_min: {type: integer, min: 1, max: 5}}}
output_schema: {type: object, properties: {overall_sentiment: {type: string, enum: [positive, negative, neutral, mixed]}}}
executor: my_package.analysis.SentimentTool   # import path: a BaseTool subclass or a function
timeout: 300
max_retries: 3
dependencies: [preprocessor]
tags: [sentiment, nlp]
cost: {base_cost: 0.001, per_item_cost: 0.0001}
annotations: {read_only: true, destructive: false, idempotent: true, open_world: false}
"""


def test_full_example_loads_with_every_field(registry: Registry, tmp_path: Path) -> None:
    report = registry.load(write(tmp_path / "s.yaml", FULL))
    assert report.ok, report
    assert report.loaded == ("sentiment_analyzer",)
    spec = registry.get("sentiment_analyzer").spec
    assert (spec.display_name, spec.version, spec.type, spec.layer) == (
        "Sentiment analyzer",
        "1.2.0",
        "analysis",
        "ml",
    )
    assert spec.timeout == 300 and spec.max_retries == 3
    assert spec.dependencies == ("preprocessor",) and spec.tags == ("sentiment", "nlp")
    assert spec.cost is not None and spec.cost.per_item_cost == 0.0001
    assert spec.annotations.read_only is True and spec.annotations.idempotent is True
    assert spec.when_to_use == "When the user asks how customers feel."
    props = spec.actions["sentiment_analyzer"].parameters["properties"]
    assert props["threshold"] == {"type": "number", "minimum": 0.0, "maximum": 1.0, "default": 0.5}
    assert props["filters"]["properties"]["start_date"] == {"type": "string", "format": "date"}
    definition = registry.definition("sentiment_analyzer")
    assert isinstance(definition, ToolDefinition)
    assert definition.executor == "my_package.analysis.SentimentTool"
    assert registry.source("sentiment_analyzer") == tmp_path / "s.yaml"


PARAMS = """
name: vocab
description: Every parameter kind.
parameters:
  - {name: code, type: string, pattern: "^[A-Z]{3}$", min_length: 3, max_length: 3}
  - {name: day, type: string, format: date, required: false}
  - {name: at, type: string, format: date-time, required: false}
  - {name: mail, type: string, format: email, required: false}
  - {name: link, type: string, format: uri, required: false}
  - {name: count, type: integer, min: 1, max: 5, required: false}
  - {name: ratio, type: float, min: 0, max: 1, required: false}
  - {name: flag, type: boolean, required: false}
  - {name: channels, type: array, item_type: string, enum: [web, mail], min_items: 1, max_items: 2, required: false}
  - {name: filters, type: object, required: false, properties: {low: {type: integer, required: true}, note: {type: string}}}
  - {name: size, type: enum, enum: [1, 2, 3], default: 2}
  - {name: colour, type: enum, enum: [red, blue], default: red}
"""


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"code": "abc"}, "code"),
        ({"code": "ABCD"}, "code"),
        ({"code": "ABC", "day": "2024-02-30"}, "day"),
        ({"code": "ABC", "at": "yesterday"}, "at"),
        ({"code": "ABC", "mail": "nobody"}, "mail"),
        ({"code": "ABC", "link": "not a uri"}, "link"),
        ({"code": "ABC", "count": 6}, "count"),
        ({"code": "ABC", "ratio": 1.5}, "ratio"),
        ({"code": "ABC", "flag": "maybe"}, "flag"),
        ({"code": "ABC", "channels": []}, "channels"),
        ({"code": "ABC", "channels": ["fax"]}, "channels[0]"),
        ({"code": "ABC", "channels": ["web", "mail", "web"]}, "channels"),
        ({"code": "ABC", "filters": {"note": "x"}}, "filters.low"),
        ({"code": "ABC", "size": 4}, "size"),
        ({"code": "ABC", "colour": "green"}, "colour"),
    ],
)
def test_parameter_vocabulary_is_enforced(
    registry: Registry, tmp_path: Path, args: dict[str, object], problem: str
) -> None:
    assert registry.load(write(tmp_path / "v.yaml", PARAMS)).ok
    ok, message = registry.validate_params("vocab", args)
    assert not ok
    assert f"- {problem}:" in message


def test_parameter_vocabulary_accepts_valid_values(registry: Registry, tmp_path: Path) -> None:
    assert registry.load(write(tmp_path / "v.yaml", PARAMS)).ok
    good = {
        "code": "ABC",
        "day": "2024-02-29",
        "at": "2024-02-29T10:00:00Z",
        "mail": "a@b.io",
        "link": "https://example.org/x",
        "count": 5,
        "ratio": 0.25,
        "flag": True,
        "channels": ["web", "mail"],
        "filters": {"low": 1},
        "size": 3,
    }
    assert registry.validate_params("vocab", good) == (True, "")
    props = registry.get("vocab").spec.actions["vocab"].parameters["properties"]
    assert props["size"]["type"] == "integer" and props["size"]["default"] == 2
    assert props["channels"]["items"] == {"type": "string", "enum": ["web", "mail"]}


BAD = """
name: broken tool
version: 1.2
description: Broken in many ways.
parameters:
  - {name: a, type: strin}
  - {name: b, type: string, colour: red}
  - {name: c, type: integer, min: 5, max: 1}
cost: {base_cost: -1}
surprise: true
"""


def test_every_problem_is_reported_with_file_line_and_field(
    registry: Registry, tmp_path: Path
) -> None:
    path = write(tmp_path / "bad.yaml", BAD)
    report = registry.load(path)
    assert not report.ok and report.loaded == ()
    found = {(e.line, e.field) for e in report.errors}
    assert found == {
        (1, "name"),
        (2, "version"),
        (5, "parameters[0].type"),
        (6, "parameters[1].colour"),
        (7, "parameters[2]"),
        (8, "cost.base_cost"),
        (9, "surprise"),
    }
    assert all(e.path == path for e in report.errors)
    assert "unknown key 'surprise'" in str(report)
    assert "bad.yaml:6: parameters[1].colour: unknown key 'colour'" in str(report)
    assert "broken tool" not in registry


@pytest.mark.parametrize(
    ("param", "field"),
    [
        ("{name: n, type: integer, default: 0, min: 1}", "parameters[0].default"),
        ("{name: s, type: string, default: toolong, max_length: 3}", "parameters[0].default"),
        ("{name: e, type: string, default: c, enum: [a, b]}", "parameters[0].default"),
        (
            "{name: o, type: object, properties: {r: {type: integer, min: 1, default: 0}}}",
            "parameters[0].properties.r.default",
        ),
    ],
)
def test_defaults_must_satisfy_their_constraints(
    registry: Registry, tmp_path: Path, param: str, field: str
) -> None:
    text = f"name: d\ndescription: Defaults.\nparameters:\n  - {param}\n"
    report = registry.load(write(tmp_path / "d.yaml", text))
    assert [(e.line, e.field) for e in report.errors] == [(4, field)]
    assert "default" in report.errors[0].message
    assert "breaks its own constraints" in report.errors[0].message
    assert "errors.pydantic.dev" not in report.errors[0].message


def test_bad_files_never_stop_good_ones(registry: Registry, tmp_path: Path) -> None:
    write(tmp_path / "a" / "one.yaml", "name: one\ndescription: One.\n")
    write(tmp_path / "a" / "b" / "two.yml", "name: two\ndescription: Two.\n")
    write(tmp_path / "broken_syntax.yaml", "name: [unclosed\ndescription: x\n")
    write(tmp_path / "dup_key.yaml", "name: d\nname: e\ndescription: x\n")
    write(tmp_path / "empty.yaml", "")
    write(tmp_path / "missing.yaml", "description: no name\n")
    write(tmp_path / "notes.txt", "not yaml")
    report = registry.load(tmp_path)
    assert sorted(report.loaded) == ["one", "two"]
    by_file = {e.path.name: e for e in report.errors if e.path}
    assert set(by_file) == {"broken_syntax.yaml", "dup_key.yaml", "empty.yaml", "missing.yaml"}
    assert by_file["broken_syntax.yaml"].line == 2
    assert by_file["dup_key.yaml"].line == 2 and "twice" in by_file["dup_key.yaml"].message
    assert by_file["missing.yaml"].field == "name"
    assert "required field 'name' is missing" in by_file["missing.yaml"].message


def test_a_file_may_hold_a_list_of_definitions(registry: Registry, tmp_path: Path) -> None:
    text = """
    - {name: first, description: First.}
    - {name: second, description: Second., bogus: 1}
    """
    report = registry.load(write(tmp_path / "many.yaml", text))
    assert [(e.line, e.field) for e in report.errors] == [(2, "bogus")]
    assert "first" not in registry  # a file is applied whole or not at all
    write(tmp_path / "many.yaml", text.replace(", bogus: 1", ""))
    assert registry.load(tmp_path / "many.yaml").loaded == ("first", "second")


def test_multi_action_tool_from_actions_map(
    registry: Registry,
    executor: ToolExecutor,
    tmp_path: Path,
    module_dir: Callable[[str, str], Path],
) -> None:
    module_dir(
        "stock_mod",
        """
        class Stock:
            def __init__(self):
                self.items = {"kettle": 3}
            def check(self, product):
                return {"product": product, "stock": self.items.get(product, 0)}
            def reorder(self, weeks=4):
                return {"weeks": weeks}
        """,
    )
    text = """
    name: stock
    description: Stock levels.
    executor: stock_mod.Stock
    annotations: {read_only: true}
    actions:
      check:
        description: One product.
        parameters: [{name: product, type: string}]
        output_schema: {type: object, required: [product, stock]}
      reorder:
        description: Reorder plan.
        parameters: [{name: weeks, type: integer, default: 4, min: 1}]
        annotations: {read_only: false}
    """
    assert registry.load(write(tmp_path / "stock.yaml", text)).ok
    spec = registry.get("stock").spec
    assert spec.is_multi_action and set(spec.actions) == {"check", "reorder"}
    assert spec.action_annotations("reorder").read_only is False
    assert executor.execute_sync("stock.check", {"product": "kettle"}).output == {
        "product": "kettle",
        "stock": 3,
    }
    assert executor.execute_sync("stock__reorder", {}).output == {"weeks": 4}
    definition = registry.definition("stock")
    assert definition is not None and definition.actions is not None
    assert isinstance(definition.actions["check"], ActionDefinition)


def test_actions_and_top_level_parameters_are_exclusive(registry: Registry, tmp_path: Path) -> None:
    text = """
    name: mixed
    description: Both styles.
    parameters: [{name: a}]
    actions:
      go: {description: Go.}
    """
    report = registry.load(write(tmp_path / "m.yaml", text))
    assert len(report.errors) == 1 and "per action" in report.errors[0].message


COUNTER = """
class Counter(BaseTool):
    '''Counts.'''

    timeout = 7

    @action
    def bump(self, n: int, ctx: ToolContext) -> str:
        '''Bump the counter by n.'''
        return f"{type(n).__name__} {n} in {ctx.tool}.{ctx.action} call {ctx.tool_call_id}"
"""


def _counter_module(module_dir: Callable[[str, str], Path], name: str) -> None:
    module_dir(name, "from toolrig import BaseTool, ToolContext, action\n" + COUNTER)


def test_an_executor_that_is_a_tool_class_runs_its_own_action(
    registry: Registry,
    executor: ToolExecutor,
    tmp_path: Path,
    module_dir: Callable[[str, str], Path],
) -> None:
    _counter_module(module_dir, "counter_mod")
    text = """
    name: counter
    description: Counts.
    parameters: [{name: n, type: integer}]
    executor: counter_mod.Counter
    """
    assert registry.load(write(tmp_path / "counter.yaml", text)).ok
    done = executor.execute_sync("counter", {"n": 5}, tool_call_id="call_1")
    assert done.success, done.error
    # the class's method and context, with the arguments the definition validated
    assert done.output == "int 5 in counter.counter call call_1"
    refused = executor.execute_sync("counter", {"n": "five"})
    assert refused.code == "invalid_arguments" and "- n:" in refused.error.message


def test_a_tool_class_bound_to_a_definition_brings_its_actions(
    registry: Registry,
    executor: ToolExecutor,
    tmp_path: Path,
    module_dir: Callable[[str, str], Path],
) -> None:
    _counter_module(module_dir, "bound_counter_mod")
    from bound_counter_mod import Counter  # type: ignore[import-not-found]

    text = """
    name: counter
    description: Counts, as the definition says.
    max_retries: 2
    """
    assert registry.load(write(tmp_path / "counter.yaml", text)).ok
    registry.bind("counter")(Counter)
    made = registry.get("counter")
    spec = made.spec
    assert spec.description == "Counts, as the definition says."  # the definition's words
    assert (spec.timeout, spec.max_retries) == (7, 2)  # the class's, unless the YAML says
    assert spec.actions["counter"].parameters["properties"] == {"n": {"type": "integer"}}
    assert (made.timeout, made.max_retries) == (7, 2)
    done = executor.execute_sync("counter", {"n": 3}, tool_call_id="call_2")
    assert done.output == "int 3 in counter.counter call call_2"


def test_a_bound_tool_class_must_take_the_parameters_the_definition_lists(
    registry: Registry, tmp_path: Path, module_dir: Callable[[str, str], Path]
) -> None:
    _counter_module(module_dir, "mismatch_counter_mod")
    from mismatch_counter_mod import Counter  # type: ignore[import-not-found]

    text = """
    name: counter
    description: Counts.
    parameters: [{name: count, type: integer}]
    """
    registry.bind("counter")(Counter)
    report = registry.load(write(tmp_path / "counter.yaml", text))
    assert [(e.line, e.field) for e in report.errors] == [(3, "parameters")]
    assert "takes n" in report.errors[0].message


def test_an_executor_function_may_ask_for_the_context(
    registry: Registry,
    executor: ToolExecutor,
    tmp_path: Path,
    module_dir: Callable[[str, str], Path],
) -> None:
    module_dir(
        "ctx_fn_mod",
        """
        from toolrig import ToolContext

        def shout(text: str, ctx: ToolContext) -> str:
            return f"{text.upper()} ({ctx.tool_call_id})"
        """,
    )
    text = """
    name: shout
    description: Shouts.
    parameters: [{name: text, type: string}]
    executor: ctx_fn_mod.shout
    """
    assert registry.load(write(tmp_path / "shout.yaml", text)).ok
    done = executor.execute_sync("shout", {"text": "hi"}, tool_call_id="call_3")
    assert done.output == "HI (call_3)"


def test_the_actions_of_an_imported_tool_class_share_one_instance(
    registry: Registry,
    executor: ToolExecutor,
    tmp_path: Path,
    module_dir: Callable[[str, str], Path],
) -> None:
    module_dir(
        "tally_mod",
        """
        from toolrig import BaseTool, action

        class Tally(BaseTool):
            '''Keeps a total.'''

            def __init__(self):
                super().__init__()
                self.total = 0

            @action
            def add(self, n: int) -> int:
                '''Add n.'''
                self.total += n
                return self.total

            @action
            def read(self) -> int:
                '''The total.'''
                return self.total
        """,
    )
    text = """
    name: tally
    description: Keeps a total.
    executor: tally_mod.Tally
    actions:
      add: {description: Add to the total., parameters: [{name: n, type: integer}]}
      read: {description: Read the total.}
    """
    assert registry.load(write(tmp_path / "tally.yaml", text)).ok
    assert executor.execute_sync("tally.add", {"n": 2}).output == 2
    assert executor.execute_sync("tally.add", {"n": 3}).output == 5
    assert executor.execute_sync("tally.read", {}).output == 5
