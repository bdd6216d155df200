"""The HTTP server: routes each request to its protocol, checks it, answers from the script."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any

from llm_server import _anthropic, _openai_chat, _responses
from llm_server._checks import Refusal
from llm_server._turns import Script, Turn

ROUTES: dict[str, ModuleType] = {
    "/chat/completions": _openai_chat,
    "/responses": _responses,
    "/messages": _anthropic,
}


def _protocol(path: str) -> ModuleType | None:
    for suffix, module in ROUTES.items():
        if path.split("?")[0].endswith(suffix):
            return module
    return None


class ScriptedLLM:
    """Serve ``script`` turn by turn on 127.0.0.1, checking each request first.

    ``requests`` holds every request body as received (refused ones too), ``refusals`` the
    message of each request refused as the real API would refuse it, ``errors`` each check of
    the script that failed (an ``AssertionError`` raised by a callable step) and each request
    that came after the script ended (answered with a 500). ``accept`` names extra request
    fields to allow (a server's own, sent through ``extra_body``). ``delay`` is the model's
    own time per answer, in seconds. With ``gate`` set, a streamed answer waits after its
    first text delta until the gate is opened (at most 5 s; ``gate_timed_out`` says if it had
    to give up), to prove that the client sees text before the answer ends.
    """

    def __init__(
        self,
        script: Script,
        *,
        accept: Iterable[str] = (),
        delay: float = 0.0,
        gate: threading.Event | None = None,
    ) -> None:
        self.script = list(script)
        self.accept = set(accept)
        self.delay = delay
        self.gate = gate
        self.gate_timed_out = False
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.refusals: list[str] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner._handle(self, body)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that gave up (time budget) closes the socket mid-answer

        self.server = Server(("127.0.0.1", 0), Handler)
        # a short poll interval: shutdown() waits up to one interval (0.5 s by default)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``: the Anthropic SDK's ``base_url``; add ``/v1`` for OpenAI."""
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ScriptedLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- one request ---------------------------------------------------------------------------
    def _handle(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        protocol = _protocol(handler.path)
        with self._lock:
            self.requests.append(body)
            self.paths.append(handler.path)
            n = len(self.requests)
        if protocol is None:
            _send_json(handler, 404, {"error": {"message": f"no route {handler.path}"}})
            return
        try:
            protocol.check(body, self.accept)
        except Refusal as refusal:
            self.refusals.append(refusal.message)
            _send_json(handler, refusal.status, protocol.error_body(refusal))
            return
        turn = self._next_turn(body, n)
        if turn is None:
            _send_json(handler, 500, {"error": {"message": "the script ended"}})
            return
        if self.delay:
            time.sleep(self.delay)
        if body.get("stream"):
            stream = protocol.events if hasattr(protocol, "events") else protocol.chunks
            self._send_stream(handler, stream(turn, n, body))
        else:
            _send_json(handler, 200, protocol.answer(turn, n, body))

    def _next_turn(self, body: dict[str, Any], n: int) -> Turn | None:
        with self._lock:
            if not self.script:
                self.errors.append(f"request {n} after the script ended")
                return None
            step = self.script.pop(0)
        try:
            return step(body) if callable(step) else step
        except AssertionError as exc:  # a check on the request failed
            self.errors.append(f"request {n}: {exc}")
            return Turn(text="(script check failed)")

    def _send_stream(
        self, handler: BaseHTTPRequestHandler, events: Iterator[tuple[str | None, Any]]
    ) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()
        gated = self.gate is None
        for event, data in events:
            text = data if isinstance(data, str) else json.dumps(data)
            frame = (f"event: {event}\n" if event else "") + f"data: {text}\n\n"
            handler.wfile.write(frame.encode())
            handler.wfile.flush()
            if not gated and _is_text_delta(data):
                gated = True
                assert self.gate is not None
                self.gate_timed_out = not self.gate.wait(5)


def _is_text_delta(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    if data.get("type") in ("response.output_text.delta", "content_block_delta"):
        return data.get("delta", {}) != {} and (
            isinstance(data["delta"], str) or data["delta"].get("type") == "text_delta"
        )
    choices = data.get("choices") or []
    return bool(choices and choices[0].get("delta", {}).get("content"))


def _send_json(handler: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
