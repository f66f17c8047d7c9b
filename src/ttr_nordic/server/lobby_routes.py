"""HTTP routes of the lobby (all answers JSON; errors ``{"error": {"code", "message"}}``).

* ``GET /api/lobby/tables`` — the open tables, oldest first: format, seats (names, whether an
  account holds each, its rating); and ``playing``, the newest started games still running
  (anyone may watch them, ``/watch/{game_id}``). Pages poll it (the list is the database's, so every server
  process over one PostgreSQL answers the same).
* ``POST /api/lobby/tables`` ``{"players": 2|3, "rated", "time_control", "name"?, "variant"?}`` —
  make a table, the creator in seat 0: answers the table and the seat's ``ticket`` (shown once). A
  rated table needs an account (signed in, with its CSRF header) and the official rules; a casual
  one may name a variant the server ships (``GET /api/variants``; an unknown one: 400
  ``BAD_VARIANT``; no uploads here); a client has at most :data:`.lobby.MAX_OPEN_PER_CLIENT` open tables.
* ``GET /api/lobby/tables/{id}`` — one table; once started its ``game_id``: the page then opens
  ``/play/{game_id}?seat={ticket}`` (the ticket is the seat's game token).
* ``POST /api/lobby/tables/{id}/join`` ``{"name"?}`` — take the first empty seat; the join that
  fills the table starts its game.
* ``POST /api/lobby/tables/{id}/computer`` ``{"level"}`` (header ``X-Table-Ticket``, seat 0's) —
  the creator fills the empty seats with the computer; the game starts, casual.
* ``POST /api/lobby/tables/{id}/leave`` (header ``X-Table-Ticket``) — the creator cancels the
  table, anyone else frees their seat.
* ``POST /api/lobby/quick`` (a format, as for a new table, and ``exclude``: the tables the browser
  already sits at) — quick match: join the oldest open table of exactly that format, else make
  one and wait there (the page offers the computer after the wait its player chose).

A time control is ``null`` (none), ``{"kind": "realtime", "per_move_s", "reserve_s"}`` or
``{"kind": "turn", "per_move_s"}``: validated, stored with the table, and shown with it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Annotated, Literal

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..ai.registry import LEVELS
from ..engine.variant import VariantError
from ..web import STATIC
from . import lobby
from .account_routes import current_user, in_db, same_site, signed_in
from .accounts import User
from .clocks import parse_time_control
from .games import GameService, SeatSpec
from .lobby import Format, LobbyError, Taken
from .player_text import clean_name
from .serialize import JSON
from .variant_choice import VariantChoice, VariantUpload, chosen_variant, one_line
from .variants import read_variant, store_variant

log = logging.getLogger(__name__)

TICKET_HEADER = "X-Table-Ticket"
MAX_NAME = 40
#: The computer's level when a table is filled with it and none was asked.
DEFAULT_LEVEL = "medium"


class RealTime(BaseModel):
    """Real time: a time per move and a reserve for the whole game."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["realtime"]
    per_move_s: int = Field(ge=10, le=600)
    reserve_s: int = Field(ge=0, le=3600)


