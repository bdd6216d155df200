"""``openapi_tool`` against a real FastAPI service and its own generated OpenAPI document,
served on 127.0.0.1: operations become actions, arguments are checked before anything is
sent, credentials come from the environment, errors and bad answers are structured results."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from petstore_app import TOKEN, make_app

from asgi_server import serve_asgi
from toolrig import ToolDefinitionError
from toolrig.tools import HeaderAuth, NetPolicy, openapi_tool

LOCAL = NetPolicy(allow=("127.0.0.1",))
AUTH = {"header": "Authorization", "env": "PETSTORE_TOKEN", "scheme": "Bearer"}


@pytest.fixture(scope="module")
def service() -> Iterator[tuple[str, Any]]:
    app = make_app()
    with serve_asgi(app, lifespan="off") as url:
        yield url, app


@pytest.fixture
def pets(service: tuple[str, Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("PETSTORE_TOKEN", TOKEN)
    url, _ = service
    return openapi_tool(f"{url}/openapi.json", base_url=url, auth=AUTH, network=LOCAL)


def test_operations_become_actions_with_schemas(pets: Any) -> None:
    assert pets.name == "pet_store"
    assert set(pets.get_action_names()) == {
        "list_pets",
        "get_pet",
        "create_pet",
        "broken",
        "echo",
        "go",
        "slow",
    }
    create = pets.get_action("create_pet").spec
    params = create.parameters
    assert params["required"] == ["body"]
    assert params["properties"]["body"]["$ref"] == "#/$defs/NewPet"
    assert set(params["$defs"]) >= {"NewPet", "Owner"}  # nested references kept, once each
    assert "dry_run" in params["properties"]
    assert create.output_schema is not None
    assert create.output_schema["$ref"] == "#/$defs/Pet"
    get = pets.get_action("get_pet").spec
    assert get.parameters["required"] == ["pet_id"]
    assert "authorization" not in get.parameters["properties"]  # filled by `auth`, not the model
    assert get.annotations.read_only is True
    assert create.annotations.idempotent is False


async def test_list_get_create_with_path_query_and_body(pets: Any, service: Any) -> None:
    _, app = service
    listed = await pets.aexecute("list_pets", kind="cat", limit=5)
    assert listed.success, listed.error
    assert [p["name"] for p in listed.output] == ["Tom"]
    got = await pets.aexecute("get_pet", pet_id=1)
    assert got.output["kind"] == "cat"
    body = {"name": "Rex", "kind": "dog", "age": 4, "owner": {"name": "Ann"}}
    made = await pets.aexecute("create_pet", body=body)
    assert made.success, made.error
    assert made.output["id"] in app.state.pets
    assert made.output["owner"] == {"name": "Ann", "email": None}
    dry = await pets.aexecute("create_pet", body={**body, "name": "Ghost"}, dry_run=True)
    assert dry.success and dry.output["id"] not in app.state.pets
    again = await pets.aexecute("list_pets", kind="dog")
    assert [p["name"] for p in again.output] == ["Rex"]


async def test_bad_calls_are_refused_before_any_request(pets: Any, service: Any) -> None:
    _, app = service
    before = len(app.state.seen)
    bad = [
        ("get_pet", {"pet_id": "one"}),  # path parameter of the wrong type
        ("get_pet", {}),  # path parameter missing
        ("list_pets", {"limit": 1000}),  # query bound
        ("list_pets", {"kind": "fish"}),  # enum
        ("create_pet", {"body": {"name": "", "kind": "cat", "age": 1}}),  # nested minLength
        ("create_pet", {"body": {"name": "A", "kind": "cat", "age": 1, "owner": {}}}),  # $ref'd
        ("create_pet", {"body": {"name": "A", "kind": "cat", "age": 1}, "extra": 1}),
    ]
    for action, arguments in bad:
        result = await pets.aexecute(action, arguments)
        assert not result.success, (action, arguments)
        assert result.error.code == "invalid_arguments", (action, result.error)
    assert len(app.state.seen) == before  # nothing reached the service


async def test_auth_header_comes_from_the_environment(
    service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, app = service
    tool = openapi_tool(f"{url}/openapi.json", base_url=url, auth=HeaderAuth(**AUTH), network=LOCAL)
    monkeypatch.setenv("PETSTORE_TOKEN", TOKEN)
    assert (await tool.aexecute("get_pet", pet_id=1)).success
    assert app.state.seen[-1]["authorization"] == f"Bearer {TOKEN}"
    monkeypatch.setenv("PETSTORE_TOKEN", "wrong")  # read at each call
    refused = await tool.aexecute("get_pet", pet_id=1)
    assert refused.error.code == "permission_denied"
    assert refused.error.details["status"] == 401
    monkeypatch.delenv("PETSTORE_TOKEN")
    before = len(app.state.seen)
    unset = await tool.aexecute("get_pet", pet_id=1)
    assert unset.error.code == "permission_denied"
    assert "PETSTORE_TOKEN" in unset.error.message and TOKEN not in repr(tool.spec)
    assert len(app.state.seen) == before  # not sent without its credential


async def test_document_credentials_are_never_used(service: Any) -> None:
    url, app = service
    doc = json.loads(json.dumps(make_app().openapi()))
    doc["components"]["securitySchemes"] = {
        "key": {"type": "apiKey", "in": "header", "name": "Authorization"}
    }
    doc["security"] = [{"key": []}]
    tool = openapi_tool(doc, base_url=url, network=LOCAL)
    result = await tool.aexecute("get_pet", pet_id=1)
    assert result.error.code == "permission_denied"
    assert app.state.seen[-1]["authorization"] is None


async def test_non_2xx_is_a_structured_error(pets: Any) -> None:
    missing = await pets.aexecute("get_pet", pet_id=999)
    assert not missing.success
    assert missing.error.code == "not_found"
    assert missing.error.details == {"status": 404, "body": {"detail": "no pet 999"}}


async def test_answer_is_checked_against_the_response_schema(pets: Any) -> None:
    result = await pets.aexecute("broken")
    assert not result.success
    assert result.error.code == "invalid_output"


async def test_network_policy_is_web_tools(service: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    url, app = service
    with pytest.raises(ToolDefinitionError, match="loopback"):
        openapi_tool(f"{url}/openapi.json", base_url=url)  # default policy: public only
    doc = make_app().openapi()
    tool = openapi_tool(doc, base_url=url, auth=AUTH)  # the document given, the API private
    monkeypatch.setenv("PETSTORE_TOKEN", TOKEN)
    before = len(app.state.seen)
    refused = await tool.aexecute("get_pet", pet_id=1)
    assert refused.error.code == "permission_denied"
    assert "loopback" in refused.error.message
    assert len(app.state.seen) == before


def test_file_document_with_yaml_and_file_references(tmp_path: Path) -> None:
    (tmp_path / "models.yaml").write_text(
        "Thing:\n  type: object\n  required: [id]\n  properties:\n"
        "    id: {type: integer, example: 3}\n    parent: {$ref: '#/Thing'}\n"
    )
    (tmp_path / "api.yaml").write_text(
        """
