#!/usr/bin/env python3
"""Overhead per agent turn beyond the model's own time: toolrig, pydantic-ai, openai-agents.

Run from the checkout:  .venv/bin/python bench/agent.py [--runs N] [--rounds R]
(the peers come with ``pip install -e . --group bench``; a peer that is missing is reported so).

One scripted OpenAI-compatible Chat Completions server on 127.0.0.1, in a child process of its
own (so its work never competes with the agents for this process's GIL), answers every agent
alike: a request whose last message is not a tool result gets a call of ``add(a=2, b=3)``;
one that ends with the tool's result gets the text answer. So every run is two turns (call,
answer) and one tool call, through each framework's own OpenAI SDK client over HTTP.

The server times each request from its first byte read to its last byte written and keeps the
sum (``GET /stats``). For each framework: wall time per run, the server's time per run, and
``(wall - server) / 2``, the overhead per turn: the framework's own work, the SDK's request
building and parsing, and the loopback transport (the same SDK for all three); and the CPU
time this process spent per turn (``time.process_time``), which other processes' load
disturbs far less than wall time. Frameworks take
turns in rounds (R rounds of N runs each) and each figure is the median over the rounds, so
noise from other processes falls on all alike. With OpenTelemetry's SDK installed, toolrig is
also measured with tracing on (spans to an in-memory exporter).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "bench-model"
PROMPT = "What is 2 + 3? Use the add tool."
TURNS_PER_RUN = 2


# ---------------------------------------------------------------------------------------------
# The scripted server (child process)
# ---------------------------------------------------------------------------------------------
def _completion(message: dict[str, Any], finish: str, n: int) -> bytes:
    body = {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
    }
    return json.dumps(body).encode()


def serve() -> None:
    """Serve the script on a free port of 127.0.0.1; print the port, then serve forever."""
    stats = {"seconds": 0.0, "requests": 0}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs expect
        disable_nagle_algorithm = True  # else headers and body wait on delayed ACKs (40 ms)

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()

        def do_GET(self) -> None:
            self._send(200, json.dumps(stats).encode())

        def do_DELETE(self) -> None:
            stats.update(seconds=0.0, requests=0)
            self._send(200, b"{}")

        def do_POST(self) -> None:
            t0 = time.perf_counter()
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            n = stats["requests"] = int(stats["requests"]) + 1
            if body["messages"][-1]["role"] == "tool":
                message: dict[str, Any] = {"role": "assistant", "content": "2 + 3 = 5."}
                payload = _completion(message, "stop", n)
            else:
                call = {
                    "id": f"call_{n}",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
                }
                message = {"role": "assistant", "content": None, "tool_calls": [call]}
                payload = _completion(message, "tool_calls", n)
            self._send(200, payload)
            stats["seconds"] = float(stats["seconds"]) + time.perf_counter() - t0

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


class Server:
    """The scripted server's child process and its statistics."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        import httpx

        self._http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}")

    def reset(self) -> None:
        self._http.delete("/stats")

    def stats(self) -> tuple[float, int]:
        data = self._http.get("/stats").json()
        return float(data["seconds"]), int(data["requests"])

    def close(self) -> None:
        self._http.close()
        self.proc.terminate()
        self.proc.wait(timeout=10)


# ---------------------------------------------------------------------------------------------
# The agents: one tool, the same prompt, two turns per run
# ---------------------------------------------------------------------------------------------
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


Run = Callable[[], Awaitable[Any]]


def toolrig_agent(base_url: str) -> Run:
    from toolrig import tool
    from toolrig.agent import Agent, LLMConfig

    agent = Agent(
        "bench",
        "You add numbers.",
        LLMConfig(provider="openai", model=MODEL, base_url=base_url, api_key="bench"),
        [tool(add)],
    )

    async def run() -> Any:
        result = await agent.arun(PROMPT)
        assert "5" in str(result.output), result
        return result

    return run


def pydantic_ai_agent(base_url: str) -> Run:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel(MODEL, provider=OpenAIProvider(base_url=base_url, api_key="bench"))
    agent = Agent(model, instructions="You add numbers.", tools=[add])

    async def run() -> Any:
        result = await agent.run(PROMPT)
        assert "5" in str(result.output), result
        return result

    return run


