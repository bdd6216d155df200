"""Sync calls in a forked child: a process that already ran async work from sync code (its
background loop thread started) and then forks (a prefork worker pool, ``multiprocessing``
with ``fork``) must be able to do it again in the child, which does not inherit the thread.
Without the after-fork reset the child's first sync call waits forever."""

from __future__ import annotations

import multiprocessing

from toolrig.core.context._background import run_sync


async def _answer() -> int:
    return 42


def _child(queue: multiprocessing.Queue[int]) -> None:
    queue.put(run_sync(_answer()))


def test_a_forked_child_runs_sync_calls_on_its_own_loop() -> None:
    assert run_sync(_answer()) == 42  # the parent's loop thread is running
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[int] = context.Queue()
    child = context.Process(target=_child, args=(queue,))
    child.start()
    child.join(20)
    hung = child.is_alive()
    if hung:
        child.kill()
        child.join()
    assert not hung, "the forked child's sync call never returned"
    assert child.exitcode == 0
    assert queue.get(timeout=5) == 42
