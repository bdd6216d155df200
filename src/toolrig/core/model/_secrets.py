"""The shapes secrets take in text: one place for the patterns the log's redaction and the
secret-scanning guardrail both use.

API keys (``sk-…``, ``sk-ant-…``, ``ghp_…``, ``github_pat_…``, ``xox[abpr]-…``, ``AKIA…``,
``AIza…``), a JWT, a bearer token and a PEM private key block. A pattern list is a seam,
not a complete defence: a secret in a shape not listed here passes.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["SECRET_KINDS", "SECRET_TEXT"]

SECRET_KINDS: Final[dict[str, str]] = {
    "private_key": r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    "anthropic_key": r"\bsk-ant-[A-Za-z0-9_-]{16,}",
    "openai_key": r"\bsk-[A-Za-z0-9_-]{16,}",
    "github_token": r"\b(?:ghp_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
    "slack_token": r"\bxox[abpr]-[A-Za-z0-9-]{10,}",
    "aws_access_key": r"\bAKIA[0-9A-Z]{16}",
    "google_api_key": r"\bAIza[0-9A-Za-z_-]{30,}",
    "jwt": r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    "bearer_token": r"(?<=Bearer )[A-Za-z0-9._~+/-]{8,}=*",
}
"""Each kind of secret and the regular expression of its shape (the first that matches
names a finding)."""

SECRET_TEXT: Final = re.compile("|".join(f"(?P<{kind}>{rx})" for kind, rx in SECRET_KINDS.items()))
"""Any of `SECRET_KINDS`; ``match.lastgroup`` names the kind found."""
