"""What the distributed tests share: the brokers' addresses, this run's queue and mark folder,
and real ``toolrig worker`` processes (started, killed and stopped by the tests).

RabbitMQ (``amqp://guest:guest@127.0.0.1:5672//``) carries the calls and Redis the results.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
BROKER = os.environ.get("TOOLRIG_TEST_BROKER", "amqp://guest:guest@127.0.0.1:5672//")
BACKEND = os.environ.get("TOOLRIG_TEST_BACKEND", "redis://127.0.0.1:6379/7")
RUN = uuid.uuid4().hex[:8]
MARKS = Path(f"/tmp/toolrig-dist-{RUN}")

# the queue and mark folder must be set before the tools module is imported, here and in workers
os.environ["TOOLRIG_TEST_QUEUE"] = f"toolrig-test-{RUN}"
os.environ["TOOLRIG_TEST_MARKS"] = str(MARKS)
MARKS.mkdir(parents=True, exist_ok=True)
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def worker_command(name: str) -> list[str]:
    return [
        sys.executable, "-m", "toolrig.cli.main", "worker",
        "--module", "remote_tools", "--import-path", str(HERE),
        "--broker", BROKER, "--backend", BACKEND,
        "--queues", os.environ["TOOLRIG_TEST_QUEUE"],  # not the idle queue
        "--hostname", f"{name}-{RUN}@%h", "--loglevel", "INFO",
    ]  # fmt: skip


@dataclass
class Worker:
    name: str
    proc: subprocess.Popen[bytes] | None = None
    logfile: Path = field(default_factory=Path)

    def start(self) -> None:
        MARKS.mkdir(parents=True, exist_ok=True)  # a module before this one cleaned it away
        self.logfile = MARKS / f"{self.name}.log"
        with self.logfile.open("wb") as out:
            self.proc = subprocess.Popen(
                worker_command(self.name), stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,  # the worker and its pool processes die together
            )  # fmt: skip

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if " ready." in self.logfile.read_text(errors="replace"):
                return
            assert self.proc is not None and self.proc.poll() is None, self.logfile.read_text()
            time.sleep(0.05)
        raise AssertionError(f"worker {self.name} did not start:\n{self.logfile.read_text()}")

    def owns(self, pid: int) -> bool:
        """Whether process ``pid`` is this worker or one of its pool processes."""
        assert self.proc is not None
        try:
            return os.getpgid(pid) == self.proc.pid
        except ProcessLookupError:
            return False

    def kill(self) -> None:
        """``kill -9`` of the worker and its pool processes."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        # at the end of the tests nothing is running: a cold stop saves Celery's warm shutdown
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def drop_queues(*names: str) -> None:
    """Delete this run's queues and their exchanges from the broker."""
    from kombu import Connection

    with Connection(BROKER) as conn:
        channel = conn.channel()
        for name in names:
            channel.queue_delete(name)
            channel.exchange_delete(name)
