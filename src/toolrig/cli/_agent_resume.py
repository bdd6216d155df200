"""The command that resumes a held ``toolrig agent`` run, printed when the run stops.

It repeats every option the run was started with that the second process needs to rebuild the
same agent (the model or script, the catalogue, the approval policy, the execution log), so it
works when pasted: a hint that left out ``--script`` or the catalogue would answer "no model to
run" or "unknown tool".
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence

__all__ = ["resume_command"]

_REPEATED = ("catalog", "module", "import_path", "approve_tools")
"""Repeatable options carried over as given, in this order."""
_SINGLE = (
    "model", "provider", "base_url", "script", "name", "role", "max_steps", "max_tool_calls",
    "max_tokens",
)  # fmt: skip
"""Options with one value, carried over when given (or, for the defaults, when changed)."""
_DEFAULTS = {"name": "assistant", "role": "You complete the user's task with the tools.",
             "max_steps": 10}  # fmt: skip


def resume_command(args: argparse.Namespace, session_id: str, call_ids: Sequence[str]) -> str:
    """``toolrig agent ...`` resuming ``session_id`` with ``call_ids`` allowed, as a shell
    line (values quoted) built from the parsed ``args`` of the held run."""
    words = ["toolrig", "agent", "--session", session_id, "--log", args.log or "LOG"]
    for key in _SINGLE:
        value = getattr(args, key, None)
        if value is not None and value != _DEFAULTS.get(key):
            words += [_flag(key), str(value)]
    for key in _REPEATED:
        for value in getattr(args, key, None) or ():
            words += [_flag(key), str(value)]
    if getattr(args, "demo", False):
        words.append("--demo")
    if getattr(args, "approve_destructive", False):
        words.append("--approve-destructive")
    if getattr(args, "json", False):
        words.append("--json")
    for call_id in call_ids:
        words += ["--allow", call_id]
    return shlex.join(words)


def _flag(key: str) -> str:
    return "--" + key.replace("_", "-")
