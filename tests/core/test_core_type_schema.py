"""The direct annotation translation gives pydantic's JSON Schemas (as tidied for export) and
validators, exactly."""

from __future__ import annotations

import enum
import json
import typing
from datetime import date, datetime, time
from typing import Annotated, Any, Literal, NotRequired, Optional, Union
from uuid import UUID

import annotated_types as at
import pytest
from pydantic import ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import SchemaValidator
from typing_extensions import TypedDict

from toolrig.core.schema._schema_tidy import tidy_schema
from toolrig.core.schema._type_schema import (
    FieldSpec,
    Unsupported,
    arguments_schemas,
    value_schemas,
)


class Color(enum.Enum):
    """Colours a thing can have."""

    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Mode(str, enum.Enum):  # noqa: UP042 - the str mixin is what is tested
    FAST = "fast"
    DEEP = "deep"


class Mixed(enum.Enum):
    ONE = 1
    TEXT = "text"
    NOTHING = None


class Ratio(float, enum.Enum):
    HALF = 0.5
    FULL = 1.0


BASES: list[Any] = [
    int,
    float,
    str,
    bool,
    type(None),
    Any,
    date,
    datetime,
    time,
    UUID,
    list,
    dict,
    tuple,
    set,
    frozenset,
    typing.List,  # noqa: UP006
    typing.Dict,  # noqa: UP006
    typing.Tuple,  # noqa: UP006
    Color,
    Level,
    Mode,
    Mixed,
    Ratio,
    Literal["a"],
    Literal["a", "b"],
    Literal[1, 2],
    Literal[True],
    Literal[None],
    Literal["a", 1, None],
    Literal[1, True],
]

WRAPPERS: list[Any] = [
    lambda t: t,
    lambda t: list[t],
    lambda t: typing.List[t],  # noqa: UP006
    lambda t: Optional[t],  # noqa: UP045
    lambda t: t | None,
    lambda t: dict[str, t],
    lambda t: tuple[t, ...],
    lambda t: tuple[t, int],
    lambda t: set[t],
    lambda t: Union[t, str],  # noqa: UP007
    lambda t: list[Optional[t]],  # noqa: UP045
    lambda t: Optional[list[t]],  # noqa: UP045
    lambda t: dict[str, list[t]],
]

CONSTRAINED: list[Any] = [
    Annotated[int, Field(ge=1, le=100)],
    Annotated[int, Field(gt=0, lt=10, multiple_of=2)],
    Annotated[float, Field(ge=0, le=1.5)],
    Annotated[float, Field(gt=-1.5, multiple_of=0.5)],
    Annotated[str, Field(min_length=1, max_length=20)],
    Annotated[str, Field(pattern=r"^[a-z]+$")],
    Annotated[str, Field(min_length=0)],
    Annotated[list[int], Field(min_length=1, max_length=3)],
    Annotated[dict[str, int], Field(min_length=1)],
    Annotated[set[str], Field(max_length=2)],
    Annotated[tuple[int, ...], Field(max_length=2)],
    Annotated[Optional[int], Field(ge=0)],  # noqa: UP045
    Annotated[int | None, Field(le=5)],
    Annotated[int, at.Ge(3)],
    Annotated[int, at.Interval(ge=1, lt=4)],
    Annotated[str, at.Len(2, 5)],
    Annotated[str, at.MinLen(2), at.MaxLen(4)],
    Annotated[int, Field(ge=1), Field(le=9)],
    Annotated[int, Field(ge=1), at.Ge(2)],
    Annotated[int, at.Ge(2), Field(ge=1)],
    Annotated[int, Field(ge=1, description="x"), at.Ge(2), Field(le=5, description="y")],
    Annotated[Optional[int], at.Ge(2), Field(ge=1)],  # noqa: UP045
    Annotated[str, Field(min_length=3), at.MinLen(1)],
    list[Annotated[int, Field(ge=0)]],
    Optional[Annotated[str, Field(max_length=3)]],  # noqa: UP045
    dict[str, Annotated[float, Field(lt=1)]],
    Annotated[int, Field(description="a count", title="Count")],
    Annotated[int, Field(title="X")],
    Annotated[str, Field(examples=["a", "b"])],
    Annotated[dict[str, Any], Field(examples=[{"b": 1, "a": [1, {"d": 2, "c": 3}]}])],
    Annotated[Color, Field(description="Colours a thing can have.")],
    Annotated[Color, Field(title="Color")],
    Annotated[Optional[Color], Field(description="maybe")],  # noqa: UP045
    tuple[()],
    tuple[int, str, bool],
    tuple[Color, Level],
    Union[int, str, None],  # noqa: UP007
    Union[int, Optional[str]],  # noqa: UP007, UP045
    Union[list[int], list[int], dict[str, int]],  # noqa: UP007
    Optional[Union[Literal["a"], Literal["b"]]],  # noqa: UP007, UP045
    Optional[Any],  # noqa: UP045
    list[list[list[str]]],
    dict[str, Optional[dict[str, Level]]],  # noqa: UP045
]

ANNOTATIONS = [wrap(base) for wrap in WRAPPERS for base in BASES] + CONSTRAINED

