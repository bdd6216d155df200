"""The tracing switch is an object: the process's (`TRACING`, flipped by `enable_tracing`) tells
the pipelines that follow it, and another `Tracing` flips only its own followers."""

from __future__ import annotations

import gc

from tracing_support import Spans

from toolrig import ToolExecutor, tool
from toolrig.runtime import disable_tracing, enable_tracing
from toolrig.runtime._tracing import TRACING, Tracing, tracing_enabled


class Follower:
    def __init__(self, tracing: Tracing) -> None:
        self.tracing = tracing
        self.seen: list[bool] = []
        tracing.follow(self.refresh)

    def refresh(self) -> None:
        self.seen.append(self.tracing.enabled)


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def test_a_switch_tells_its_own_followers_only(spans: Spans) -> None:
    disable_tracing()
    mine = Tracing()
    own, process = Follower(mine), Follower(TRACING)
    mine.enable(spans.provider)
    assert own.seen == [True] and process.seen == [] and not tracing_enabled()
    enable_tracing(spans.provider)
    assert process.seen == [True] and TRACING.enabled and own.seen == [True]
    mine.disable()
    assert own.seen == [True, False] and tracing_enabled()
    disable_tracing()
    assert process.seen == [True, False]


def test_followers_are_held_weakly(spans: Spans) -> None:
    mine = Tracing()
    kept = Follower(mine)
    for _ in range(40):
        Follower(mine)  # dropped at once
    gc.collect()
    mine.enable(spans.provider)
    mine.disable()
    assert kept.seen == [True, False]
    assert len(mine._followers) < 40  # the dead ones were pruned on the way


def test_pipelines_follow_the_process_switch(spans: Spans) -> None:
    disable_tracing()
    with ToolExecutor([add]) as executor:
        assert executor.execute_sync("add", {"a": 1, "b": 2}).output == 3
        assert spans.names() == []
        TRACING.enable(spans.provider)  # what enable_tracing does
        assert executor.execute_sync("add", {"a": 1, "b": 2}).output == 3
        assert spans.names() == ["execute_tool add"]
        TRACING.disable()
