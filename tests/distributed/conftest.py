"""Fixtures of the distributed tests: two real ``toolrig worker`` processes, started once for
the module (starting one takes seconds; a test that kills one restarts it), and a fresh
PostgreSQL database for the execution log."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest
from dist_support import MARKS, Worker, drop_queues

from postgres_db import scratch_database


@pytest.fixture(scope="module")
def workers() -> Iterator[list[Worker]]:
    pair = [Worker("w1"), Worker("w2")]
    for worker in pair:
        worker.start()
    try:
        for worker in pair:
            worker.wait_ready()
        yield pair
    finally:
        for worker in pair:
            worker.stop()
        drop_queues(os.environ["TOOLRIG_TEST_QUEUE"], os.environ["TOOLRIG_TEST_QUEUE"] + "-idle")
        shutil.rmtree(MARKS, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    with scratch_database("toolrig_dist") as dsn:
        yield dsn
