"""The FastAPI application: the JSON API and the game WebSocket.

HTTP (all errors are ``{"error": {"code", "message", "details"?}}`` with a 4xx status):

* ``POST /api/games`` — create a game (``mode`` "ai", "hotseat" or "online", ``seats``);
  answers the public summary and the invites (secret tokens, shown only this once), each
  with its ``url``: the server's ``public_url`` if it has one, else the address the request
  was sent to (the one the creator's browser uses).
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
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import time
import unicodedata
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..ai.registry import LEVELS
from ..engine import IllegalActionError, NotationError, RecordError, parse_action
from .access import TOKEN_HEADER, may_list, may_read_record
from .ai_workers import AIPool
from .db import check_writable, default_database_url, make_engine, migrate
from .games import Client, GameService, LiveGame, SeatPresent, SeatSpec, StorageError
from .health import install as install_health
from .limits import (
    CLOSE_FLOODING,
    CLOSE_NOT_READING,
    MAX_MESSAGE_BYTES,
    MAX_REFUSED,
    MessageRate,
    SecurityHeaders,
    echo,
    echo_safe,
    origin_allowed,
)
from .logs import RequestContext
from .metrics import install as install_metrics
from .pages import install as install_pages
from .serialize import JSON

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
        if value is None:
            return None
        if any(unicodedata.category(char) in ("Cc", "Cs", "Cf", "Co", "Cn") for char in value):
            raise ValueError("a name cannot contain control or invisible characters")
        value = " ".join(value.split())
        if not value:
            raise ValueError("a name cannot be blank")
        return value

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

    @model_validator(mode="after")
    def _composition(self) -> CreateGame:
        humans = sum(1 for s in self.seats if s.kind == "human")
        if self.mode == "ai" and humans != 1:
            raise ValueError("an 'ai' game has exactly 1 human seat and 1 or 2 AI seats")
        if self.mode != "ai" and humans != len(self.seats):
            raise ValueError(f"a '{self.mode}' game has only human seats (2 or 3)")
        if self.first_player is not None and self.first_player >= len(self.seats):
            raise ValueError(f"first_player must be a seat number below {len(self.seats)}")
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


class CreationLimit:
    """A token bucket per client address: ``burst`` games at once, then ``per_minute``."""

    def __init__(self, per_minute: float = 20.0, burst: int = 10, clients: int = 10_000) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.clients = clients
        self.buckets: dict[str, tuple[float, float]] = {}

    def allow(self, client: str, now: float | None = None) -> bool:
        moment = time.monotonic() if now is None else now
        tokens, last = self.buckets.pop(client, (self.burst, moment))
        tokens = min(self.burst, tokens + (moment - last) * self.rate)
        allowed = tokens >= 1.0
        self.buckets[client] = (tokens - 1.0 if allowed else tokens, moment)
        if len(self.buckets) > self.clients:  # forget the longest-unseen clients
            for key in list(self.buckets)[: len(self.buckets) - self.clients]:
                del self.buckets[key]
        return allowed


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
    owner_key`` may list every finished game and read every record (the server's owner)."""
    url = database_url or default_database_url()
    creation = CreationLimit(per_minute=games_per_minute)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(url)
        await asyncio.to_thread(migrate, engine)
        await asyncio.to_thread(check_writable, engine)  # a read-only database: refuse to start, saying why
        service = GameService(engine, AIPool(ai_workers, ray_address=ray_address), idle_unload_s=idle_unload_s)
        service.start(warm_ai=warm_ai)
        app.state.service = service
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
    app.add_middleware(SecurityHeaders)
    app.state.owner_key = owner_key or None

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        details = [
            {"location": [str(p) for p in e.get("loc", ())], "message": str(e.get("msg", ""))} for e in exc.errors()
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
        game, tokens = await service.create(body.mode, body.specs(), body.first_player)
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
        await _session(ws, service_of(ws), game_id)

    install_pages(app)  # the browser game: pages, static files, board and replay routes
    install_health(app)  # /healthz, /readyz
    install_metrics(app)  # /metrics
    app.add_middleware(RequestContext)  # request and game ids in the log
    return app


def _database_reason(exc: SQLAlchemyError) -> str:
    text = str(getattr(exc, "orig", None) or exc).splitlines()[0]
    return echo_safe(text[:160])


def _error_message(code: str, message: str, **extra: Any) -> JSON:
    return {"type": "error", "code": code, "message": message, **extra}


async def _refuse(ws: WebSocket, code: str, message: str, close_code: int) -> None:
    await ws.send_json(_error_message(code, message))
    await ws.close(code=close_code)


async def _writer(ws: WebSocket, client: Client) -> None:
    queue = client.queue
    while True:
        message = await queue.get()
        if message is None:
            with contextlib.suppress(Exception):
                if client.dropped:
                    await ws.close(code=CLOSE_NOT_READING, reason="not reading its messages")
                else:
                    await ws.close()
            return
        client.queued_bytes -= len(message)
        await ws.send_text(message)


async def _session(ws: WebSocket, service: GameService, game_id: str) -> None:
    try:
        game = await service.get(game_id)
    except RecordError as exc:
        await _refuse(ws, "CORRUPT_GAME", str(exc), 1011)
        return
    if game is None:
        await _refuse(ws, "GAME_NOT_FOUND", f"no game {game_id!r}", 4404)
        return
    token = ws.query_params.get("token", "")
    seats = game.seats_for(token) if token else frozenset()
    if not seats:
        await _refuse(ws, "BAD_TOKEN", "this token does not open a seat in this game", 4401)
        return
    decision = game.state.decision.player
    shown = decision if decision in seats else min(seats)
    wanted = ws.query_params.get("seat")
    if wanted is not None:
        if not (wanted.isascii() and wanted.isdigit()) or int(wanted) not in seats:
            await _refuse(ws, "NOT_YOUR_SEAT", f"this token does not control seat {echo(wanted)!r}", 4403)
            return
        shown = int(wanted)
    client = Client(seats, shown, presence=ws.query_params.get("presence") == "1")
    async with game.lock:
        game.clients.add(client)
        service.joined(game, client)
        game.show(client)
        game.announce_presence()
    writer = asyncio.get_running_loop().create_task(_writer(ws, client))
    rate = MessageRate()
    try:
        while True:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                break
            if client.dropped:
                break
            if not rate.allow():
                if rate.refused_in_a_row >= MAX_REFUSED:
                    await ws.close(code=CLOSE_FLOODING, reason="too many messages")
                    break
                if rate.refused_in_a_row == 1:
                    client.send(_error_message("RATE_LIMITED", "too many messages: slow down"))
                continue
            text = frame.get("text")
            if text is None:
                client.send(_error_message("BAD_MESSAGE", "messages are JSON text frames"))
                continue
            if len(text) > MAX_MESSAGE_BYTES:  # uvicorn refuses larger frames before this; checked again here
                client.send(_error_message("TOO_LARGE", f"a message is at most {MAX_MESSAGE_BYTES} bytes"))
                continue
            await _handle(service, game, client, text)
    except WebSocketDisconnect:
        pass
    finally:
        service.release(game, client)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer


def _seat_field(data: dict[str, Any], client: Client) -> int | str:
    """The seat a message names (default: the one the client is shown), or an error code."""
    if "seat" not in data:
        return client.shown
    seat = data["seat"]
    if not isinstance(seat, int) or isinstance(seat, bool):
        return "BAD_MESSAGE"
    if seat not in client.seats:
        return "NOT_YOUR_SEAT"
    return seat


async def _handle(service: GameService, game: LiveGame, client: Client, text: str) -> None:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested too deep
        client.send(_error_message("BAD_MESSAGE", "not valid JSON"))
        return
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        client.send(_error_message("BAD_MESSAGE", 'a message is a JSON object with a string "type"'))
        return
    kind = data["type"]
    if kind == "ping":
        client.send({"type": "pong"})
        return
    if kind in ("hand_over", "hand_back"):
        await _hand_over(service, game, client, data)
        return
    if kind not in ("act", "view", "hint"):
        client.send(
            _error_message(
                "UNKNOWN_TYPE", f"unknown message type {echo(kind)!r} (act, view, hint, hand_over, hand_back or ping)"
            )
        )
        return
    seat = _seat_field(data, client)
    if seat == "BAD_MESSAGE":
        client.send(_error_message("BAD_MESSAGE", '"seat" must be a seat number'))
        return
    if seat == "NOT_YOUR_SEAT":
        client.send(_error_message("NOT_YOUR_SEAT", f"you do not control seat {echo(str(data['seat']))}"))
        return
    assert isinstance(seat, int)
    if kind == "hint":
        # Searched in a task: the socket keeps reading (and acting) while the expert thinks.
        if game.mode != "ai":
            client.send(_error_message("HINTS_OFF", "hints are offered in games against the computer"))
        elif client.hinting:
            client.send(_error_message("HINT_BUSY", "a hint is on its way already"))
        elif game.state.is_over or game.state.decision.player != seat or game.seats[seat].kind != "human":
            client.send(_error_message("NO_DECISION", f"seat {seat} has no decision to make now"))
        else:
            client.hinting = True
            task = asyncio.get_running_loop().create_task(_hint(service, game, client, seat))
            _hint_tasks.add(task)
            task.add_done_callback(_hint_tasks.discard)
        return
    if kind == "view":
        async with game.lock:
            client.shown = seat
            client.log_seat = -1  # the whole log: the client may have asked because its own is off
            client.send(game.state_text(client))
        return
    if game.seats[seat].kind != "human":
        client.send(_error_message("SEAT_HANDED_OVER", f"seat {seat} is played by the computer now"))
        return
    notation = data.get("action")
    if not isinstance(notation, str):
        client.send(_error_message("BAD_MESSAGE", '"act" needs an "action" string in notation, e.g. "B"'))
        return
    expected = data.get("expected")
    if expected is not None and (not isinstance(expected, int) or isinstance(expected, bool)):
        client.send(_error_message("BAD_MESSAGE", '"expected" must be the number of actions the client saw'))
        return
    shown = echo(notation)
    try:
        action = parse_action(notation)
    except NotationError as exc:
        # The parser's reason quotes the input: only when that is short (a move is a few characters).
        reason = str(exc) if len(notation) <= 64 else "an action is a few characters of notation, such as 'B'"
        client.send(_error_message("BAD_ACTION", echo_safe(reason), action=shown))
        return
    try:
        if not await service.act(game, seat, action, expected):
            if game.seats[seat].kind != "human":  # handed to the computer meanwhile (maybe on another process)
                client.send(
                    _error_message("SEAT_HANDED_OVER", f"seat {seat} is played by the computer now", action=shown)
                )
            else:
                # A stale click (another tab of this seat acted first): refuse, and show the game as it is.
                client.send(_error_message("STALE", "the game moved on since you chose; here it is now", action=shown))
            async with game.lock:
                client.send(game.state_text(client))
    except IllegalActionError as exc:
        client.send(_error_message(exc.reason.name, exc.detail, action=shown))
    except StorageError as exc:
        client.send(_error_message("STORAGE_ERROR", str(exc), action=shown))
        for other in list(game.clients):
            other.send(None)  # close: clients reconnect to the game as stored


#: Hints being searched (a reference, so that a running task is not collected).
_hint_tasks: set[asyncio.Task[None]] = set()
#: The agent a hint asks.
HINT_LEVEL = "expert"


async def _hint(service: GameService, game: LiveGame, client: Client, seat: int) -> None:
    """What the expert would do in ``seat``'s place now: searched in an AI worker on that
    seat's view only, like a computer seat's move."""
    try:
        asked = len(game.state.history)
        legal = [action.notation() for action in game.state.legal_action_list()]
        notation = await service.ai.decide(game.decision_job(seat, HINT_LEVEL), legal, fallback=False)
        client.send({"type": "hint", "seat": seat, "actions": asked, "action": notation})
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.warning("hint for seat %d of game %s failed: %s", seat, game.id, exc)
        client.send(_error_message("HINT_FAILED", "no hint this time: try again"))
    finally:
        client.hinting = False


async def _hand_over(service: GameService, game: LiveGame, client: Client, data: dict[str, Any]) -> None:
    """``{"type": "hand_over", "seat": n, "level": "medium"}``: the game's creator (the
    holder of seat 0's token, in an online game) gives a seat whose player has gone away
    (no connection now) to the computer. ``{"type": "hand_back", "seat": n}``: the creator
    gives such a seat back to its player, once that player is connected again."""
    back = data["type"] == "hand_back"
    seat, level = data.get("seat"), data.get("level")
    if not isinstance(seat, int) or isinstance(seat, bool) or (not back and not isinstance(level, str)):
        client.send(
            _error_message("BAD_MESSAGE", f'"{data["type"]}" needs a seat number' + ("" if back else " and a level"))
        )
        return
    if not back and level not in LEVELS:
        client.send(_error_message("BAD_MESSAGE", f"level must be one of {', '.join(LEVELS)}"))
        return
    if game.mode != "online" or 0 not in client.seats:
        client.send(_error_message("NOT_CREATOR", "only the game's creator can hand a seat over or back"))
        return
    if not 0 <= seat < len(game.seats) or seat in client.seats:
        client.send(_error_message("BAD_SEAT", f"seat {seat} is not another player's seat"))
        return
    present = await service.seat_present(game, seat)  # connected here or to another server process
    if not back and present:
        client.send(_error_message("SEAT_PRESENT", f"{game.seats[seat].name} is connected: only an absent seat"))
        return
    if back and not present:
        client.send(_error_message("SEAT_ABSENT", f"{game.seats[seat].name} is not connected: nobody to give it to"))
        return
    try:
        if back:
            await service.hand_back(game, seat)
        else:
            assert isinstance(level, str)
            await service.hand_over(game, seat, level)
    except SeatPresent:  # its player connected meanwhile (maybe to another server process)
        client.send(_error_message("SEAT_PRESENT", f"{game.seats[seat].name} is connected: only an absent seat"))
    except ValueError as exc:
        client.send(_error_message("BAD_SEAT", str(exc)))
    except StorageError as exc:
        client.send(_error_message("STORAGE_ERROR", str(exc)))
