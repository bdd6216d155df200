"""Load the tools a command works on: YAML files or folders into a registry."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolrig.registry._registry import Registry

if TYPE_CHECKING:
    from toolrig.search._index import ToolIndex

__all__ = ["add_import_paths", "load_registry", "load_usage"]


def add_import_paths(import_paths: Sequence[str]) -> None:
    """Put folders first on ``sys.path`` so definitions' ``executor:`` modules import."""
    for folder in reversed(import_paths):
        resolved = str(Path(folder).resolve())
        if resolved not in sys.path:
            sys.path.insert(0, resolved)


def load_registry(paths: Sequence[str], import_paths: Sequence[str] = ()) -> Registry:
    """A registry with every definition under ``paths``; ``import_paths`` are put on
    ``sys.path`` first so the definitions' ``executor:`` modules can be imported. Problems in
    single files are printed and the rest still loads."""
    add_import_paths(import_paths)
    registry = Registry()
    for path in paths:
        report = registry.load(path)
        if not report.ok:
            print(f"warning: {path}: {report}", file=sys.stderr)
    return registry


def load_usage(index: ToolIndex, url: str) -> str | None:
    """Give ``index`` the call counts of the execution log at ``url`` (its usage prior); what
    went wrong, or ``None``."""
    from toolrig.storage._open import open_log

    if not url.startswith(("postgresql://", "postgres://")):
        path = Path(url.removeprefix("sqlite:///"))
        if not path.is_file():
            return f"no execution log at {str(path)!r}"
    try:
        with open_log(url) as log:
            index.set_usage(log.tool_usage())
    except Exception as exc:  # a locked, corrupt or unreachable log: say so, do not trace
        return f"{url}: {exc}"
    return None
