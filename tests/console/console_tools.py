"""The tools the console tests serve (``toolrig console --module``) and their agents call.

``drop_table`` appends a line to the file named by ``TOOLRIG_TEST_DROPS`` each time it really
runs, so a test can count the runs across processes."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import SecretStr

from toolrig import ToolAnnotations, tool


@tool(annotations=ToolAnnotations(read_only=True))
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(annotations=ToolAnnotations(read_only=True))
def echo(text: str) -> str:
    """Say the text back, as it was given."""
    return text


@tool(annotations=ToolAnnotations(read_only=False, destructive=True))
def drop_table(name: str) -> str:
    """Drop a database table."""
    drops = os.environ.get("TOOLRIG_TEST_DROPS")
    if drops:
        with Path(drops).open("a", encoding="utf-8") as out:
            out.write(name + "\n")
    return f"dropped {name}"


@tool
def login(user: str, password: SecretStr) -> str:
    """Sign in to the service (the password is a secret: never shown back)."""
    return f"signed in as {user}"


tools = [add, echo, drop_table, login]
