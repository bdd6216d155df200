"""Dependency chains: a tool and everything it needs, dependencies first, each once."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

__all__ = ["DependencyCycleError", "DependencyError", "MissingDependencyError", "resolve_chain"]


class DependencyError(ValueError):
    """The dependencies of a tool cannot be put in order."""


class DependencyCycleError(DependencyError):
    """Tools depend on each other in a circle; ``cycle`` lists it, first tool repeated last."""

    def __init__(self, cycle: Sequence[str]) -> None:
        self.cycle = tuple(cycle)
        super().__init__(f"dependency cycle: {' -> '.join(self.cycle)}")


class MissingDependencyError(DependencyError):
    """A tool depends on one that is not registered."""

    def __init__(self, missing: str, required_by: str | None) -> None:
        self.missing = missing
        self.required_by = required_by
        if required_by is None:
            text = f"no tool named {missing!r}"
        else:
            text = f"tool {required_by!r} depends on {missing!r}, which is not registered"
        super().__init__(text)


def resolve_chain(
    names: Iterable[str], dependencies: Callable[[str], Sequence[str] | None]
) -> list[str]:
    """``names`` and their dependencies (transitively), each after all it needs, once.

    ``dependencies(name)`` gives a tool's direct dependencies, or ``None`` when the tool is
    unknown. The order is stable: depth first, in declaration order.
    """
    order: list[str] = []
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(name: str, parent: str | None) -> None:
        if name in done:
            return
        if name in on_path:
            raise DependencyCycleError([*path[path.index(name) :], name])
        deps = dependencies(name)
        if deps is None:
            raise MissingDependencyError(name, parent)
        path.append(name)
        on_path.add(name)
        for dep in deps:
            visit(dep, name)
        path.pop()
        on_path.discard(name)
        done.add(name)
        order.append(name)

    for name in names:
        visit(name, None)
    return order
