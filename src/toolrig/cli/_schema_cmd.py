"""``toolrig schema --provider P [--strict]``: the catalogue's tools as a provider's API takes
them, ready to paste into a request or diff in a review.

The output is JSON either way; on a terminal it is highlighted, with ``--json`` (or piped) it
is plain.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolrig.cli._catalog import add_catalog_options
from toolrig.cli._output import EXIT_OK, CliError, add_json_option

if TYPE_CHECKING:
    from toolrig.registry._catalog import Catalog

__all__ = ["PROVIDERS", "add_schema_parser", "export", "run_schema"]

PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini", "mcp")
"""The formats ``--provider`` takes: OpenAI Chat Completions and Responses, Anthropic,
Gemini (function declarations), MCP (``tools/list`` entries)."""

STRICT = ("openai", "openai-responses")
"""The providers with a strict mode."""


def add_schema_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``schema`` and its options."""
    schema = commands.add_parser(
        "schema",
        help="export the tools' schemas for a provider (JSON)",
        description="Print the catalogue's tools in a provider's format: "
        + ", ".join(PROVIDERS)
        + ". --strict rewrites them for OpenAI's strict mode.",
    )
    schema.add_argument("--provider", choices=PROVIDERS, default="openai")
    schema.add_argument(
        "--strict", action="store_true", help="OpenAI strict mode (openai, openai-responses)"
    )
    add_catalog_options(schema, demo_default=True)
    add_json_option(schema)
    schema.set_defaults(handler=run_schema)


def export(catalog: Catalog, provider: str, *, strict: bool = False) -> Any:
    """The tools of ``catalog`` in ``provider``'s format."""
    from toolrig.providers import _anthropic, _gemini, _mcp_format, _openai

    if strict and provider not in STRICT:
        raise CliError(f"--strict applies to {' and '.join(STRICT)}, not {provider}")
    exporters: dict[str, Callable[[], Any]] = {
        "openai": lambda: _openai.to_openai_chat_tools(catalog, strict=strict),
        "openai-responses": lambda: _openai.to_openai_responses_tools(catalog, strict=strict),
        "anthropic": lambda: _anthropic.to_anthropic_tools(catalog),
        "gemini": lambda: _gemini.to_gemini_tool(catalog),
        "mcp": lambda: _mcp_format.to_mcp_tools(catalog),
    }
    return exporters[provider]()


def run_schema(args: argparse.Namespace) -> int:
    """Print the schemas; 2 when a tool cannot be exported (the reason is printed)."""
    from toolrig.cli._catalog import open_catalog
    from toolrig.cli._output import out_console, print_json
    from toolrig.providers._schema_walk import SchemaRewriteError

    with open_catalog(args, "schema") as registry:
        try:
            data = export(registry, args.provider, strict=args.strict)
        except (SchemaRewriteError, ValueError) as exc:
            raise CliError(f"cannot export for {args.provider}: {exc}") from None
    console = out_console()
    if args.json or not console.is_terminal:
        print_json(data)
    else:
        import json

        console.print_json(json.dumps(data, ensure_ascii=False))
    return EXIT_OK
