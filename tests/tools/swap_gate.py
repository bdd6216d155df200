"""A folder swapped for a symlink at a chosen moment of a tool's walk, deterministically.

The known way to win this race holds the walk on a named pipe called ``.gitignore`` inside ``d/``,
renamed ``d``, put a symlink to an outside folder in its place and released the pipe. The tools
no longer block on a pipe (it is refused without waiting), so the same interleaving is forced
here by a hook on ``os.open`` / ``os.scandir``: the swap runs synchronously, inside the tool's
own call, at the moment the tool first touches ``d`` (``before``: about to open it from its
parent) or first works inside it (``inside``: opening or listing something in the folder it
already holds). The pipe stays in place, so a tool that still waited on it would hang (the
callers bound that with a thread join).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

Moment = Literal["before", "inside"]
MOMENTS: tuple[Moment, ...] = ("before", "inside")


@dataclass
class Layout:
    root: Path
    outside: Path
    fired: list[str]


def make_layout(tmp_path: Path) -> Layout:
    """``root/top.txt``, ``root/d/inner.txt`` and a pipe ``root/d/.gitignore``;
    ``outside/secret.txt`` beside the root."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    outside.mkdir()
    (root / "top.txt").write_text("needle at the top\n")
    (root / "d" / "inner.txt").write_text("needle inside d\n")
    os.mkfifo(root / "d" / ".gitignore")
    (outside / "secret.txt").write_text("needle SECRET outside\n")
    return Layout(root=root, outside=outside, fired=[])


def _swap(layout: Layout) -> None:
    (layout.root / "d").rename(layout.root / "d-moved")
    (layout.root / "d").symlink_to(layout.outside, target_is_directory=True)


def _is(fd: Any, ino: int) -> bool:
    try:
        return isinstance(fd, int) and os.fstat(fd).st_ino == ino
    except OSError:
        return False


@contextmanager
def swap_at(monkeypatch: pytest.MonkeyPatch, layout: Layout, moment: Moment) -> Iterator[None]:
    """Swap ``root/d`` for a symlink to ``outside`` at ``moment`` of whatever runs inside."""
    root_ino = (layout.root).stat().st_ino
    d_ino = (layout.root / "d").stat().st_ino
    real_open: Callable[..., int] = os.open
    real_scandir: Callable[..., Any] = os.scandir

    def fire(why: str) -> None:
        if not layout.fired:
            layout.fired.append(why)
            _swap(layout)

    def hooked_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: Any = None) -> int:
        if moment == "before" and path == "d" and _is(dir_fd, root_ino):
            fire("open d")
        elif moment == "inside" and _is(dir_fd, d_ino):
            fire(f"open d/{path}")
        return real_open(path, flags, mode, dir_fd=dir_fd)

    def hooked_scandir(path: Any = ".") -> Any:
        if moment == "inside" and _is(path, d_ino):
            fire("list d")
        return real_scandir(path)

    monkeypatch.setattr(os, "open", hooked_open)
    monkeypatch.setattr(os, "scandir", hooked_scandir)
    try:
        yield
    finally:
        monkeypatch.setattr(os, "open", real_open)
        monkeypatch.setattr(os, "scandir", real_scandir)


def bounded(call: Callable[[], Any], seconds: float = 10.0) -> Any:
    """``call()`` on a thread, failing the test if it has not answered within ``seconds``."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed back to the test
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"the call did not answer within {seconds} s (blocked on a pipe?)")
    if "error" in box:
        raise box["error"]
    return box["value"]
