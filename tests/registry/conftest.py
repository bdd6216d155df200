"""Fixtures of the registry tests: a fresh registry, importable modules in tmp_path."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from registry_helpers import write

from toolrig import ToolExecutor
from toolrig.registry import Registry


@pytest.fixture
def registry() -> Iterator[Registry]:
    reg = Registry()
    yield reg
    reg.close()


@pytest.fixture
def executor(registry: Registry) -> Iterator[ToolExecutor]:
    """Runs calls to the tools of ``registry`` (following it as it changes)."""
    with ToolExecutor(registry) as ex:
        yield ex


@pytest.fixture
def module_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str, str], Path]]:
    """Write an importable module ``name`` with ``source``; forgotten after the test."""
    root = tmp_path / "modules"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    names: list[str] = []

    def make(name: str, source: str) -> Path:
        names.append(name)
        sys.modules.pop(name, None)
        return write(root / f"{name}.py", source)

    yield make
    for name in names:
        sys.modules.pop(name, None)
