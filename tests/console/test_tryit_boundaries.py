"""The catalogue's try-it form, boundary by boundary (docs/console.md, "Catalogue";
``console._tryit``): the fields an action's schema gives, and the call a submitted form makes,
through the console's real ASGI app and the executor's pipeline over a real SQLite log.

The promises: each typed value reaches the tool as its declared type (an enum's member as
declared, ``2`` and not ``"2"``; a ticked box ``true`` and an unticked one ``false``, even over
a default of ``true``); what does not read as its type is passed on as typed, so the pipeline
answers it as it would a model, never a 500 (JSON nested past the parser included); an empty
field is left out, so the default applies; a secret parameter is a password field, its
default never shown nor sent back.

| promise | boundary | test |
|---|---|---|
| kinds | string, integer, number, boolean, enum, object, nullable, two types | `test_the_fields` |
| shown defaults | a string; a number, a list, `true`; none; a secret's | `test_the_fields` |
| enum | integer members: sent as declared; a string enum; a value not offered | `..._enum_*` |
| checkbox | ticked; unticked with a default of `true`; unticked, no default | `..._checkbox_*` |
| not its type | `12x` integer, `nan`, `inf` number, `{x` JSON: refused as typed | `..._not_its_*` |
| too deep | JSON nested 100,000 deep: refused by the pipeline, not a 500 | `..._not_its_type` |
| empty | an empty field: left out, the default applies | `..._empty_*` |
| read as typed | each kind from its text; `on`, `true`, `1` ticked, else not | `..._read_as_*` |
| no properties | no `properties` or `required`: no fields, or none required | `..._without_*` |
| secrets | a password field, its default not filled in; not typed back | `..._secret_*` |

Found by this table and fixed: an enum of integers could not be called (the form sent
``"2"``, refused as not one of ``1, 2, 3``); an unticked box was left out, so a boolean whose
default is ``true`` could never be sent ``false``; JSON nested past the parser was a 500.
"""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

import httpx
import pytest
from pydantic import Field as Spec

from toolrig import ToolExecutor, tool
from toolrig.console import app
from toolrig.console._tryit import Field, arguments_from_form, fields_of
from toolrig.storage import SQLiteExecutionLog

seen: list[dict[str, Any]] = []


@tool
def pick(
    level: Literal[1, 2, 3],
    colour: Literal["red", "blue"] = "red",
    loud: bool = True,
    quiet: bool | None = None,
    count: int = 5,
    ratio: float = 0.5,
    data: dict[str, Any] | None = None,
    name: str = "",
    password: Annotated[str, Spec(json_schema_extra={"writeOnly": True})] = "hunter2",
) -> str:
    """Pick a level; answers with what it was given."""
    seen.append(
        {
            "level": level,
            "colour": colour,
            "loud": loud,
            "quiet": quiet,
            "count": count,
            "ratio": ratio,
            "data": data,
            "name": name,
            "password": password,
        }
    )
    return "ok"


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SQLiteExecutionLog]:
    opened = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    yield opened
    opened.close()


