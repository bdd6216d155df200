"""Durable runs: an agent run or a plan run that survives its process, taken over by another worker.

A run is a workflow of an existing engine (DBOS here, behind the small `DurableEngine` seam);
each model request and each tool call is one of its recorded steps. Install with
``pip install 'toolrig[dbos]'``.
"""

from toolrig.durable._agent import DECISION, DurableAgent
from toolrig.durable._dbos import DBOSEngine
from toolrig.durable._engine import DurableEngine, Workflow
from toolrig.durable._ledger import StepLedger
from toolrig.durable._plan import DurablePlan
from toolrig.durable._steps import DurableSteps, may_repeat

__all__ = [
    "DECISION",
    "DBOSEngine",
    "DurableAgent",
    "DurableEngine",
    "DurablePlan",
    "DurableSteps",
    "StepLedger",
    "Workflow",
    "may_repeat",
]
