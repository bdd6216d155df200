"""The version of a catalogue as workers and callers compare it: one stable hash, made here.

A tool's *fingerprint* hashes what a call depends on: its name, version, and each action's
name, parameter schema and output schema (descriptions may change freely). A catalogue's
version hashes its tools' fingerprints, in name order. A worker refuses to start when its
catalogue's version is not the one callers expect, and refuses a call whose tool's fingerprint
differs from its own, so a caller and a worker never disagree silently on what a tool takes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from toolrig.core.define._base import BaseTool
from toolrig.core.model._spec import ToolSpec

__all__ = ["catalog_version", "tool_fingerprint"]

_CACHE: dict[int, tuple[ToolSpec, str]] = {}


def tool_fingerprint(spec: ToolSpec) -> str:
    """A 16-hex-digit hash of the parts of ``spec`` a call depends on (cached per spec)."""
    cached = _CACHE.get(id(spec))
    if cached is not None and cached[0] is spec:
        return cached[1]
    data = {
        "name": spec.name,
        "version": spec.version,
        "actions": [
            {"name": a.name, "parameters": a.parameters, "output_schema": a.output_schema}
            for a in sorted(spec.actions.values(), key=lambda a: a.name)
        ],
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    if len(_CACHE) > 4096:
        _CACHE.clear()
    _CACHE[id(spec)] = (spec, digest)
    return digest


def catalog_version(tools: Iterable[BaseTool]) -> str:
    """The version of a catalogue: a 16-hex-digit hash of its tools' fingerprints."""
    parts = sorted(f"{t.spec.name}={tool_fingerprint(t.spec)}" for t in tools)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
