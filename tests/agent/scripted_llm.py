"""A real HTTP server on 127.0.0.1 that speaks the OpenAI Chat Completions and Anthropic
Messages protocols, replaying scripted model turns and keeping every request it receives."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Turn:
    """What the model says: text and/or tool calls ``(name, arguments, id)``; ``arguments`` may
    be a dict or raw text (to play a model that sends broken JSON)."""

    text: str | None = None
    calls: list[tuple[str, Any, str]] = field(default_factory=list)


Script = list[Turn | Callable[[dict[str, Any]], Turn]]


class ScriptedLLM:
    """Serve ``script`` turn by turn; ``requests`` holds each request body as received."""

    def __init__(self, script: Script) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.errors: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(body)
                if not owner.script:
                    owner.errors.append("request after the script ended")
                    self.send_response(500)
                    self.end_headers()
                    return
                step = owner.script.pop(0)
                try:
                    turn = step(body) if callable(step) else step
                except AssertionError as exc:  # a check on the request failed
                    owner.errors.append(f"request {len(owner.requests)}: {exc}")
                    turn = Turn(text="(script check failed)")
                if self.path.endswith("/chat/completions"):
                    payload = _openai(turn, len(owner.requests))
                elif self.path.endswith("/messages"):
                    payload = _anthropic(turn, len(owner.requests))
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that gave up (time budget) closes the socket mid-answer

        self.server = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ScriptedLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _openai(turn: Turn, n: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text}
    if turn.calls:
        message["tool_calls"] = [
            {
                "id": cid,
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
            for name, args, cid in turn.calls
        ]
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "scripted",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if turn.calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": 100 + n, "completion_tokens": 10, "total_tokens": 110 + n},
    }


def _anthropic(turn: Turn, n: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for name, args, cid in turn.calls:
        content.append({"type": "tool_use", "id": cid, "name": name, "input": args})
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": "scripted",
        "content": content,
        "stop_reason": "tool_use" if turn.calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 100 + n, "output_tokens": 10},
    }


def tool_results(request: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    """The tool results in a request's last message(s): ``{call_id: (text, is_error)}``."""
    found: dict[str, tuple[str, bool]] = {}
    for message in request["messages"]:
        if message.get("role") == "tool":
            text = message["content"]
            found[message["tool_call_id"]] = (text, text.startswith("Error ["))
        elif message.get("role") == "user" and isinstance(message.get("content"), list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    content = block["content"]
                    text = (
                        content
                        if isinstance(content, str)
                        else "".join(c.get("text", "") for c in content)
                    )
                    found[block["tool_use_id"]] = (text, bool(block.get("is_error")))
    return found


def tool_names(request: dict[str, Any]) -> list[str]:
    """Names of the tools offered in a request (either protocol)."""
    names = []
    for spec in request.get("tools", []):
        names.append(spec["function"]["name"] if "function" in spec else spec["name"])
    return names
