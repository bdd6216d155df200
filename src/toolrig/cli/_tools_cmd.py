"""``toolrig list`` and ``toolrig show TOOL``: what a catalogue holds, as people or scripts
read it.

``list`` has one row per call name (``tool``, or ``tool.action`` for each action of a
multi-action tool), the names a model and ``toolrig call`` use. ``show`` prints one tool whole:
options, annotations, cost, each action's parameters, its JSON Schema and the text a model
reads in its prompt.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from toolrig.cli._catalog import add_catalog_options
from toolrig.cli._output import EXIT_OK, CliError, add_json_option
from toolrig.core.model._names import ActionRef
from toolrig.core.model._unset import Unset

if TYPE_CHECKING:
    from rich.console import RenderableType

    from toolrig.core.model._spec import ActionSpec, ToolSpec
    from toolrig.registry._registry import Registry

__all__ = ["add_tools_parsers", "call_names", "run_list", "run_show"]


def add_tools_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``list`` and ``show`` (alias ``inspect``)."""
    listing = commands.add_parser(
        "list",
        help="list the tools of a catalogue (one row per call name)",
        description="List the tools of YAML catalogues (or the demo tools): one row per call "
        "name, the name a model or `toolrig call` uses.",
    )
    add_catalog_options(listing, demo_default=True)
    listing.add_argument("--type", help="only tools of this type")
    listing.add_argument("--tag", action="append", default=[], help="only tools with this tag")
    add_json_option(listing)
    listing.set_defaults(handler=run_list)

    show = commands.add_parser(
        "show",
        aliases=["inspect"],
        help="show one tool: options, parameters, JSON Schema, prompt text",
        description="Show one tool whole: options, annotations, cost, each action's parameters "
        "and JSON Schema, and the text a model reads in its prompt.",
    )
    show.add_argument("tool", metavar="TOOL", help="a tool or call name (tool.action)")
    add_catalog_options(show, demo_default=True)
    add_json_option(show)
    show.set_defaults(handler=run_show)


def call_names(spec: ToolSpec) -> list[tuple[str, ActionSpec]]:
    """The call names of a tool with their actions (``tool``, or ``tool.action`` each)."""
    multi = spec.is_multi_action
    return [(ActionRef(spec.name, name, multi).call_name, a) for name, a in spec.actions.items()]


def _flags(spec: ToolSpec, action: ActionSpec) -> list[str]:
    """The behaviour hints that are set, in words (the action's own override the tool's)."""
    hints = spec.annotations.merged(action.annotations)
    words = {
        "read_only": "read-only",
        "destructive": "destructive",
        "idempotent": "idempotent",
        "open_world": "open-world",
    }
    return [word for field, word in words.items() if getattr(hints, field)]


def _parameters(action: ActionSpec) -> str:
    props: dict[str, Any] = action.parameters.get("properties") or {}
    required = set(action.parameters.get("required") or ())
    return ", ".join(name if name in required else f"{name}?" for name in props)


def run_list(args: argparse.Namespace) -> int:
    """Print the catalogue's call names with their descriptions, parameters and hints."""
    from toolrig.cli._catalog import open_catalog

    with open_catalog(args, "list") as registry:
        specs = registry.specs(type=args.type, tags=args.tag or None)
        rows = [(name, spec, action) for spec in specs for name, action in call_names(spec)]
        if args.json:
            from toolrig.cli._output import print_json

            print_json([_list_entry(registry, name, spec, action) for name, spec, action in rows])
            return EXIT_OK
        from rich.markup import escape
        from rich.table import Column, Table

        from toolrig.cli._output import out_console

        table = Table(
            Column("tool", style="bold cyan", no_wrap=True),
            Column("description  (parameters)  hints", ratio=1, min_width=24),
            title=f"{len(specs)} tools, {len(rows)} call names",
            title_justify="left",
            expand=True,
        )
        for name, spec, action in rows:
            text = (action.description or spec.description).strip().splitlines()
            cell = escape(text[0] if text else "")
            params = _parameters(action)
            cell += f"\n[green]({escape(params)})[/]" if params else "\n[green]()[/]"
            hints = _flags(spec, action)
            if hints:
                cell += f" [magenta]{', '.join(hints)}[/]"
            table.add_row(escape(name), cell)
        out_console().print(table)
    return EXIT_OK


def _list_entry(
    registry: Registry, name: str, spec: ToolSpec, action: ActionSpec
) -> dict[str, Any]:
    source = registry.yaml.path_of(spec.name)
    return {
        "name": name,
        "tool": spec.name,
        "action": action.name,
        "description": action.description or spec.description,
        "parameters": action.parameters,
        "hints": _flags(spec, action),
        "tags": list(spec.tags),
        "source": None if source is None else str(source),
    }


