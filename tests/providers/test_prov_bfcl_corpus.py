"""Every BFCL function imports, exports to every provider format (checked by the SDKs), runs
its ground-truth calls through every provider's parser, and rejects corrupted calls precisely.

Data: ``../shared/corpora/bfcl`` (see its README). One test per category and per provider, so
a failure in one hides none of the others. Expected values come from the corpus itself (its
function definitions in BFCL's own type words, its answers), never from the importer's
normalised schema: a valid sample call is built from the raw definition, and what a model sends
for a value exported as JSON text is decided by the exported schema, as the model sees it.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import prov_sdk
import pytest

from ci_rules import CORPORA
from toolrig import Tool, ToolExecutor, ToolResult
from toolrig.providers import (
    NameMap,
    SchemaNormalizedWarning,
    execute_calls_sync,
    parse_anthropic_calls,
    parse_gemini_calls,
    parse_openai_chat_calls,
    to_gemini_declarations,
    to_openai_chat_tools,
    tool_from_function_definition,
)

BFCL = CORPORA / "bfcl"
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")
ANSWERED = CATEGORIES[:-1]  # irrelevance has no answers: no function fits its questions
PROVIDERS = ("openai", "openai strict", "anthropic", "gemini")
ENTRIES = {
    "simple_python": 400,
    "multiple": 200,
    "parallel": 200,
    "parallel_multiple": 200,
    "irrelevance": 240,
}
"""Entries per category, as the corpus README counts them."""

KNOWN_BAD_ANSWERS: dict[str, dict[int, str]] = {
    "parallel_multiple_21": {1: "x"},
    "parallel_multiple_94": {0: "elements[0]"},
}
"""Answers that break their own function's schema, by entry, call index and the argument at
fault (an expression string given for an array; fruit names for a list of integers): they must
be rejected, whatever the provider."""

pytestmark = pytest.mark.corpus("bfcl")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _stub(**kwargs: Any) -> dict[str, Any]:
    return kwargs


@dataclass
class Category:
    name: str
    entries: list[dict[str, Any]]
    answers: dict[str, list[dict[str, Any]]]
    tools: dict[str, list[Tool]]
    """The tools of each entry, by entry id."""
    raw: dict[tuple[str, str], dict[str, Any]]
    """The raw BFCL definition of each function, by (entry id, function name)."""
    warnings: int
    executors: dict[str, ToolExecutor]

    def executor(self, entry_id: str) -> ToolExecutor:
        if entry_id not in self.executors:
            self.executors[entry_id] = ToolExecutor(self.tools[entry_id])
        return self.executors[entry_id]

    def close(self) -> None:
        for executor in self.executors.values():
            executor.close()


_LOADED: dict[str, Category] = {}


@pytest.fixture(scope="module", autouse=True)
def _close_executors() -> Iterator[None]:
    yield
    for category in _LOADED.values():
        category.close()
    _LOADED.clear()


def load(name: str) -> Category:
    if name in _LOADED:
        return _LOADED[name]
    entries = _lines(BFCL / f"BFCL_v4_{name}.json")
    answers_path = BFCL / "possible_answer" / f"BFCL_v4_{name}.json"
    answers = (
        {a["id"]: a["ground_truth"] for a in _lines(answers_path)} if answers_path.exists() else {}
    )
    tools: dict[str, list[Tool]] = {}
    raw: dict[tuple[str, str], dict[str, Any]] = {}
    count = 0
    for entry in entries:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SchemaNormalizedWarning)
            tools[entry["id"]] = [
                tool_from_function_definition(f, _stub) for f in entry["function"]
            ]
        count += len(caught)
        for function in entry["function"]:
            raw[(entry["id"], function["name"])] = function
    _LOADED[name] = Category(name, entries, answers, tools, raw, count, {})
    return _LOADED[name]


# -- values from the raw corpus ----------------------------------------------------------
def _pick(allowed: list[Any]) -> tuple[bool, Any]:
    """``(given, value)`` from a ground-truth list of allowed values (``""`` = may be left out)."""
    if "" in allowed:
        return False, None
    return True, _resolve(allowed[0])


def _resolve(value: Any) -> Any:
    """Nested answers are dicts of allowed-value lists; take the first allowed value of each."""
    if isinstance(value, dict):
        out = {}
        for key, allowed in value.items():
            given, item = (
                _pick(allowed) if isinstance(allowed, list) and allowed else (True, allowed)
            )
            if given:
                out[key] = item
        return out
    if isinstance(value, list):
        return [_resolve(v) for v in value]
    return value


def _ground_truth_args(params: dict[str, list[Any]], raw: dict[str, Any]) -> dict[str, Any]:
    """One valid call: parameters that may be left out are left out, unless the corpus's own
    definition requires them."""
    required = set(raw["parameters"].get("required") or ())
    args = {}
    for name, allowed in params.items():
        if name in required:
            allowed = [v for v in allowed if v != ""] or allowed
        given, value = _pick(allowed)
        if given:
            args[name] = value
    return args


def _sample(schema: dict[str, Any]) -> Any:
    """A valid value for a raw BFCL parameter schema (BFCL's type words: dict, float, tuple,
    any, string, integer, boolean, array)."""
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "string":
        return {"date": "2024-01-02"}.get(schema.get("format", ""), "x")
    if kind == "integer":
        return min(1, schema.get("maximum", 1))
    if kind == "float":
        return min(1.5, schema.get("maximum", 1.5))
    if kind == "boolean":
        return True
    if kind in ("array", "tuple"):
        item = schema.get("items")
        return [_sample(item) if isinstance(item, dict) else "x"] * int(schema.get("minItems", 1))
    if kind == "dict":
        props = schema.get("properties") or {}
        return {k: _sample(props[k]) for k in schema.get("required") or () if k in props}
    return "x"  # any


def _wrong_value(schema: dict[str, Any]) -> Any:
    return {
        "string": {"not": "a string"},
        "integer": "not a number",
        "float": "not a number",
        "boolean": "not a boolean",
        "array": 12345,
        "tuple": 12345,
        "dict": 12345,
    }.get(schema.get("type"))  # type: ignore[arg-type]


def _as_model_sends(value: Any, exported: dict[str, Any], *, strict: bool) -> Any:
    """``value`` as a model answering the exported schema sends it: JSON text where the schema
    asks for it, and (strict mode) ``null`` for every property it leaves out."""
    kinds = exported.get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or ())
    kinds = [str(k).lower() for k in kinds]
    if value is None:
        return None
    if "string" in kinds and "as JSON text" in str(exported.get("description", "")):
        return json.dumps(value)
    props = exported.get("properties")
    if "object" in kinds and isinstance(props, dict) and isinstance(value, dict):
        keys = list(props) if strict else list(value)
        return {
            k: _as_model_sends(value.get(k), props[k], strict=strict) if k in props else value[k]
            for k in keys
        }
    items = exported.get("items")
    if "array" in kinds and isinstance(items, dict) and isinstance(value, list):
        return [_as_model_sends(v, items, strict=strict) for v in value]
    return value


# -- the calls of one entry, as each provider sends them --------------------------------
def _exported(executor: ToolExecutor, provider: str) -> dict[str, dict[str, Any]]:
    """Each exported function's parameter schema, by provider name."""
    if provider == "gemini":
        return {d["name"]: d.get("parameters") or {} for d in to_gemini_declarations(executor)}
    strict = provider == "openai strict"
    return {
        t["function"]["name"]: t["function"]["parameters"]
        for t in to_openai_chat_tools(executor, strict=strict)
    }


