"""What a model was given for one turn, as the log keeps it: the messages new since the
previous turn, the tools offered (name and schema hash) and the settings — secrets
redacted, the whole capped.

Redaction (before anything is stored):

* the value of a parameter a tool marks secret (``writeOnly`` or ``format: password``, as
  ``SecretStr`` gives), and of any key whose name says it holds a secret (``password``, ``secret``,
  ``token``, ``api_key``, ``authorization``, ``cookie``, ``credential``, ``private_key``,
  in any case, with ``-`` or ``_``) becomes ``"[redacted]"``;
* inside any text, tokens in the shapes API keys take (``sk-…``, ``sk-ant-…``, ``ghp_…``,
  ``github_pat_…``, ``xox[abpr]-…``, ``AKIA…``, ``AIza…``, ``Bearer …``, a JWT, a private key
  block: `toolrig.core.model._secrets`) become ``[redacted]``;
* JSON text of an object (a tool call's arguments, as the OpenAI APIs carry them) is redacted
  inside by the same rules.

The model's answer (its text and calls) is redacted the same way.

The cap: at most `MAX_TURN_INPUT_CHARS` characters of JSON per turn. When the messages do
not fit, the oldest of the new messages are dropped first (the newest are what the model
answered to) and ``omitted_messages`` says how many; a single message larger than the cap
is cut with a marker.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from toolrig.core.model._secrets import SECRET_TEXT
from toolrig.storage._encode import dump_json

__all__ = [
    "MAX_TURN_INPUT_CHARS",
    "REDACTED",
    "redact",
    "schema_hash",
    "secret_parameters",
    "turn_input",
]

MAX_TURN_INPUT_CHARS: Final = 64_000
"""A turn's recorded input is at most this many characters of JSON."""
REDACTED: Final = "[redacted]"

_SECRET_KEY = re.compile(
    r"(pass(word|wd)?|secret|token|api[-_]?key|authori[sz]ation|cookie|credential|"
    r"private[-_]?key|session[-_]?key)",
    re.IGNORECASE,
)
_DEPTH: Final = 64
_MAX_JSON_TEXT: Final = 1_000_000


def redact(value: Any, secret_keys: frozenset[str] = frozenset(), depth: int = 0) -> Any:
    """``value`` with secrets replaced (see the module's rules; ``secret_keys``: more key
    names whose values are secret, such as the tools' ``writeOnly`` parameters); never
    changes its input. JSON text of an object (a tool call's arguments, as the OpenAI APIs
    carry them) is redacted inside."""
    if depth > _DEPTH:
        return "[nested too deeply]"
    if isinstance(value, str):
        if value.startswith("{") and value.endswith("}") and len(value) <= _MAX_JSON_TEXT:
            try:
                data = json.loads(value)
            except ValueError:
                data = None
            if isinstance(data, dict):
                cleaned = redact(data, secret_keys, depth + 1)
                if cleaned != data:
                    return json.dumps(cleaned, ensure_ascii=False)
        return SECRET_TEXT.sub(REDACTED, value)
    if isinstance(value, Mapping):
        return {
            key: (
                REDACTED
                if isinstance(key, str)
                and (key in secret_keys or _SECRET_KEY.search(key))
                and _is_scalar(item)
                else redact(item, secret_keys, depth + 1)
            )
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact(item, secret_keys, depth + 1) for item in value]
    return value


def secret_parameters(schemas: Sequence[Mapping[str, Any]]) -> frozenset[str]:
    """The parameter names the given object schemas mark secret (``writeOnly`` or
    ``format: password``): their values are redacted wherever they are recorded."""
    names = set()
    for schema in schemas:
        for name, item in (schema.get("properties") or {}).items():
            if isinstance(item, Mapping) and (
                item.get("writeOnly") or item.get("format") == "password"
            ):
                names.add(name)
    return frozenset(names)


def _is_scalar(value: Any) -> bool:
    """A secret key's value is redacted whole only when it is a value, not a structure
    (``"tokens": {"input": 3}`` keeps its numbers)."""
    return value is not None and not isinstance(value, (Mapping, list, tuple, int, float))


def schema_hash(schema: Any) -> str:
    """A short, stable hash of a tool's schema: two turns offered the same tool alike."""
    text = json.dumps(schema, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]


def turn_input(
    *,
    messages: Sequence[Any],
    first: int,
    system: str | None,
    tools: Sequence[Mapping[str, Any]],
    settings: Mapping[str, Any],
    secret_keys: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """The recorded input of a turn: ``messages[first:]`` (the delta since the previous
    turn; the system prompt on the first turn), the offered ``tools`` and ``settings``."""
    new = [redact(m, secret_keys) for m in messages[first:]]
    data: dict[str, Any] = {
        "messages": new,
        "first_message": first,
        "total_messages": len(messages),
        "tools": [dict(t) for t in tools],
        "settings": redact(dict(settings)),
    }
    if first == 0 and system:
        data["system"] = redact(system)
    size = len(dump_json(data) or "")
    omitted = 0
    while size > MAX_TURN_INPUT_CHARS and len(new) > 1:
        dropped = new.pop(0)
        omitted += 1
        size -= len(dump_json(dropped) or "") + 1
    if omitted:
        data["omitted_messages"] = omitted
    if size > MAX_TURN_INPUT_CHARS:  # one message alone is larger than the cap
        data = _cut(data)
    return data


def _cut(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with its long texts shortened until it fits the cap."""
    budget = MAX_TURN_INPUT_CHARS // 4

    def shorten(value: Any) -> Any:
        if isinstance(value, str) and len(value) > budget:
            return f"{value[:budget]}... [{len(value) - budget} more characters cut]"
        if isinstance(value, Mapping):
            return {k: shorten(v) for k, v in value.items()}
        if isinstance(value, list):
            return [shorten(v) for v in value]
        return value

    cut = shorten(data)
    text = dump_json(cut) or ""
    if len(text) > MAX_TURN_INPUT_CHARS:  # many long values: keep the counts and the tools
        cut["messages"] = [f"[{len(text)} characters of messages cut]"]
    assert isinstance(cut, dict)
    return cut
