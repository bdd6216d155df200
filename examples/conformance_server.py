"""The tools the official MCP conformance suite calls, written as ordinary toolrig tools.

Serve them with ``toolrig serve examples/conformance_server.py --transport http --port 3001``
and run the suite against ``http://127.0.0.1:3001/mcp``. The same tools run in-process under
an agent (see ``tests/mcp/test_conformance_in_process.py``): their context's logs, elicitation
and sampling go to the MCP client here, to the application's hooks and the agent's model there.

``tools`` is what ``toolrig serve`` serves; ``resources`` is an MCP server (the SDK's
``MCPServer``) whose resources, prompts and completions are served alongside them.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import wave
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp_types import (
    Completion,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    ImageContent,
    InputRequiredResult,
    TextResourceContents,
)
from mcp_types import EmbeddedResource as MCPResource

from toolrig import Tool, ToolContext, ToolError, tool
from toolrig.core import Audio, EmbeddedResource, Image, TextContent
from toolrig.mcp import TASK_FAILED, TaskPolicy

RED_PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def _silence_wav() -> bytes:
    """A tenth of a second of silence, 8 kHz mono."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(8000)
        out.writeframes(b"\x80" * 800)
    return buffer.getvalue()


@tool
def test_simple_text() -> str:
    """Return a fixed sentence."""
    return "This is a simple text response for testing."


@tool
def test_image_content() -> Image:
    """Return a 1x1 red PNG."""
    return Image.from_bytes(RED_PIXEL_PNG, "image/png")


@tool
def test_audio_content() -> Audio:
    """Return a short silent WAV clip."""
    return Audio.from_bytes(_silence_wav(), "audio/wav")


@tool
def test_embedded_resource() -> EmbeddedResource:
    """Return a text resource embedded in the result."""
    return EmbeddedResource(
        uri="test://embedded-resource",
        mime_type="text/plain",
        text="This is an embedded resource content.",
    )


@tool
def test_multiple_content_types() -> list[TextContent | Image | EmbeddedResource]:
    """Return text, an image and a resource together."""
    return [
        TextContent(text="Multiple content types test:"),
        Image.from_bytes(RED_PIXEL_PNG, "image/png"),
        EmbeddedResource(
            uri="test://mixed-content-resource",
            mime_type="application/json",
            text=json.dumps({"test": "data", "value": 123}),
        ),
    ]


@tool
async def test_tool_with_logging(ctx: ToolContext) -> str:
    """Log three messages while working."""
    ctx.log("info", "Tool execution started")
    await asyncio.sleep(0.05)
    ctx.log("info", "Tool processing data")
    await asyncio.sleep(0.05)
    ctx.log("info", "Tool execution completed")
    return "Tool with logging executed successfully"


@tool
async def test_tool_with_progress(ctx: ToolContext) -> str:
    """Report progress 0, 50 and 100 of 100."""
    for done in (0, 50, 100):
        ctx.report_progress(done, 100)
        if done < 100:
            await asyncio.sleep(0.05)
    return "Tool with progress executed successfully"


@tool
def test_error_handling() -> str:
    """Always fail."""
    raise ToolError("This tool intentionally returns an error for testing")


@tool
async def test_sampling(prompt: str, ctx: ToolContext) -> str:
    """Ask the caller's language model.

    Args:
        prompt: The prompt to send to the model.
    """
    answer = await ctx.sample(prompt, max_tokens=100)
    return f"LLM response: {answer}"


USER_SCHEMA = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


@tool
async def test_elicitation(message: str, ctx: ToolContext) -> str:
    """Ask the user for a name and an email address.

    Args:
        message: The message to show the user.
    """
    answer = await ctx.elicit(message, USER_SCHEMA)
    return f"User response: action={answer.action}, content={json.dumps(answer.content)}"


DEFAULTS_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {
            "type": "string",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "default": True},
    },
}


@tool
async def test_elicitation_sep1034_defaults(ctx: ToolContext) -> str:
    """Ask for values of every primitive type, each with a default."""
    answer = await ctx.elicit("Please review and update the form fields", DEFAULTS_SCHEMA)
    return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"


def _titled(options: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"const": value, "title": title} for value, title in options]


ENUMS_SCHEMA = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": _titled(
                [("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third")]
            ),
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": _titled(
                    [("value1", "First Choice"), ("value2", "Second"), ("value3", "Third")]
                )
            },
        },
    },
}


@tool
async def test_elicitation_sep1330_enums(ctx: ToolContext) -> str:
    """Ask for choices in each enum form (single and multi, with and without titles)."""
    answer = await ctx.elicit("Please choose", ENUMS_SCHEMA)
    return f"Elicitation completed: action={answer.action}, content={json.dumps(answer.content)}"


def _echo(**arguments: Any) -> dict[str, Any]:
    return arguments


