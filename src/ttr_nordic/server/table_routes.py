"""HTTP and WebSocket routes at a game's table: its chat and its spectators.

* ``GET /api/games/{id}/chat?after=N`` — the messages after id ``N`` (at most 100): to the
  game's players (a token, ``X-Game-Token``), and to anyone for a public game (a lobby table's).
* ``POST /api/games/{id}/chat`` ``{"text"}`` or ``{"phrase": "hello"|"gg"|"wp"|"thinking"}``
  (header ``X-Game-Token``) — a player writes (see :mod:`.chat` for the bounds).
* ``GET /api/games/{id}/watch`` — the public view (see :mod:`.spectate`) of a public game.
* ``GET /api/games/{id}/rematch`` — the seats that accepted a rematch and its ``new_game_id``;
  ``POST`` (header ``X-Game-Token``) — a player of a finished game between people accepts;
  the last acceptance makes the new game (see :mod:`.rematch`).
* WebSocket ``/ws/watch/{id}`` — the public view, sent again whenever the game moves:
  ``{"type": "public", "actions": n, "view": {...}}``; a spectator sends nothing (a message
  from it closes the socket). At most :data:`MAX_SPECTATORS` per game on a process.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
from typing import Annotated

from fastapi import APIRouter, FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field, model_validator
from starlette.requests import HTTPConnection

from ..engine import RecordError
from . import chat, lobby, rematch
from .access import TOKEN_HEADER, request_token
from .account_routes import in_db
from .games import GameService, LiveGame, SeatSpec, hash_token
from .limits import origin_allowed
from .lobby import LobbyError
from .serialize import JSON
from .spectate import serialize_public

MAX_SPECTATORS = 100
#: How often a spectator's socket looks for a new move (seconds).
WATCH_POLL_S = 0.5


class ChatIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(default=None, max_length=2 * chat.MAX_CHARS)
    phrase: str | None = Field(default=None, max_length=16)

    @model_validator(mode="after")
    def _one(self) -> ChatIn:
        if (self.text is None) == (self.phrase is None):
            raise ValueError("send either a text or a phrase")
        if self.phrase is not None and self.phrase not in chat.PHRASES:
            raise ValueError(f"a phrase is one of {', '.join(chat.PHRASES)}")
        if self.text is not None:
            self.text = chat.clean_text(self.text)
        return self

    def message(self) -> str:
        return chat.PHRASES[self.phrase] if self.phrase is not None else str(self.text)


router = APIRouter()
_rate = chat.ChatRate()
_watchers: dict[str, int] = {}


def _service(connection: HTTPConnection) -> GameService:
    service: GameService = connection.app.state.service
    return service


async def _game(connection: HTTPConnection, game_id: str) -> LiveGame:
    if len(game_id) > 64:
        raise LobbyError(404, "GAME_NOT_FOUND", "no such game")
    try:
        game = await _service(connection).get(game_id)
    except RecordError as exc:
        raise LobbyError(500, "CORRUPT_GAME", str(exc)) from exc
    if game is None:
        raise LobbyError(404, "GAME_NOT_FOUND", f"no game {game_id!r}")
    return game


def seat_of_token(game: LiveGame, token: str) -> int | None:
    """The first seat of ``game`` that ``token`` opens, or None."""
    if not token:
        return None
    digest = hash_token(token)
    for seat in game.seats:
        if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
            return seat.seat
    return None


async def _may_watch(connection: HTTPConnection, game: LiveGame) -> bool:
    return await in_db(connection, lobby.is_lobby_game, _service(connection).engine, game.id)


@router.get("/api/games/{game_id}/chat")
async def read_chat(game_id: str, request: Request, after: Annotated[int, Query(ge=0)] = 0) -> JSON:
    game = await _game(request, game_id)
    if seat_of_token(game, request_token(request)) is None and not await _may_watch(request, game):
        raise LobbyError(403, "TOKEN_REQUIRED", f"this game's chat is its players': send a token ({TOKEN_HEADER})")
    return {"messages": await in_db(request, chat.read, _service(request).engine, game.id, after)}


@router.post("/api/games/{game_id}/chat", status_code=201)
async def write_chat(game_id: str, body: ChatIn, request: Request) -> JSON:
    game = await _game(request, game_id)
    seat = seat_of_token(game, request.headers.get(TOKEN_HEADER, ""))
    if seat is None:
        raise LobbyError(403, "PLAYERS_ONLY", f"only the game's players write in its chat ({TOKEN_HEADER})")
    if not _rate.allow((game.id, seat)):
        raise LobbyError(
            429, "CHAT_TOO_FAST", f"at most {chat.BURST} messages in {chat.WINDOW_S:g} seconds: wait a little"
        )
    author = game.seats[seat].name
    return await in_db(request, chat.post, _service(request).engine, game.id, seat, author, body.message())


@router.get("/api/games/{game_id}/watch")
async def watch(game_id: str, request: Request) -> JSON:
    game = await _game(request, game_id)
    if not await _may_watch(request, game):
        raise LobbyError(403, "NOT_PUBLIC", "only games started from the lobby can be watched")
    return {"game": game.summary(), "view": serialize_public(game.state)}


@router.get("/api/games/{game_id}/rematch")
async def rematch_offer(game_id: str, request: Request) -> JSON:
    game = await _game(request, game_id)
    if seat_of_token(game, request_token(request)) is None and not await _may_watch(request, game):
        raise LobbyError(403, "TOKEN_REQUIRED", f"send a token of this game ({TOKEN_HEADER})")
    return await in_db(request, rematch.offer_of, _service(request).engine, game.id)


@router.post("/api/games/{game_id}/rematch")
async def accept_rematch(game_id: str, request: Request) -> JSON:
    game = await _game(request, game_id)
    seat = seat_of_token(game, request.headers.get(TOKEN_HEADER, ""))
    if seat is None:
        raise LobbyError(403, "PLAYERS_ONLY", f"only the game's players accept a rematch ({TOKEN_HEADER})")
    if not game.state.is_over:
        raise LobbyError(409, "GAME_NOT_FINISHED", "a rematch is offered once the game is over")
    if game.mode != "online" or any(s.kind != "human" for s in game.seats):
        raise LobbyError(409, "NOT_BETWEEN_PEOPLE", "a rematch is for games between people (online, no computer)")
    service = _service(request)
    if await in_db(request, rematch.accept, service.engine, game.id, seat, len(game.seats)):
        specs = [SeatSpec(s.name, "human", None) for s in game.seats]
        hashes = {s.seat: s.token_hash for s in game.seats if s.token_hash}
        try:
            new_game, _ = await service.create(
                "online",
                specs,
                None,
                owner=request.client and request.client.host,
                token_hashes=hashes,
                time_control=None if game.clock is None else game.clock.control,  # same pace, new deal
                variant=game.state.variant,  # and the same rules
            )
        except Exception:
            await in_db(request, rematch.reopen, service.engine, game.id)
            raise
        await in_db(request, rematch.made, service.engine, game.id, new_game.id)
    return await in_db(request, rematch.offer_of, service.engine, game.id)


async def _watch_socket(ws: WebSocket, game_id: str) -> None:
    try:
        game = await _game(ws, game_id)
        public = await _may_watch(ws, game)
    except LobbyError as exc:
        await ws.send_json({"type": "error", "code": exc.code, "message": exc.message})
        await ws.close(code=1008)
        return
    if not public:
        await ws.send_json({"type": "error", "code": "NOT_PUBLIC", "message": "this game cannot be watched"})
        await ws.close(code=1008)
        return
    if _watchers.get(game.id, 0) >= MAX_SPECTATORS:
        await ws.send_json(
            {"type": "error", "code": "TOO_MANY_SPECTATORS", "message": "this game has enough spectators"}
        )
        await ws.close(code=1013)
        return
    _watchers[game.id] = _watchers.get(game.id, 0) + 1

    async def incoming() -> None:
        await ws.receive_text()  # a spectator has nothing to say: anything it sends ends the watch

    reader = asyncio.create_task(incoming())
    try:
        sent = -1
        while not reader.done():
            game = await _game(ws, game_id)  # a game unloaded while idle comes back by replay
            actions = len(game.state.history)
            if actions != sent:
                await ws.send_json({"type": "public", "actions": actions, "view": serialize_public(game.state)})
                sent = actions
            await asyncio.wait({reader}, timeout=WATCH_POLL_S)
    except (WebSocketDisconnect, LobbyError):
        pass
    finally:
        reader.cancel()
        with contextlib.suppress(BaseException):
            await reader
        _watchers[game_id] -= 1
        if not _watchers[game_id]:
            del _watchers[game_id]
        with contextlib.suppress(Exception):
            await ws.close()


def install(app: FastAPI) -> None:
    """Add the chat and watching routes to ``app`` (the lobby's error answer covers them)."""
    app.include_router(router)

    @app.websocket("/ws/watch/{game_id}")
    async def watch_socket(ws: WebSocket, game_id: str) -> None:
        if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), app.state.allowed_origins):
            await ws.close(code=1008, reason="origin not allowed")
            return
        await ws.accept()
        await _watch_socket(ws, game_id)
