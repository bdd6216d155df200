"""The fork server's messages, boundary by boundary (`toolrig.tools._fork_server`).

The promise: every message between the fork server, its parent and its workers is written
whole behind its length and read back whole, whatever its size and however the pipe splits
it; ``start`` (bytes of the message already read, as the server's socket reads them) may hold
part of the header, all of it, or the header and part of the body; the end of the file gives
``None``, before a message or inside one, never a short message. The exchanges are lockstep
(one request, then its answer), so a stream never holds a second message behind the one being
read; `read_message` does not keep bytes past its message, and no row asks it to.

| promise | boundary | test |
|---|---|---|
| sizes | 0, 1 byte; a read's 64 KiB chunk less the header, exactly, plus one; 1 MiB | `..._whole` |
| split reads | the writer sends one byte at a time (header split, body split) | `..._byte` |
| `start` | 0, 3 (part of the header), 8 (the header), 8 + 5 (and some body) bytes | `..._start` |
| end of file | before any byte; inside the header; inside the body: `None` | `..._end` |

Breaks tried (each made the named test fail, then was undone): `read_message` returning the
buffer once the header is in, without waiting for ``needed`` bytes (``..._whole``,
``..._byte``); `read_message` ignoring ``start`` (``..._start``); `write_message` writing its
first 64 KiB only, as a write cut short and not resumed would (``..._whole`` from 64 KiB).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import pytest

from toolrig.tools._fork_server import HEADER, read_message, write_message

CHUNK = 1 << 16


def _writer(fd: int, payloads: list[bytes], *, bytewise: bool = False) -> threading.Thread:
    def write() -> None:
        try:
            for data in payloads:
                if bytewise:
                    framed = HEADER.pack(len(data)) + data
                    for i in range(len(framed)):
                        os.write(fd, framed[i : i + 1])
                else:
                    write_message(fd, data)
        finally:
            os.close(fd)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    r, w = os.pipe()
    yield r, w
    os.close(r)


SIZES = [0, 1, CHUNK - HEADER.size, CHUNK, CHUNK + 1, 1 << 20]


@pytest.mark.parametrize("size", SIZES)
def test_each_size_comes_back_whole(pipe: tuple[int, int], size: int) -> None:
    r, w = pipe
    data = bytes(i % 251 for i in range(size))
    thread = _writer(w, [data])
    assert read_message(r) == data
    thread.join(10)
    assert read_message(r) is None


@pytest.mark.parametrize("size", [0, 1, 20])
def test_a_byte_at_a_time(pipe: tuple[int, int], size: int) -> None:
    r, w = pipe
    data = b"x" * size
    thread = _writer(w, [data], bytewise=True)
    assert read_message(r) == data
    thread.join(10)
    assert read_message(r) is None


@pytest.mark.parametrize("given", [0, 3, HEADER.size, HEADER.size + 5])
def test_bytes_already_read(pipe: tuple[int, int], given: int) -> None:
    r, w = pipe
    data = b"hello, fork server"
    framed = HEADER.pack(len(data)) + data
    start, rest = framed[:given], framed[given:]
    os.write(w, rest)
    os.close(w)
    assert read_message(r, start) == data
    assert read_message(r) is None


@pytest.mark.parametrize("cut", [0, 3, HEADER.size, HEADER.size + 4])
def test_the_end_of_the_file_is_none(pipe: tuple[int, int], cut: int) -> None:
    r, w = pipe
    framed = HEADER.pack(10) + b"0123456789"
    os.write(w, framed[:cut])
    os.close(w)
    assert read_message(r) is None
