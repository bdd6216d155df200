"""Which LLM to talk to: from arguments, environment variables or a config file.

Order of precedence: explicit arguments, then ``TOOLRIG_LLM_*`` environment variables (and the
SDKs' own ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` / ``ANTHROPIC_API_KEY``), then the ``[llm]``
table of ``$TOOLRIG_CONFIG`` or ``~/.config/toolrig/config.toml``.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "PROVIDERS",
    "LLMConfig",
    "LLMConfigError",
    "TokenLimit",
    "config_path",
    "uses_completion_tokens",
]

ProviderName = Literal["openai", "openai-responses", "anthropic"]
"""``openai`` is Chat Completions (and every server speaking it); ``openai-responses`` the
Responses API."""

PROVIDERS: tuple[str, ...] = ("openai", "openai-responses", "anthropic")

TokenLimit = Literal["auto", "max_tokens", "max_completion_tokens"]
"""How Chat Completions is told the output limit; ``auto`` follows the model, see
`uses_completion_tokens`."""

_REASONING = re.compile(r"^(?:[\w.-]+/)?(?:o\d|gpt-5)(?:$|[-.:_])", re.IGNORECASE)
"""o1, o3, o4-mini, gpt-5, gpt-5.1-codex ... (with or without a ``vendor/`` prefix); these
models refuse ``max_tokens`` and want ``max_completion_tokens``."""

HOW_TO_CONFIGURE = (
    "No LLM is configured. Either pass provider=/model= (and base_url=/api_key=) in code, or set "
    "TOOLRIG_LLM_PROVIDER=openai|openai-responses|anthropic and TOOLRIG_LLM_MODEL=<model>, "
    "with OPENAI_API_KEY (plus OPENAI_BASE_URL for an OpenAI-compatible server such as Ollama at "
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


def uses_completion_tokens(model: str) -> bool:
    """Whether ``model`` is a reasoning model (o1, o3, o4, gpt-5 families), which refuses
    ``max_tokens`` in Chat Completions and needs ``max_completion_tokens``."""
    return bool(_REASONING.match(model))


@dataclass(frozen=True, slots=True, kw_only=True)
class LLMConfig:
    """Settings for one LLM endpoint.

    ``max_tokens`` is the output limit, sent under the name each API wants (``max_tokens``,
    ``max_completion_tokens`` or ``max_output_tokens``); ``token_limit`` overrides the Chat
    Completions choice. ``settings`` go to the SDK's request as they are (``reasoning_effort``,
    ``tool_choice``, ``seed``, ``top_p``, ``extra_body``, ...); a name the SDK does not know is
    refused when the client is made.
    """

    provider: ProviderName
    model: str
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    max_tokens: int = 4096
    temperature: float | None = None
    max_retries: int = 2
    token_limit: TokenLimit = "auto"
    settings: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        problems = _problems(self)
        if problems:
            raise LLMConfigError("bad LLM settings: " + "; ".join(problems))

    @property
    def token_limit_name(self) -> str:
        """The Chat Completions parameter that carries ``max_tokens`` for this model."""
        if self.token_limit != "auto":
            return self.token_limit
        return "max_completion_tokens" if uses_completion_tokens(self.model) else "max_tokens"

    def __repr__(self) -> str:  # never print the key
        key = "set" if self.api_key else "unset"
        return (
            f"LLMConfig(provider={self.provider!r}, model={self.model!r}, "
            f"base_url={self.base_url!r}, api_key=<{key}>)"
        )

    @classmethod
    def resolve(cls, **overrides: Any) -> LLMConfig:
        """Settings from ``overrides`` > environment > config file; raises
        `LLMConfigError` with instructions when no provider and model are known."""
        file_values = _from_file()
        env_values = _from_env()
        given = {k: v for k, v in overrides.items() if v is not None}
        values: dict[str, Any] = {**file_values, **env_values, **given}
        provider = values.get("provider")
        if provider is None and values.get("model"):
            provider = "anthropic" if str(values["model"]).startswith("claude") else "openai"
        if provider not in PROVIDERS or not values.get("model"):
            problem = (
                f"unknown provider {provider!r} (use {', '.join(map(repr, PROVIDERS))}). "
                if provider is not None and provider not in PROVIDERS
                else ""
            )
            raise LLMConfigError(problem + HOW_TO_CONFIGURE.format(path=config_path()))
        values["provider"] = provider
        key_env = values.pop("api_key_env", None)
        if not values.get("api_key"):
            names = [key_env] if key_env else []
            names.append(_key_env(provider))
            values["api_key"] = next(
                (os.environ[n] for n in names if n and os.environ.get(n)), None
            )
        if provider != "anthropic" and not values.get("base_url"):
            values["base_url"] = os.environ.get("OPENAI_BASE_URL") or None
        if not values.get("api_key"):
            if values.get("base_url"):
                values["api_key"] = "not-needed"  # local OpenAI-compatible servers ignore it
            else:
                raise LLMConfigError(
                    f"No API key for {provider}: set {_key_env(provider)} or pass "
                    "api_key=, or point base_url= at a local server."
                )
        known = {f.name for f in fields(cls)}
        extra = {k: values.pop(k) for k in list(values) if k not in known}
        if extra:  # anything else is a request setting for the SDK (checked by the client)
            values["settings"] = {**extra, **dict(values.get("settings") or {})}
        return cls(**values)

    def with_model(self, model: str) -> LLMConfig:
        """The same endpoint with another model."""
        return replace(self, model=model)


def _key_env(provider: str) -> str:
    return "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"


_RESERVED = frozenset({"model", "messages", "input", "tools", "system", "stream", "max_tokens"})
"""Request fields the client fills in itself; a setting may not replace them."""


def _problems(config: LLMConfig) -> list[str]:
    """What is wrong with ``config``'s known settings, in words that say how to fix it."""
    problems = []
    if config.provider not in PROVIDERS:
        problems.append(
            f"provider must be one of {', '.join(map(repr, PROVIDERS))}, not {config.provider!r}"
        )
    if not isinstance(config.model, str) or not config.model.strip():
        problems.append("model must be a non-empty model name")
    if isinstance(config.max_tokens, bool) or not isinstance(config.max_tokens, int):
        problems.append(f"max_tokens must be an integer, not {config.max_tokens!r}")
    elif config.max_tokens < 1:
        problems.append(f"max_tokens must be at least 1, not {config.max_tokens}")
    if not isinstance(config.timeout, int | float) or config.timeout <= 0:
        problems.append(f"timeout must be a positive number of seconds, not {config.timeout!r}")
    if not isinstance(config.max_retries, int) or config.max_retries < 0:
        problems.append(f"max_retries must be a whole number >= 0, not {config.max_retries!r}")
    if config.temperature is not None and (
        not isinstance(config.temperature, int | float) or not 0 <= config.temperature <= 2
    ):
        problems.append(f"temperature must be between 0 and 2, not {config.temperature!r}")
    if config.token_limit not in ("auto", "max_tokens", "max_completion_tokens"):
        problems.append(
            "token_limit must be 'auto', 'max_tokens' or 'max_completion_tokens', "
            f"not {config.token_limit!r}"
        )
    if not isinstance(config.settings, Mapping):
        problems.append(f"settings must be a mapping of request fields, not {config.settings!r}")
    else:
        for name in sorted(set(config.settings) & _RESERVED):
            problems.append(
                f"settings may not set {name!r}: the client fills it in"
                + (" (use max_tokens=)" if "token" in name else "")
            )
        for name in sorted(set(config.settings) & {"temperature", "max_completion_tokens"}):
            hint = "max_tokens=" if name == "max_completion_tokens" else f"{name}="
            problems.append(f"set {name} with {hint}, not in settings")
    return problems


def _from_env() -> dict[str, Any]:
    mapping = {
        "TOOLRIG_LLM_PROVIDER": "provider",
        "TOOLRIG_LLM_MODEL": "model",
        "TOOLRIG_LLM_BASE_URL": "base_url",
        "TOOLRIG_LLM_API_KEY": "api_key",
        "TOOLRIG_LLM_TIMEOUT": "timeout",
        "TOOLRIG_LLM_MAX_TOKENS": "max_tokens",
        "TOOLRIG_LLM_TEMPERATURE": "temperature",
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
    try:
        if key in ("timeout", "temperature"):
            return float(raw)
        if key == "max_tokens":
            return int(raw)
    except ValueError:
        raise LLMConfigError(f"TOOLRIG_LLM_{key.upper()} must be a number, not {raw!r}") from None
    return raw
