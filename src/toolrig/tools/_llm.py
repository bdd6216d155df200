"""``llm_tool``: ask a model a question, or have it analyse a text into validated JSON."""

from __future__ import annotations

import json
import re
from typing import Any

from toolrig.agent._client import LLMClient
from toolrig.agent._config import LLMConfigError
from toolrig.agent._factory import make_client
from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.core.schema._schema_compiler import SchemaCompileError, compile_schema

__all__ = ["LLMTool"]

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)

ANALYZE_SYSTEM = (
    "You analyse texts. Answer with one JSON object and nothing else: no prose, no code fence."
)


def _parse_object(text: str | None) -> dict[str, Any]:
    raw = (text or "").strip()
    fenced = _FENCE.match(raw)
    if fenced:
        raw = fenced.group(1)
    value = json.loads(raw)
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    return value


class LLMTool(BaseTool):
    """Ask a language model questions, or have it turn a text into structured JSON."""

    name = "llm_tool"
    annotations = ToolAnnotations(read_only=True, open_world=True, idempotent=False)

    def __init__(self, client: LLMClient | None = None, **settings: Any) -> None:
        super().__init__()
        self._client = client
        self._settings = settings

    def _llm(self) -> LLMClient:
        if self._client is None:
            try:
                self._client = make_client(**self._settings)
            except LLMConfigError as exc:
                raise ToolError(
                    str(exc),
                    code=ErrorCode.EXECUTION_ERROR,
                    hint="Configure an LLM endpoint, then call again.",
                ) from None
        return self._client

    @action(output_description="The model's answer as text.")
    async def ask(self, question: str, context: str = "") -> str:
        """Ask the model a question, optionally about some context text.

        Args:
            question: What to ask.
            context: Text the question is about (optional).
        """
        prompt = question if not context else f"{context}\n\nQuestion: {question}"
        turn = await self._llm().ask(prompt)
        return turn.text or ""

    async def summarize(self, text: str) -> str:
        """A short summary of ``text`` (a plain method: ``WebTool`` uses it for ``summary``)."""
        turn = await self._llm().ask(
            "Summarise the following text in a few sentences, keeping names, numbers and "
            f"conclusions:\n\n{text}"
        )
        return turn.text or ""

    @action(output_description="A JSON object with the analysis.")
    async def analyze(
        self, text: str, instructions: str, output_schema: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Analyse a text as instructed and return the result as a JSON object.

        The answer is checked (and, if an ``output_schema`` is given, validated); a malformed
        answer is sent back to the model once with the problem before failing.

        Args:
            text: The text to analyse.
            instructions: What to extract or judge, and the keys wanted.
            output_schema: Optional JSON Schema the result must match.
        """
        validator = None
        if output_schema is not None:
            try:
                validator = compile_schema(output_schema, forbid_extra=False)
            except SchemaCompileError as exc:
                raise ToolError(
                    f"output_schema is not a usable JSON Schema: {exc}",
                    code=ErrorCode.INVALID_ARGUMENTS,
                ) from None
        schema_note = (
            f"\nThe object must match this JSON Schema: {json.dumps(output_schema)}"
            if output_schema
            else ""
        )
        prompt = f"{instructions}{schema_note}\n\nText:\n{text}"
        client = self._llm()
        problem = ""
        for _attempt in range(2):
            asked = (
                prompt
                if not problem
                else (
                    f"{prompt}\n\nYour previous answer was rejected: {problem}. "
                    "Answer again with only the JSON object."
                )
            )
            turn = await client.ask(asked, system=ANALYZE_SYSTEM)
            try:
                value = _parse_object(turn.text)
                if validator is not None:
                    validator.validate_python(value)
                return value
            except (ValueError, TypeError) as exc:  # JSONDecodeError and ValidationError too
                problem = str(exc).splitlines()[0][:300]
        raise ToolError(
            f"The model did not return a valid JSON object after a retry: {problem}",
            code=ErrorCode.INVALID_OUTPUT,
            hint="Simplify the instructions or the schema and try again.",
        )