def run_show(args: argparse.Namespace) -> int:
    """Print one tool: everything a person needs to call it, and what a model reads."""
    from toolrig.cli._catalog import open_catalog

    with open_catalog(args, "show") as registry:
        tool_name = _tool_name(registry, args.tool)
        spec = registry.get(tool_name).spec
        data = registry.describe(tool_name)
        if args.json:
            from toolrig.cli._output import print_json

            data["call_names"] = [name for name, _ in call_names(spec)]
            data["prompt"] = spec_prompt(spec)
            print_json(data)
            return EXIT_OK
        from toolrig.cli._output import out_console

        console = out_console()
        for part in _show_parts(spec, data, only=args.tool if args.tool != tool_name else None):
            console.print(part)
    return EXIT_OK


def _tool_name(registry: Registry, name: str) -> str:
    """The tool a tool or call name refers to; `CliError` with the not-found text."""
    if registry.find(name) is not None:
        return name
    entry = registry.entry(name)
    if entry is None:
        raise CliError(registry.missing_message(name))
    return entry[0].spec.name


def spec_prompt(spec: ToolSpec) -> str:
    """The text a model reads for ``spec`` in its system prompt."""
    from toolrig.core.model._prompt import render_tool

    return render_tool(spec)


def _show_parts(spec: ToolSpec, data: dict[str, Any], *, only: str | None) -> list[RenderableType]:
    """The panels and tables of ``show``: the tool, then each action (or only the one named)."""
    from rich.markup import escape
    from rich.panel import Panel
    from rich.syntax import Syntax
    from rich.table import Table

    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column()
    facts.add_row("description", escape(spec.description.strip()))
    for label, value in (
        ("when to use", spec.when_to_use),
        ("version", spec.version),
        ("type / layer", " / ".join(v for v in (spec.type, spec.layer) if v)),
        ("tags", ", ".join(spec.tags)),
        ("timeout", _timeout(spec.timeout)),
        ("retries", str(spec.max_retries)),
        ("dependencies", ", ".join(spec.dependencies)),
        ("cost", _cost(spec)),
        ("hints", ", ".join(_flags(spec, next(iter(spec.actions.values()))))),
        ("source", data.get("source")),
        ("executor", data.get("executor")),
    ):
        if value:
            facts.add_row(label, escape(str(value)))
    parts: list[RenderableType] = [
        Panel(facts, title=f"[bold cyan]{escape(spec.name)}[/]", title_align="left")
    ]
    for name, action in call_names(spec):
        if only is not None and name != only:
            continue
        parts.append(_action_table(name, action))
        schema = _json(action.parameters)
        parts.append(Panel(Syntax(schema, "json", theme="ansi_dark"), title="JSON Schema"))
    parts.append(Panel(escape(spec_prompt(spec)), title="what the model reads", style="dim"))
    return parts


def _action_table(name: str, action: ActionSpec) -> RenderableType:
    from rich.markup import escape
    from rich.table import Table

    props: dict[str, Any] = action.parameters.get("properties") or {}
    required = set(action.parameters.get("required") or ())
    out = action.output_type or "any"
    title = f"[bold cyan]{escape(name)}[/]({escape(_parameters(action))}) -> {escape(out)}"
    table = Table("parameter", "type", "required", "default", "description", title=title)
    table.title_justify = "left"
    for param, schema in props.items():
        if not isinstance(schema, dict):
            continue
        table.add_row(
            escape(param),
            escape(_type_word(schema)),
            "yes" if param in required else "no",
            escape(_json(schema["default"])) if "default" in schema else "",
            escape(str(schema.get("description", ""))),
        )
    if action.output_description:
        table.caption = f"returns: {escape(action.output_description)}"
    return table


def _type_word(schema: dict[str, Any]) -> str:
    """A parameter's type in a word or two (the JSON Schema panel has the details)."""
    if "enum" in schema:
        return " | ".join(_json(v) for v in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(map(str, kind))
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {_type_word(schema['items'])}"
    if kind:
        return str(kind)
    options = schema.get("anyOf") or schema.get("oneOf") or []
    return " | ".join(_type_word(o) for o in options if isinstance(o, dict)) or "any"


def _cost(spec: ToolSpec) -> str:
    cost = spec.cost
    if cost is None:
        return ""
    text = f"{cost.base_cost:g} {cost.unit}"
    if cost.per_item_cost:
        text += f" + {cost.per_item_cost:g} per item"
    return text


def _json(value: Any) -> str:
    import json

    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _timeout(value: float | Unset | None) -> str:
    """A tool's time limit as the catalogue shows it."""
    if isinstance(value, Unset):
        return "the executor's default"
    return "none" if value is None else f"{value:g} s"