@pytest.fixture
async def http(log: SQLiteExecutionLog) -> AsyncIterator[httpx.AsyncClient]:
    seen.clear()
    asgi = app(log=log, catalog=ToolExecutor([pick]))
    transport = httpx.ASGITransport(app=asgi, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        yield client


async def submit(http: httpx.AsyncClient, **fields: str) -> httpx.Response:
    page = (await http.get("/catalog/pick")).text
    found = re.search(r'<meta name="csrf" content="([^"]+)">', page)
    assert found is not None
    form = [("csrf", found.group(1)), *fields.items()]
    return await http.post("/catalog/pick", data=dict(form))


def last_call(log: SQLiteExecutionLog) -> tuple[str, Any, str | None]:
    (record,) = log.query(limit=1)
    return record.status, record.input_data, record.error_message


def test_the_fields() -> None:
    schema = {
        "type": "object",
        "required": ["a"],
        "properties": {
            "a": {"type": "string", "default": "x", "description": "The a."},
            "b": {"type": "integer", "default": 3},
            "c": {"type": "number"},
            "d": {"type": "boolean", "default": True},
            "e": {"enum": [1, "two", None, True], "default": 1},
            "f": {"type": "object", "default": {"k": [1]}},
            "g": {"type": ["integer", "null"]},
            "h": {"type": ["integer", "string"], "default": [1, 2]},
            "i": {"type": "string", "format": "password", "default": "s3cret"},
            "j": "not a schema",
        },
    }
    assert fields_of(schema) == [
        Field(name="a", kind="string", required=True, description="The a.", default="x"),
        Field(name="b", kind="integer", required=False, description="", default="3"),
        Field(name="c", kind="number", required=False, description="", default=""),
        Field(name="d", kind="boolean", required=False, description="", default="true"),
        Field(
            name="e",
            kind="enum",
            required=False,
            description="",
            default="1",
            choices=("1", "two", "null", "true"),
            values=(1, "two", None, True),
        ),
        Field(name="f", kind="json", required=False, description="", default='{"k": [1]}'),
        Field(name="g", kind="integer", required=False, description="", default=""),
        Field(name="h", kind="json", required=False, description="", default="[1, 2]"),
        Field(name="i", kind="string", required=False, description="", default="", secret=True),
        Field(name="j", kind="json", required=False, description="", default=""),
    ]


def test_a_schema_without_properties_or_required_has_fields_or_none() -> None:
    assert fields_of({"type": "object"}) == []
    assert fields_of({"type": "object", "properties": None}) == []
    (only,) = fields_of({"type": "object", "properties": {"a": {"type": "integer"}}})
    assert (only.name, only.kind, only.required) == ("a", "integer", False)


FORM_FIELDS = fields_of(
    {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "x": {"type": "number"},
            "j": {"type": "object"},
            "s": {"type": "string"},
            "b": {"type": "boolean"},
        },
    }
)


@pytest.mark.parametrize(
    ("form", "expected"),
    [
        (
            {"n": "5", "x": "2.5", "j": '{"k": [1]}', "s": "5"},
            {"n": 5, "x": 2.5, "j": {"k": [1]}, "s": "5"},
        ),
        ({"b": "on"}, {"b": True}),
        ({"b": "true"}, {"b": True}),
        ({"b": "1"}, {"b": True}),
        ({"b": "off"}, {"b": False}),
        ({"b": "TRUE"}, {"b": False}),
        ({"n": "5.0", "x": "two", "j": "[1"}, {"n": "5.0", "x": "two", "j": "[1"}),
        ({"n": "", "s": ""}, {}),
    ],
)
def test_each_typed_value_is_read_as_its_type(
    form: dict[str, str], expected: dict[str, Any]
) -> None:
    """What the form holds, as the call's arguments: typed by the field's kind, or as typed
    when it does not read as that kind (the pipeline then says what is wrong)."""
    arguments = arguments_from_form(FORM_FIELDS, form)
    assert arguments == expected
    assert {k: type(v) for k, v in arguments.items()} == {k: type(v) for k, v in expected.items()}


@pytest.mark.parametrize(("typed", "sent"), [("1", 1), ("3", 3)])
async def test_an_enum_member_is_sent_as_declared(
    http: httpx.AsyncClient, log: SQLiteExecutionLog, typed: str, sent: int
) -> None:
    response = await submit(http, level=typed, colour="blue")
    assert response.status_code == 200
    assert seen == [{**seen[0], "level": sent, "colour": "blue"}]
    assert type(seen[0]["level"]) is int
    assert last_call(log)[0] == "succeeded"


async def test_an_enum_value_not_offered_is_refused_by_the_pipeline(
    http: httpx.AsyncClient, log: SQLiteExecutionLog
) -> None:
    assert (await submit(http, level="4")).status_code == 200
    status, sent, error = last_call(log)
    assert (status, sent["level"], seen) == ("failed", "4", [])
    assert error is not None and 'level: expected 1, 2 or 3, received "4"' in error


