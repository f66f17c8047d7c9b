"""The FastAPI application: the JSON API and the game WebSocket.

HTTP (all errors are ``{"error": {"code", "message", "details"?}}`` with a 4xx status):

* ``POST /api/games`` — create a game (``mode`` "ai", "hotseat" or "online", ``seats``,
  optionally ``variant``: a shipped variant's name or ``{"source", "text", "files"}``, an uploaded
  variant file, see :mod:`.variants`; a bad one is refused with 400 ``BAD_VARIANT`` and the
  parser's one-line error); answers the public summary and the invites (secret tokens, shown
  only this once), each with its ``url``: the server's ``public_url`` if it has one, else the
  address the request was sent to (the one the creator's browser uses).
* ``GET /api/games/{id}`` — the public summary; a finished game's ``result`` (the scoring,
  every ticket) only to those who may read its record (see below).
* ``POST /api/games/mine`` — ``{"games": [{"id", "token"}]}``: the summaries of those games
  whose token opens a seat (a browser's own games: it keeps its tokens, there are no accounts).
* ``GET /api/games?status=finished`` — finished games, newest first, for replay: only on a
  server started with ``public_games`` (``ttr-nordic serve --public-games``) or to its owner
  (``X-Owner-Key``), else 403.
* ``GET /api/games/{id}/record`` — the full game record, once the game is over: to a holder
  of a token of that game (header ``X-Game-Token`` or query ``token``), to the server's owner
  (header ``X-Owner-Key``, the key ``ttr-nordic serve`` reads from ``TTR_OWNER_KEY``), or to
  anyone on a server with ``public_games``.
* ``GET /api/server`` — what the pages need to know of this server (``public_games``).

WebSocket ``/ws/games/{id}?token=…[&seat=n]``: see :mod:`ttr_nordic.server.protocol`.

Per client address (see :class:`.limits.ClientLimits`): at most 20 API requests a second (100
at once; a replay step or the chances, which replay the game, count 5) and 100 page or static
requests a second (600 at once), beyond which the answer is 429
``RATE_LIMITED`` with ``Retry-After: 1``; creating a game has its own limit (``TOO_MANY_GAMES``);
at most 256 WebSockets open at once (one more is refused at the handshake, HTTP 403).
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import FastAPI, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..ai.registry import LEVELS
from ..engine import RecordError
from ..engine.variant import Variant, VariantError
from . import account_routes, lobby_routes, table_routes
from .access import TOKEN_HEADER, may_list, may_read_record
from .ai_workers import AIPool
from .clocks import parse_time_control
from .db import check_writable, default_database_url, make_engine, migrate
from .games import GameService, LiveGame, SeatSpec, StorageError
from .health import install as install_health
from .limits import (
    MAX_SOCKETS_PER_ADDRESS,
    ClientLimits,
    SecurityHeaders,
    echo_safe,
    origin_allowed,
)
from .logs import RequestContext
from .metrics import install as install_metrics
from .notify import Notifier, SmtpServer
from .notify_routes import install as install_reminders
from .pages import install as install_pages
from .player_text import clean_name
from .serialize import JSON
from .session import session
from .tokens import CreationLimit
from .variant_choice import VariantChoice, chosen_variant, one_line

log = logging.getLogger(__name__)

MAX_NAME = 40
#: The most games one ``POST /api/games/mine`` may ask about.
MAX_MINE = 200


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class SeatIn(BaseModel):
    """One seat of a new game: a person, or an AI at a level (easy, medium, hard, expert)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["human", "ai"] = "human"
    name: str | None = Field(default=None, max_length=MAX_NAME)
    level: str | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        return None if value is None else clean_name(value)

    @model_validator(mode="after")
    def _level(self) -> SeatIn:
        if self.kind == "ai":
            level = (self.level or "").strip().lower()
            if level not in LEVELS:
                raise ValueError(f"an AI seat needs a level: one of {', '.join(LEVELS)}")
            self.level = level
        elif self.level is not None:
            raise ValueError("only AI seats have a level")
        return self


