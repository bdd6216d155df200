"""Test models: LLM clients that play a script or a Python function, for offline tests.

Use them wherever a client is accepted (``Agent(..., model=ScriptedModel([...]))``); they
export and parse tools as a real client does and refuse conversations the API would refuse.
"""

from toolrig.testing._models import FunctionModel, ModelRequest, ScriptedModel, TurnFunction
from toolrig.testing._rules import ModelScriptError
from toolrig.testing._turn import ModelTurn

__all__ = [
    "FunctionModel",
    "ModelRequest",
    "ModelScriptError",
    "ModelTurn",
    "ScriptedModel",
    "TurnFunction",
]
