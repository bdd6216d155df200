"""The parts of durable runs, each attacked alone: the ledger's claims, which calls may repeat,
and a durable plan without the log it resumes from."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from postgres_db import scratch_database
from toolrig import PlanRunner, ToolAnnotations, ToolExecutor, tool
from toolrig.core.result._result import success_result
from toolrig.durable import StepLedger, may_repeat

pytest.importorskip("dbos", reason="durable runs need the dbos extra")


@pytest.fixture
def ledger() -> Iterator[StepLedger]:
    with scratch_database("toolrig_ledger") as url:
        kept = StepLedger(url)
        yield kept
        kept.close()


def test_a_claim_is_new_once_then_lost_until_finished(ledger: StepLedger) -> None:
    assert ledger.claim("run#1") == "new"
    assert ledger.claim("run#1") == "lost"  # started, never finished: a crash mid-call
    assert ledger.claim("run#1") == "lost"
    ledger.finish("run#1", success_result("ok", tool="t", tool_call_id="c1"))
    again = ledger.claim("run#1")
    assert not isinstance(again, str)
    assert again.output == "ok"
    assert again.metadata is not None
    assert again.metadata.tool_call_id == "c1"


def test_a_restarted_claim_forgets_its_result(ledger: StepLedger) -> None:
    ledger.claim("k")
    ledger.finish("k", success_result(1, tool="t"))
    ledger.restart("k")
    assert ledger.claim("k") == "lost"


def test_claims_are_per_key(ledger: StepLedger) -> None:
    assert ledger.claim("a") == "new"
    assert ledger.claim("b") == "new"


@pytest.mark.parametrize(
    ("annotations", "repeat"),
    [
        (None, True),  # no such tool: nothing would run
        (ToolAnnotations(), False),  # unmarked: may have effects
        (ToolAnnotations(read_only=True), True),
        (ToolAnnotations(idempotent=True), True),
        (ToolAnnotations(read_only=False, idempotent=False), False),
        (ToolAnnotations(destructive=True), False),
    ],
)
def test_which_calls_may_repeat(annotations: ToolAnnotations | None, repeat: bool) -> None:
    assert may_repeat(annotations) is repeat


def test_a_durable_plan_needs_the_log_it_resumes_from() -> None:
    from toolrig.durable import DurablePlan

    @tool
    def noop() -> None:
        """Nothing."""

    runner = PlanRunner(ToolExecutor([noop]))
    with pytest.raises(ValueError, match="store"):
        DurablePlan(runner, engine=None, ledger=None)  # type: ignore[arg-type]
