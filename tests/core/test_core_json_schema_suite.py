"""Conformance of tools defined from JSON Schema with the official JSON Schema Test Suite.

Each group of ``tests/draft2020-12`` becomes a tool, built as a YAML or MCP tool is: from a
parameter schema, through ``Tool(parameters=...)``. A tool's arguments are an object of named
parameters, while a suite schema may describe any value, so the schema becomes the one required
parameter ``value``: the parameter schema's ``$defs`` hold the suite schema (given the ``$id``
``urn:suite:value`` when it has none, so its own ``#`` references keep pointing at it) and
``properties.value`` refers to it. Documents the suite fetches from ``http://localhost:1234/``
are read from ``remotes/`` on disk and placed in ``$defs`` under their URL as ``$id``: tools
never fetch anything. Each test then calls the tool with ``{"value": data}`` in strict mode (no
coercion, as the suite expects) and compares success with the test's ``valid``.

A group whose schema the tool refuses at definition time counts as ``refused``: a keyword that
would not be enforced is refused with its reason rather than silently promised. Tools check
``format`` (the suite's ``optional/format`` tests), while the required ``format.json`` expects
the draft's default of treating formats as annotations: a valid-by-default string refused by a
format check counts as ``asserted``, shown apart and left out of the agreement. Agreement is
``agree / (all tests - asserted)``; refusals count against it.
"""

from __future__ import annotations

import json
import urllib.parse
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ci_rules import CORPORA
from toolrig import Tool, ToolDefinitionError

SUITE = CORPORA / "json-schema-test-suite"
TESTS = SUITE / "tests" / "draft2020-12"
REMOTE = "http://localhost:1234/"
VALUE_ID = "urn:suite:value"
FORMATS = ("date", "date-time", "time", "email", "uri", "uuid", "ipv4", "ipv6", "regex")

pytestmark = pytest.mark.corpus("json-schema-test-suite/tests/draft2020-12")


def _accept(**values: Any) -> None:
    return None


def _references(node: Any, base: str, found: set[str]) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("$id"), str):
            base = urllib.parse.urljoin(base, node["$id"])
        for key, value in node.items():
            if key in ("$ref", "$dynamicRef", "$schema") and isinstance(value, str):
                found.add(urllib.parse.urljoin(base, value).split("#", 1)[0])
            else:
                _references(value, base, found)
    elif isinstance(node, list):
        for value in node:
            _references(value, base, found)


def _remote_documents(schema: Any) -> dict[str, Any]:
    """The suite's remote documents ``schema`` refers to, directly or through each other."""
    documents: dict[str, Any] = {}
    todo: set[str] = set()
    _references(schema, "", todo)
    while todo:
        url = todo.pop()
        if not url.startswith(REMOTE) or url in documents:
            continue
        path = SUITE / "remotes" / url[len(REMOTE) :]
        if path.is_file():
            documents[url] = json.loads(path.read_text(encoding="utf-8"))
            _references(documents[url], url, todo)
    return documents


def _embedded(url: str, document: Any) -> Any:
    """A fetched document as a resource of the parameter schema, identified by its URL."""
    if not isinstance(document, dict) or "$id" not in document:
        return {"$id": url, **document} if isinstance(document, dict) else document
    if urllib.parse.urljoin(url, document["$id"]) == url:
        return {**document, "$id": url}
    return {"$id": url, "$defs": {"document": document}, "$ref": "#/$defs/document"}


def parameters_for(schema: Any) -> dict[str, Any]:
    """The parameter schema of the tool standing for a suite schema (see the module doc)."""
    defs = {
        f"remote{i}": _embedded(url, document)
        for i, (url, document) in enumerate(sorted(_remote_documents(schema).items()))
    }
    if isinstance(schema, bool):
        value: Any = schema
    elif "$id" in schema:
        value = {"$ref": schema["$id"]}
        defs["value"] = schema
    else:
        value = {"$ref": VALUE_ID}
        defs["value"] = {"$id": VALUE_ID, **schema}
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"value": value},
        "required": ["value"],
    }
    if defs:
        parameters["$defs"] = defs
    return parameters


def run_file(path: Path, refusals: list[str]) -> Counter[str]:
    """agree / disagree / refused counts of one suite file."""
    counts: Counter[str] = Counter()
    for group in json.loads(path.read_text(encoding="utf-8")):
        try:
            tool = Tool(name="suite_tool", func=_accept, parameters=parameters_for(group["schema"]))
        except ToolDefinitionError as exc:
            counts["refused"] += len(group["tests"])
            refusals.append(f"{path.name}: {group['description']}: {exc.problems[0][:160]}")
            continue
        for test in group["tests"]:
            result = tool.run({"value": test["data"]}, strict=True)
            assert result.success or result.code == "invalid_arguments", result.to_text()
            if result.success == test["valid"]:
                counts["agree"] += 1
            elif test["valid"] and _format_check(result.error.details):
                counts["asserted"] += 1
            else:
                counts["disagree"] += 1
    return counts


def _format_check(details: Any) -> bool:
    """Whether a refusal came from ``format`` checks alone."""
    return bool(details) and all(d.get("problem") == "format" for d in details)


def _report(capsys: pytest.CaptureFixture[str], lines: list[str]) -> None:
    """Print the figures to the terminal, also when output is captured."""
    with capsys.disabled():
        print("\n" + "\n".join(lines))


def _table(title: str, rows: dict[str, Counter[str]]) -> tuple[list[str], Counter[str]]:
    total: Counter[str] = Counter()
    lines = [title, f"{'file':<34} {'agree':>6} {'disagree':>9} {'refused':>8} {'asserted':>9}"]
    for name, counts in [*rows.items(), ("total", total)]:
        if name != "total":
            total.update(counts)
        lines.append(
            f"{name:<34} {counts['agree']:>6} {counts['disagree']:>9} {counts['refused']:>8} "
            f"{counts['asserted']:>9}"
        )
    return lines, total


def test_required_tests_of_draft_2020_12_agree(capsys: pytest.CaptureFixture[str]) -> None:
    refusals: list[str] = []
    rows = {path.name: run_file(path, refusals) for path in sorted(TESTS.glob("*.json"))}
    lines, total = _table("JSON Schema Test Suite, draft 2020-12 (required tests)", rows)
    cases = sum(total.values())
    agreement = total["agree"] / (cases - total["asserted"])
    lines.append(
        f"agreement: {agreement:.2%} of {cases - total['asserted']} tests "
        f"({total['asserted']} format checks asserted, {total['agree'] / cases:.2%} of all {cases})"
    )
    lines.extend(f"refused: {line}" for line in refusals)
    _report(capsys, lines)
    assert cases > 1000
    assert agreement >= 0.99
    assert {name for name, counts in rows.items() if counts["asserted"]} <= {"format.json"}


@pytest.mark.parametrize("name", FORMATS)
def test_format_tests_agree(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    refusals: list[str] = []
    counts = run_file(TESTS / "optional" / "format" / f"{name}.json", refusals)
    lines, _ = _table(f"optional/format/{name}.json", {f"{name}.json": counts})
    _report(capsys, lines + [f"refused: {line}" for line in refusals])
    assert counts["refused"] == 0, refusals
    assert counts["disagree"] == 0
