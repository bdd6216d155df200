"""Every BFCL function imports, exports to every provider format (checked by the SDKs), runs
its ground-truth calls through every provider's parser, and rejects corrupted calls precisely.

Data: ``../shared/corpora/bfcl`` (see its README). Prints the counts.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import prov_sdk
import pytest

from toolrig import Tool, ToolExecutor
from toolrig.providers import (
    NameMap,
    SchemaNormalizedWarning,
    execute_calls_sync,
    parse_anthropic_calls,
    parse_gemini_calls,
    parse_openai_chat_calls,
    tool_from_function_definition,
)
from toolrig.providers._schema_walk import is_opaque

BFCL = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "bfcl"
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")

KNOWN_BAD_ANSWERS = {"parallel_multiple_21": "x", "parallel_multiple_94": "elements[0]"}
"""Answers that break their own function's schema (an expression string given for an array;
fruit names for a list of integers), with the parameter at fault: they must be rejected."""

pytestmark = pytest.mark.skipif(not BFCL.is_dir(), reason=f"BFCL corpus not found at {BFCL}")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _stub(**kwargs: Any) -> dict[str, Any]:
    return kwargs


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


def _ground_truth_args(params: dict[str, list[Any]], required: list[str]) -> dict[str, Any]:
    """One valid call: optional parameters that may be left out are left out."""
    args = {}
    for name, allowed in params.items():
        if name in required:
            allowed = [v for v in allowed if v != ""] or allowed
        given, value = _pick(allowed)
        if given:
            args[name] = value
    return args


def _sample(schema: dict[str, Any]) -> Any:
    """A valid value for a (normalised) parameter schema."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "string":
        return {"date": "2024-01-02", "date-time": "2024-01-02T03:04:05Z"}.get(
            schema.get("format", ""), "x"
        )
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 1.5))
    if kind == "boolean":
        return True
    if kind == "array":
        return [_sample(schema.get("items") or {})] * int(schema.get("minItems", 1))
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: _sample(props[k]) for k in schema.get("required", []) if k in props}
    return "x"


def _wrong_value(schema: dict[str, Any]) -> Any:
    return {
        "string": {"not": "a string"},
        "integer": "not a number",
        "number": "not a number",
        "boolean": "not a boolean",
        "array": 12345,
        "object": 12345,
    }.get(schema.get("type"))  # type: ignore[arg-type]


