"""Call ids come from an `IdSource`: the process's (`IDS`, behind `new_call_id`) and any other
make ids that do not repeat, a reset (as a forked child's) makes none of the earlier ones
again, and a forked child's ids are not its parent's."""

from __future__ import annotations

import os

import pytest

from toolrig.core.model._ids import IDS, IdSource, made_here, new_call_id


def test_a_source_makes_distinct_ids_it_recognises() -> None:
    source = IdSource()
    ids = [source.new() for _ in range(1000)]
    assert len(set(ids)) == 1000
    assert all(source.made_here(i) for i in ids)
    assert not made_here(ids[0])  # another source than the process's
    assert not source.made_here(new_call_id())


def test_the_process_ids_are_the_default_source() -> None:
    made = new_call_id()
    assert made.startswith(IDS.prefix) and made_here(made)
    assert IDS.new() != made


def test_a_reset_forgets_the_prefix() -> None:
    source = IdSource()
    before = source.new()
    source.reset()
    assert not source.made_here(before)
    assert source.new() != before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_makes_ids_of_its_own() -> None:
    parent_id = new_call_id()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.write(write, f"{new_call_id()} {int(made_here(parent_id))}".encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        child_id, knows_parent = answer.read().split()
    os.waitpid(pid, 0)
    assert not made_here(child_id) and knows_parent == "0"
