"""Fixtures of the distributed tests: two real ``toolrig worker`` processes, started once for
the module (starting one takes seconds; a test that kills one restarts it), and a fresh
PostgreSQL database for the execution log."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest
from dist_support import ADMIN_DSN, MARKS, RUN, Worker, drop_queues


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
    import psycopg

    name = f"toolrig_dist_{RUN}"
    with psycopg.connect(ADMIN_DSN, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield ADMIN_DSN.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(ADMIN_DSN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