def _strict_args(args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """What a model answering a strict schema sends: every parameter, ``null`` for the ones
    it leaves out, and JSON text for values exported as JSON text."""
    out: dict[str, Any] = {}
    for name, sub in schema["properties"].items():
        value = args.get(name)
        out[name] = json.dumps(value) if value is not None and is_opaque(sub, {}) else value
    return out


def _gemini_args(args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    props = schema["properties"]
    return {
        k: json.dumps(v) if k in props and is_opaque(props[k], {}) else v for k, v in args.items()
    }


def _required(t: Tool) -> list[str]:
    return list(t.spec.actions[t.spec.name].parameters.get("required", []))


def test_bfcl_corpus() -> None:
    counts: Counter[str] = Counter()
    for category in CATEGORIES:
        answers_path = BFCL / "possible_answer" / f"BFCL_v4_{category}.json"
        answers = (
            {a["id"]: a["ground_truth"] for a in _lines(answers_path)}
            if answers_path.exists()
            else {}
        )
        for entry in _lines(BFCL / f"BFCL_v4_{category}.json"):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", SchemaNormalizedWarning)
                tools = [tool_from_function_definition(fn, _stub) for fn in entry["function"]]
            counts["functions normalised (with a warning)"] += len(caught)
            counts["functions imported"] += len(tools)
            executor = ToolExecutor(tools)
            counts["exports checked by SDKs"] += prov_sdk.check_all_exports(executor) * len(tools)
            names = NameMap.from_tools(executor)
            by_name = {t.spec.name: t for t in tools}
            truth = answers.get(entry["id"], [])
            calls = [
                (name, _ground_truth_args(params, _required(by_name[name])))
                for call in truth
                for name, params in call.items()
            ]
            counts["ground-truth calls"] += len(calls)
            if calls:
                _run_ground_truth(entry["id"], calls, executor, names, by_name, counts)
            for t in tools:
                _corrupt(t, executor, counts)
            executor.close()
    print("\nBFCL corpus:", dict(counts))
    assert counts["functions imported"] == 1917
    for label in ("openai", "openai strict", "anthropic", "gemini"):
        done = counts[f"ground-truth calls executed via {label}"]
        refused = counts[f"invalid ground-truth calls rejected via {label}"]
        assert done + refused == counts["ground-truth calls"], label
    assert counts["sample calls accepted"] == counts["functions imported"]


def _run_ground_truth(
    entry_id: str,
    calls: list[tuple[str, dict[str, Any]]],
    executor: ToolExecutor,
    names: NameMap,
    tools: dict[str, Tool],
    counts: Counter[str],
) -> None:
    def schema(name: str) -> dict[str, Any]:
        return tools[name].spec.actions[name].parameters

    chat = {
        "tool_calls": [
            {
                "id": f"c{i}",
                "type": "function",
                "function": {"name": names.provider_name(n), "arguments": json.dumps(a)},
            }
            for i, (n, a) in enumerate(calls)
        ]
    }
    strict_chat = {
        "tool_calls": [
            {
                "id": f"s{i}",
                "type": "function",
                "function": {
                    "name": names.provider_name(n),
                    "arguments": json.dumps(_strict_args(a, schema(n))),
                },
            }
            for i, (n, a) in enumerate(calls)
        ]
    }
    anthropic = {
        "content": [
            {"type": "tool_use", "id": f"a{i}", "name": names.provider_name(n), "input": a}
            for i, (n, a) in enumerate(calls)
        ]
    }
    gemini = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {
                                "name": names.provider_name(n),
                                "args": _gemini_args(a, schema(n)),
                            }
                        }
                        for n, a in calls
                    ],
                }
            }
        ]
    }
    for label, parsed in (
        ("openai", parse_openai_chat_calls(chat, names)),
        ("openai strict", parse_openai_chat_calls(strict_chat, names, strict=True)),
        ("anthropic", parse_anthropic_calls(anthropic, names)),
        ("gemini", parse_gemini_calls(gemini, names)),
    ):
        results = execute_calls_sync(executor, parsed)
        assert len(results) == len(calls)
        for result, (_, args) in zip(results, calls, strict=True):
            if entry_id in KNOWN_BAD_ANSWERS and not result.success:
                assert result.error is not None and result.code == "invalid_arguments"
                assert KNOWN_BAD_ANSWERS[entry_id] in result.error.message
                counts[f"invalid ground-truth calls rejected via {label}"] += 1
                continue
            assert result.success, f"{entry_id} via {label}: {result.error}"
            given = {k: v for k, v in result.output.items() if k in args}  # defaults filled in
            assert given == args, f"{entry_id} via {label}: {result.output} != {args}"
            counts[f"ground-truth calls executed via {label}"] += 1


def _corrupt(t: Tool, executor: ToolExecutor, counts: Counter[str]) -> None:
    name = t.spec.name
    schema = t.spec.actions[name].parameters
    props: dict[str, Any] = schema["properties"]
    base = _sample(schema)
    ok = executor.execute_sync(name, base)
    assert ok.success, f"{name}: sample arguments {base} rejected: {ok.error}"
    counts["sample calls accepted"] += 1

    def rejected(args: dict[str, Any], param: str, kind: str) -> None:
        result = executor.execute_sync(name, args)
        assert not result.success and result.error is not None, f"{name}: {kind} accepted"
        assert result.error.code == "invalid_arguments", f"{name}: {result.error}"
        assert f"{param}" in result.error.message, f"{name}: {param!r} not named"
        counts[f"corrupted calls rejected: {kind}"] += 1

    typed = [p for p, s in props.items() if _wrong_value(s) is not None and "enum" not in s]
    if typed:
        p = typed[0]
        rejected({**base, p: _wrong_value(props[p])}, p, "wrong type")
    required = [r for r in schema.get("required", []) if r in base]
    if required:
        p = required[0]
        rejected({k: v for k, v in base.items() if k != p}, p, "missing required")
    enums = [p for p, s in props.items() if isinstance(s.get("enum"), list)]
    if enums:
        p = enums[0]
        rejected({**base, p: "__not_one_of_them__"}, p, "outside enum")
    rejected({**base, "__unknown_argument__": 1}, "__unknown_argument__", "unknown argument")
