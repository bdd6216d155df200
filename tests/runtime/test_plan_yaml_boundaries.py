"""A plan's YAML, and the other files read as YAML, as a hostile author writes them
(docs/plans-and-log.md, "Plans"; ``Plan.from_yaml``, ``toolrig validate``, OpenAPI documents).

The promise: a plan file is read as definitions are (``registry._yamlsrc``): an alias is
refused before anything is composed (a "billion laughs" file never expands), nesting is
bounded, and each is a `PlanError` naming the line; `toolrig validate` reports such a file as
one problem and exits 1, never a traceback; an OpenAPI document nested past the parser is a
`ToolDefinitionError`.

| promise | boundary | test |
|---|---|---|
| a plan | a plain one: read | `test_a_plain_plan_is_read` |
| aliases | a laughs file, a merge key, one scalar alias: `PlanError` at its line | `..._alias` |
| nesting | 64 levels: read; 65, 100,000: `PlanError` (not `RecursionError`) | `..._nesting_*` |
| validate | 100,000 deep, laughs: one problem, exit 1 (`test_cli_validate.py`) | `..._hostile_*` |
| OpenAPI | a document 100,000 deep: `ToolDefinitionError` | `..._openapi_*` |

Found by this table and fixed: plans were read with ``yaml.safe_load``, which expands aliases
(a 1 KB file of nested ones grows without bound) and recursed past Python's limit on deep
nesting (``RecursionError`` out of ``Plan.load``); `toolrig validate` read every file that way
to tell plans from definitions, so a deep file was a traceback; an OpenAPI document nested
past the parser raised ``RecursionError``.
"""

from __future__ import annotations

import re

import pytest

from toolrig.core.model._errors import ToolDefinitionError
from toolrig.runtime import Plan, PlanError
from toolrig.tools._openapi_doc import parse_document

PLAIN = """
steps:
  - id: a
    tool: echo
    params: {text: hi}
"""

LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{n}: &{n} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)
"""Nine levels of nine aliases each: 387 million strings once expanded."""


def nested(depth: int) -> str:
    return (
        "steps:\n  - id: a\n    tool: echo\n    params: {text: " + "[" * depth + "]" * depth + "}\n"
    )


def test_a_plain_plan_is_read() -> None:
    plan = Plan.from_yaml(PLAIN)
    assert [s.id for s in plan.steps] == ["a"]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (LAUGHS, 2),
        (
            "defaults: &d {text: hi}\nsteps:\n  - id: a\n    tool: echo\n"
            "    params:\n      <<: *d\n",
            6,
        ),
        ("x: &t hi\nsteps:\n  - id: a\n    tool: echo\n    params: {text: *t}\n", 5),
    ],
)
def test_an_alias_is_refused_before_it_expands(text: str, line: int) -> None:
    with pytest.raises(PlanError) as refused:
        Plan.from_yaml(text)
    (problem,) = refused.value.problems
    assert problem.startswith(f"not valid YAML: line {line}: YAML aliases are not allowed")


@pytest.mark.parametrize("depth", [60, 61, 100_000])
def test_nesting_is_bounded(depth: int) -> None:
    """The plan's mapping, its steps, a step and its params take 4 levels: 60 more is the 64."""
    if depth == 60:
        assert Plan.from_yaml(nested(depth)).steps[0].params["text"] is not None
        return
    with pytest.raises(PlanError) as refused:
        Plan.from_yaml(nested(depth))
    (problem,) = refused.value.problems  # ours, or libyaml's own bound past 1,000 levels
    assert re.search("nested deeper than 64 levels|exceeded maximum nesting depth", problem)


def test_an_openapi_document_nested_past_the_parser_is_refused() -> None:
    text = "openapi: 3.1.0\ninfo: " + "[" * 100_000 + "]" * 100_000 + "\n"
    with pytest.raises(ToolDefinitionError, match="nested deeper than a document can be read"):
        parse_document(text, "deep.yaml")