@pytest.mark.parametrize(
    ("boxes", "loud", "quiet"),
    [
        ({"loud": ["off", "on"], "quiet": ["off", "on"]}, True, True),
        ({"loud": ["off"], "quiet": ["off"]}, False, False),  # unticked, over a default of True
        ({}, True, None),  # a form without the boxes at all: the defaults
    ],
)
async def test_a_checkbox_is_sent_ticked_or_not(
    http: httpx.AsyncClient, boxes: dict[str, list[str]], loud: bool, quiet: bool | None
) -> None:
    page = (await http.get("/catalog/pick")).text
    assert '<input type="hidden" name="loud" value="off"><input type="checkbox" name="loud"' in page
    found = re.search(r'<meta name="csrf" content="([^"]+)">', page)
    assert found is not None
    form = [("csrf", found.group(1)), ("level", "2")]
    form += [(name, value) for name, values in boxes.items() for value in values]
    response = await http.post("/catalog/pick", content=_encoded(form), headers=_FORM)
    assert response.status_code == 200
    assert (seen[-1]["loud"], seen[-1]["quiet"]) == (loud, quiet)
    ticked = 'name="loud" checked' in response.text
    assert ticked is ("on" in boxes.get("loud", []))


_FORM = {"content-type": "application/x-www-form-urlencoded"}


def _encoded(pairs: list[tuple[str, str]]) -> bytes:
    return urlencode(pairs).encode()


DEEP = "[" * 100_000 + "]" * 100_000
NOT_INTEGER = "count: expected a valid integer, unable to parse string as an integer"


@pytest.mark.parametrize(
    ("field", "typed", "says"),
    [
        (
            "count",
            "12x",
            'count: expected a valid integer, unable to parse string as an integer, received "12x"',
        ),
        (
            "count",
            "1.5",
            'count: expected a valid integer, unable to parse string as an integer, received "1.5"',
        ),
        ("ratio", "nan", "ratio: expected a finite number, received nan"),
        ("ratio", "inf", "ratio: expected a finite number, received inf"),
        ("data", "{x", 'data: expected a valid dictionary, received "{x" (string)'),
        ("data", "[1]", "data: expected a valid dictionary, received [1] (array)"),
        ("data", DEEP, 'data: expected a valid dictionary, received "[[[['),
    ],
)
async def test_a_value_not_of_its_type_is_refused_by_the_pipeline(
    http: httpx.AsyncClient, log: SQLiteExecutionLog, field: str, typed: str, says: str
) -> None:
    response = await submit(http, level="2", **{field: typed})
    assert response.status_code == 200, response.text[-300:]
    status, _, error = last_call(log)
    assert status == "failed" and seen == []
    assert error is not None and says in error, error


async def test_an_empty_field_is_left_out_for_its_default(
    http: httpx.AsyncClient, log: SQLiteExecutionLog
) -> None:
    response = await submit(http, level="2", count="", ratio="", data="", name="", colour="")
    assert response.status_code == 200
    assert seen[-1] == {
        "level": 2,
        "colour": "red",
        "loud": True,
        "quiet": None,
        "count": 5,
        "ratio": 0.5,
        "data": None,
        "name": "",
        "password": "hunter2",
    }
    assert last_call(log)[1] == {"level": 2}


async def test_a_secret_is_a_password_field_never_shown(
    http: httpx.AsyncClient, log: SQLiteExecutionLog
) -> None:
    page = (await http.get("/catalog/pick")).text
    field = re.search(r'<input name="password" type="password"[^>]*>', page)
    assert field is not None and 'value=""' in field.group(0)  # the default is not filled in
    response = await submit(http, level="2", password="n3w-s3cret", name="bob")
    assert response.status_code == 200 and seen[-1]["password"] == "n3w-s3cret"
    shown = html.unescape(response.text)
    assert "n3w-s3cret" not in shown and 'value="bob"' in shown  # typed back, but the secret
