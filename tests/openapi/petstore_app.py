"""A small FastAPI service with its own generated OpenAPI document, served on 127.0.0.1 by
uvicorn in a thread: the counterpart of the OpenAPI import tests."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from fastapi import FastAPI, Header, HTTPException, Query
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field

TOKEN = "s3cret-token"


class Owner(BaseModel):
    name: str
    email: str | None = None


class NewPet(BaseModel):
    name: str = Field(min_length=1, max_length=40)
    kind: Literal["cat", "dog", "bird"]
    age: int = Field(ge=0, le=60)
    owner: Owner | None = None


class Pet(NewPet):
    id: int


def make_app() -> FastAPI:
    app = FastAPI(title="Pet Store", description="Pets for sale.")
    pets: dict[int, Pet] = {1: Pet(id=1, name="Tom", kind="cat", age=3)}
    seen: list[dict[str, str | None]] = []
    app.state.pets = pets
    app.state.seen = seen

    def check(authorization: str | None) -> None:
        seen.append({"authorization": authorization})
        if authorization != f"Bearer {TOKEN}":
            raise HTTPException(status_code=401, detail="bad token")

    @app.get("/pets", operation_id="list_pets")
    def list_pets(
        kind: Literal["cat", "dog", "bird"] | None = None,
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        authorization: Annotated[str | None, Header()] = None,
    ) -> list[Pet]:
        """List the pets, optionally of one kind."""
        check(authorization)
        found = [p for p in pets.values() if kind is None or p.kind == kind]
        return found[:limit]

    @app.get("/pets/{pet_id}", operation_id="get_pet")
    def get_pet(pet_id: int, authorization: Annotated[str | None, Header()] = None) -> Pet:
        """One pet by id."""
        check(authorization)
        if pet_id not in pets:
            raise HTTPException(status_code=404, detail=f"no pet {pet_id}")
        return pets[pet_id]

    @app.post("/pets", operation_id="create_pet", status_code=201)
    def create_pet(
        pet: NewPet,
        dry_run: bool = False,
        authorization: Annotated[str | None, Header()] = None,
    ) -> Pet:
        """Add a pet."""
        check(authorization)
        made = Pet(id=max(pets) + 1, **pet.model_dump())
        if not dry_run:
            pets[made.id] = made
        return made

    @app.get("/broken", operation_id="broken")
    def broken() -> Pet:
        """Answers what its schema does not allow (FastAPI checks its own answers, so this one
        is read raw)."""
        from fastapi.responses import JSONResponse

        return JSONResponse({"id": "not-a-number", "name": "x"})  # type: ignore[return-value]

    @app.get("/echo/{name}", operation_id="echo")
    def echo(name: str, tag: Annotated[list[str] | None, Query()] = None) -> dict[str, object]:
        """Echoes its path parameter and tags as received."""
        return {"name": name, "tags": tag or []}

    @app.get("/go", operation_id="go")
    def go() -> RedirectResponse:
        """Redirects elsewhere."""
        return RedirectResponse("http://169.254.169.254/latest/meta-data/", status_code=307)

    @app.get("/slow", operation_id="slow")
    async def slow() -> dict[str, str]:
        """Answers after a second."""
        await asyncio.sleep(1)
        return {"status": "late"}

    return app
