"""A small web site on 127.0.0.1 for the outside-world tools: pages, a SearXNG-style search API,
a login form with a session cookie, a search form, a JavaScript-rendered page, slow, oversized
and redirecting pages. It counts the requests it receives."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ARTICLE = """<!doctype html><html><head><title>Tea &amp; Travel</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Green tea in Kyoto</h1>
<p>Kyoto's Uji district has grown green tea for eight centuries, and its matcha is prized
across Japan for a deep colour and a sweet, grassy taste that visitors remember.</p>
<h2>Where to drink it</h2>
<p>Tea houses along the river serve it with wagashi; the oldest, Tsuen, opened in 1160 and
still pours tea for travellers crossing the Uji bridge on their way to the temple.</p>
<ul><li>Tsuen tea house</li><li>Byodo-in omotesando</li></ul>
<p>Read <a href="/guide">the full guide</a> before you go.</p></article>
<footer>Copyright nobody</footer></body></html>"""

LOGIN_FORM = """<!doctype html><html><head><title>Sign in</title></head><body>
<form method="post" action="/login"><label>User <input type="text" name="user"></label>
<label>Password <input type="password" name="password"></label>
<button type="submit">Sign in</button></form></body></html>"""

SEARCH_FORM = """<!doctype html><html><head><title>Library</title></head><body>
<h1>Library catalogue</h1><form action="/results" method="get">
<input type="search" name="q" placeholder="Search the catalogue"><button>Go</button></form>
</body></html>"""

JS_PAGE = """<!doctype html><html><head><title>Loading</title></head><body>
<div id="app">Loading...</div>
<script>
setTimeout(function () {
  document.title = "Rendered";
  document.getElementById("app").innerHTML =
    '<h1>Made by JavaScript</h1><a href="/page">to the article</a>' +
    '<button id="more" onclick="more()">More</button>' +
    '<p id="extra"></p>';
}, 50);
function more() { document.getElementById("extra").textContent = "clicked!"; }
</script></body></html>"""

CATALOGUE = {"tea": ["The Book of Tea", "Tea: A Global History"], "rust": ["The Rust Book"]}


def page(title: str, body: str) -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


@dataclass
class SiteState:
    hits: list[str] = field(default_factory=list)
    sessions: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def hit(self, path: str) -> None:
        with self.lock:
            self.hits.append(path)

    def count(self, path: str) -> int:
        with self.lock:
            return sum(1 for p in self.hits if p == path)


class Handler(BaseHTTPRequestHandler):
    state: SiteState
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def _send(
        self,
        status: int,
        body: bytes | str,
        ctype: str = "text/html; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _redirect(self, location: str) -> None:
        self._send(302, b"", headers={"Location": location})

    def _cookie_session(self) -> str | None:
        for part in (self.headers.get("Cookie") or "").split(";"):
            key, _, value = part.strip().partition("=")
            if key == "sid" and value in self.state.sessions:
                return value
        return None

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        path = url.path
        self.state.hit(path)
        if path == "/page":
            self._send(200, ARTICLE)
        elif path == "/plain":
            self._send(200, "just text\n", "text/plain; charset=utf-8")
        elif path == "/data.json":
            self._send(200, json.dumps({"name": "tea", "origin": ["Uji"]}), "application/json")
        elif path == "/image.png":
            self._send(200, b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "image/png")
        elif path == "/missing":
            self._send(404, "<h1>Not here</h1>")
        elif path == "/slow":
            time.sleep(3)
            self._send(200, "<p>finally</p>")
        elif path == "/big":
            chunk = ("<p>" + "tea " * 250 + "</p>\n").encode()
            total = 3_000_000
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(total))
            self.end_headers()
            sent = 0
            try:
                while sent < total:
                    piece = chunk[: total - sent]
                    self.wfile.write(piece)
                    sent += len(piece)
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif path == "/redirect-ok":
            self._redirect("/page")
        elif path == "/redirect-private":
            self._redirect("http://10.255.255.1/admin")
        elif path == "/redirect-metadata":
            self._redirect("http://169.254.169.254/latest/meta-data/")
        elif path == "/redirect-localhost-name":
            self._redirect("http://localhost:1/")
        elif path == "/loop":
            self._redirect("/loop")
        elif path == "/search":  # SearXNG's JSON API
            if query.get("format") != ["json"]:
                self._send(403, "format not allowed")
                return
            q = query.get("q", [""])[0]
            results = [
                {
                    "title": f"{q} result {i}",
                    "url": f"https://example.org/{i}",
                    "content": f"About {q} {i}",
                }
                for i in range(8)
            ]
            self._send(200, json.dumps({"query": q, "results": results}), "application/json")
        elif path == "/login":
            self._send(200, LOGIN_FORM)
        elif path == "/account":
            if self._cookie_session():
                self._send(200, page("Account", "<h1>Welcome back, ada</h1>"))
            else:
                self._redirect("/login")
        elif path == "/library":
            self._send(200, SEARCH_FORM)
        elif path == "/results":
            q = query.get("q", [""])[0]
            items = "".join(f"<li>{t}</li>" for t in CATALOGUE.get(q.lower(), []))
            self._send(200, page(f"Results for {q}", f"<ul>{items}</ul>"))
        elif path == "/js":
            self._send(200, JS_PAGE)
        else:
            self._send(404, "<h1>Not found</h1>")

    def do_POST(self) -> None:
        url = urlsplit(self.path)
        self.state.hit(url.path)
        length = int(self.headers.get("Content-Length") or 0)
        form = parse_qs(self.rfile.read(length).decode())
        if url.path == "/login":
            if form.get("user") == ["ada"] and form.get("password") == ["s3cret-pw"]:
                sid = uuid.uuid4().hex
                self.state.sessions.add(sid)
                self.send_response(303)
                self.send_header("Location", "/account")
                self.send_header("Set-Cookie", f"sid={sid}; Path=/; HttpOnly")
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self._send(
                    401,
                    "<html><head><title>Sign in</title></head><body>Wrong password</body></html>",
                )
        else:
            self._send(404, "no")


@dataclass
class Site:
    base: str
    state: SiteState

    def url(self, path: str) -> str:
        return self.base + path


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # a client that gave up (timeout or size cap tests) is expected, not an error
        pass


@contextmanager
def serve_site() -> Iterator[Site]:
    state = SiteState()
    handler = type("BoundHandler", (Handler,), {"state": state})
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(base=f"http://127.0.0.1:{server.server_address[1]}", state=state)
    finally:
        server.shutdown()
        server.server_close()
