"""How far a first tool-search index build is, on stderr, so a long first start is not silent.

A build embeds the tool texts the on-disk vector cache lacks (seconds per thousand tools, more
on a loaded machine). A Rich progress bar shows it when stderr is a terminal and the build has
at least `LONG_BUILD` texts to embed; after any build that embedded texts, one line says where
they are cached, so the next start (which reads them back) is known to be quicker. Nothing
goes to stdout: results stay clean for pipes. Library callers see none of this unless they
pass their own ``progress`` to `ToolIndex`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

__all__ = ["LONG_BUILD", "BuildProgress"]

LONG_BUILD: Final = 200
"""Texts to embed from which a terminal shows a progress bar."""


class BuildProgress:
    """A `toolrig.search.ToolIndex` ``progress`` callback for the CLI; `close` when done."""

    def __init__(self) -> None:
        self._bar: Progress | None = None
        self._tasks: dict[str, TaskID] = {}
        self.embedded = 0
        """Texts embedded (not read from the cache) so far, over every model."""

    def __call__(self, model: str, done: int, total: int) -> None:
        if done == 0:
            self._start(model, total)
        elif done == total:
            self.embedded += total
        if self._bar is not None and model in self._tasks:
            self._bar.update(self._tasks[model], completed=done)

    def _start(self, model: str, total: int) -> None:
        if total < LONG_BUILD or not sys.stderr.isatty():
            return
        if self._bar is None:
            from rich.progress import Progress

            from toolrig.cli._output import err_console

            self._bar = Progress(console=err_console(), transient=True)
            self._bar.start()
        self._tasks[model] = self._bar.add_task(f"indexing tools ({model})", total=total)

    def close(self) -> None:
        """Stop the bar; after a build that embedded texts, say where they are cached."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        if self.embedded:
            print(f"index cached in {_vectors_folder()}; next start reuses it", file=sys.stderr)

    def __enter__(self) -> BuildProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _vectors_folder() -> str:
    from toolrig.search._quantize import cache_dir

    return str(cache_dir() / "vectors")