def openai_agents_agent(base_url: str) -> Run:
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        Runner,
        function_tool,
        set_tracing_disabled,
    )
    from openai import AsyncOpenAI

    set_tracing_disabled(True)  # its default exports traces to OpenAI's servers
    model = OpenAIChatCompletionsModel(
        model=MODEL, openai_client=AsyncOpenAI(base_url=base_url, api_key="bench")
    )
    agent = Agent(
        name="bench", instructions="You add numbers.", tools=[function_tool(add)], model=model
    )

    async def run() -> Any:
        result = await Runner.run(agent, PROMPT)
        assert "5" in str(result.final_output), result
        return result

    return run


def toolrig_traced_agent(base_url: str) -> Run:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from toolrig.runtime import disable_tracing, enable_tracing

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    plain = toolrig_agent(base_url)

    async def run() -> Any:
        enable_tracing(provider)
        try:
            return await plain()
        finally:
            disable_tracing()
            exporter.clear()

    return run


FRAMEWORKS: dict[str, Callable[[str], Run]] = {
    "toolrig": toolrig_agent,
    "pydantic-ai": pydantic_ai_agent,
    "openai-agents": openai_agents_agent,
    "toolrig, tracing on": toolrig_traced_agent,
}


def _version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "-"


async def measure(runs: int, rounds: int, only: list[str] | None) -> None:
    server = Server()
    try:
        agents: dict[str, Run] = {}
        for name, make in FRAMEWORKS.items():
            if only and name not in only:
                continue
            try:
                agents[name] = make(server.base_url)
            except ImportError as exc:
                print(f"{name}: not installed ({exc.name}); pip install -e . --group bench")
        for run in agents.values():  # warm up: imports, connections, caches
            for _ in range(3):
                await run()
        walls: dict[str, list[float]] = {name: [] for name in agents}
        served: dict[str, list[float]] = {name: [] for name in agents}
        cpus: dict[str, list[float]] = {name: [] for name in agents}
        for _ in range(rounds):
            for name, run in agents.items():
                server.reset()
                t0, c0 = time.perf_counter(), time.process_time()
                for _ in range(runs):
                    await run()
                wall = time.perf_counter() - t0
                cpus[name].append((time.process_time() - c0) / runs / TURNS_PER_RUN)
                seconds, requests = server.stats()
                assert requests == runs * TURNS_PER_RUN, (name, requests)
                walls[name].append(wall / runs)
                served[name].append(seconds / runs)
        print(
            f"python {platform.python_version()}, {os.cpu_count()} cores; toolrig "
            f"{_version('toolrig')}, pydantic-ai-slim {_version('pydantic-ai-slim')}, "
            f"openai-agents {_version('openai-agents')}, openai {_version('openai')}"
        )
        print(f"{rounds} rounds x {runs} runs of {TURNS_PER_RUN} turns (medians over rounds)\n")
        print(
            f"{'framework':<22}{'wall/run':>11}{'server/run':>12}{'overhead/turn':>15}"
            f"{'cpu/turn':>11}"
        )
        for name in agents:
            wall = statistics.median(walls[name])
            serv = statistics.median(served[name])
            per_turn = statistics.median(
                (w - s) / TURNS_PER_RUN for w, s in zip(walls[name], served[name], strict=True)
            )
            cpu = statistics.median(cpus[name])
            print(
                f"{name:<22}{wall * 1e3:>9.2f}ms{serv * 1e3:>10.2f}ms{per_turn * 1e3:>13.2f}ms"
                f"{cpu * 1e3:>9.2f}ms"
            )
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="agent runs per round")
    parser.add_argument("--rounds", type=int, default=7, help="rounds (frameworks alternate)")
    parser.add_argument("--only", nargs="*", help="measure only these frameworks")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="smoke run: 1 round of 2 runs")
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    if args.quick:
        args.runs, args.rounds = 2, 1
    asyncio.run(measure(args.runs, args.rounds, args.only))


if __name__ == "__main__":
    main()
