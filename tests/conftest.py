"""Rules for the whole suite: see `ci_rules` (skips that fail the run under ``CI=true``), and
test ids that stay the same from run to run."""

import pytest

from ci_rules import pytest_configure, pytest_runtest_makereport, pytest_runtest_setup

__all__ = [
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_runtest_makereport",
    "pytest_runtest_setup",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Test ids must be the same in every run: the mutation runs (and ``--lf``) find a test by
    its id in a new process, and an id made from an object's address never matches there."""
    unstable = [item.nodeid for item in items if " at 0x" in item.nodeid]
    if unstable:
        raise pytest.UsageError(
            "test ids that change from run to run (give the parameters ids=): "
            + ", ".join(unstable[:5])
        )