SAMPLES: list[Any] = [
    0,
    1,
    2,
    -3,
    7,
    1.5,
    0.5,
    "1",
    "2.0",
    "",
    "a",
    "b",
    "abc",
    "red",
    "fast",
    "text",
    "2024-05-01",
    "2024-05-01T10:00:00Z",
    "10:30",
    "8a1f1b64-1c5e-4c3b-9a27-45c5a4f0f2b1",
    True,
    False,
    None,
    [],
    [1, 2],
    ["a", "b"],
    [1, "a", None],
    [[1], [2, 3]],
    (1, 2),
    {},
    {"a": 1},
    {"a": [1]},
    {"a": {"b": 1}},
    {"a": "x", "b": None},
    10**20,
    float("inf"),
]


def _typed_dict(fields: list[FieldSpec]) -> Any:
    annotations: dict[str, Any] = {}
    for spec in fields:
        annotation = spec.annotation
        if spec.description:
            annotation = Annotated[annotation, Field(description=spec.description)]
        annotations[spec.name] = annotation if spec.required else NotRequired[annotation]
    make: Any = TypedDict
    typed_dict = make("T_arguments", annotations)
    typed_dict.__pydantic_config__ = ConfigDict(extra="forbid")
    return typed_dict


def _outcome(validate: Any, value: Any, strict: bool = False) -> Any:
    try:
        return ("ok", repr(validate(value, strict=strict)))
    except ValidationError as exc:
        return ("error", exc.title, exc.errors(include_url=False))


def _dumps(schema: Any) -> str:
    return json.dumps(schema)  # key order counts, as in what a model receives


def _fields(annotation: Any) -> list[FieldSpec]:
    return [
        FieldSpec("the_value", annotation, None, True),
        FieldSpec("described", annotation, "What it is.", False),
    ]


@pytest.mark.parametrize("annotation", ANNOTATIONS, ids=repr)
def test_arguments_schema_is_pydantics(annotation: Any) -> None:
    try:
        mine = arguments_schemas(_fields(annotation), "T_arguments")
    except Unsupported:
        pytest.fail(f"{annotation!r} should be supported")
    adapter = TypeAdapter(_typed_dict(_fields(annotation)))
    theirs = tidy_schema(adapter.json_schema())
    theirs.pop("additionalProperties")
    assert _dumps(mine.json) == _dumps(theirs)
    compiled = SchemaValidator(mine.core, mine.config)
    for sample in SAMPLES:
        for arguments in ({"the_value": sample}, {"the_value": sample, "described": sample}):
            text = json.dumps(arguments, default=str)
            for strict in (False, True):
                mine_python = _outcome(compiled.validate_python, arguments, strict)
                assert mine_python == _outcome(adapter.validate_python, arguments, strict)
                mine_json = _outcome(compiled.validate_json, text, strict)
                assert mine_json == _outcome(adapter.validate_json, text, strict)
    for bad in ({}, {"other": 1}, [], "x", None):
        assert _outcome(compiled.validate_python, bad) == _outcome(adapter.validate_python, bad)


@pytest.mark.parametrize(
    "annotation", [a for a in ANNOTATIONS if typing.get_origin(a) is not Annotated], ids=repr
)
def test_value_schema_is_pydantics(annotation: Any) -> None:
    try:
        mine = value_schemas(annotation)
    except Unsupported:
        if "Color" in repr(annotation) or "Level" in repr(annotation) or "enum" in repr(annotation):
            return  # enums in return types are left to pydantic
        for name in ("Mode", "Mixed", "Ratio"):
            if name in repr(annotation):
                return
        raise
    adapter: TypeAdapter[Any] = TypeAdapter(annotation)
    assert _dumps(mine.json) == _dumps(tidy_schema(adapter.json_schema(mode="serialization")))
    compiled = SchemaValidator(mine.core)
    for sample in SAMPLES:
        mine_outcome = _outcome(compiled.validate_python, sample)
        theirs = _outcome(adapter.validate_python, sample)
        assert mine_outcome[0] == theirs[0] and mine_outcome[2:] == theirs[2:]


UNSUPPORTED: list[Any] = [
    bytes,
    dict[int, str],
    list[int] | bytes,
    Annotated[int, "a note"],
    Annotated[int, Field(alias="n")],
    Annotated[int, Field(default=3)],
    Annotated[int, Field(strict=True)],
    Annotated[int, Field(ge=1.5)],
    Annotated[str, Field(max_length=-1)],
    Annotated[int, Field(max_length=3)],
    Annotated[int, Field(json_schema_extra={"x": 1})],
    Annotated[int, Field(deprecated=True)],
    Annotated[Color, Field(ge=1)],
    Annotated[float, Field(ge=float("inf"))],
    list[Annotated[int, Field(description="nested")]],
    Literal[b"x"],
    Literal[Color.RED],
    typing.Sequence[int],
    typing.NewType("UserId", int),
    tuple[int, int, ...] if False else typing.Iterable[int],
]


@pytest.mark.parametrize("annotation", UNSUPPORTED, ids=repr)
def test_what_is_not_mirrored_is_left_to_pydantic(annotation: Any) -> None:
    with pytest.raises(Unsupported):
        arguments_schemas([FieldSpec("x", annotation, None, True)], "T")


def test_two_enums_of_one_name_are_left_to_pydantic() -> None:
    other = enum.Enum("Color", {"A": "a"})  # type: ignore[misc]
    with pytest.raises(Unsupported):
        arguments_schemas(
            [FieldSpec("a", Color, None, True), FieldSpec("b", other, None, True)], "T"
        )


def test_only_a_pattern_asks_for_compiling_at_definition_time() -> None:
    assert not arguments_schemas(_fields(Annotated[str, Field(max_length=3)]), "T").eager
    assert arguments_schemas(_fields(Annotated[str, Field(pattern="^a")]), "T").eager
