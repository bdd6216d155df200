"""download_file: a real HTTP server on 127.0.0.1, size and time limits, SSRF refusals."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from runtime_timing import Beside
from toolrig.tools import DownloadTool


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        port = self.server.server_address[1]
        routes = {
            "/report.csv": (200, {"Content-Type": "text/csv"}, b"a,b\n1,2\n"),
            "/big.bin": (200, {"Content-Type": "application/octet-stream"}, b"x" * 50_000),
            "/hop": (302, {"Location": "/report.csv"}, b""),
            "/to-private": (302, {"Location": "http://10.0.0.1/secret"}, b""),
            "/to-metadata": (302, {"Location": "http://169.254.169.254/latest/"}, b""),
            "/loop": (302, {"Location": f"http://127.0.0.1:{port}/loop"}, b""),
            "/missing": (404, {}, b"no"),
        }
        if self.path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            for _ in range(40):
                try:
                    self.wfile.write(b"tick\n")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.1)
            return
        status, headers, body = routes.get(self.path, (404, {}, b""))
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def tool(tmp_path: Path) -> DownloadTool:
    return DownloadTool(tmp_path, allowed_addresses=["127.0.0.1"], max_bytes=10_000)


def test_downloads_into_the_sandbox(tmp_path: Path, tool: DownloadTool, server: str) -> None:
    out = tool.execute("download_file", url=f"{server}/report.csv").unwrap()
    assert out["local_path"] == "report.csv" and out["bytes"] == 8
    assert out["content_type"] == "text/csv"
    assert (tmp_path / "report.csv").read_bytes() == b"a,b\n1,2\n"
    (tmp_path / "data").mkdir()
    into = tool.execute("download_file", url=f"{server}/report.csv", path="data").unwrap()
    assert into["local_path"] == "data/report.csv"
    named = tool.execute("download_file", url=f"{server}/hop", path="x/y.csv").unwrap()
    assert named["local_path"] == "x/y.csv" and named["final_url"].endswith("/report.csv")
    exists = tool.execute("download_file", url=f"{server}/report.csv")
    assert exists.code == "invalid_arguments" and "overwrite" in exists.error.hint
    assert tool.execute("download_file", url=f"{server}/report.csv", overwrite=True).success
    assert tool.spec.action_annotations("download_file").open_world is True


def test_limits_and_http_errors(tmp_path: Path, tool: DownloadTool, server: str) -> None:
    big = tool.execute("download_file", url=f"{server}/big.bin")
    assert big.code == "execution_error" and "10,000-byte" in big.error.message
    assert not (tmp_path / "big.bin").exists()
    missing = tool.execute("download_file", url=f"{server}/missing")
    assert missing.code == "not_found" and "404" in missing.error.message
    loop = tool.execute("download_file", url=f"{server}/loop")
    assert loop.code == "execution_error" and "redirected" in loop.error.message
    slow = DownloadTool(tmp_path, allowed_addresses=["127.0.0.1"], download_timeout=0.5)
    with Beside(0.5) as ref:
        late = slow.execute("download_file", url=f"{server}/slow")
    assert late.code == "timeout" and ref.elapsed < ref.bound(0.5)  # the body takes 4 s
    assert not (tmp_path / "slow").exists()
    for url in ("ftp://example.com/x", "not a url", "file:///etc/passwd"):
        assert tool.execute("download_file", url=url).code == "invalid_arguments"


def test_private_and_loopback_addresses_are_refused_by_default(tmp_path: Path, server: str) -> None:
    strict = DownloadTool(tmp_path)
    port = server.rsplit(":", 1)[1]
    for url in (
        f"http://localhost:{port}/report.csv",
        f"http://127.0.0.1:{port}/report.csv",
        "http://10.0.0.1/x",
        "http://192.168.1.1/x",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/x",
        "http://[::ffff:127.0.0.1]/x",
        "http://0.0.0.0/x",
    ):
        result = strict.execute("download_file", url=url)
        assert result.code == "permission_denied", url
        assert "Refused to connect" in result.error.message
    assert list(tmp_path.iterdir()) == []
    # The metadata endpoint stays refused even when private addresses are allowed.
    relaxed = DownloadTool(tmp_path, allow_private=True)
    assert relaxed.execute("download_file", url="http://169.254.169.254/").code == (
        "permission_denied"
    )


def test_redirects_to_private_addresses_are_refused(
    tmp_path: Path, tool: DownloadTool, server: str
) -> None:
    for hop in ("/to-private", "/to-metadata"):
        result = tool.execute("download_file", url=f"{server}{hop}")
        assert result.code == "permission_denied", hop
    assert list(tmp_path.iterdir()) == []


def test_path_escapes_are_refused(tool: DownloadTool, server: str) -> None:
    result = tool.execute("download_file", url=f"{server}/report.csv", path="../evil.csv")
    assert result.code == "permission_denied" and "../evil.csv" in result.error.message
