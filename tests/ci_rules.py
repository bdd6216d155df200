"""Under ``CI=true``, a skip that means a required resource is missing fails the run.

CI starts PostgreSQL, installs Chromium and lays ``../shared/corpora`` beside the project before
the tests run, so a skip of a test that needs one of them there means something is broken, not
that the machine lacks an optional part. Elsewhere (``CI`` unset) those tests skip, with the
reason shown.

Which skips count: a test with one of :data:`REQUIRED_MARKERS` (``corpus``: it reads
``../shared/corpora``; ``chromium``: it drives the machine's Chromium), and a skip raised while
setting up one of :data:`REQUIRED_FIXTURES` (the fresh PostgreSQL databases).
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest

REQUIRED_FIXTURES = frozenset({"postgres_url", "postgres_dsn"})
"""Fixtures that skip when their service is missing: under CI that skip is a failure."""
REQUIRED_MARKERS = {
    "corpus": "it reads ../shared/corpora, which CI lays beside the project",
    "chromium": "it drives Chromium, which CI installs (scripts/ensure-chromium.sh)",
}
"""Markers of tests that need a part CI provides: under CI their skip is a failure."""


def pytest_configure(config: pytest.Config) -> None:
    for name in REQUIRED_MARKERS:
        config.addinivalue_line(
            "markers", f"{name}: needs a part CI provides; under CI=true a skip of it fails the run"
        )


def _required_by(item: pytest.Item, call: pytest.CallInfo[None]) -> str | None:
    """What makes this skip a failure under CI (``None``: an ordinary skip)."""
    for name, why in REQUIRED_MARKERS.items():
        if item.get_closest_marker(name) is not None:
            return why
    if call.excinfo is not None:
        for entry in call.excinfo.traceback:
            if entry.name in REQUIRED_FIXTURES:
                return f"its fixture {entry.name!r} needs a service that CI starts"
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, pytest.TestReport]:
    report: pytest.TestReport = yield
    if os.environ.get("CI") != "true" or not report.skipped or hasattr(report, "wasxfail"):
        return report
    why = _required_by(item, call)
    if why is not None:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, which is a failure here: {why} ({reason})"
    return report
