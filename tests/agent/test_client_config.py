"""``LLMConfig``: known settings are checked with clear errors, any other setting passes
through to the SDK, and the output limit is named as the model needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolrig.agent import LLMConfig, LLMConfigError, make_client


def test_every_bad_known_setting_is_named_in_one_error() -> None:
    with pytest.raises(LLMConfigError) as caught:
        LLMConfig(
            provider="openai",
            model="m",
            max_tokens=0,
            temperature=3,
            timeout=-1,
            max_retries=-2,
            token_limit="max",  # type: ignore[arg-type]
        )
    message = str(caught.value)
    for part in (
        "max_tokens must be at least 1, not 0",
        "temperature must be between 0 and 2, not 3",
        "timeout must be a positive number",
        "max_retries must be a whole number >= 0",
        "token_limit must be 'auto', 'max_tokens' or 'max_completion_tokens'",
    ):
        assert part in message
    with pytest.raises(
        LLMConfigError, match="provider must be one of 'openai', 'openai-responses'"
    ):
        LLMConfig(provider="cohere", model="m")  # type: ignore[arg-type]


def test_settings_may_not_replace_what_the_client_fills_in() -> None:
    with pytest.raises(LLMConfigError) as caught:
        LLMConfig(
            provider="openai",
            model="m",
            settings={
                "messages": [],
                "max_tokens": 5,
                "max_completion_tokens": 5,
                "temperature": 1,
            },
        )
    message = str(caught.value)
    assert "settings may not set 'messages'" in message
    assert "settings may not set 'max_tokens': the client fills it in (use max_tokens=)" in message
    assert "set max_completion_tokens with max_tokens=" in message
    assert "set temperature with temperature=" in message


def test_resolve_passes_unknown_names_through_as_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config_file = tmp_path / "config.toml"
    config_file.write_text(
        '[llm]\nprovider = "openai-responses"\nmodel = "gpt-5"\napi_key = "k"\n'
        'store = false\n[llm.settings]\nservice_tier = "flex"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("TOOLRIG_CONFIG", str(config_file))
    for name in ("TOOLRIG_LLM_PROVIDER", "TOOLRIG_LLM_MODEL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    config = LLMConfig.resolve(reasoning={"effort": "low"}, seed=None)
    assert config.provider == "openai-responses" and config.model == "gpt-5"
    assert dict(config.settings) == {
        "store": False,
        "service_tier": "flex",
        "reasoning": {"effort": "low"},
    }
    client = make_client(config)
    assert (
        type(client).__name__ == "OpenAIResponsesClient" and client.provider == "openai-responses"
    )
    monkeypatch.setenv("TOOLRIG_LLM_TEMPERATURE", "warm")
    with pytest.raises(
        LLMConfigError, match="TOOLRIG_LLM_TEMPERATURE must be a number, not 'warm'"
    ):
        LLMConfig.resolve()


@pytest.mark.parametrize(
    ("model", "name"),
    [
        ("o1", "max_completion_tokens"),
        ("o3-mini", "max_completion_tokens"),
        ("o4-mini-2025-04-16", "max_completion_tokens"),
        ("gpt-5", "max_completion_tokens"),
        ("gpt-5.1-codex", "max_completion_tokens"),
        ("azure/gpt-5-mini", "max_completion_tokens"),
        ("gpt-4.1-mini", "max_tokens"),
        ("gpt-4o", "max_tokens"),
        ("llama3.1:8b", "max_tokens"),
        ("omni-large", "max_tokens"),
        ("gpt-50", "max_tokens"),
    ],
)
def test_the_output_limit_is_named_for_the_model(model: str, name: str) -> None:
    assert LLMConfig(provider="openai", model=model).token_limit_name == name
    forced = LLMConfig(provider="openai", model=model, token_limit="max_tokens")
    assert forced.token_limit_name == "max_tokens"


def test_the_key_is_never_printed() -> None:
    text = repr(LLMConfig(provider="anthropic", model="claude-x", api_key="sk-secret"))
    assert "sk-secret" not in text and "api_key=<set>" in text


def test_a_temperature_the_anthropic_sdk_cannot_send_is_refused_early() -> None:
    import inspect

    import anthropic

    takes = (
        "temperature"
        in inspect.signature(anthropic.AsyncAnthropic(api_key="k").messages.create).parameters
    )
    config = LLMConfig(provider="anthropic", model="claude-x", api_key="k", temperature=0.2)
    if takes:
        assert make_client(config).config.temperature == 0.2
    else:
        with pytest.raises(LLMConfigError, match="takes no temperature"):
            make_client(config)
