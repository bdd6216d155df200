"""Writes are atomic: killing the writing process with SIGKILL mid-write leaves the old content
or the new one, never a mix."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

WRITER = """
import sys
from toolrig.tools import FileTool

files = FileTool(sys.argv[1], max_write_bytes=10_000_000)
contents = ["A" * 3_000_000, "B" * 2_000_000 + "\\n" + "b" * 1_500_000]
i = 0
while True:
    files.execute("write", path="data.txt", content=contents[i % 2], overwrite=True).unwrap()
    i += 1
    if i == 2:
        open(sys.argv[1] + "/started", "w").close()
"""


def test_kill_9_during_writes_never_leaves_a_mix(tmp_path: Path) -> None:
    expected = {b"A" * 3_000_000, b"B" * 2_000_000 + b"\n" + b"b" * 1_500_000}
    seen: set[bytes] = set()
    rng = random.Random(7)
    for _ in range(6):
        (tmp_path / "started").unlink(missing_ok=True)
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)])
        try:
            deadline = time.monotonic() + 20
            while not (tmp_path / "started").exists():
                assert time.monotonic() < deadline, "writer did not start"
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.3))
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        data = (tmp_path / "data.txt").read_bytes()
        assert data in expected, f"mixed content of {len(data)} bytes"
        seen.add(data)
    # Only temporary files of interrupted writes may be left, never under the target's name.
    leftovers = {p.name for p in tmp_path.iterdir()} - {"data.txt", "started"}
    assert all(name.startswith(".data.txt.") and name.endswith(".tmp") for name in leftovers)
