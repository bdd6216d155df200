"""Tool calls on workers of a distributed engine (Celery), as one step of the call pipeline.

Needs the ``celery`` extra (``pip install 'toolrig[celery]'``). See ``docs/deploy.md``.
"""

from toolrig.distributed._celery import CeleryEngine, celery_app
from toolrig.distributed._dispatch import QueueRule, RemoteDispatch
from toolrig.distributed._engine import EngineUnavailable, RemoteCall, RemoteEngine
from toolrig.distributed._version import catalog_version, tool_fingerprint

__all__ = [
    "CeleryEngine",
    "EngineUnavailable",
    "QueueRule",
    "RemoteCall",
    "RemoteDispatch",
    "RemoteEngine",
    "catalog_version",
    "celery_app",
    "tool_fingerprint",
]
