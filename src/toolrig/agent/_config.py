"""Which LLM to talk to: from arguments, environment variables or a config file.

Order of precedence: explicit arguments, then ``TOOLRIG_LLM_*`` environment variables (and the
SDKs' own ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` / ``ANTHROPIC_API_KEY``), then the ``[llm]``
table of ``$TOOLRIG_CONFIG`` or ``~/.config/toolrig/config.toml``.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

__all__ = ["LLMConfig", "LLMConfigError", "config_path"]

ProviderName = Literal["openai", "anthropic"]

HOW_TO_CONFIGURE = (
    "No LLM is configured. Either pass provider=/model= (and base_url=/api_key=) in code, or set "
    "TOOLRIG_LLM_PROVIDER=openai|anthropic and TOOLRIG_LLM_MODEL=<model>, with OPENAI_API_KEY "
    "(plus OPENAI_BASE_URL for an OpenAI-compatible server such as Ollama at "
    "http://localhost:11434/v1, vLLM, llama.cpp or LM Studio) or ANTHROPIC_API_KEY; or write an "
    "[llm] table (provider, model, base_url, api_key_env) in {path}."
)


class LLMConfigError(RuntimeError):
    """The LLM settings are missing or wrong; the message says how to fix them."""


def config_path() -> Path:
    """``$TOOLRIG_CONFIG`` or ``~/.config/toolrig/config.toml`` (the platform's config folder)."""
    env = os.environ.get("TOOLRIG_CONFIG")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_config_path

    return user_config_path("toolrig", appauthor=False) / "config.toml"


@dataclass(frozen=True, slots=True, kw_only=True)
class LLMConfig:
    """Settings for one LLM endpoint."""

    provider: ProviderName
    model: str
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    max_tokens: int = 4096
    temperature: float | None = None
    max_retries: int = 2

    def __repr__(self) -> str:  # never print the key
        key = "set" if self.api_key else "unset"
        return (
            f"LLMConfig(provider={self.provider!r}, model={self.model!r}, "
            f"base_url={self.base_url!r}, api_key=<{key}>)"
        )

    @classmethod
    def resolve(cls, **overrides: Any) -> LLMConfig:
        """Settings from ``overrides`` > environment > config file; raises
        :class:`LLMConfigError` with instructions when no provider and model are known."""
        file_values = _from_file()
        env_values = _from_env()
        given = {k: v for k, v in overrides.items() if v is not None}
        values: dict[str, Any] = {**file_values, **env_values, **given}
        provider = values.get("provider")
        if provider is None and values.get("model"):
            provider = "anthropic" if str(values["model"]).startswith("claude") else "openai"
        if provider not in ("openai", "anthropic") or not values.get("model"):
            problem = (
                f"unknown provider {provider!r} (use 'openai' or 'anthropic'). "
                if provider not in (None, "openai", "anthropic")
                else ""
            )
            raise LLMConfigError(problem + HOW_TO_CONFIGURE.format(path=config_path()))
        values["provider"] = provider
        key_env = values.pop("api_key_env", None)
        if not values.get("api_key"):
            names = [key_env] if key_env else []
            names.append("OPENAI_API_KEY" if provider == "openai" else "ANTHROPIC_API_KEY")
            values["api_key"] = next(
                (os.environ[n] for n in names if n and os.environ.get(n)), None
            )
        if provider == "openai" and not values.get("base_url"):
            values["base_url"] = os.environ.get("OPENAI_BASE_URL") or None
        if not values.get("api_key"):
            if values.get("base_url"):
                values["api_key"] = "not-needed"  # local OpenAI-compatible servers ignore it
            else:
                raise LLMConfigError(
                    f"No API key for {provider}: set "
                    f"{'OPENAI_API_KEY' if provider == 'openai' else 'ANTHROPIC_API_KEY'} or pass "
                    "api_key=, or point base_url= at a local server."
                )
        known = set(cls.__dataclass_fields__)
        unknown = set(values) - known
        if unknown:
            raise LLMConfigError(f"unknown LLM settings: {', '.join(sorted(unknown))}")
        try:
            return cls(**values)
        except TypeError as exc:
            raise LLMConfigError(f"bad LLM settings: {exc}") from None

    def with_model(self, model: str) -> LLMConfig:
        """The same endpoint with another model."""
        return replace(self, model=model)


def _from_env() -> dict[str, Any]:
    mapping = {
        "TOOLRIG_LLM_PROVIDER": "provider",
        "TOOLRIG_LLM_MODEL": "model",
        "TOOLRIG_LLM_BASE_URL": "base_url",
        "TOOLRIG_LLM_API_KEY": "api_key",
        "TOOLRIG_LLM_TIMEOUT": "timeout",
        "TOOLRIG_LLM_MAX_TOKENS": "max_tokens",
    }
    values: dict[str, Any] = {}
    for env, key in mapping.items():
        raw = os.environ.get(env)
        if raw:
            values[key] = _number(key, raw)
    return values


def _from_file() -> dict[str, Any]:
    path = config_path()
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LLMConfigError(f"cannot read {path}: {exc}") from None
    table = data.get("llm", {})
    if not isinstance(table, dict):
        raise LLMConfigError(f"{path}: [llm] must be a table")
    return dict(table)


def _number(key: str, raw: str) -> Any:
    if key == "timeout":
        return float(raw)
    if key == "max_tokens":
        return int(raw)
    return raw
