"""Providers: one tool, every LLM API.

Export tool schemas (OpenAI Chat and Responses, with or without strict mode; Anthropic;
Gemini; MCP), parse the tool calls of each provider's response into calls the executor runs,
and format each result as that provider's tool-result message. `run_tool_calls` does
the whole round trip. Providers read only tool specs; no SDK is imported here.
"""

from toolrig.providers._anthropic import (
    format_anthropic_results,
    parse_anthropic_calls,
    to_anthropic_tools,
)
from toolrig.providers._calls import ParsedCall, execute_calls, execute_calls_sync
from toolrig.providers._gemini import (
    format_gemini_results,
    parse_gemini_calls,
    to_gemini_declarations,
    to_gemini_tool,
)
from toolrig.providers._importing import (
    SchemaNormalizedWarning,
    tool_from_function_definition,
    tools_from_function_definitions,
)
from toolrig.providers._langchain import from_langchain_tool, to_langchain_tools
from toolrig.providers._mcp_format import (
    format_mcp_result,
    mcp_output_schema,
    parse_mcp_call,
    to_mcp_tools,
)
from toolrig.providers._names import (
    ExportedAction,
    NameMap,
    ToolSource,
    provider_safe_name,
)
from toolrig.providers._openai import (
    format_openai_chat_results,
    format_openai_responses_results,
    parse_openai_chat_calls,
    parse_openai_responses_calls,
    to_openai_chat_tools,
    to_openai_responses_tools,
)
from toolrig.providers._roundtrip import (
    Provider,
    parse_tool_calls,
    run_tool_calls,
    run_tool_calls_sync,
)
from toolrig.providers._schema_walk import SchemaRewriteError
from toolrig.providers._strict import StrictSchemaError, to_strict_schema
from toolrig.providers._turns import assistant_turn

__all__ = [
    "ExportedAction",
    "NameMap",
    "ParsedCall",
    "Provider",
    "SchemaNormalizedWarning",
    "SchemaRewriteError",
    "StrictSchemaError",
    "ToolSource",
    "assistant_turn",
    "execute_calls",
    "execute_calls_sync",
    "format_anthropic_results",
    "format_gemini_results",
    "format_mcp_result",
    "format_openai_chat_results",
    "format_openai_responses_results",
    "from_langchain_tool",
    "mcp_output_schema",
    "parse_anthropic_calls",
    "parse_gemini_calls",
    "parse_mcp_call",
    "parse_openai_chat_calls",
    "parse_openai_responses_calls",
    "parse_tool_calls",
    "provider_safe_name",
    "run_tool_calls",
    "run_tool_calls_sync",
    "to_anthropic_tools",
    "to_gemini_declarations",
    "to_gemini_tool",
    "to_langchain_tools",
    "to_mcp_tools",
    "to_openai_chat_tools",
    "to_openai_responses_tools",
    "to_strict_schema",
    "tool_from_function_definition",
    "tools_from_function_definitions",
]
