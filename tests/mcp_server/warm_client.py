"""Run ``examples/conformance_client.py`` for the conformance suite without paying Python's
start-up (about 1.5 s of CPU: ``mcp`` and ``toolrig`` imports) once per scenario.

``python warm_client.py --serve SOCKET`` imports the client once and waits; each
``python -S warm_client.py --connect SOCKET URL`` (the command the suite runs) hands it its
standard streams, environment and arguments over a Unix socket, and the warm process forks a
child that runs the client's ``main`` with them, a fresh process with the modules already
imported, and exits with its code. Nothing of the client changes; only the imports are shared.
"""

from __future__ import annotations

import json
import os
import socket
import sys


def _connect(path: str, argv: list[str]) -> int:
    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(path)
        message = json.dumps({"argv": argv, "env": dict(os.environ)}).encode()
        socket.send_fds(conn, [message], [0, 1, 2])
        data = b""
        while not data.endswith(b"\n"):
            chunk = conn.recv(64)
            if not chunk:
                return 70
            data += chunk
    return int(data)


def _serve(path: str) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
    import conformance_client

    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(path)
        listener.listen(64)
        print("ready", flush=True)
        while True:
            conn, _ = listener.accept()
            message, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, 3)
            if os.fork() == 0:  # the child runs one scenario
                listener.close()
                for target, fd in enumerate(fds):
                    os.dup2(fd, target)
                request = json.loads(message)
                os.environ.clear()
                os.environ.update(request["env"])
                code = 1
                try:
                    code = conformance_client.main(
                        request["argv"][-1], os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
                    )
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    conn.sendall(f"{code}\n".encode())
                    os._exit(code)
            for fd in fds:
                os.close(fd)
            conn.close()
            while True:  # reap finished children
                try:
                    pid, _ = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        _serve(sys.argv[2])
    else:
        sys.exit(_connect(sys.argv[2], sys.argv[3:]))
