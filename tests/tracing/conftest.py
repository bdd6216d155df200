"""The tracing tests' fixture: toolrig's spans recorded in memory while a test runs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tracing_support import Spans

from toolrig.runtime import disable_tracing, enable_tracing


@pytest.fixture
def spans() -> Iterator[Spans]:
    recorded = Spans()
    enable_tracing(recorded.provider)
    try:
        yield recorded
    finally:
        disable_tracing()
        recorded.provider.shutdown()
