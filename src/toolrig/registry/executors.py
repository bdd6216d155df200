"""Executors named by import path: imported on the first call, never at load; and what
each action of a definition calls (:func:`definition_targets`).

A missing executor answers ``not_found`` and one that fails to import answers
``execution_error``, both with the import error, when the tool is called. Failures are not
cached, so fixing the code makes the next call work.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import threading
from collections.abc import Callable
from typing import Any

from toolrig.core.base import BaseTool
from toolrig.core.errors import ErrorCode, ToolError
from toolrig.registry.build import ActionTarget
from toolrig.registry.definition import ToolDefinition

__all__ = [
    "LazyExecutor",
    "definition_targets",
    "import_object",
    "target_for",
    "unbound_executor",
]


class ExecutorNotFound(LookupError):
    """The import path names no module or attribute."""


def import_object(path: str) -> Any:
    """The object at ``package.module.attr`` or ``package.module:attr``.

    Raises :class:`ExecutorNotFound` when nothing is found there; exceptions raised while
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


def target_for(obj: Any, *, tool: str, action: str, multi: bool) -> Callable[..., Any]:
    """The callable that runs ``action`` of ``tool`` given an executor object.

    Accepted: a function; a ``BaseTool`` subclass or instance (its action of that name, or its
    only action); another class (instantiated without arguments) or object, whose method named
    like the action (multi-action tools), or which is itself callable or has ``run``.
    """
    if isinstance(obj, type):
        obj = obj()
    if isinstance(obj, BaseTool):
        names = obj.get_action_names()
        bound = obj.get_action(action)
        if bound is None and not multi and len(names) == 1:
            bound = obj.get_action(names[0])
        if bound is None:
            raise ExecutorNotFound(f"tool class {type(obj).__name__} has no action {action!r}")
        run = bound.call
        if bound.is_async:

            async def call_async(**values: Any) -> Any:
                return await run(values, None)

            return call_async

        def call(**values: Any) -> Any:
            return run(values, None)

        return call
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


def _blocking(func: Callable[..., Any]) -> Callable[..., Any]:
    """A sync callable running the async ``func`` to completion (in a worker thread)."""

    def call(**values: Any) -> Any:
        coro = func(**values)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coro)
        result: list[Any] = []

        def run() -> None:
            result.append(asyncio.run(coro))

        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
        return result[0] if result else None

    return call


class LazyExecutor:
    """A callable that imports its executor on first use and then calls it directly."""

    __slots__ = ("_lock", "_target", "action", "multi", "path", "tool")

    def __init__(self, path: str, *, tool: str, action: str, multi: bool) -> None:
        self.path = path
        self.tool = tool
        self.action = action
        self.multi = multi
        self._target: Callable[..., Any] | None = None
        self._lock = threading.Lock()

    def __call__(self, **values: Any) -> Any:
        target = self._target
        if target is None:
            target = self._resolve()
        return target(**values)

    def _resolve(self) -> Callable[..., Any]:
        with self._lock:
            if self._target is not None:
                return self._target
            try:
                obj = import_object(self.path)
                target = target_for(obj, tool=self.tool, action=self.action, multi=self.multi)
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
            if inspect.iscoroutinefunction(target):
                target = _blocking(target)
            self._target = target
            return target

    def __repr__(self) -> str:
        return f"<LazyExecutor {self.path!r}>"


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


def definition_targets(d: ToolDefinition, bound: Any) -> ActionTarget:
    """What each action of definition ``d`` calls: ``bound`` code when given, else the
    executor import paths of the YAML (imported on first call), else a stub that says the
    tool has no code."""

    def target(action: str, multi: bool) -> Callable[..., Any]:
        if bound is not None:
            return target_for(bound, tool=d.name, action=action, multi=multi)
        if multi and d.actions is not None:
            a = d.actions[action]
            if a.executor:
                return LazyExecutor(a.executor, tool=d.name, action=action, multi=False)
            if d.executor:
                method = a.method or action
                return LazyExecutor(d.executor, tool=d.name, action=method, multi=True)
        elif d.executor:
            return LazyExecutor(d.executor, tool=d.name, action=action, multi=False)
        return unbound_executor(d.name)

    return target
