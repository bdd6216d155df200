"""Importing a local FastAPI app's own document, as a newcomer does: the loopback refusal says
how to allow it, and the requests go where the document came from when it names no server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from petstore_app import TOKEN, make_app

from asgi_server import serve_asgi
from toolrig import ToolDefinitionError
from toolrig.tools import NetPolicy, openapi_tool

AUTH = {"header": "Authorization", "env": "PETSTORE_TOKEN", "scheme": "Bearer"}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve_asgi(make_app(), lifespan="off") as base:
        yield base


def test_the_loopback_refusal_names_the_network_policy_to_give(url: str) -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        openapi_tool(f"{url}/openapi.json")
    text = str(caught.value)
    assert "loopback" in text
    assert "network=NetPolicy(allow=('127.0.0.1',))" in text


async def test_without_servers_requests_go_to_the_documents_own_address(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PETSTORE_TOKEN", TOKEN)
    pets: Any = openapi_tool(
        f"{url}/openapi.json", auth=AUTH, network=NetPolicy(allow=("127.0.0.1",))
    )  # no base_url=: FastAPI's document has no `servers`
    got = await pets.aexecute("get_pet", pet_id=1)
    assert got.success, got.error
    assert got.output["kind"] == "cat"


def test_a_relative_server_in_a_document_given_as_data_asks_for_base_url() -> None:
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {"/x": {"get": {"operationId": "x", "responses": {"200": {"description": "ok"}}}}},
    }
    with pytest.raises(ToolDefinitionError, match="give base_url="):
        openapi_tool(doc)
