"""Exported tool lists kept per catalogue version: a turn that offers the same catalogue again
costs a lookup, not a new export (1,000 tools: tens of milliseconds each time otherwise).

The lists are kept in the name map of the tools exported (`NameMap.exports`): a catalogue's
(or an executor's) map is its version's, dropped on every change of the catalogue; plain tools
and lists of them share the map of their specs (the last few lists are remembered:
`NameMap.from_tools`). Each call gets a list of its own; the tool dicts in it are shared between
calls for one version, so treat them as read-only (``copy.deepcopy`` one to edit it).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from toolrig.providers._names import NameMap

__all__ = ["cached_export"]


def cached_export(
    names: NameMap, key: Hashable, build: Callable[[], list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """``build()`` (an export of ``names``), kept under ``key`` in ``names`` (a map never
    changes: a catalogue's is made anew for each of its versions), in a list of the caller's
    own."""
    kept = names.exports.get(key)
    if kept is None:
        kept = names.exports.setdefault(key, build())  # two builds at once: the first kept
        names.built += 1
    else:
        names.reused += 1
    return list(kept)
