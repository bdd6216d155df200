"""Provider round trip by catalogue size: ``run_tool_calls_sync`` of one OpenAI tool call.

Parsing a provider's calls needs the name map of the whole catalogue (provider names back to
call names). It is built once per version of the catalogue and kept, so a round trip with
2,000 tools should cost what it costs with one; before, it was rebuilt on every round trip
(0.49 ms with 1 tool, 11.4 ms with 2,000 on the review's machine).

Run: ``.venv/bin/python bench/roundtrip.py`` (``--quick``: fewer repeats, for CI).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from toolrig import ToolExecutor, run_tool_calls_sync
from toolrig.core.define._function_tool import Tool


def _tool(i: int) -> Tool:
    def func(a: int) -> int:
        return a + i

    func.__name__ = f"tool_{i}"
    func.__doc__ = f"Tool number {i}."
    return Tool(func=func)


RESPONSE: dict[str, Any] = {
    "choices": [
        {
            "message": {
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "tool_0", "arguments": json.dumps({"a": 2})},
                    }
                ]
            }
        }
    ]
}


def per_round_trip(size: int, repeats: int) -> float:
    """Median milliseconds of one round trip over a catalogue of ``size`` tools."""
    executor = ToolExecutor([_tool(i) for i in range(size)])
    for _ in range(5):
        assert run_tool_calls_sync(RESPONSE, executor, provider="openai")[0]["content"] == "2"
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run_tool_calls_sync(RESPONSE, executor, provider="openai")
        samples.append((time.perf_counter() - t0) * 1000)
    executor.close()
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (CI)")
    args = parser.parse_args()
    repeats = 50 if args.quick else 500
    one = per_round_trip(1, repeats)
    many = per_round_trip(2000, repeats)
    print(f"run_tool_calls_sync, 1 tool:      {one:.3f} ms (median of {repeats})")
    print(f"run_tool_calls_sync, 2,000 tools: {many:.3f} ms (median of {repeats})")
    print(f"ratio 2,000 / 1: {many / one:.2f} (target: about 1; was 23 before the name map cache)")


if __name__ == "__main__":
    main()
