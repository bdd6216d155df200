"""Docstring reading: the quick path gives what ``docstring_parser.parse`` gives, on real text."""

from __future__ import annotations

import importlib
import inspect
import sys
import warnings
from collections.abc import Iterator

import pytest

from toolrig.core.define._docstrings import Doc, parse_text, parse_with_library

MODULES = [
    "argparse",
    "asyncio",
    "collections",
    "email",
    "http.client",
    "inspect",
    "json",
    "logging",
    "typing",
    "unittest",
    "docstring_parser",
    "pydantic",
    "pydantic_core",
    "httpx",
    "jsonschema",
    "langchain_core.tools",
    "agents",
    "mcp",
]
"""Standard-library and installed packages: reST, Google and free-form docstrings by the
thousand (those not installed are skipped)."""


def _docstrings() -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in MODULES:
            try:
                importlib.import_module(name)
            except Exception:
                continue
        found: set[str] = set()
        for module in list(sys.modules.values()):
            for obj in _members(module):
                try:
                    doc = inspect.getdoc(obj)
                except Exception:
                    continue
                if doc:
                    found.add(doc)
    return sorted(found)


def _members(module: object) -> Iterator[object]:
    try:
        members = [value for _, value in inspect.getmembers(module)]
    except Exception:
        return
    for value in members:
        if inspect.isfunction(value) or inspect.ismethod(value):
            yield value
        elif inspect.isclass(value):
            yield value
            try:
                yield from (v for _, v in inspect.getmembers(value) if inspect.isfunction(v))
            except Exception:
                continue


def test_real_docstrings_read_as_the_library_reads_them() -> None:
    docs = _docstrings()
    assert len(docs) > 3000
    mismatched = [d for d in docs if parse_text.__wrapped__(d) != parse_with_library(d)]
    assert mismatched == []


EDGES = [
    "One line.",
    "Summary wrapped\nover two lines.\n\nLong text.",
    "Summary.\n\nArgs:\n    a: First.\n    b (int): Second,\n        continued.\n    *rest: More.",
    "Summary.\n\nArgs:\n    a: First.\n\nReturns:\n    int: The sum.\n\nYields:\n    Nothing.",
    "Summary.\n\nReturns:\n    The plain returned text\n    over two lines.",
    "Summary.\n\nAttributes:\n    x: An attribute.\n\nRaises:\n    ValueError: When bad.",
    "Summary.\n\nArgs:\n    a First without a colon.",
    "Summary.\n\nArgs:\n\nReturns:\n    x",
    "Summary.\n\nArgs:\n    a: A.\n    a: Again.\n\nArgs:\n    b: B.",
    "Summary.\n\nExample:\n    >>> f(1)\n\nArgs:\n    a (int, optional): A. Defaults to 1.",
    "Summary.\n\n:param a: reST style.\n:returns: Something.",
    "Summary.\n\nParameters\n----------\na : int\n    NumPy style.\n\nReturns\n-------\nint",
    "Summary.\n\n@param a: epydoc style.\n@return: Something.",
    "Summary.\n\n.. deprecated:: 1.0\n    Use another.",
    "Summary.\n\n- a bullet\n- another\n\nArgs:\n    a: A.",
    "Summary.\nArgs:\n    a: Directly after.",
    "Args:\n    a: No summary.",
    "Summary.\n\nArgs:\n  a: Two-space indent.\n  b: B.\nUnindented tail.",
]


@pytest.mark.parametrize("raw", EDGES, ids=lambda raw: raw.splitlines()[-1][:30])
def test_edge_cases_read_as_the_library_reads_them(raw: str) -> None:
    assert parse_text.__wrapped__(raw) == parse_with_library(raw)


def test_parameter_texts_and_returns_are_read() -> None:
    doc = parse_text(EDGES[3])
    assert doc == Doc("Summary.", {"a": "First."}, "The sum.")