def _results(
    executor: ToolExecutor, provider: str, calls: list[tuple[str, dict[str, Any]]]
) -> list[ToolResult]:
    names = NameMap.from_tools(executor)
    schemas = _exported(executor, provider)

    def sent(name: str, args: dict[str, Any], strict: bool = False) -> Any:
        schema = schemas[names.provider_name(name)]
        return _as_model_sends(args, schema, strict=strict) if schema else args

    if provider in ("openai", "openai strict"):
        strict = provider == "openai strict"
        message = {
            "tool_calls": [
                {
                    "id": f"c{i}",
                    "type": "function",
                    "function": {
                        "name": names.provider_name(n),
                        "arguments": json.dumps(sent(n, a, strict)),
                    },
                }
                for i, (n, a) in enumerate(calls)
            ]
        }
        parsed = parse_openai_chat_calls(message, names, strict=strict)
    elif provider == "anthropic":
        message = {
            "content": [
                {"type": "tool_use", "id": f"a{i}", "name": names.provider_name(n), "input": a}
                for i, (n, a) in enumerate(calls)
            ]
        }
        parsed = parse_anthropic_calls(message, names)
    else:
        parts = [
            {"functionCall": {"name": names.provider_name(n), "args": sent(n, a)}} for n, a in calls
        ]
        message = {"candidates": [{"content": {"role": "model", "parts": parts}}]}
        parsed = parse_gemini_calls(message, names)
    results = execute_calls_sync(executor, parsed)
    assert len(results) == len(calls)
    return results


def _calls(category: Category, entry_id: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        (name, _ground_truth_args(params, category.raw[(entry_id, name)]))
        for call in category.answers.get(entry_id, [])
        for name, params in call.items()
    ]


