"""Executors named by import path: imported on the first call, never at load; and what
each action of a definition runs (:func:`definition_targets`).

A missing executor answers ``not_found`` and one that fails to import answers
``execution_error``, both with the import error, when the tool is called. Failures are not
cached, so fixing the code makes the next call work. A *reload* (a definition replacing one in
service) imports the code first, through :attr:`Targets.check`, and is refused when that
fails: a typo in an edited ``executor:`` never replaces a working tool.

A ``BaseTool`` (class or instance) given as the code runs through its own
:class:`~toolrig.core.define._action.Action`: its validation, its output check and its
:class:`~toolrig.ToolContext`. Code bound to a definition is known when the tool is built, so
the class's action becomes the tool's action; an import path is resolved on the first call,
after the definition's own validation, so the class's action then runs behind it.
"""

from __future__ import annotations

import asyncio
import importlib
import threading
from collections.abc import Callable
from typing import Any

from toolrig.core.context._background import run_sync
from toolrig.core.context._context import ToolContext  # at run time: read from an annotation
from toolrig.core.define._action import Action, context_parameter
from toolrig.core.define._base import BaseTool
from toolrig.core.model._errors import ErrorCode, Loc, ToolError
from toolrig.core.schema._validation import ArgumentsInvalid
from toolrig.registry._build import Code, Targets
from toolrig.registry._definition import ToolDefinition

__all__ = [
    "ExecutorNotFound",
    "LazyExecutor",
    "definition_targets",
    "import_object",
    "target_for",
    "unbound_executor",
]

Runner = Callable[[dict[str, Any], ToolContext | None], Any]
"""Runs the code with validated values and the call's context (or ``None``)."""
_CALL_ANNOTATIONS: dict[str, Any] = {"_toolrig_context": ToolContext | None, "values": Any}
"""The annotations of :meth:`LazyExecutor.as_function`'s function as objects: the text this
module's ``from __future__ import annotations`` leaves cost an ``eval`` per tool when
building read them (a sixth of building 5,000 YAML tools)."""


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


def target_for(obj: Any, *, tool: str, action: str, multi: bool) -> Code:
    """What runs ``action`` of ``tool`` given the code object ``obj``.

    Accepted: a ``BaseTool`` subclass or instance (its action of that name, or its only
    action; a class is instantiated without arguments), answered as that
    :class:`~toolrig.core.define._action.Action`; a function; another class (instantiated without
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


def _blocking(coro: Any) -> Any:
    """The result of coroutine ``coro``, run to completion from sync code on the one
    background loop (every call of an async YAML executor shares it, as async clients bound
    to a loop need; a loop per call would also cost hundreds of microseconds)."""
    return run_sync(coro)


def _runner(code: Code) -> Runner:
    """How to run resolved code with validated values and the call's context."""
    if isinstance(code, Action):
        return _action_runner(code)
    param = context_parameter(code)

    def run(values: dict[str, Any], ctx: ToolContext | None) -> Any:
        output = code(**values) if param is None else code(**values, **{param: ctx})
        return _blocking(output) if asyncio.iscoroutine(output) else output

    return run


def _action_runner(inner: Action) -> Runner:
    """Run a tool class's own action: its validation, its context, its output check."""

    def run(values: dict[str, Any], ctx: ToolContext | None) -> Any:
        try:
            checked = inner.validator.validate(values)
        except ArgumentsInvalid as exc:
            raise ToolError(
                exc.error.message, code=ErrorCode.INVALID_ARGUMENTS, hint=exc.error.hint
            ) from None
        output = inner.call(checked, ctx)
        if inner.is_async:
            output = _blocking(output)
        error = None if inner.output_validator is None else inner.output_validator.check(output)
        if error is not None:
            raise ToolError(error.message, code=error.code, hint=error.hint)
        return output

    return run


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


class LazyExecutor:
    """Code named by import path, imported on first use and then run directly."""

    __slots__ = ("_lock", "_runner", "_source", "action", "multi", "path", "tool")

    def __init__(self, path: str | _Import, *, tool: str, action: str, multi: bool) -> None:
        self._source = path if isinstance(path, _Import) else _Import(path)
        self.path = self._source.path
        self.tool = tool
        self.action = action
        self.multi = multi
        self._runner: Runner | None = None
        self._lock = threading.Lock()

    def __call__(self, **values: Any) -> Any:
        """Run the code without a context."""
        return self.run(values, None)

    def run(self, values: dict[str, Any], ctx: ToolContext | None) -> Any:
        """Run the code with validated ``values`` and the call's context."""
        runner = self._runner
        if runner is None:
            runner = self._resolve()
        return runner(values, ctx)

    def as_function(self) -> Callable[..., Any]:
        """A function taking the values as keywords and asking for the call's context (as an
        action's function does), so the code gets it when it wants it."""

        def call(*, _toolrig_context: ToolContext | None = None, **values: Any) -> Any:
            return self.run(values, _toolrig_context)

        call.__annotations__ = _CALL_ANNOTATIONS  # evaluated once, not per tool built
        return call

    def prepare(self) -> None:
        """Import the code now (as the first call would), so a reload can refuse code that
        cannot be imported before it replaces a working tool; raises the
        :class:`~toolrig.ToolError` a call would answer with."""
        self._resolve()

    def _resolve(self) -> Runner:
        with self._lock:
            if self._runner is not None:
                return self._runner
            try:
                obj = self._source.get()
                code = target_for(obj, tool=self.tool, action=self.action, multi=self.multi)
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
            self._runner = _runner(code)
            return self._runner

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


def definition_targets(d: ToolDefinition, bound: Any) -> Targets:
    """What each action of definition ``d`` runs: ``bound`` code when given (a tool class's
    actions become the tool's), else the executor import paths of the YAML (imported on
    first call), else a stub that says the tool has no code. A class, bound or imported, is
    instantiated once per definition."""
    if isinstance(bound, type):
        bound = bound()  # once: the actions of the tool share the instance
    imports: dict[str, _Import] = {}
    made: list[tuple[Loc, LazyExecutor]] = []

    def lazy(path: str, action: str, multi: bool, at: Loc) -> Callable[..., Any]:
        source = imports.setdefault(path, _Import(path))
        executor = LazyExecutor(source, tool=d.name, action=action, multi=multi)
        made.append((at, executor))
        return executor.as_function()

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
        for at, executor in made:
            try:
                executor.prepare()
            except ToolError as exc:
                problems.append((at, exc.message))
        return problems

    return Targets(target, bound if isinstance(bound, BaseTool) else None, check)