class TurnBased(BaseModel):
    """Turn-based: a time per move, from an hour to a week."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["turn"]
    per_move_s: int = Field(ge=3600, le=7 * 86400)


TimeControl = Annotated[RealTime | TurnBased, Field(discriminator="kind")]


def _clean_name(value: str | None) -> str | None:
    return None if value is None else clean_name(value)


class NewTable(BaseModel):
    """A table's format and the name its creator plays under (an account plays under its own)."""

    model_config = ConfigDict(extra="forbid")

    players: Literal[2, 3]
    rated: bool = False
    time_control: TimeControl | None = None
    name: str | None = Field(default=None, max_length=MAX_NAME)
    variant: VariantChoice = None

    _name = field_validator("name")(classmethod(lambda cls, v: _clean_name(v)))

    @model_validator(mode="after")
    def _clock_rules(self) -> NewTable:
        # The game's clock takes only what clocks.parse_time_control takes (e.g. 24 h or 3 days a move).
        if self.time_control is not None:
            parse_time_control(self.time_control.model_dump())
        if self.rated and self.variant not in (None, "official"):
            raise ValueError("a rated table is played under the official rules")
        if isinstance(self.variant, VariantUpload):
            # A stranger's file is not offered to the whole lobby (nor stored for every table made and left).
            raise ValueError("a lobby table plays the official rules or a variant this server ships, by name")
        return self

    def format(self, variant_hash: str | None = None) -> Format:
        tc = None if self.time_control is None else json.dumps(self.time_control.model_dump(), sort_keys=True)
        return Format(self.players, self.rated, tc, variant_hash)

    async def stored_variant(self, request: Request) -> str | None:
        """Check the variant asked for and store it (see :mod:`.variants`): its hash, None for the
        official rules; a bad one is refused with 400 ``BAD_VARIANT``."""
        try:
            variant = await asyncio.to_thread(chosen_variant, self.variant, self.players)
        except VariantError as exc:
            raise LobbyError(400, "BAD_VARIANT", one_line(exc)) from exc
        return await in_db(request, store_variant, _service(request).engine, variant)


class JoinTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=MAX_NAME)

    _name = field_validator("name")(classmethod(lambda cls, v: _clean_name(v)))


class FillTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    level: str = DEFAULT_LEVEL

    @field_validator("level")
    @classmethod
    def _level(cls, value: str) -> str:
        value = value.strip().lower()
        if value not in LEVELS:
            raise ValueError(f"the computer's level is one of {', '.join(LEVELS)}")
        return value


router = APIRouter()


def _service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _ticket(request: Request) -> str:
    ticket = request.headers.get(TICKET_HEADER, "")
    if not ticket or len(ticket) > 128:
        raise LobbyError(403, "TICKET_REQUIRED", f"send your seat's ticket ({TICKET_HEADER})")
    return ticket


async def _who(request: Request, rated: bool) -> User | None:
    """The account a request plays under: required (its CSRF checked) for a rated table."""
    same_site(request)
    if rated:
        return (await signed_in(request))[0]
    found = await current_user(request)
    return None if found is None else found[0]


def _name(user: User | None, asked: str | None, seat: int) -> str:
    if user is not None:
        return user.name
    return asked or f"Player {seat + 1}"


async def _start(request: Request, table_id: str, level: str = DEFAULT_LEVEL) -> str:
    """Create the game of a "starting" table (its seats' tickets become the seats' tokens)."""
    service = _service(request)
    plan = await in_db(request, lobby.starting, service.engine, table_id, level)
    specs = [SeatSpec(s.name, "ai" if s.level else "human", s.level) for s in plan.seats]
    hashes = {i: s.ticket_hash for i, s in enumerate(plan.seats) if s.ticket_hash}
    humans = len(hashes)
    try:
        variant = await service.store.in_db_thread(read_variant, service.engine, plan.variant_hash)
        game, _ = await service.create(
            "ai" if humans == 1 else "online",
            specs,
            None,
            owner=_client(request),
            token_hashes=hashes,
            time_control=plan.time_control,
            variant=variant,
        )
    except Exception:
        await in_db(request, lobby.reopen, service.engine, table_id)
        raise
    await in_db(request, lobby.started, service.engine, plan, game.id)
    log.info("lobby table started as game %s", game.id)
    return game.id


async def _answer(request: Request, taken: Taken) -> JSON:
    if taken.full:
        await _start(request, taken.table_id)
    table = await in_db(request, lobby.table_of, _service(request).engine, taken.table_id)
    return {"table": table, "seat": taken.seat, "ticket": taken.ticket}


@router.get("/api/lobby/tables")
async def list_tables(request: Request) -> JSON:
    engine = _service(request).engine
    await in_db(request, lobby.recover_stale, engine)
    return {
        "tables": await in_db(request, lobby.open_tables, engine),
        "playing": await in_db(request, lobby.playing_tables, engine),
    }