# -- the tests ---------------------------------------------------------------------------
def test_the_corpus_is_complete() -> None:
    total = 0
    for name in CATEGORIES:
        entries = _lines(BFCL / f"BFCL_v4_{name}.json")
        assert len(entries) == ENTRIES[name], name
        total += sum(len(e["function"]) for e in entries)
        if name in ANSWERED:
            answers = _lines(BFCL / "possible_answer" / f"BFCL_v4_{name}.json")
            assert {a["id"] for a in answers} == {e["id"] for e in entries}, name
    assert total == 1917


@pytest.mark.parametrize("name", CATEGORIES)
def test_functions_import_and_export(name: str) -> None:
    category = load(name)
    expected = sum(len(e["function"]) for e in category.entries)
    imported = sum(len(tools) for tools in category.tools.values())
    assert imported == expected
    for entry in category.entries:
        executor = category.executor(entry["id"])
        assert prov_sdk.check_all_exports(executor) > 0, entry["id"]
        names = {t.spec.name for t in category.tools[entry["id"]]}
        assert names == {f["name"] for f in entry["function"]}, entry["id"]
    print(f"\nBFCL {name}: {imported} functions, {category.warnings} normalised with a warning")


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("name", ANSWERED)
def test_ground_truth_calls_run(name: str, provider: str) -> None:
    category = load(name)
    checked = 0
    for entry in category.entries:
        entry_id = entry["id"]
        calls = _calls(category, entry_id)
        assert calls, f"{entry_id} has no ground truth"
        if entry_id in KNOWN_BAD_ANSWERS:
            continue  # test_known_bad_answers_are_rejected
        results = _results(category.executor(entry_id), provider, calls)
        for result, (_, args) in zip(results, calls, strict=True):
            assert result.success, f"{entry_id} via {provider}: {result.error}"
            given = {k: v for k, v in result.output.items() if k in args}  # defaults filled in
            assert given == args, f"{entry_id} via {provider}: {result.output} != {args}"
            checked += 1
    assert checked == sum(
        len(_calls(category, e["id"])) for e in category.entries if e["id"] not in KNOWN_BAD_ANSWERS
    )


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("entry_id", list(KNOWN_BAD_ANSWERS))
def test_known_bad_answers_are_rejected(entry_id: str, provider: str) -> None:
    category = load(entry_id.rsplit("_", 1)[0])
    calls = _calls(category, entry_id)
    results = _results(category.executor(entry_id), provider, calls)
    bad = KNOWN_BAD_ANSWERS[entry_id]
    for index, (result, (_, args)) in enumerate(zip(results, calls, strict=True)):
        if index in bad:
            assert not result.success and result.error is not None, f"{entry_id}[{index}]"
            assert result.code == "invalid_arguments", result.error
            paths = [d["path"] for d in result.error.details]
            assert bad[index] in paths, (paths, result.error.message)
        else:
            assert result.success, f"{entry_id}[{index}] via {provider}: {result.error}"
            assert {k: v for k, v in result.output.items() if k in args} == args


@pytest.mark.parametrize("name", CATEGORIES)
def test_sample_calls_pass_and_corrupted_calls_are_rejected(name: str) -> None:
    category = load(name)
    for entry in category.entries:
        executor = category.executor(entry["id"])
        for function in entry["function"]:
            _check_corruptions(executor, function)


def _check_corruptions(executor: ToolExecutor, function: dict[str, Any]) -> None:
    name = function["name"]
    schema = function["parameters"]
    props: dict[str, Any] = schema.get("properties") or {}
    base = _sample(schema)
    ok = executor.execute_sync(name, base)
    assert ok.success, f"{name}: sample arguments {base} rejected: {ok.error}"
    assert ok.output == base or set(base) <= set(ok.output), (name, ok.output)

    def rejected(args: dict[str, Any], param: str, kind: str) -> None:
        result = executor.execute_sync(name, args)
        assert not result.success and result.error is not None, f"{name}: {kind} accepted"
        assert result.error.code == "invalid_arguments", f"{name}: {result.error}"
        paths = [d["path"] for d in result.error.details]
        assert param in paths, f"{name}: {kind}: {param!r} not among {paths}"

    typed = [p for p, s in props.items() if _wrong_value(s) is not None and "enum" not in s]
    if typed:
        p = typed[0]
        rejected({**base, p: _wrong_value(props[p])}, p, "wrong type")
    required = [r for r in schema.get("required") or () if r in base]
    if required:
        p = required[0]
        rejected({k: v for k, v in base.items() if k != p}, p, "missing required")
    enums = [p for p, s in props.items() if isinstance(s.get("enum"), list)]
    if enums:
        p = enums[0]
        rejected({**base, p: "__not_one_of_them__"}, p, "outside enum")
    rejected({**base, "__unknown_argument__": 1}, "__unknown_argument__", "unknown argument")
