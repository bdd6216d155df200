"""Hot reload: watch a folder (watchdog) and apply file changes to a source, debounced.

Events only record which files changed; a single worker thread waits until writes have been
quiet for ``debounce`` seconds, then refreshes those files in one batch (validated first,
swapped in atomically, the last good version kept when a file is broken).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from toolrig.registry._loader import SUFFIXES, iter_definition_files
from toolrig.registry._report import LoadReport

__all__ = ["Watcher"]

logger = logging.getLogger("toolrig.registry")

_IGNORED = frozenset({"opened", "closed_no_write"})
_FOLDER_CHANGES = frozenset({"created", "deleted", "moved"})


class Watcher:
    """Keeps a source in step with a folder until `stop` (also a context manager).

    ``load_folder`` loads the folder at start, ``refresh`` applies a batch of changed files,
    ``known_files`` lists the files loaded so far (to find those under a deleted folder).
    """

    def __init__(
        self,
        folder: Path,
        *,
        load_folder: Callable[[Path], LoadReport],
        refresh: Callable[[list[Path]], LoadReport],
        known_files: Callable[[], Iterable[Path]],
        debounce: float = 0.05,
    ) -> None:
        if debounce < 0:
            raise ValueError("debounce must be zero or more seconds")
        self._load_folder = load_folder
        self._refresh = refresh
        self._known_files = known_files
        self.folder = Path(os.path.abspath(folder))
        self.debounce = debounce
        self.report: LoadReport | None = None
        """The outcome of the initial load."""
        self._pending: set[Path] = set()
        self._last = 0.0
        self._stopped = False
        self._cond = threading.Condition()
        self._observer = Observer()
        self._thread = threading.Thread(target=self._run, name="toolrig-reload", daemon=True)

    def start(self) -> None:
        """Start observing, then load the folder (so no change made meanwhile is missed)."""
        if not self.folder.is_dir():
            raise FileNotFoundError(f"cannot watch {self.folder}: no such folder")
        self._observer.schedule(_Handler(self), str(self.folder), recursive=True)
        self._observer.start()
        self.report = self._load_folder(self.folder)
        self._thread.start()

    def stop(self) -> None:
        """Stop observing; a reload in progress finishes first."""
        with self._cond:
            if self._stopped:
                return
            self._stopped = True
            self._cond.notify_all()
        self._observer.stop()
        self._observer.join()
        if self._thread.is_alive():
            self._thread.join()

    def __enter__(self) -> Watcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def changed(self, event: FileSystemEvent) -> None:
        """Record the files an event touches (called from watchdog's thread)."""
        if event.event_type in _IGNORED or (
            event.is_directory and event.event_type not in _FOLDER_CHANGES
        ):
            return  # a folder's "modified" only echoes changes to its files
        paths: set[Path] = set()
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            path = Path(os.fsdecode(raw))
            if event.is_directory:
                paths.update(self._files_under(path))
            elif path.name.endswith(SUFFIXES) and not path.name.startswith("."):
                paths.add(path)
        if not paths:
            return
        with self._cond:
            self._pending.update(paths)
            self._last = time.monotonic()
            self._cond.notify_all()

    def _files_under(self, folder: Path) -> set[Path]:
        known = {p for p in self._known_files() if folder in p.parents}
        if folder.is_dir():
            known.update(iter_definition_files(folder))
        return known

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._stopped:
                    self._cond.wait()
                while not self._stopped:
                    remaining = self._last + self.debounce - time.monotonic()
                    if remaining <= 0:
                        break
                    self._cond.wait(remaining)
                if self._stopped:
                    return
                paths, self._pending = self._pending, set()
            try:
                self._refresh(sorted(paths))
            except Exception:
                logger.exception("reloading %d file(s) failed", len(paths))


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher) -> None:
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        self._watcher.changed(event)
