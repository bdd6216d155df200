#!/usr/bin/env python3
"""Beyond one machine: tool calls on Celery workers, and MCP served by several processes.

Run from the checkout:  .venv/bin/python bench/distributed.py [--quick] [--only remote|serve]

Two sections, each printing its own table:

* **Remote calls** (:func:`remote_section`): real ``toolrig worker`` processes (prefork, one
  call at a time each) on a RabbitMQ broker with a Redis result backend, all on 127.0.0.1.
  First the overhead a remote call adds over the same call run locally (p50/p95 of sequential
  calls of a tool that returns at once); then calls/s with 1 and 2 worker processes for a tool
  that sleeps 50 ms and for a CPU-bound tool (~20 ms of Python), with 8 calls in flight.
* **Serving** (:func:`serve_section`): MCP over streamable HTTP with ``toolrig serve`` in 1 and
  2 processes beside the MCP SDK's servers (see ``bench/distributed_serve.py``).

The machine has 2 cores shared with the broker, the result backend and the callers, so the
CPU-bound figures show how far two worker processes get on it, not on two machines.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent
BROKER = os.environ.get("TOOLRIG_BENCH_BROKER", "amqp://guest:guest@127.0.0.1:5672//")
BACKEND = os.environ.get("TOOLRIG_BENCH_BACKEND", "redis://127.0.0.1:6379/8")
os.environ.setdefault("TOOLRIG_BENCH_QUEUE", f"toolrig-bench-{uuid.uuid4().hex[:8]}")
sys.path.insert(0, str(ROOT))

import distributed_tools  # noqa: E402  (its queue is read from the environment above)

from toolrig import ToolExecutor  # noqa: E402
from toolrig.distributed import CeleryEngine, RemoteDispatch  # noqa: E402


# -- remote calls --------------------------------------------------------------------------
def start_workers(count: int, logdir: Path) -> list[subprocess.Popen[bytes]]:
    procs = []
    for i in range(count):
        log = logdir / f"worker{i}.log"
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "toolrig.cli.main", "worker", "--module",
                 "distributed_tools", "--import-path", str(ROOT), "--broker", BROKER,
                 "--backend", BACKEND, "--hostname", f"bench{i}-{uuid.uuid4().hex[:6]}@%h",
                 "--loglevel", "INFO"],
                stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True,
            )
        )  # fmt: skip
    for i, proc in enumerate(procs):
        log = logdir / f"worker{i}.log"
        deadline = time.monotonic() + 60
        while " ready." not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"worker {i} did not start:\n{log.read_text()}")
            time.sleep(0.05)
    return procs


def stop_workers(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def latencies(executor: ToolExecutor, name: str, count: int) -> list[float]:
    out = []
    for i in range(count):
        t0 = time.perf_counter()
        result = await executor.execute(name, {"n": i})
        out.append((time.perf_counter() - t0) * 1000)
        assert result.success, result
    return out


async def throughput(executor: ToolExecutor, name: str, seconds: float, inflight: int) -> float:
    done = 0
    stop = time.perf_counter() + seconds

    async def caller() -> None:
        nonlocal done
        while time.perf_counter() < stop:
            result = await executor.execute(name, {"n": 1})
            assert result.success, result
            done += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(caller() for _ in range(inflight)))
    return done / (time.perf_counter() - t0)


def remote_section(quick: bool) -> None:
    """Overhead per remote call, and calls/s with 1 and 2 worker processes."""
    count = 100 if quick else 300
    seconds = 2.0 if quick else 4.0
    tools = [distributed_tools.echo, distributed_tools.nap, distributed_tools.spin]
    local = ToolExecutor(tools)
    engine = CeleryEngine(BROKER, BACKEND)
    remote = ToolExecutor(tools)
    remote.dispatch_with(RemoteDispatch(engine))
    logdir = Path(f"/tmp/toolrig-bench-{uuid.uuid4().hex[:6]}")
    logdir.mkdir()
    print("## Remote calls (Celery: RabbitMQ broker, Redis results, prefork workers)\n")

    async def run() -> None:
        procs = start_workers(1, logdir)
        try:
            await latencies(remote, "echo", 20)  # connections, pools, first fork
            loc = await latencies(local, "echo", count)
            rem = await latencies(remote, "echo", count)
            print(f"Latency of one call, {count} sequential calls of a tool returning at once:\n")
            print("| path | p50 ms | p95 ms |")
            print("|---|---:|---:|")
            print(f"| local | {pct(loc, 0.5):.3f} | {pct(loc, 0.95):.3f} |")
            print(f"| remote | {pct(rem, 0.5):.2f} | {pct(rem, 0.95):.2f} |")
            print(
                f"| overhead | {pct(rem, 0.5) - pct(loc, 0.5):.2f} | "
                f"{pct(rem, 0.95) - pct(loc, 0.95):.2f} |\n"
            )
            rows: dict[str, list[float]] = {"nap": [], "spin": []}
            for name in rows:
                rows[name].append(await throughput(remote, name, seconds, 8))
            procs += start_workers(1, logdir)
            for name in rows:
                await latencies(remote, name, 4)
                rows[name].append(await throughput(remote, name, seconds, 8))
            local_rates = {n: await throughput(local, n, seconds / 2, 8) for n in rows}
        finally:
            stop_workers(procs)
        print(f"Calls/s, 8 calls in flight for {seconds:g} s:\n")
        print("| tool | 1 worker | 2 workers | speed-up | local (8 threads) |")
        print("|---|---:|---:|---:|---:|")
        labels = {"nap": "sleeps 50 ms", "spin": "CPU-bound (~20 ms)"}
        for name, (one, two) in rows.items():
            print(
                f"| {labels[name]} | {one:.1f} | {two:.1f} | {two / one:.2f}x | "
                f"{local_rates[name]:.1f} |"
            )
        print()

    asyncio.run(run())
    engine.close()
    drop_queue(os.environ["TOOLRIG_BENCH_QUEUE"])


def drop_queue(name: str) -> None:
    """Delete this run's queue and its exchange from the broker."""
    from kombu import Connection

    with Connection(BROKER) as conn:
        channel = conn.channel()
        channel.queue_delete(name)
        channel.exchange_delete(name)


# -- serving -------------------------------------------------------------------------------
def serve_section(quick: bool) -> None:
    """MCP HTTP calls/s and server CPU per call: ``toolrig serve`` in 1 and 2 processes beside
    the MCP SDK's servers. Runs ``bench/distributed_serve.py``."""
    script = ROOT / "distributed_serve.py"
    if not script.exists():
        print("## Serving\n\n(bench/distributed_serve.py is not there)\n")
        return
    argv = [sys.executable, str(script)] + (["--quick"] if quick else [])
    subprocess.run(argv, check=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer calls, shorter runs")
    parser.add_argument("--only", choices=("remote", "serve"), help="run one section")
    args = parser.parse_args(argv)
    if args.only in (None, "remote"):
        remote_section(args.quick)
    if args.only in (None, "serve"):
        serve_section(args.quick)


if __name__ == "__main__":
    main()
