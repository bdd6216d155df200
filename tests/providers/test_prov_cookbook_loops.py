"""The loops of the providers cookbook (``docs/providers.md``), run as written with the real SDK
clients against a local server that refuses what each API refuses."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from llm_server import ScriptedLLM, Turn, tool_results

PAGE = Path(__file__).resolve().parents[2] / "docs" / "providers.md"
LOOPS = {
    "openai": "openai_chat_loop",
    "openai-responses": "openai_responses_loop",
    "anthropic": "anthropic_loop",
}


def cookbook() -> dict[str, Any]:
    """The names the page defines before its Gemini section (tools, executor, loops)."""
    text = PAGE.read_text(encoding="utf-8")
    text = text[: text.index("## Gemini")]
    scope: dict[str, Any] = {"__name__": "cookbook"}
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL):
        exec(compile(block, str(PAGE), "exec"), scope)
    return scope


@pytest.mark.parametrize("provider", list(LOOPS))
def test_a_cookbook_loop_is_accepted_by_the_api(provider: str) -> None:
    scope = cookbook()

    def answer(request: dict[str, Any]) -> Turn:
        results = tool_results(request)
        assert results["c1"] == ("6912", False), results
        assert results["c2"][1] is True and "invalid_arguments" in results["c2"][0], results
        return Turn(text="6912.")

    script = [
        Turn(calls=[("add", {"a": 1234, "b": 5678}, "c1"), ("add", {"a": "x", "b": 1}, "c2")]),
        answer,
    ]
    with ScriptedLLM(script) as server:
        if provider == "anthropic":
            client: Any = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
        else:
            client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="k", max_retries=0)
        result = scope[LOOPS[provider]](client, scope["executor"], "What is 1234 + 5678?")
    assert result == "6912." and server.refusals == [] and server.errors == []
    scope["executor"].close()
