"""`ServerParams` and `ServeOptions`: one object per parameter list, built from the keywords the
functions take, or given whole with keywords replacing some of its fields."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from mcp_support import serve_argv, server_env, write_tools

from toolrig import Catalog
from toolrig.mcp import MCPToolSource, ServeOptions, ServerParams, UnsafeBindError, serve_async
from toolrig.mcp._params import ServerKeywords
from toolrig.mcp._serve import ServeKeywords
from toolrig.registry import Registry


@pytest.mark.parametrize(
    ("options", "keywords"), [(ServerParams, ServerKeywords), (ServeOptions, ServeKeywords)]
)
def test_the_keywords_are_the_fields(options: type, keywords: type) -> None:
    fields = {f.name for f in dataclasses.fields(options)}
    assert set(keywords.__annotations__) == fields


def test_server_params_describe_one_server() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        ServerParams()
    with pytest.raises(ValueError, match="exactly one"):
        ServerParams(command="srv", url="http://127.0.0.1:1/mcp")
    with pytest.raises(ValueError, match="must name a program"):
        ServerParams(command=[])
    stdio = ServerParams(command=["python", "-m", "srv"], args=["--flag"], env={"K": "secret"})
    assert stdio.argv == ["python", "-m", "srv", "--flag"]
    assert stdio.label == "python -m srv --flag"
    web = ServerParams(url="http://127.0.0.1:1/mcp", headers={"X-A": "1"}, token="t0k")
    assert web.argv == [] and web.label == "http://127.0.0.1:1/mcp"
    assert web.http_headers == {"X-A": "1", "Authorization": "Bearer t0k"}
    assert "secret" not in repr(stdio) and "t0k" not in repr(web)


def test_a_source_takes_params_and_keywords_replace_their_fields() -> None:
    base = ServerParams(url="http://127.0.0.1:1/mcp", timeout=5.0)
    source = MCPToolSource(Catalog(), prefix="p", params=base, max_retries=2, connect_timeout=1)
    try:
        assert source.params == dataclasses.replace(base, max_retries=2, connect_timeout=1)
        assert (source.timeout, source.max_retries, source.connect_timeout) == (5.0, 2, 1)
        assert source.url == source.label == "http://127.0.0.1:1/mcp"
    finally:
        source.close()
    with pytest.raises(ValueError, match="exactly one"):
        MCPToolSource(Catalog(), prefix="p", params=base, command="srv")


def test_add_mcp_server_with_params(tmp_path: Path) -> None:
    from toolrig.mcp import add_mcp_server

    folder = write_tools(tmp_path / "tools")
    params = ServerParams(command=serve_argv(str(folder)), env=server_env())
    with Registry() as registry:
        source = add_mcp_server(registry, prefix="obj", params=params)
        assert source.params == params
        assert "obj__add" in registry


async def test_serve_options_are_checked_before_anything_starts() -> None:
    with pytest.raises(ValueError, match="unknown transport"):
        ServeOptions(transport="pigeon")  # type: ignore[arg-type]
    exposed = ServeOptions(transport="http", host="0.0.0.0", token="t0k")
    assert "t0k" not in repr(exposed)
    with pytest.raises(UnsafeBindError):
        await serve_async(Catalog(), options=exposed, token=None)
    with pytest.raises(ValueError, match="unknown transport"):
        await serve_async(Catalog(), transport="pigeon")  # type: ignore[arg-type]
