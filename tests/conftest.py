"""Rules for the whole suite: see :mod:`ci_rules` (skips that fail the run under ``CI=true``)."""

from ci_rules import pytest_configure, pytest_runtest_makereport

__all__ = ["pytest_configure", "pytest_runtest_makereport"]
