"""Typed output: the final answer checked against ``output_type`` with pydantic.

With ``output_type=str`` (the default) the answer is the model's text. With a pydantic model, a
dataclass or a scalar type, the model is told the JSON Schema and answers with JSON (as text
or as ``attempt_completion``'s result); a `pydantic.TypeAdapter` validates it. On a
mismatch the model gets one message listing every problem with its path, what was expected and
what it sent, and tries again.
"""

from __future__ import annotations

import json
import re
from typing import Any, Generic

from pydantic import TypeAdapter, ValidationError
from typing_extensions import TypeVar

__all__ = ["OutputInvalid", "OutputSpec"]

OutputT = TypeVar("OutputT", default=str)

_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(?P<body>.*?)\n\s*```\s*$", re.DOTALL)
_MAX_INPUT = 120


class OutputInvalid(ValueError):
    """The model's final answer does not match the output type; the message is for the model."""


class OutputSpec(Generic[OutputT]):
    """How a run's final answer becomes an ``OutputT``."""

    def __init__(self, output_type: type[OutputT] | Any = str) -> None:
        self.output_type = output_type
        self.is_text = output_type is str
        self._adapter: TypeAdapter[OutputT] = TypeAdapter(output_type)
        self.schema: dict[str, Any] | None = None if self.is_text else self._adapter.json_schema()

    @property
    def instructions(self) -> str | None:
        """What the system prompt says about the final answer (nothing for text)."""
        if self.schema is None:
            return None
        return (
            "Give the final answer as JSON only, with no other text, matching this JSON "
            f"Schema:\n{json.dumps(self.schema, ensure_ascii=False)}"
        )

    def parse(self, text: str | None) -> OutputT:
        """The answer ``text`` as an ``OutputT``; raises `OutputInvalid`."""
        if self.is_text:
            return self._adapter.validate_python(text or "")
        if not text or not text.strip():
            raise OutputInvalid(self._retry(["the answer was empty; JSON was expected"]))
        fenced = _FENCE.match(text)
        body = fenced.group("body") if fenced else text.strip()
        try:
            return self._adapter.validate_json(body)
        except ValidationError as exc:
            raise OutputInvalid(self._retry(_problems(exc))) from None

    def _retry(self, problems: list[str]) -> str:
        lines = "\n".join(f"- {p}" for p in problems)
        return (
            f"Your final answer does not match the required output:\n{lines}\n"
            "Answer again with only the corrected JSON, matching this JSON Schema:\n"
            f"{json.dumps(self.schema, ensure_ascii=False)}"
        )


def _problems(exc: ValidationError) -> list[str]:
    found = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "(the whole answer)"
        received = json.dumps(error.get("input"), ensure_ascii=False, default=str)
        if len(received) > _MAX_INPUT:
            received = received[:_MAX_INPUT] + "..."
        if error["type"] == "json_invalid":
            found.append(f"not valid JSON: {error['msg']}")
        elif error["type"] == "missing":
            found.append(f"at `{where}`: required, but missing")
        else:
            found.append(f"at `{where}`: {error['msg']} (received {received})")
    return found