@router.post("/api/lobby/tables", status_code=201)
async def make_table(body: NewTable, request: Request) -> JSON:
    user = await _who(request, body.rated)
    variant_hash = await body.stored_variant(request)
    taken = await in_db(
        request,
        lobby.create_table,
        _service(request).engine,
        body.format(variant_hash),
        _name(user, body.name, 0),
        _client(request),
        None if user is None else user.id,
    )
    return await _answer(request, taken)


@router.get("/api/lobby/tables/{table_id}")
async def get_table(table_id: str, request: Request) -> JSON:
    if len(table_id) > 64:
        raise LobbyError(404, "TABLE_NOT_FOUND", "no such table")
    engine = _service(request).engine
    await in_db(request, lobby.recover_stale, engine, table_id)  # the creator's poll finds a lost start
    return await in_db(request, lobby.table_of, engine, table_id)


@router.post("/api/lobby/tables/{table_id}/join")
async def join(table_id: str, body: JoinTable, request: Request) -> JSON:
    if len(table_id) > 64:
        raise LobbyError(404, "TABLE_NOT_FOUND", "no such table")
    engine = _service(request).engine
    table = await in_db(request, lobby.table_of, engine, table_id)
    user = await _who(request, bool(table["rated"]))
    name = _name(user, body.name, len(table["seats"]))
    taken = await in_db(
        request, lobby.join_table, engine, table_id, name, _client(request), None if user is None else user.id
    )
    return await _answer(request, taken)


@router.post("/api/lobby/tables/{table_id}/computer")
async def fill(table_id: str, body: FillTable, request: Request) -> JSON:
    same_site(request)
    engine = _service(request).engine
    await in_db(request, lobby.fill_with_computer, engine, table_id, _ticket(request))
    await _start(request, table_id, body.level)
    return await in_db(request, lobby.table_of, engine, table_id)


@router.post("/api/lobby/tables/{table_id}/leave")
async def leave(table_id: str, request: Request) -> JSON:
    same_site(request)
    engine = _service(request).engine
    await in_db(request, lobby.leave_table, engine, table_id, _ticket(request))
    return await in_db(request, lobby.table_of, engine, table_id)


class QuickMatch(NewTable):
    """A format, and the tables this browser already sits at (not to be matched with itself)."""

    exclude: list[str] = Field(default_factory=list, max_length=lobby.MAX_OPEN_PER_CLIENT * 4)


@router.post("/api/lobby/quick")
async def quick(body: QuickMatch, request: Request) -> JSON:
    user = await _who(request, body.rated)
    engine = _service(request).engine
    user_id = None if user is None else user.id
    exclude = [t[:64] for t in body.exclude]
    fmt = body.format(await body.stored_variant(request))
    for _ in range(3):  # a table found may fill under us: look again
        table_id = await in_db(request, lobby.quick_candidate, engine, fmt, exclude, user_id)
        if table_id is None:
            break
        try:
            taken = await in_db(
                request, lobby.join_table, engine, table_id, _name(user, body.name, 1), _client(request), user_id
            )
        except LobbyError as exc:
            if exc.code in ("TABLE_CLOSED", "SEAT_TAKEN"):
                continue
            raise
        return {"matched": True, **await _answer(request, taken)}
    taken = await in_db(request, lobby.create_table, engine, fmt, _name(user, body.name, 0), _client(request), user_id)
    return {"matched": False, **await _answer(request, taken)}


def install(app: FastAPI) -> None:
    """Add the lobby's routes, its page (``/lobby``) and its error answer to ``app``."""
    app.include_router(router)

    @app.get("/lobby", include_in_schema=False)
    async def lobby_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/watch/{game_id}", include_in_schema=False)
    async def watch_page(game_id: str) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.exception_handler(LobbyError)
    async def _lobby_error(_: Request, exc: LobbyError) -> JSONResponse:
        return JSONResponse({"error": {"code": exc.code, "message": exc.message}}, status_code=exc.status)
