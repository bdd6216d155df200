"""The custom mutation operators (``scripts/mutation_ops.py``): the shapes mutmut does not
generate, each a one-node change of a module's text that still compiles.

| promise | boundary | test |
|---|---|---|
| drop_element | each element of a list, set, except or ``in`` tuple, once | ``test_drop_...`` |
| drop_element | string-only literals, records, annotations, ``__all__``: none | ``test_drop_...`` |
| drop_operand | each operand of ``or``/``and``/``|``, once; nested ones too | ``test_drop_...`` |
| skip_failure_call | a call in ``except``/``finally``: ``pass``; elsewhere none | ``test_skip`` |
| the text | the rest of the file unchanged, every mutant compiles | ``test_the_rest...`` |
| the names | stable, numbered per operator, with the line and the change | ``test_names...`` |
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def ops() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_ops", ROOT / "scripts/mutation_ops.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def changed_lines(ops: ModuleType, source: str) -> list[tuple[str, str]]:
    """Each mutant as (operator, the one line that differs)."""
    out = []
    for mutant in ops.mutants(source, "pkg.mod"):
        before, after = source.splitlines(), mutant.source.splitlines()
        assert len(before) == len(after)
        diff = [a for b, a in zip(before, after, strict=True) if a != b]
        assert len(diff) == 1, mutant
        out.append((mutant.name.split("__")[1], diff[0].strip()))
    return out


def test_drop_element_leaves_out_each_element_of_a_collection_once(ops: ModuleType) -> None:
    source = (
        "LIMITS = [1, 2]\n"
        "def f(x):\n"
        "    try:\n"
        "        return x in (int, float)\n"
        "    except (KeyError, ValueError):\n"
        "        return {x, None}\n"
    )
    assert changed_lines(ops, source) == [
        ("drop_element", "LIMITS = ([2])"),
        ("drop_element", "LIMITS = ([1])"),
        ("drop_element", "return x in ((float,))"),
        ("drop_element", "return x in ((int,))"),
        ("drop_element", "except ((ValueError,)):"),
        ("drop_element", "except ((KeyError,)):"),
        ("drop_element", "return ({None})"),
        ("drop_element", "return ({x})"),
    ]


def test_drop_element_leaves_strings_records_and_annotations_alone(ops: ModuleType) -> None:
    source = (
        "from typing import Literal\n"
        "__all__ = ['f', g]\n"
        "NAMES = ('a', 'b')\n"
        "def f(x: tuple[int, str], y: Literal[1, 2]) -> list[int]:\n"
        "    pair = (x, y)\n"
        "    a, b = pair\n"
        "    return [a, b]\n"
    )
    assert changed_lines(ops, source) == [
        ("drop_element", "return ([b])"),
        ("drop_element", "return ([a])"),
    ]


def test_drop_operand_narrows_each_condition_and_flag_set(ops: ModuleType) -> None:
    source = "def f(a, b, c):\n    return (a or b and c) | 4\n"
    assert changed_lines(ops, source) == [
        ("drop_operand", "return (a or (b and c))"),
        ("drop_operand", "return (4)"),
        ("drop_operand", "return ((b and c)) | 4"),
        ("drop_operand", "return ((a)) | 4"),
        ("drop_operand", "return (a or (c)) | 4"),
        ("drop_operand", "return (a or (b)) | 4"),
    ]


def test_skip_failure_call_passes_over_calls_on_the_failure_path_only(ops: ModuleType) -> None:
    source = (
        "async def f(log, conn):\n"
        "    log.info('start')\n"
        "    try:\n"
        "        await conn.send()\n"
        "    except OSError:\n"
        "        log.warning('lost')\n"
        "        await conn.aclose()\n"
        "        raise\n"
        "    finally:\n"
        "        conn.release()\n"
    )
    assert changed_lines(ops, source) == [
        ("skip_failure_call", "pass"),
        ("skip_failure_call", "pass"),
        ("skip_failure_call", "pass"),
    ]
    lines = [m.line for m in ops.mutants(source, "pkg.mod")]
    assert lines == [6, 7, 10]


def test_the_rest_of_the_file_is_unchanged_and_every_mutant_compiles(ops: ModuleType) -> None:
    for path in ("src/toolrig/console/_guard.py", "src/toolrig/registry/_yamlsrc.py"):
        source = (ROOT / path).read_text()
        found = ops.mutants(source, "x")
        assert found
        for mutant in found:
            ast.parse(mutant.source)
            assert len(mutant.source.splitlines()) <= len(source.splitlines())
            assert mutant.source != source


def test_names_are_stable_numbered_per_operator_and_described(ops: ModuleType) -> None:
    source = (
        "def f(a, b):\n    try:\n        g(a or b)\n    except (KeyError, OSError):\n        h()\n"
    )
    found = ops.mutants(source, "pkg.mod")
    assert [m.name for m in found] == [
        "pkg.mod.custom__drop_element__1",
        "pkg.mod.custom__drop_element__2",
        "pkg.mod.custom__drop_operand__1",
        "pkg.mod.custom__drop_operand__2",
        "pkg.mod.custom__skip_failure_call__1",
    ]
    assert [m.description for m in found] == [
        "line 4: left out KeyError",
        "line 4: left out OSError",
        "line 3: left out `a or`",
        "line 3: left out `or b`",
        "line 5: skipped `h()`",
    ]
    assert [m.name for m in ops.mutants(source, "pkg.mod")] == [m.name for m in found]
