"""What runs: an `Action` holds the callable and its validators.

Code may also be found on first use: an action whose function is a `Deferred` (the
``executor:`` of a YAML definition) is a `PendingAction` until the pipeline first reads what it
needs of the code, and from then on a plain `Action` like any other.

An action defined from a function gets validators compiled on their first use (see
`toolrig.core.schema._validation`): defining many tools costs what exporting them needs.
One defined from a JSON Schema compiles at definition time (jsonschema-rs takes about 10 µs), as
compiling is what checks the schema, every keyword of it and its defaults; equal schemas share
one compiled validator (`toolrig.core.schema._json_schema`)."""

from __future__ import annotations

import contextlib
import inspect
import marshal
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, cast

from toolrig.core.context._context import ToolContext
from toolrig.core.model._errors import ToolDefinitionError, ToolError
from toolrig.core.model._names import ActionRef
from toolrig.core.result._jsonable import safe_repr
from toolrig.core.schema._json_schema import JsonSchema, SchemaCompileError, compile_json_schema
from toolrig.core.schema._schema_arguments import SchemaArgumentValidator
from toolrig.core.schema._schema_output import SchemaOutputValidator
from toolrig.core.schema._validation import ArgumentsValidator, ArgumentValidator, OutputValidator

if TYPE_CHECKING:
    from toolrig.core.model._spec import ActionSpec, ToolAnnotations

__all__ = [
    "Action",
    "Deferred",
    "PendingAction",
    "action_from_function",
    "action_from_schema",
    "context_parameter",
]


class Action:
    """One callable unit of a tool: its spec, its function and its validators.

    Built once at definition time; per call only ``validator.validate``, `call` and
    ``output_validator.check`` run (the validators compile themselves on first use when built
    lazily, then cost the same as if compiled up front).
    """

    __slots__ = (
        "context_param",
        "func",
        "is_async",
        "name",
        "output_validator",
        "plain",
        "positional_only",
        "spec",
        "tool",
        "validator",
    )

    spec: ActionSpec
    name: str
    func: Callable[..., Any]
    is_async: bool
    validator: ArgumentsValidator
    output_validator: OutputValidator | SchemaOutputValidator | None
    context_param: str | None
    positional_only: tuple[str, ...]
    tool: str
    plain: bool

    def __init__(
        self,
        *,
        spec: ActionSpec,
        func: Callable[..., Any],
        validator: ArgumentsValidator,
        output_validator: OutputValidator | SchemaOutputValidator | None,
        context_param: str | None,
        positional_only: tuple[str, ...] = (),
        tool: str = "",
        plain: bool = False,
    ) -> None:
        init = object.__setattr__
        init(self, "spec", spec)
        init(self, "name", spec.name)
        init(self, "validator", validator)
        init(self, "output_validator", output_validator)
        init(self, "context_param", context_param)
        init(self, "positional_only", positional_only)
        _install_code(self, func)
        init(self, "tool", tool)
        init(self, "plain", plain)
        """Whether its tool has no time limit, retries, process or queue, so a call may take
        the pipeline's straight-line path (set when the tool is built)."""

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"an Action is frozen (it may be shared by several tools); use "
            f"action.replace({name}=...) for a changed copy"
        )

    def replace(self, **changes: Any) -> Action:
        """A copy of this action with ``changes`` (``spec`` also renames it); a copy of a
        pending action is pending too (copying finds no code)."""
        made = Action.__new__(type(self))
        for slot in Action.__slots__:
            if slot in changes:
                object.__setattr__(made, slot, changes[slot])
                continue
            try:
                value = _SLOTS[slot].__get__(self, Action)
            except AttributeError:  # pending: found on first use
                continue
            object.__setattr__(made, slot, value)
        if "spec" in changes and "name" not in changes:
            object.__setattr__(made, "name", changes["spec"].name)
        _install_code(made, _SLOTS["func"].__get__(made, Action))
        return made

    def bind(self, instance: object, tool: str) -> Action:
        """This action with its function bound to ``instance`` (for methods of tool classes)."""
        return self.replace(func=self.func.__get__(instance, type(instance)), tool=tool)

    def call(self, values: dict[str, Any], ctx: ToolContext | None) -> Any:
        """Call the function with validated ``values`` (never mutated); async: a coroutine."""
        if self.context_param is not None:
            values = {**values, self.context_param: ctx}
        if self.positional_only:
            values = dict(values)
            args = [values.pop(name) for name in self.positional_only if name in values]
            return self.func(*args, **values)
        return self.func(**values)

    def __repr__(self) -> str:
        return f"<Action {ActionRef.of_record(self.tool or self.name, self.name)}>"


