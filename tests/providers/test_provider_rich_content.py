"""Rich tool output in each provider's result format, checked against the official SDKs' own
types where they exist: images where the API carries them, a text notice everywhere else."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import anthropic.types
import pytest
from openai.types.responses import ResponseInputItemParam
from pydantic import TypeAdapter

from toolrig import ToolExecutor, ToolResult, tool
from toolrig.core import Audio, EmbeddedResource, Image, TextContent
from toolrig.providers import (
    format_anthropic_results,
    format_openai_chat_results,
    format_openai_responses_results,
)
from toolrig.registry import Catalog

PNG = b"\x89PNG\r\n\x1a\n0000"


@tool
def shot() -> list[TextContent | Image | Audio | EmbeddedResource]:
    """A screenshot with a caption, a sound and a log file."""
    return [
        TextContent(text="the page:"),
        Image.from_bytes(PNG),
        Audio.from_bytes(b"RIFF0000"),
        EmbeddedResource(uri="file:///log.txt", text="all good"),
    ]


@tool
def tiff() -> Image:
    """An image type Anthropic does not take."""
    return Image.from_bytes(b"II*\x00", "image/tiff")


def run(name: str) -> ToolResult:
    with ToolExecutor(Catalog([shot, tiff])) as executor:
        return executor.execute_sync(name, {})


def test_anthropic_gets_image_blocks_and_notices() -> None:
    (message,) = format_anthropic_results([run("shot")])
    block = message["content"][0]
    TypeAdapter(anthropic.types.ToolResultBlockParam).validate_python(block)
    kinds = [b["type"] for b in block["content"]]
    assert kinds == ["text", "image", "text", "text"]
    assert base64.b64decode(block["content"][1]["source"]["data"]) == PNG
    assert block["content"][2]["text"].startswith("[audio: audio/wav, 8 bytes;")
    assert "all good" in block["content"][3]["text"]
    (other,) = format_anthropic_results([run("tiff")])
    assert other["content"][0]["content"][0]["type"] == "text"  # tiff: a notice


def test_openai_responses_gets_input_images() -> None:
    (item,) = format_openai_responses_results([run("shot")])
    TypeAdapter(ResponseInputItemParam).validate_python(item)
    kinds = [part["type"] for part in item["output"]]
    assert kinds == ["input_text", "input_image", "input_text", "input_text"]
    assert item["output"][1]["image_url"].startswith("data:image/png;base64,")


def test_openai_chat_carries_text_only_so_says_what_is_missing() -> None:
    (message,) = format_openai_chat_results([run("shot")])
    assert message["content"].splitlines()[:2] == [
        "the page:",
        "[image: image/png, 12 bytes; not shown here]",
    ]


def test_the_json_rendering_stays_plain_data() -> None:
    result = run("shot")
    data = json.loads(result.to_json())
    assert data["output"][1] == {
        "data": base64.b64encode(PNG).decode(),
        "mime_type": "image/png",
        "type": "image",
    }


@pytest.mark.parametrize(
    "bad",
    [
        lambda: Image(data="not base64!"),
        lambda: EmbeddedResource(uri="x://y"),
        lambda: EmbeddedResource(uri="x://y", text="a", blob="YQ=="),
    ],
)
def test_malformed_content_is_refused_when_made(bad: object) -> None:
    with pytest.raises(ValueError, match=r"base64|exactly one"):
        bad()  # type: ignore[operator]


def test_a_tool_returning_something_else_than_its_declared_content_fails() -> None:
    @tool
    def liar() -> Image:
        """Says it returns an image."""
        return "just text"  # type: ignore[return-value]

    with ToolExecutor(Catalog([liar])) as executor:
        assert executor.execute_sync("liar", {}).code == "invalid_output"


def test_gemini_gets_the_text_with_notices_not_base64() -> None:
    from toolrig.providers import format_gemini_results

    (content,) = format_gemini_results([run("shot")])
    output = content["parts"][0]["functionResponse"]["response"]["output"]
    assert output.startswith("the page:\n[image: image/png")
    assert base64.b64encode(PNG).decode() not in output


def test_an_image_read_from_a_file_keeps_its_bytes_and_guesses_its_type(tmp_path: Path) -> None:
    raw = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    (tmp_path / "chart.png").write_bytes(raw)
    (tmp_path / "blob").write_bytes(raw)
    image = Image.from_file(tmp_path / "chart.png")
    assert image.mime_type == "image/png" and base64.b64decode(image.data) == raw
    assert Image.from_file(str(tmp_path / "blob")).mime_type == "application/octet-stream"
    assert Image.from_file(tmp_path / "blob", "image/webp").mime_type == "image/webp"