json_schema_2020_12_tool = Tool(
    name="json_schema_2020_12_tool",
    description="Tool with JSON Schema 2020-12 features",
    parameters={
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            }
        },
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": False,
    },
    func=_echo,
)


# -- 2026-07-28: input-required rounds (the same ctx.elicit / ctx.sample / ctx.roots) ----------
def _form(**fields: str) -> dict[str, Any]:
    """A flat form whose fields (name: JSON type) are all required."""
    return {
        "type": "object",
        "properties": {name: {"type": kind} for name, kind in fields.items()},
        "required": list(fields),
    }


@tool
async def test_input_required_result_elicitation(ctx: ToolContext) -> str:
    """Ask the user's name, then greet them."""
    answer = await ctx.elicit("What is your name?", _form(name="string"), key="user_name")
    return f"Hello, {(answer.content or {}).get('name', 'stranger')}!"


@tool
async def test_input_required_result_sampling(ctx: ToolContext) -> str:
    """Ask the caller's model a question."""
    return await ctx.sample(
        "What is the capital of France?", max_tokens=100, key="capital_question"
    )


@tool
async def test_input_required_result_list_roots(ctx: ToolContext) -> str:
    """List the caller's roots."""
    roots = await ctx.roots(key="client_roots")
    return "Roots: " + ", ".join(str(root.get("uri")) for root in roots)


@tool
async def test_input_required_result_request_state(ctx: ToolContext) -> str:
    """Ask for a confirmation (its answer comes back inside the verified request state)."""
    answer = await ctx.elicit("Please confirm", _form(ok="boolean"), key="confirm")
    return f"state-ok: confirmed={(answer.content or {}).get('ok')}"


@tool
async def test_input_required_result_multiple_inputs(ctx: ToolContext) -> str:
    """Ask the user, the model and the roots at once (one round)."""
    name, greeting, roots = await asyncio.gather(
        ctx.elicit("What is your name?", _form(name="string"), key="user_name"),
        ctx.sample("Generate a greeting", max_tokens=50, key="greeting"),
        ctx.roots(key="client_roots"),
    )
    who = (name.content or {}).get("name")
    return f"{greeting} {who} ({len(roots)} roots)"


@tool
async def test_input_required_result_multi_round(ctx: ToolContext) -> str:
    """Ask two questions, one round each."""
    name = await ctx.elicit("Step 1: What is your name?", _form(name="string"), key="step1")
    color = await ctx.elicit(
        "Step 2: What is your favorite color?", _form(color="string"), key="step2"
    )
    return f"{(name.content or {}).get('name')} likes {(color.content or {}).get('color')}"


@tool
async def test_input_required_result_tampered_state(ctx: ToolContext) -> str:
    """Ask for a confirmation (a tampered request state is refused before this runs again)."""
    answer = await ctx.elicit("Please confirm", _form(ok="boolean"), key="confirm")
    return f"confirmed={(answer.content or {}).get('ok')}"


@tool
async def test_input_required_result_capabilities(ctx: ToolContext) -> str:
    """Ask only what the caller can answer: the user if it can, else its model."""
    try:
        answer = await ctx.elicit("What is your name?", _form(name="string"), key="user_name")
        return f"Hello, {(answer.content or {}).get('name')}!"
    except ToolError as exc:
        if exc.code != "permission_denied":
            raise
    return await ctx.sample("Pick a name", max_tokens=20, key="name_from_model")


@tool
async def test_missing_capability(ctx: ToolContext) -> str:
    """Needs the caller's model (a caller without sampling gets the protocol's -32021)."""
    return await ctx.sample("Say hi", max_tokens=20)


@tool
async def test_streaming_elicitation(ctx: ToolContext) -> str:
    """Log, then ask the user (on 2026-07-28 the question is the result, not a request)."""
    ctx.log("info", "about to ask")
    answer = await ctx.elicit("What is your name?", _form(name="string"), key="user_name")
    return f"Hello, {(answer.content or {}).get('name')}!"


@tool
def test_logging_tool(ctx: ToolContext) -> str:
    """Log three messages (sent only at a level the request asked for)."""
    for level in ("debug", "info", "warning"):
        ctx.log(level, f"{level} message")
    return "logged"


# -- the tasks extension (io.modelcontextprotocol/tasks): tools called as tasks ---------------
@tool
def greet(name: str) -> str:
    """Greet someone (an ordinary call, never a task)."""
    return f"Hello, {name}!"


@tool
async def slow_compute(seconds: float, label: str = "") -> str:
    """Work for ``seconds``, then report (a task; cancelling it stops the work)."""
    await asyncio.sleep(seconds)
    return f"computed {label} in {seconds}s"


@tool
async def failing_job() -> str:
    """Work a second, then fail as a tool (the task completes with ``isError``)."""
    await asyncio.sleep(1)
    raise ToolError("the job failed")


