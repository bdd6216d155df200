"""llm_tool through the real SDK clients against the scripted model server."""

from __future__ import annotations

from typing import Any

import pytest
from scripted_llm import ScriptedLLM, Turn

from toolrig.agent import LLMConfig, make_client
from toolrig.testing import FunctionModel, ScriptedModel
from toolrig.tools import LLMTool


def llm_tool(server: ScriptedLLM, provider: str = "openai") -> LLMTool:
    base = f"{server.url}/v1" if provider == "openai" else server.url
    config = LLMConfig(
        provider=provider,
        model="scripted",
        base_url=base,
        api_key="k",  # type: ignore[arg-type]
        max_retries=0,
    )
    return LLMTool(make_client(config))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_ask(provider: str) -> None:
    def answer(request: dict[str, Any]) -> Turn:
        assert "Question: capital?" in str(request["messages"][-1]["content"])
        return Turn(text="Paris")

    with ScriptedLLM([answer]) as server:
        result = llm_tool(server, provider).execute("ask", question="capital?", context="France")
    assert result.output == "Paris" and server.errors == []


def test_analyze_returns_validated_json_and_retries_once() -> None:
    schema = {
        "type": "object",
        "properties": {"sentiment": {"enum": ["positive", "negative"]}},
        "required": ["sentiment"],
    }

    def model(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
        if "previous answer was rejected" in messages[-1]["content"]:
            return '```json\n{"sentiment": "positive"}\n```'
        return '{"sentiment": "great"}'

    client = FunctionModel(model)
    result = LLMTool(client).execute(
        "analyze", text="I love it", instructions="Sentiment?", output_schema=schema
    )
    assert result.output == {"sentiment": "positive"} and len(client.requests) == 2


def test_analyze_gives_up_after_one_retry() -> None:
    client = ScriptedModel(["not json", "still not"])
    result = LLMTool(client).execute("analyze", text="x", instructions="y")
    assert client.remaining == 0
    assert result.code == "invalid_output" and "after a retry" in result.error.message


def test_unconfigured_llm_answers_how_to_configure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    for name in (
        "TOOLRIG_LLM_PROVIDER",
        "TOOLRIG_LLM_MODEL",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TOOLRIG_CONFIG", str(tmp_path / "none.toml"))
    result = LLMTool().execute("ask", question="hi")
    assert result.code == "execution_error"
    assert (
        "No LLM is configured" in result.error.message
        and "TOOLRIG_LLM_MODEL" in result.error.message
    )


def test_config_resolution(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    for name in (
        "TOOLRIG_LLM_PROVIDER",
        "TOOLRIG_LLM_MODEL",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
        "TOOLRIG_LLM_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    config_file = tmp_path / "config.toml"
    config_file.write_text(
        '[llm]\nprovider = "anthropic"\nmodel = "claude-x"\napi_key_env = "MY_KEY"\n'
    )
    monkeypatch.setenv("TOOLRIG_CONFIG", str(config_file))
    monkeypatch.setenv("MY_KEY", "secret")
    resolved = LLMConfig.resolve()
    assert resolved.provider == "anthropic" and resolved.model == "claude-x"
    assert resolved.api_key == "secret" and "secret" not in repr(resolved)
    monkeypatch.delenv("MY_KEY")
    monkeypatch.setenv("TOOLRIG_LLM_MODEL", "llama3")
    monkeypatch.setenv("TOOLRIG_LLM_PROVIDER", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    local = LLMConfig.resolve()
    assert local.provider == "openai" and local.model == "llama3" and local.api_key == "not-needed"
    assert LLMConfig.resolve(model="other").model == "other"


def test_web_summary_uses_the_configured_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolrig.tools import WebTool

    def answer(request: dict[str, Any]) -> Turn:
        assert "Summarise the following text" in request["messages"][-1]["content"]
        assert "Uji is a city" in request["messages"][-1]["content"]
        return Turn(text="Uji grows green tea.")

    with ScriptedLLM([answer]) as server:
        monkeypatch.setenv("TOOLRIG_LLM_PROVIDER", "openai")
        monkeypatch.setenv("TOOLRIG_LLM_MODEL", "scripted")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        result = WebTool().execute("summary", text="Uji is a city known for green tea.")
    assert server.errors == []
    assert result.output["summary"] == "Uji grows green tea."