class CreateGame(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: Literal["ai", "hotseat", "online"]
    seats: list[SeatIn] = Field(min_length=2, max_length=3)
    first_player: int | None = Field(default=None, ge=0, le=2)
    rated: bool = False  # between accounts only (see account_routes)
    # {"kind": "realtime", "per_move_s": 60, "reserve_s": 300}, {"kind": "turn", "per_move_s": 86400}
    # or null: checked by clocks.parse_time_control.
    time_control: dict[str, Any] | None = None
    # The rules: a shipped variant's name ("short-game"; default "official") or an uploaded file.
    variant: VariantChoice = None

    @model_validator(mode="after")
    def _composition(self) -> CreateGame:
        humans = sum(1 for s in self.seats if s.kind == "human")
        if self.rated and self.mode != "online":
            raise ValueError("only an online game between people can be rated")
        if self.rated and self.variant not in (None, "official"):
            raise ValueError("a rated game is played under the official rules")
        if self.mode == "ai" and humans != 1:
            raise ValueError("an 'ai' game has exactly 1 human seat and 1 or 2 AI seats")
        if self.mode != "ai" and humans != len(self.seats):
            raise ValueError(f"a '{self.mode}' game has only human seats (2 or 3)")
        if self.first_player is not None and self.first_player >= len(self.seats):
            raise ValueError(f"first_player must be a seat number below {len(self.seats)}")
        parse_time_control(self.time_control)  # a TimeControlError (a ValueError) says what is wrong
        return self

    def specs(self) -> list[SeatSpec]:
        out = []
        for index, seat in enumerate(self.seats):
            if seat.kind == "ai":
                name = seat.name or f"Computer {index + 1} ({seat.level})"
            else:
                name = seat.name or f"Player {index + 1}"
            out.append(SeatSpec(name, seat.kind, seat.level))
        return out

    def rules(self) -> Variant:
        """The variant asked for, checked for this many players; raises :class:`VariantError`."""
        return chosen_variant(self.variant, len(self.seats))


class GameToken(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=64)
    token: str = Field(min_length=1, max_length=128)


class MyGames(BaseModel):
    """The games a browser took part in, each with the token it holds."""

    model_config = ConfigDict(extra="forbid")

    games: list[GameToken] = Field(max_length=MAX_MINE)


def check_record_access(request: Request, game: LiveGame) -> None:
    """Refuse (403) a game's record to a request that may not read it (see :mod:`.access`)."""
    if not may_read_record(request, game):
        raise ApiError(
            403,
            "TOKEN_REQUIRED",
            f"a game's record is shown to its players only: send a token of this game ({TOKEN_HEADER})",
        )


def _error(status: int, code: str, message: str, details: Any = None) -> JSONResponse:
    body: JSON = {"code": code, "message": message}
    if details is not None:
        body["details"] = details
    return JSONResponse({"error": body}, status_code=status)


#: The garbage collector's first threshold in a server process (Python's default is 700).
SERVER_GC_THRESHOLD = 10_000


def tune_gc_for_server() -> None:
    """Set the garbage collector up for a server process (one app, running long).

    What is alive once the app has started (modules, the board, the database engine) is
    left out of later collections (:func:`gc.freeze`), and the youngest generation is
    collected after 10,000 new objects rather than 700, so a game state replaced on the next
    move is freed by reference counting before a collection sees it and is not carried into
    the older generations. In the load benchmark (4,000 moves of 100 games) this removed
    the full collections (two or three a run, 25-100 ms each, the event loop paused) and
    halved the time spent collecting."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(SERVER_GC_THRESHOLD, older, oldest)


def create_app(
    database_url: str | None = None,
    *,
    tune_gc: bool = False,
    ai_workers: int | None = None,
    ray_address: str | None = None,
    idle_unload_s: float = 600.0,
    games_per_minute: float = 20.0,
    warm_ai: bool = False,
    public_games: bool = False,
    public_url: str | None = None,
    owner_key: str | None = None,
    allowed_origins: Sequence[str] = (),
    sockets_per_address: int = MAX_SOCKETS_PER_ADDRESS,
    smtp_url: str | None = None,
    mail_from: str = "reminders@localhost",
    clock_poll_s: float = 1.0,
    remind_after_s: float = 60.0,
) -> FastAPI:
    """The application, storing games at ``database_url`` (default: a SQLite file in the
    user's data directory). The schema is migrated when the app starts; then, with
    ``tune_gc`` (``ttr-nordic serve``), :func:`tune_gc_for_server`. AI decisions run in
    ``ai_workers`` processes (default: one per core but one) or, with ``ray_address``, on Ray;
    games nobody uses leave memory after ``idle_unload_s``; each client address may create
    ``games_per_minute`` games (10 at once). With ``warm_ai`` the AI workers start with the app
    rather than at the first AI decision. With ``public_games``
    anyone may list finished games and read their records (else only their players may);
    ``public_url`` (e.g. ``http://192.168.1.20:8000``) is the address invite links use
    instead of the one the creator's browser used. A request with the header ``X-Owner-Key:
    owner_key`` may list every finished game and read every record (the server's owner).
    Each client address may make :data:`.limits.API_REQUESTS_PER_SECOND` API requests a second
    (429 beyond) and hold ``sockets_per_address`` WebSockets open (see :class:`.limits.ClientLimits`).
    Clocks (see :mod:`.clocks`) are looked at every ``clock_poll_s``; a player of an account-held seat
    whose turn in a turn-based game began ``remind_after_s`` ago is reminded (see :mod:`.notify`), by
    e-mail through ``smtp_url`` (from ``mail_from``) when given."""
    url = database_url or default_database_url()
    smtp = None if smtp_url is None else SmtpServer.of(smtp_url, mail_from)  # a bad URL: refused now, in one line
    creation = CreationLimit(per_minute=games_per_minute)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(url)
        await asyncio.to_thread(migrate, engine)
        await asyncio.to_thread(check_writable, engine)  # a read-only database: refuse to start, saying why
        service = GameService(engine, AIPool(ai_workers, ray_address=ray_address), idle_unload_s=idle_unload_s)
        service.start(warm_ai=warm_ai)
        app.state.service = service
        await account_routes.start(app, service)
        notifier = Notifier(service, smtp, app.state.public_url or "http://localhost")
        app.state.notifier = notifier
        service.clocks.poll_s, service.clocks.remind_after_s = clock_poll_s, remind_after_s
        service.clocks.remind = notifier.remind
        if tune_gc:
            tune_gc_for_server()
        try:
            yield
        finally:
            await service.close()
            engine.dispose()

    app = FastAPI(title="Ticket to Ride: Nordic Countries", lifespan=lifespan)
    app.state.database_url = url
    app.state.public_games = public_games
    app.state.public_url = public_url.rstrip("/") if public_url else None
    # WebSockets come from the server's own pages (whatever address they were opened at), the
    # public URL's origin, and origins the owner names (e.g. a reverse proxy's).
    origins = [o.rstrip("/") for o in allowed_origins]
    if app.state.public_url:
        parts = urlsplit(app.state.public_url)
        origins.append(f"{parts.scheme}://{parts.netloc}")
    app.state.allowed_origins = frozenset(origins)
    # Inside SecurityHeaders, so that a 429 carries the headers too.
    app.add_middleware(ClientLimits, sockets_per_address=sockets_per_address)
    app.add_middleware(SecurityHeaders)
    app.state.owner_key = owner_key or None

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        # Each detail's type: pydantic's (e.g. "string_too_long") or this server's code (e.g.
        # "NAME_BLANK", see player_text.py), with its numbers: the pages word it from these.
        details = [
            {
                "location": [str(p) for p in e.get("loc", ())],
                "message": str(e.get("msg", "")),
                "type": str(e.get("type", "")),
                "context": {k: v for k, v in (e.get("ctx") or {}).items() if isinstance(v, (int, float, str))},
            }
            for e in exc.errors()
        ]
        message = "; ".join(f"{'.'.join(d['location'])}: {d['message']}" for d in details) or "invalid request"
        return _error(422, "VALIDATION_ERROR", message, details)

    @app.exception_handler(SQLAlchemyError)
    async def _database(_: Request, exc: SQLAlchemyError) -> JSONResponse:
        log.error("database error: %s", exc)
        return _error(503, "STORAGE_UNAVAILABLE", f"the game database refused the request: {_database_reason(exc)}")

    @app.exception_handler(StorageError)
    async def _storage(_: Request, exc: StorageError) -> JSONResponse:
        return _error(503, "STORAGE_UNAVAILABLE", str(exc))

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return _error(500, "INTERNAL_ERROR", "the server failed to answer this request (see its log)")

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(exc.status_code, "HTTP_ERROR")
        return _error(exc.status_code, code, str(exc.detail))

    def service_of(request: Request | WebSocket) -> GameService:
        service: GameService = request.app.state.service
        return service

    async def load(service: GameService, game_id: str) -> LiveGame:
        try:
            game = await service.get(game_id)
        except RecordError as exc:
            raise ApiError(500, "CORRUPT_GAME", str(exc)) from exc
        if game is None:
            raise ApiError(404, "GAME_NOT_FOUND", f"no game {game_id!r}")
        return game

    @app.post("/api/games", status_code=201)
    async def create_game(body: CreateGame, request: Request) -> JSON:
        client = request.client.host if request.client else "unknown"
        service = service_of(request)
        # Several processes on PostgreSQL share the buckets (in the database); one process
        # (SQLite) keeps them in memory.
        if service.shared:
            allowed = await service.take_creation_token(client, creation.rate * 60.0, int(creation.burst))
        else:
            allowed = creation.allow(client)
        if not allowed:
            raise ApiError(429, "TOO_MANY_GAMES", "too many new games from this address: wait a minute and try again")
        try:
            # A large upload takes milliseconds to check: in a thread, so the event loop serves the others meanwhile.
            variant = await asyncio.to_thread(body.rules)
        except VariantError as exc:
            raise ApiError(400, "BAD_VARIANT", one_line(exc)) from exc
        creator = await account_routes.rated_creator(request, body.rated)
        game, tokens = await service.create(
            body.mode, body.specs(), body.first_player, owner=client, time_control=body.time_control, variant=variant
        )
        await account_routes.game_created(request, game, tokens, creator)
        # The address the creator's browser used (so a home network's address works as is),
        # unless the owner gave the server a public one.
        base = request.app.state.public_url or str(request.base_url).rstrip("/")
        invites: list[JSON] = []
        for token in dict.fromkeys(tokens.values()):
            seats = [seat for seat, t in tokens.items() if t == token]
            path = f"/play/{game.id}?seat={token}"
            invites.append(
                {
                    "seats": seats,
                    "names": [game.seats[s].name for s in seats],
                    "token": token,
                    "path": path,
                    "url": base + path,
                }
            )
        return {"game": game.summary(), "invites": invites}

    @app.get("/api/server")
    async def server_info(request: Request) -> JSON:
        return {"public_games": request.app.state.public_games}

    @app.get("/api/games")
    async def list_games(
        request: Request,
        status: Literal["finished"] = "finished",
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> JSON:
        if not may_list(request):
            raise ApiError(
                403,
                "LIST_NOT_PUBLIC",
                "this server lists no games: each browser sees its own (POST /api/games/mine); "
                "its owner can make finished games public (ttr-nordic serve --public-games)",
            )
        return {"games": await service_of(request).finished(limit, offset)}

    @app.post("/api/games/mine")
    async def my_games(body: MyGames, request: Request) -> JSON:
        pairs = list({g.id: g.token for g in body.games}.items())
        games, unknown = await service_of(request).mine(pairs)
        return {"games": games, "unknown": unknown}

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str, request: Request) -> JSON:
        game = await load(service_of(request), game_id)
        summary = game.summary()
        if summary["result"] is not None and not may_read_record(request, game):
            summary["result"] = None  # the scoring (every ticket) goes with the record: players only
        return summary

    @app.get("/api/games/{game_id}/record")
    async def get_record(game_id: str, request: Request) -> JSON:
        game = await load(service_of(request), game_id)
        check_record_access(request, game)
        if not game.state.is_over:
            raise ApiError(409, "GAME_NOT_FINISHED", "the record is available once the game is over")
        return game.record().to_dict()

    @app.websocket("/ws/games/{game_id}")
    async def play(ws: WebSocket, game_id: str) -> None:
        # A browser always sends Origin: a page of another site may not play with a visitor's links.
        if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), app.state.allowed_origins):
            await ws.close(code=1008, reason="origin not allowed")
            return
        await ws.accept()
        await session(ws, service_of(ws), game_id)

    account_routes.install(app)  # accounts, profiles and ratings
    lobby_routes.install(app)  # the lobby's tables and quick match
    table_routes.install(app)  # a game's chat and its spectators
    install_reminders(app)  # reminder settings, push subscriptions, the service worker
    install_pages(app)  # the browser game: pages, static files, board and replay routes
    install_health(app)  # /healthz, /readyz
    install_metrics(app)  # /metrics
    app.add_middleware(RequestContext)  # request and game ids in the log
    return app


def _database_reason(exc: SQLAlchemyError) -> str:
    text = str(getattr(exc, "orig", None) or exc).splitlines()[0]
    return echo_safe(text[:160])
