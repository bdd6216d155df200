"""Executors named by import path: imported on the first call, never at load; and what
each action of a definition runs (`definition_targets`).

Code named by path is an `ImportedCode`, a `Deferred`: the tool's action is pending until the
pipeline first reads it, which imports the code and makes the action a plain one (the function,
or the tool class's own action, decided as ``@tool`` decides it). The pipeline then runs it on
its own runners like any other: an async executor on the caller's loop, cancelled at its time
limit; one validation (the definition's parameters) and one output check.

A missing executor answers ``not_found`` and one that fails to import answers
``execution_error``, both with the import error, when the tool is called. Failures are not
cached, so fixing the code makes the next call work. A *reload* (a definition replacing one in
service) imports the code first, through `Targets.check`, and is refused when that
fails: a typo in an edited ``executor:`` never replaces a working tool.

A ``BaseTool`` (class or instance) given as the code runs its own action's function and
context; bound to a definition (known when the tool is built), the class's action becomes the
tool's action, validation included.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

from toolrig.core.define._action import Action, Deferred
from toolrig.core.define._base import BaseTool
from toolrig.core.model._errors import ErrorCode, Loc, ToolError
from toolrig.registry._build import Code, Targets
from toolrig.registry._definition import ToolDefinition

__all__ = [
    "ExecutorNotFound",
    "ImportedCode",
    "definition_targets",
    "import_object",
    "target_for",
    "unbound_executor",
]


class ExecutorNotFound(LookupError):
    """The import path names no module or attribute."""


def import_object(path: str) -> Any:
    """The object at ``package.module.attr`` or ``package.module:attr``.

    Raises `ExecutorNotFound` when nothing is found there; exceptions raised while
    importing an existing module propagate.
    """
    module_name, colon, attrs = path.partition(":")
    if colon:
        module = _import(module_name)
        if module is None:
            raise ExecutorNotFound(f"no module named {module_name!r}")
        return _walk(module, attrs.split("."), path)
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = _import(".".join(parts[:cut]))
        if module is not None:
            return _walk(module, parts[cut:], path)
    raise ExecutorNotFound(f"no module found in {path!r}")


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            return None  # this module is missing (not something it imports)
        raise


def _walk(obj: Any, attrs: list[str], path: str) -> Any:
    for attr in attrs:
        try:
            obj = getattr(obj, attr)
        except AttributeError:
            raise ExecutorNotFound(f"{path!r}: no attribute {attr!r}") from None
    return obj


def target_for(obj: Any, *, tool: str, action: str, multi: bool) -> Code:
    """What runs ``action`` of ``tool`` given the code object ``obj``.

    Accepted: a ``BaseTool`` subclass or instance (its action of that name, or its only
    action; a class is instantiated without arguments), answered as that
    `Action`; a function; another class (instantiated without
    arguments) or object, whose method named like the action (multi-action tools), or which
    is itself callable or has ``run``.
    """
    if isinstance(obj, type):
        obj = obj()
    if isinstance(obj, BaseTool):
        return _tool_action(obj, action, multi)
    if multi:
        method = getattr(obj, action, None)
        if method is None or not callable(method):
            raise ExecutorNotFound(f"{obj!r} has no method {action!r}")
        return method  # type: ignore[no-any-return]
    if callable(obj):
        return obj  # type: ignore[no-any-return]
    run_method = getattr(obj, "run", None)
    if callable(run_method):
        return run_method  # type: ignore[no-any-return]
    raise ExecutorNotFound(f"{obj!r} is not callable and has no `run` method")


def _tool_action(obj: BaseTool, action: str, multi: bool) -> Action:
    names = obj.get_action_names()
    bound = obj.get_action(action)
    if bound is None and not multi and len(names) == 1:
        bound = obj.get_action(names[0])
    if bound is None:
        raise ExecutorNotFound(
            f"tool class {type(obj).__name__} has no action {action!r} (it has {', '.join(names)})"
        )
    return bound


class _Import:
    """The object at an import path, imported on first use; a class is instantiated then,
    once, so the actions of one tool share one instance. Failures are not kept."""

    __slots__ = ("_lock", "_obj", "path")

    def __init__(self, path: str) -> None:
        self.path = path
        self._obj: Any = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        with self._lock:
            if self._obj is None:
                obj = import_object(self.path)
                self._obj = obj() if isinstance(obj, type) else obj
            return self._obj


class ImportedCode(Deferred):
    """Code named by import path, imported when its action is first used (the action then
    runs it directly; this object is not called again)."""

    __slots__ = ("_code", "_lock", "_source", "action", "multi", "path", "tool")

    def __init__(self, path: str | _Import, *, tool: str, action: str, multi: bool) -> None:
        self._source = path if isinstance(path, _Import) else _Import(path)
        self.path = self._source.path
        self.tool = tool
        self.action = action
        self.multi = multi
        self._code: Code | None = None
        self._lock = threading.Lock()

    def resolve(self) -> Code:
        """The function or tool action the path names; raises the `ToolError` a call
        answers with when it cannot be imported (not kept: the next call tries again)."""
        code = self._code
        if code is not None:
            return code
        with self._lock:
            if self._code is None:
                self._code = self._imported()
            return self._code

    def prepare(self) -> None:
        """Import the code now (as the first call would), so a reload can refuse code that
        cannot be imported before it replaces a working tool; raises the
        `ToolError` a call would answer with."""
        self.resolve()

    def _imported(self) -> Code:
        try:
            obj = self._source.get()
            return target_for(obj, tool=self.tool, action=self.action, multi=self.multi)
        except ExecutorNotFound as exc:
            raise ToolError(
                f"The executor `{self.path}` of tool `{self.tool}` was not found: {exc}",
                code=ErrorCode.NOT_FOUND,
                hint="This tool cannot run until its code is installed; use another tool.",
            ) from exc
        except Exception as exc:
            raise ToolError(
                f"The executor `{self.path}` of tool `{self.tool}` failed to load: "
                f"{type(exc).__name__}: {exc}",
                hint="This tool is broken for now; use another tool.",
            ) from exc

    def __repr__(self) -> str:
        return f"<ImportedCode {self.path!r}>"


def unbound_executor(tool: str) -> Callable[..., Any]:
    """The callable of a definition without an executor: fails with ``not_found``."""

    def call(**values: Any) -> Any:
        raise ToolError(
            f"Tool `{tool}` has no executor: its definition names none and no code was bound "
            "to it.",
            code=ErrorCode.NOT_FOUND,
            hint="Use another tool.",
        )

    return call


def definition_targets(d: ToolDefinition, bound: Any) -> Targets:
    """What each action of definition ``d`` runs: ``bound`` code when given (a tool class's
    actions become the tool's), else the executor import paths of the YAML (imported on
    first call), else a stub that says the tool has no code. A class, bound or imported, is
    instantiated once per definition."""
    if isinstance(bound, type):
        bound = bound()  # once: the actions of the tool share the instance
    imports: dict[str, _Import] = {}
    made: list[tuple[Loc, ImportedCode]] = []

    def lazy(path: str, action: str, multi: bool, at: Loc) -> ImportedCode:
        source = imports.setdefault(path, _Import(path))
        code = ImportedCode(source, tool=d.name, action=action, multi=multi)
        made.append((at, code))
        return code

    def target(action: str, multi: bool) -> Code:
        if bound is not None:
            method = d.actions[action].method if multi and d.actions is not None else None
            return target_for(bound, tool=d.name, action=method or action, multi=multi)
        if multi and d.actions is not None:
            a = d.actions[action]
            if a.executor:
                return lazy(a.executor, action, False, ("actions", action, "executor"))
            if d.executor:
                return lazy(d.executor, a.method or action, True, ("executor",))
        elif d.executor:
            return lazy(d.executor, action, False, ("executor",))
        return unbound_executor(d.name)

    def check() -> list[tuple[Loc, str]]:
        problems: list[tuple[Loc, str]] = []
        for at, code in made:
            try:
                code.prepare()
            except ToolError as exc:
                problems.append((at, exc.message))
        return problems

    return Targets(target, bound if isinstance(bound, BaseTool) else None, check)
