"""Doubles for the search tests: a deterministic embedder and a small catalogue."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from toolrig.core.model._spec import ActionSpec, ToolAnnotations, ToolSpec
from toolrig.search._tokenize import analyze


class HashingEmbedder:
    """Bag of stems hashed into 64 dimensions: similar words, similar vectors; counts calls."""

    name = "fake"

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy

        self.embedded.extend(texts)
        out = numpy.zeros((len(texts), 64), dtype=numpy.float32)
        for row, text in enumerate(texts):
            for term in analyze(text):
                out[row, int(hashlib.md5(term.encode()).hexdigest(), 16) % 64] += 1.0
        norms = numpy.linalg.norm(out, axis=1, keepdims=True)
        return out / numpy.maximum(norms, 1e-9)


def single(name: str, description: str, **extra: Any) -> ToolSpec:
    params = extra.pop("parameters", {"type": "object", "properties": {}})
    action_extra = {k: extra.pop(k) for k in ("output_description",) if k in extra}
    return ToolSpec(
        name=name,
        description=description,
        actions={
            name: ActionSpec(name=name, description=description, parameters=params, **action_extra)
        },
        **extra,
    )


def catalogue() -> list[ToolSpec]:
    return [
        single(
            "get_weather",
            "Current weather and the forecast for a city.",
            type="data",
            layer="external",
            tags=("weather", "web"),
            annotations=ToolAnnotations(read_only=True, open_world=True),
        ),
        single(
            "sendEmail",
            "Send an email message to one or more recipients.",
            type="comm",
            tags=("email",),
            annotations=ToolAnnotations(read_only=False, destructive=False),
        ),
        single(
            "stock_quote",
            "Latest share price of a listed company.",
            type="data",
            layer="external",
            tags=("finance", "web"),
            parameters={
                "type": "object",
                "properties": {"ticker": {"type": "string", "description": "exchange symbol"}},
            },
        ),
        ToolSpec(
            name="files",
            description="Work with files on disk.",
            type="system",
            tags=("files",),
            annotations=ToolAnnotations(read_only=False, destructive=True),
            actions={
                "read": ActionSpec(
                    name="read",
                    description="Read a text file.",
                    annotations=ToolAnnotations(read_only=True, destructive=False),
                ),
                "delete": ActionSpec(name="delete", description="Delete a file for good."),
            },
        ),
    ]