@tool
async def protocol_error_job() -> str:
    """Fail the operation itself (the task ends ``failed``)."""
    raise ToolError("the job could not be carried out", code=TASK_FAILED)


@tool
async def confirm_delete(filename: str, ctx: ToolContext) -> str:
    """Ask for a confirmation inside the task, then report."""
    answer = await ctx.elicit(f"Delete {filename}?", _form(confirm="boolean"), key="confirm")
    return f"deleted {filename}" if (answer.content or {}).get("confirm") else "kept"


@tool
async def multi_input(ctx: ToolContext) -> str:
    """Ask two questions at once inside the task."""
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}},
    }
    first, second = await asyncio.gather(
        ctx.elicit("First?", schema, key="first"), ctx.elicit("Second?", schema, key="second")
    )
    return f"{(first.content or {}).get('name')} and {(second.content or {}).get('name')}"


@tool
async def test_tool_with_task(ctx: ToolContext) -> str:
    """Ask the user's name in an input-required round, then run on as a task."""
    answer = await ctx.elicit("What is your name?", _form(name="string"), key="user_name")
    await asyncio.sleep(0.2)
    return f"Hello, {(answer.content or {}).get('name')}!"


tasks = TaskPolicy(
    tools={
        "slow_compute": "optional",
        "failing_job": "required",
        "protocol_error_job": "optional",
        "confirm_delete": "optional",
        "multi_input": "optional",
        "test_tool_with_task": "required",
    },
    ask_first={"test_tool_with_task"},
)


tools = [
    test_simple_text,
    test_image_content,
    test_audio_content,
    test_embedded_resource,
    test_multiple_content_types,
    test_tool_with_logging,
    test_tool_with_progress,
    test_error_handling,
    test_sampling,
    test_elicitation,
    test_elicitation_sep1034_defaults,
    test_elicitation_sep1330_enums,
    json_schema_2020_12_tool,
    test_input_required_result_elicitation,
    test_input_required_result_sampling,
    test_input_required_result_list_roots,
    test_input_required_result_request_state,
    test_input_required_result_multiple_inputs,
    test_input_required_result_multi_round,
    test_input_required_result_tampered_state,
    test_input_required_result_capabilities,
    test_missing_capability,
    test_streaming_elicitation,
    test_logging_tool,
    greet,
    slow_compute,
    failing_job,
    protocol_error_job,
    confirm_delete,
    multi_input,
    test_tool_with_task,
]

# -- resources and prompts: the SDK's own decorators, mounted beside the tools ------------------
resources: MCPServer = MCPServer("conformance-resources")


@resources.resource("test://static-text", mime_type="text/plain", description="A text resource")
def static_text() -> str:
    return "This is the content of the static text resource."


@resources.resource("test://static-binary", mime_type="image/png", description="A PNG resource")
def static_binary() -> bytes:
    return RED_PIXEL_PNG


@resources.resource("test://watched-resource", mime_type="text/plain", description="Watched")
def watched() -> str:
    return "Watched resource content."


@resources.resource(
    "test://template/{id}/data", mime_type="application/json", description="Data by id"
)
def template_data(id: str) -> str:
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@resources.prompt(description="A prompt without arguments")
def test_simple_prompt() -> str:
    return "This is a simple prompt for testing."


@resources.prompt(description="A prompt with two arguments")
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@resources.prompt(description="A prompt embedding a resource")
def test_prompt_with_embedded_resource(resourceUri: str) -> list[UserMessage]:
    embedded = MCPResource(
        type="resource",
        resource=TextResourceContents(
            uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing."
        ),
    )
    return [UserMessage(embedded), UserMessage("Please process the embedded resource above.")]


@resources.prompt(description="A prompt with an image")
def test_prompt_with_image() -> list[UserMessage]:
    image = ImageContent(
        type="image", data=base64.b64encode(RED_PIXEL_PNG).decode(), mime_type="image/png"
    )
    return [UserMessage(image), UserMessage("Please analyze the image above.")]


@resources.prompt(description="A prompt that asks the user for its context first (2026-07-28)")
def test_input_required_result_prompt(ctx: Context) -> str | InputRequiredResult:
    answer = (ctx.input_responses or {}).get("user_context")
    if isinstance(answer, ElicitResult) and answer.content:
        return f"Use this context: {answer.content.get('context')}"
    question = ElicitRequest(
        params=ElicitRequestFormParams(
            message="What context should the prompt use?",
            requested_schema={
                "type": "object",
                "properties": {"context": {"type": "string"}},
                "required": ["context"],
            },
        )
    )
    return InputRequiredResult(input_requests={"user_context": question})


@resources.completion()
async def complete(ref: Any, argument: Any, context: Any) -> Completion:
    words = ["paris", "park", "party", "test", "testing"]
    return Completion(values=[w for w in words if w.startswith(argument.value)], has_more=False)
