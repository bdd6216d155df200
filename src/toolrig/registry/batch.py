"""One refresh of YAML sources: every file read and built first, then all changes swapped in
at once, so a broken file never leaves the registry half updated."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from toolrig.core.base import BaseTool
from toolrig.core.errors import ToolDefinitionError
from toolrig.registry.build import BuildError
from toolrig.registry.events import ChangeEvent, ChangeKind
from toolrig.registry.loader import ParsedDefinition, error_at, read_file
from toolrig.registry.report import LoadError
from toolrig.registry.swap import swap_tools

if TYPE_CHECKING:
    from toolrig.registry.registry import Registry

__all__ = ["RefreshBatch", "collector_paused"]


class RefreshBatch:
    """One refresh: files read and built first, then every change swapped in at once."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.add: list[BaseTool] = []
        self.remove: set[str] = set()
        self.defs: dict[str, ParsedDefinition] = {}
        self.files: dict[Path, tuple[str, ...] | None] = {}
        self.events: list[ChangeEvent] = []
        self.errors: list[LoadError] = []
        self.loaded: list[str] = []

    def apply(self, path: Path) -> None:
        reg = self.registry
        old = reg._files.get(path, ())
        if not path.is_file():
            self.files[path] = None
            self.remove.update(old)
            for name in old:
                self.events.append(ChangeEvent(kind=ChangeKind.REMOVED, name=name, path=path))
            return
        parsed, errors = read_file(path)
        tools: list[tuple[ParsedDefinition, BaseTool]] = []
        for p in parsed if not errors else ():
            name = p.definition.name
            owner = self.defs.get(name)
            if owner is None and name not in self.remove:  # a name being removed is free
                owner = reg._defs.get(name)
            if (owner is not None and owner.path != path) or (
                owner is None and name in reg.executor and name not in self.remove
            ):
                where = owner.path if owner is not None else "Python code"
                errors.append(
                    error_at(
                        path,
                        p.node,
                        ("name",),
                        f"tool {name!r} is already defined in {where}",
                        name,
                    )
                )
                continue
            try:
                tools.append((p, reg._build(p, reg._bindings.get(name))))
            except BuildError as exc:
                errors.extend(error_at(path, p.node, loc, m, name) for loc, m in exc.problems)
        names = [p.definition.name for p in parsed]
        if len(set(names)) != len(names):
            errors.append(error_at(path, None, (), "the file defines the same tool twice"))
        if errors:
            self.errors.extend(errors)
            self.events.append(
                ChangeEvent(
                    kind=ChangeKind.FAILED,
                    name=_only({e.tool for e in errors if e.tool} or set(old)),
                    path=path,
                    errors=tuple(errors),
                )
            )
            return
        self.files[path] = tuple(names)
        self.remove.update(n for n in old if n not in names)
        for name in old:
            if name not in names:
                self.events.append(ChangeEvent(kind=ChangeKind.REMOVED, name=name, path=path))
        for p, tool in tools:
            name = p.definition.name
            kind = ChangeKind.UPDATED if name in reg._defs else ChangeKind.ADDED
            self.events.append(
                ChangeEvent(kind=kind, name=name, path=path, version=tool.spec.version)
            )
            self.defs[name] = ParsedDefinition(p.definition, path, None)  # drop the YAML tree
            self.add.append(tool)
            self.loaded.append(name)

    def commit(self) -> None:
        reg = self.registry
        added = {t.spec.name for t in self.add}
        try:
            swap_tools(reg.executor, self.add, self.remove - added)
        except ToolDefinitionError as exc:  # a call name clashes with a tool written in Python
            error = LoadError(path=None, line=None, field=None, message=str(exc))
            self.errors.append(error)
            self.events = [ChangeEvent(kind=ChangeKind.FAILED, name=None, errors=(error,))]
            self.loaded.clear()
            return
        defs = (
            {k: v for k, v in reg._defs.items() if k not in self.remove}
            if self.remove
            else dict(reg._defs)
        )
        defs.update(self.defs)
        files = dict(reg._files)
        for path, names in self.files.items():
            if names is None:
                files.pop(path, None)
            else:
                files[path] = names
        reg._defs, reg._files = defs, files


def _only(names: set[str]) -> str | None:
    return next(iter(names)) if len(names) == 1 else None


@contextmanager
def collector_paused(pause: bool) -> Iterator[None]:
    """Pause the cyclic garbage collector while a batch allocates many long-lived objects
    (it would otherwise rescan them again and again, doubling the load time)."""
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
