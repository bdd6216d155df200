"""Fixtures of the search tests."""

from __future__ import annotations

import pytest
import search_doubles

from toolrig.core.model._spec import ToolSpec


@pytest.fixture
def catalogue() -> list[ToolSpec]:
    return search_doubles.catalogue()
