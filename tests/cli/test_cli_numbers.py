"""The numeric options' types (``cli._numbers``), boundary by boundary: each bound is
inclusive on both sides, and each refusal says what the option takes.

| promise | boundary | test |
|---|---|---|
| counts | the least taken, one below refused; larger taken; not whole: refused | ``..._count`` |
| ports | 0 and 65535 taken; -1 and 65536 refused, saying the range | ``..._port`` |
| seconds | a fraction below 1 taken; 0, below, `nan`, `±inf`, words refused | ``..._seconds`` |

Breaks tried (each made the named test fail, then was undone): ``value > maximum`` as
``>=`` (``..._port``); the range's words always ``at least`` (``..._port``); ``value > 0``
as ``> 1`` (``..._seconds``); ``math.isfinite`` left out (``..._seconds``).
"""

from __future__ import annotations

import argparse

import pytest

from toolrig.cli._numbers import at_least, port, seconds


def test_count() -> None:
    two = at_least(2)
    assert two("2") == 2 and two("10000000000") == 10_000_000_000
    with pytest.raises(argparse.ArgumentTypeError, match=r"^must be at least 2, not 1$"):
        two("1")
    for text in ("2.0", "two", ""):
        with pytest.raises(argparse.ArgumentTypeError, match=r"is not a whole number$"):
            two(text)


def test_port() -> None:
    assert (port("0"), port("65535"), port(" 8080 ")) == (0, 65535, 8080)
    for text in ("-1", "65536"):
        with pytest.raises(argparse.ArgumentTypeError) as refused:
            port(text)
        assert str(refused.value) == f"must be 0 to 65535, not {text}"


def test_seconds() -> None:
    assert (seconds("0.001"), seconds("1"), seconds("1e3")) == (0.001, 1.0, 1000.0)
    for text in ("0", "-0.5", "nan", "inf", "-inf"):
        with pytest.raises(argparse.ArgumentTypeError) as refused:
            seconds(text)
        assert str(refused.value) == f"must be a positive number of seconds, not {text}"
    with pytest.raises(argparse.ArgumentTypeError, match=r"^'soon' is not a number of seconds$"):
        seconds("soon")
