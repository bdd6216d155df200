"""Console: a local web application over the catalogue and the execution log.

``app(log=..., catalog=...)`` returns it as a Starlette ASGI app (``toolrig console`` serves
it): runs and their timelines, the approvals inbox, the catalogue with a try-it form, and the
log's health. Decisions taken in it are read back by the agent holding the call with
:func:`wait_for_decisions` (or :func:`stored_decisions`).
"""

try:
    import jinja2 as _jinja2  # noqa: F401
    import starlette as _starlette  # noqa: F401
except ImportError as _exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        f"toolrig.console needs {_exc.name}: pip install 'toolrig[console]'", name=_exc.name
    ) from _exc

from toolrig.console._app import app
from toolrig.console._approvals import stored_decisions, wait_for_decisions
from toolrig.console._guard import UnsafeConsoleBind

__all__ = ["UnsafeConsoleBind", "app", "stored_decisions", "wait_for_decisions"]
