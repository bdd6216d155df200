"""Fixtures of the console tests: a log filled by real agent runs, and headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from console_support import fill_log


@pytest.fixture
def filled_log(tmp_path: Path) -> Path:
    path = tmp_path / "log.sqlite3"
    fill_log(path)
    return path


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Headless Chromium (the machine's, as CI installs it) driven by Playwright."""
    from playwright.sync_api import sync_playwright

    from toolrig.tools._browser import find_chromium

    executable = find_chromium()
    if executable is None:
        pytest.skip("no Chromium found (scripts/ensure-chromium.sh installs it)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable)
        yield browser
        browser.close()