class Deferred:
    """Code found on first use rather than when its action is defined (the ``executor:`` of a
    YAML definition is imported on the first call, never at load).

    `resolve` answers the code, a function or a tool class's `Action`, or raises the
    `ToolError` a call answers with (not kept: a later call tries again). An action whose
    function is one is a `PendingAction` until the code is found.
    """

    __slots__ = ()

    def resolve(self) -> Callable[..., Any] | Action:
        """The code; raises `ToolError` saying why it cannot run."""
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run the code directly (what calling the action's function does)."""
        code = self.resolve()
        return (code.func if isinstance(code, Action) else code)(*args, **kwargs)


class PendingAction(Action):
    """An action whose code is a `Deferred`, not found yet.

    What the pipeline reads of the code to choose how to run it (`is_async`,
    `context_param`, `positional_only`) is left unset; the first read finds the code, fills
    them in as `action_from_function` decides them (or from the tool class's own action,
    whose output check it adopts when the definition declares none), and makes the action a
    plain `Action`: later calls read plain slots. A first call may be the one that finds it,
    whichever path reads first. Code that cannot be found reads as sync and without context,
    and its call raises the reason; nothing is kept, so the next call looks again.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:  # only for slots left unset
        if name not in _FOUND:
            raise AttributeError(name)
        try:
            _settle(self)
        except ToolError:
            return _UNFOUND[name]
        return _SLOTS[name].__get__(self, Action)

    def call(self, values: dict[str, Any], ctx: ToolContext | None) -> Any:
        """Find the code, then call it (a call before any read of the code's traits)."""
        _settle(self)
        return Action.call(self, values, ctx)


_SLOTS: Final[dict[str, Any]] = {slot: Action.__dict__[slot] for slot in Action.__slots__}
"""The slot descriptors of `Action`: they read a slot without falling back to
`PendingAction.__getattr__` (copying a pending action must not find its code)."""
_FOUND: Final = ("is_async", "context_param", "positional_only")
"""What is read of an action's code, unset while the code is pending."""
_UNFOUND: Final[dict[str, Any]] = {"is_async": False, "context_param": None, "positional_only": ()}
"""What code that cannot be found reads as: a sync call that raises the reason."""


def _install_code(action: Action, func: Callable[..., Any]) -> None:
    """Make ``action`` run ``func``: pending for a `Deferred`; else plain, ``is_async`` read
    from ``func`` (its context and positional parameters stay those given, or are read from
    ``func`` when a pending action is given code)."""
    put = object.__setattr__
    put(action, "func", func)
    if isinstance(func, Deferred):
        for slot in _FOUND:
            with contextlib.suppress(AttributeError):  # unset already
                _SLOTS[slot].__delete__(action)
        put(action, "__class__", PendingAction)
        return
    put(action, "is_async", inspect.iscoroutinefunction(func))
    if type(action) is not Action:  # was pending: what was not found is read from ``func``
        for slot, read in _READ.items():
            try:
                _SLOTS[slot].__get__(action, Action)
            except AttributeError:
                put(action, slot, read(func))
        put(action, "__class__", Action)


def _settle(action: Action) -> None:
    """Find a pending action's code and fill in what is read of it (a no-op once found)."""
    deferred = _SLOTS["func"].__get__(action, Action)
    if not isinstance(deferred, Deferred):
        return  # found meanwhile, by another thread
    code = deferred.resolve()
    put = object.__setattr__
    if isinstance(code, Action):
        func = code.func
        put(action, "is_async", code.is_async)
        put(action, "context_param", code.context_param)
        put(action, "positional_only", code.positional_only)
        if action.output_validator is None and code.output_validator is not None:
            put(action, "output_validator", code.output_validator)
    else:
        if inspect.isasyncgenfunction(code) or inspect.isgeneratorfunction(code):
            raise ToolError(
                f"The code of `{action.tool or action.name}` is a generator function, which "
                "cannot be a tool (it should return a list instead).",
                hint="This tool is broken for now; use another tool.",
            )
        func = code
        put(action, "is_async", _is_async(code))
        put(action, "context_param", context_parameter(code))
        put(action, "positional_only", _positional_only(code))
    put(action, "func", func)  # last: an action whose function is not deferred is found
    put(action, "__class__", Action)


def _is_async(code: Callable[..., Any]) -> bool:
    """Whether calling ``code`` gives a coroutine: an async function, or an object whose
    ``__call__`` is one."""
    if inspect.iscoroutinefunction(code):
        return True
    if inspect.isroutine(code) or isinstance(code, type):
        return False
    return inspect.iscoroutinefunction(type(code).__call__)


def _positional_only(func: Callable[..., Any]) -> tuple[str, ...]:
    """The names of ``func``'s positional-only parameters (passed by position)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):  # no signature to read (some builtins): keywords
        return ()
    return tuple(p.name for p in params if p.kind is inspect.Parameter.POSITIONAL_ONLY)


def context_parameter(func: Callable[..., Any]) -> str | None:
    """The name of the parameter annotated with `ToolContext`, if any (for code found on
    first use: none yet, `PendingAction` reads it then)."""
    if isinstance(func, Deferred):
        return None
    from toolrig.core.define._signature import _is_context

    try:
        hints = inspect.get_annotations(func, eval_str=True)
    except Exception:
        hints = getattr(func, "__annotations__", {})
    for name, annotation in hints.items():
        if name != "return" and _is_context(annotation):
            return name
    return None


_READ: Final = {"context_param": context_parameter, "positional_only": _positional_only}
"""How what is read of a function is read (for an action that was pending)."""


def action_from_function(
    func: Callable[..., Any],
    *,
    name: str,
    subject: str,
    description: str | None = None,
    skip_first: bool = False,
    output_description: str | None = None,
    when_to_use: str | None = None,
    annotations: ToolAnnotations | None = None,
    examples: tuple[str, ...] = (),
) -> Action:
    """An action whose parameters come from the function's type hints and docstring."""
    if inspect.isasyncgenfunction(func) or inspect.isgeneratorfunction(func):
        raise ToolDefinitionError(
            subject, "generator functions cannot be tools; return a list instead"
        )
    from toolrig.core.define._signature import describe_function

    sig = describe_function(func, subject=subject, skip_first=skip_first)
    text = description if description is not None else sig.description
    spec = _action_spec(
        subject,
        name=name,
        description=text,
        parameters=sig.parameters,
        output_schema=sig.output_schema,
        output_type=sig.output_type,
        output_description=output_description or sig.output_description,
        when_to_use=when_to_use,
        annotations=annotations,
        examples=examples,
    )
    return Action(
        spec=spec,
        func=func,
        validator=ArgumentValidator(sig.arguments_validator, sig.parameters, subject),
        output_validator=(
            None if sig.output_validator is None else OutputValidator(sig.output_validator, subject)
        ),
        context_param=sig.context_param,
        positional_only=sig.positional_only,
    )


def action_from_schema(
    func: Callable[..., Any],
    *,
    name: str,
    subject: str,
    description: str,
    parameters: Mapping[str, Any],
    output_schema: Mapping[str, Any] | None = None,
    output_type: str | None = None,
    output_description: str | None = None,
    when_to_use: str | None = None,
    annotations: ToolAnnotations | None = None,
    examples: tuple[str, ...] = (),
) -> Action:
    """An action whose parameters are given as a JSON Schema (declared parameters, YAML, MCP)."""
    params = dict(parameters)
    params.setdefault("type", "object")
    params.setdefault("properties", {})
    problems: list[str] = []
    try:
        validator = compile_json_schema(params, forbid_extra=True)
    except SchemaCompileError as exc:
        raise ToolDefinitionError(
            subject, [f"parameter schema: {problem}" for problem in exc.problems]
        ) from exc
    out_validator = None
    if output_schema is not None:
        try:
            out_validator = SchemaOutputValidator(compile_json_schema(output_schema), subject)
        except SchemaCompileError as exc:
            problems.extend(f"output schema: {problem}" for problem in exc.problems)
    problems.extend(_defaults_problems(params, validator))
    if problems:
        raise ToolDefinitionError(subject, problems)
    if output_type is None and output_schema is not None:
        kind = output_schema.get("type")
        output_type = kind if isinstance(kind, str) else None
    spec = _action_spec(
        subject,
        name=name,
        description=description,
        parameters=params,
        output_schema=dict(output_schema) if output_schema is not None else None,
        output_type=output_type,
        output_description=output_description,
        when_to_use=when_to_use,
        annotations=annotations,
        examples=examples,
    )
    return Action(
        spec=spec,
        func=func,
        validator=SchemaArgumentValidator(validator, params, subject),
        output_validator=out_validator,
        context_param=context_parameter(func),
    )


_HELD_SIZE: Final = 1024
_held: OrderedDict[bytes, None] = OrderedDict()
"""Parameter schemas (marshalled, defaults included) whose defaults were found to hold. An
equal schema has the same defaults and constraints, hence the same answer: checking again took
4-6% of loading 5,000 YAML tools with one parameter list (every list with a required parameter
takes the path that lists the validator's errors)."""
_held_lock = threading.Lock()


def _defaults_problems(schema: Mapping[str, Any], compiled: JsonSchema) -> list[str]:
    """`_check_defaults`, remembered for schemas whose defaults hold."""
    try:
        key = marshal.dumps(cast(Any, schema), 2)  # format 2: equal data, equal bytes
    except ValueError:  # holds what marshal cannot write: checked each time
        return _check_defaults(schema, compiled)
    with _held_lock:
        if key in _held:
            _held.move_to_end(key)
            return []
    problems = _check_defaults(schema, compiled)
    if not problems:
        with _held_lock:
            _held[key] = None
            if len(_held) > _HELD_SIZE:
                _held.popitem(last=False)
    return problems


def _check_defaults(schema: Mapping[str, Any], compiled: JsonSchema) -> list[str]:
    """Every default must satisfy its own parameter's constraints.

    The defaults are validated together, strictly, against the parameters' own schema; only
    problems located inside a defaulted parameter count (the others are simply missing).
    """
    from toolrig.core.schema._json_data import data_problems, plain
    from toolrig.core.schema._schema_problems import schema_problems

    props = schema.get("properties")
    defaults = {
        name: prop["default"]
        for name, prop in (props.items() if isinstance(props, Mapping) else ())
        if isinstance(prop, Mapping) and "default" in prop
    }
    if not defaults or compiled.is_valid(defaults):
        return []
    errors: list[Any] = []
    try:  # errors at the top level (a required parameter absent here) are not the defaults'
        readable = plain(defaults)
        if readable:
            errors = [e for e in compiled.errors(defaults, 100) if e.instance_path]
    except (ValueError, TypeError, OverflowError, RecursionError):
        readable = False
    if not readable:
        return [
            f"parameter `{loc[0]}`: its default is not JSON data ({text})"
            for loc, _, text in data_problems(defaults, 20)
            if loc
        ]
    if not errors:  # only required parameters are absent: nothing to describe
        return []
    problems = []
    for problem in schema_problems(compiled.schema, compiled.enforced, errors, defaults):
        name = problem["path"].split(".", 1)[0].split("[", 1)[0]
        if name not in defaults:
            continue  # a required parameter without default: absent here, not wrong
        problems.append(
            f"parameter `{name}`: default {safe_repr(defaults[name])[:80]} breaks its own "
            f"constraints ({problem['path']}: {problem['text']})"
        )
    return problems


def _action_spec(subject: str, **fields: Any) -> ActionSpec:
    from pydantic import ValidationError

    from toolrig.core.model._spec import ActionSpec

    try:
        return ActionSpec(**fields)
    except ValidationError as exc:
        raise ToolDefinitionError(
            subject, [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        ) from None