openapi: 3.0.3
info: {title: Things, version: '1'}
servers: [{url: 'https://things.example/v1'}]
paths:
  /things/{id}:
    parameters:
      - name: id
        in: path
        required: true
        schema: {type: integer, minimum: 0, exclusiveMinimum: true}
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: 'models.yaml#/Thing'}
"""
    )
    tool = openapi_tool(tmp_path / "api.yaml")
    spec = tool.get_action("get_things_id").spec
    assert spec.parameters["properties"]["id"] == {
        "type": "integer",
        "exclusiveMinimum": 0,
    }
    assert spec.output_schema == {"$ref": "#/$defs/Thing", "$defs": spec.output_schema["$defs"]}
    thing = spec.output_schema["$defs"]["Thing"]
    assert thing["properties"]["parent"] == {"$ref": "#/$defs/Thing"}  # recursion kept finite
    assert thing["properties"]["id"]["examples"] == [3]
    ok, _ = tool.validate_params("get_things_id", {"id": 0})
    assert not ok


def test_invalid_documents_are_refused_with_reasons(tmp_path: Path) -> None:
    with pytest.raises(ToolDefinitionError, match="not an OpenAPI 3"):
        openapi_tool({"swagger": "2.0"})
    broken = {"openapi": "3.1.0", "info": {"title": "x"}, "paths": {}}  # no info.version
    with pytest.raises(ToolDefinitionError, match="invalid OpenAPI document"):
        openapi_tool(broken)
    with pytest.raises(ToolDefinitionError, match="cannot read"):
        openapi_tool(tmp_path / "missing.json")


async def test_arguments_cannot_reshape_the_request(pets: Any) -> None:
    tricky = "..?x=1#frag é&y=2"
    echoed = await pets.aexecute("echo", name=tricky, tag=["a&b=c", "d"])
    assert echoed.success, echoed.error
    assert echoed.output == {"name": tricky, "tags": ["a&b=c", "d"]}  # one segment, as given
    escape = await pets.aexecute("echo", name="../pets/1")  # '/' travels encoded: no other route
    assert not escape.success and escape.error.details["status"] == 404


async def test_redirects_are_not_followed(pets: Any) -> None:
    result = await pets.aexecute("go")
    assert not result.success
    assert "redirect" in result.error.message


async def test_a_slow_service_is_a_timeout(service: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    url, _ = service
    tool = openapi_tool(f"{url}/openapi.json", base_url=url, network=LOCAL, timeout=0.2)
    result = await tool.aexecute("slow")
    assert result.error.code == "timeout" and result.error.retryable


async def test_document_servers_are_held_to_the_policy(service: Any) -> None:
    doc = make_app().openapi()
    doc["servers"] = [{"url": "http://169.254.169.254/api"}]  # the document points elsewhere
    tool = openapi_tool(doc, network=LOCAL)
    result = await tool.aexecute("get_pet", pet_id=1)
    assert result.error.code == "permission_denied"
    assert "metadata" in result.error.message


async def test_header_parameters_cannot_add_headers(service: Any) -> None:
    url, app = service
    open_api = openapi_tool(f"{url}/openapi.json", base_url=url, network=LOCAL)  # no `auth`
    assert "authorization" in open_api.get_action("list_pets").spec.parameters["properties"]
    before = len(app.state.seen)
    result = await open_api.aexecute("list_pets", authorization="Bearer x\r\nX-Evil: 1")
    assert result.error.code == "invalid_arguments"
    assert len(app.state.seen) == before


def test_openapi_30_components_by_reference() -> None:
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1"},
        "servers": [
            {
                "url": "https://{region}.shop.example/v{major}",
                "variables": {"region": {"default": "eu"}, "major": {"default": "2"}},
            }
        ],
        "paths": {
            "/orders/{id}": {
                "parameters": [{"$ref": "#/components/parameters/Id"}],
                "put": {
                    "operationId": "replace_order",
                    "parameters": [{"$ref": "#/components/parameters/Trace"}],
                    "requestBody": {"$ref": "#/components/requestBodies/Order"},
                    "responses": {"200": {"$ref": "#/components/responses/Order"}},
                },
            }
        },
        "components": {
            "parameters": {
                "Id": {
                    "name": "id",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string", "format": "uuid"},
                },
                "Trace": {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
            },
            "requestBodies": {
                "Order": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Order"}}
                    },
                }
            },
            "responses": {
                "Order": {
                    "description": "the order",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Order"}}
                    },
                }
            },
            "schemas": {
                "Base": {
                    "type": "object",
                    "properties": {"note": {"type": "string", "nullable": True}},
                },
                "Order": {
                    "allOf": [
                        {"$ref": "#/components/schemas/Base"},
                        {
                            "type": "object",
                            "required": ["qty"],
                            "properties": {
                                "qty": {"type": "integer", "minimum": 1},
                                "kind": {
                                    "type": "string",
                                    "discriminator": {"propertyName": "kind"},
                                },
                            },
                        },
                    ]
                },
            },
        },
    }
    tool = openapi_tool(doc)
    action = tool.get_action("replace_order").spec
    props = action.parameters["properties"]
    assert set(props) == {"id", "X-Trace", "body"}
    assert action.parameters["required"] == ["id", "body"]
    assert props["body"] == {"$ref": "#/$defs/Order"}
    assert set(action.parameters["$defs"]) == {"Order", "Base"}
    order = action.parameters["$defs"]["Order"]["allOf"][1]["properties"]
    assert order["kind"]["x-discriminator"] == {"propertyName": "kind"}
    assert action.annotations.idempotent is True and action.annotations.destructive is True
    uid = "3f2b9a5e-0c1d-4e8f-9a7b-1c2d3e4f5a6b"
    good = {"id": uid, "body": {"qty": 2, "note": None}}
    assert tool.validate_params("replace_order", good)[0]
    assert not tool.validate_params("replace_order", {**good, "id": "not-a-uuid"})[0]
    assert not tool.validate_params("replace_order", {"id": uid, "body": {"qty": 0}})[0]
    assert not tool.validate_params("replace_order", {"id": uid, "body": {"qty": 1, "note": 3}})[0]


async def test_the_documents_server_with_variables_is_the_default_base(
    service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = service
    port = url.rsplit(":", 1)[1]
    doc = make_app().openapi()
    variables = {"host": {"default": "127.0.0.1"}, "port": {"default": port}}
    doc["servers"] = [{"url": "http://{host}:{port}", "variables": variables}]
    monkeypatch.setenv("PETSTORE_TOKEN", TOKEN)
    tool = openapi_tool(doc, auth=AUTH, network=LOCAL)
    assert (await tool.aexecute("get_pet", pet_id=1)).output["name"] == "Tom"
