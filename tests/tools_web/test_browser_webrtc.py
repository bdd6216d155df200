"""WebRTC in the browser tool's real headless Chromium: a page on an allowed host asks for STUN
to 127.0.0.1, and the UDP listener there receives nothing, because the browser may only use
proxied connections (all of which pass the guard proxy and its address policy). The same page
in a Chromium launched without the WebRTC policy does send STUN there, which shows the check
can see a breach."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from toolrig.tools import BrowserTool, NetPolicy
from toolrig.tools._browser import find_chromium
from toolrig.tools._browser_setup import CHROMIUM_ARGS

pytestmark = [
    pytest.mark.chromium,  # under CI=true a skip fails the run: CI installs Chromium
    pytest.mark.skipif(
        find_chromium() is None,
        reason="no Chromium found (apt-get install chromium, or set TOOLRIG_CHROMIUM)",
    ),
]

STUN_PAGE = """<!doctype html><html><head><title>start</title></head><body><script>
const pc = new RTCPeerConnection({iceServers: [{urls: "stun:127.0.0.1:%d"}]});
pc.createDataChannel("probe");
pc.onicegatheringstatechange = () => {
  if (pc.iceGatheringState === "complete") document.title = "gathered";
};
pc.createOffer().then((offer) => pc.setLocalDescription(offer));
</script></body></html>"""
WAIT = 1.0
"""Seconds the page is given to gather candidates (a STUN request leaves in milliseconds)."""


@contextmanager
def udp_listener() -> Iterator[tuple[int, list[bytes]]]:
    """A UDP socket on 127.0.0.1 and the datagrams it received."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.1)
    received: list[bytes] = []
    done = threading.Event()

    def listen() -> None:
        while not done.is_set():
            try:
                received.append(sock.recv(2048))
            except OSError:
                continue

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1], received
    finally:
        done.set()
        thread.join(2)
        sock.close()


@contextmanager
def stun_site(port: int) -> Iterator[str]:
    body = (STUN_PAGE % port).encode()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/stun"
    finally:
        server.shutdown()
        server.server_close()


async def _unguarded_chromium_sends_stun(url: str, received: list[bytes]) -> None:
    """The page in a Chromium launched like the tool's but without the WebRTC flags."""
    from playwright.async_api import async_playwright

    args = [a for a in CHROMIUM_ARGS if "webrtc" not in a]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=find_chromium(), args=args, headless=True
        )
        try:
            page = await browser.new_page()
            await page.goto(url)
            for _ in range(int(WAIT * 20)):
                if received:
                    break
                await asyncio.sleep(0.05)
        finally:
            await browser.close()


def test_stun_to_loopback_sends_nothing() -> None:
    with udp_listener() as (port, received), stun_site(port) as url:
        tool = BrowserTool(network=NetPolicy(allow=("127.0.0.1",)), navigation_timeout=10)
        try:
            opened = tool.execute("navigate", url=url).unwrap()
            assert opened["status"] == 200
            asyncio.run(asyncio.sleep(WAIT))
        finally:
            tool.close()
        assert received == [], f"{len(received)} UDP datagrams reached 127.0.0.1:{port}"

        asyncio.run(_unguarded_chromium_sends_stun(url, received))
        if not received:
            pytest.skip("this Chromium sent no STUN even without the policy: nothing to compare")
        assert received[0][:2] == b"\x00\x01"  # a STUN binding request
