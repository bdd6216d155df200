"""Under ``CI=true``, a skip that means a required resource is missing fails the run.

CI starts PostgreSQL, installs Chromium and lays ``../shared/corpora`` beside the project before
the tests run, so a skip of a test that needs one of them there means something is broken, not
that the machine lacks an optional part. Elsewhere (``CI`` unset) those tests skip, with the
reason shown.

Which skips count: a test with one of :data:`REQUIRED_MARKERS` (``corpus``: it reads
``../shared/corpora``; ``chromium``: it drives the machine's Chromium), and a skip raised while
setting up one of :data:`REQUIRED_FIXTURES` (the fresh PostgreSQL databases).

A corpus test says what it reads, ``@pytest.mark.corpus("metatool/plugin_des.json")`` (paths
under :data:`CORPORA`): when one is missing, as in a clone that does not sit beside
``shared/``, the test skips before its fixtures run, with the path in its reason.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

REQUIRED_FIXTURES = frozenset({"postgres_url", "postgres_dsn"})
"""Fixtures that skip when their service is missing: under CI that skip is a failure."""
REQUIRED_MARKERS = {
    "corpus": "it reads ../shared/corpora, which CI lays beside the project",
    "chromium": "it drives Chromium, which CI installs (scripts/ensure-chromium.sh)",
}
"""Markers of tests that need a part CI provides: under CI their skip is a failure."""


CORPORA = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
"""``../shared/corpora`` beside the project, where CI lays the corpora the tests read."""


def pytest_configure(config: pytest.Config) -> None:
    for name in REQUIRED_MARKERS:
        config.addinivalue_line(
            "markers", f"{name}: needs a part CI provides; under CI=true a skip of it fails the run"
        )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a corpus test whose corpus is absent (before its fixtures try to read it)."""
    for mark in item.iter_markers("corpus"):
        missing = [part for part in mark.args if not (CORPORA / part).exists()]
        if missing:
            pytest.skip(
                f"needs ../shared/corpora/{missing[0]}, not found at {CORPORA / missing[0]} "
                "(this checkout does not sit beside shared/; CI lays it there)"
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
