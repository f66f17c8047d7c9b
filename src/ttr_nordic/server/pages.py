"""The browser game's HTTP routes (the files themselves are the asset package :mod:`ttr_nordic.web`).

* ``/`` — the start page; ``/play/{id}?seat=TOKEN`` — the game page; ``/replay/{id}`` — the
  replay viewer (all the same single page, ``static/index.html``, which reads the path).
* ``/static/...`` — ES modules, CSS and the map data (``land.json``, see ``scripts/make_land.py``).
* ``GET /i18n/{language}.json`` — the page's messages in one language (see :mod:`ttr_nordic.web.i18n`).
* ``GET /api/board`` — the board (cities with lat/lon, routes, tickets) for drawing the map.
* ``GET /api/games/{id}/board`` — the board of that game (its variant's: ``custom`` true for a
  custom board, whose map is drawn from its cities' x/y with no land around it).
* ``GET /api/variants`` — the shipped rule variants a new game may be played under (see
  :mod:`.variants`).
* ``GET /api/games/{id}/replay/{step}`` — for a finished game only: the state after ``step``
  actions with every hand and ticket shown (the game is over, nothing is secret any more);
  like the record, only to a holder of a token of that game (``X-Game-Token`` or ``token``)
  unless the server's owner made finished games public.
* ``GET /api/games/{id}/chances`` — for a finished game, with the same rule: each player's
  chance to win after each step (the value model on each player's own view then, see
  :mod:`ttr_nordic.ai.value.curve`) and the game's key moments (largest swings).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from functools import lru_cache
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from starlette.staticfiles import StaticFiles

from ..ai.value.curve import key_moments, replay_curve
from ..engine import Board, GameState, RecordError, load_board
from ..web import STATIC
from ..web.i18n import LANGUAGES, catalogue
from .access import may_read_record
from .live import parse_for
from .serialize import board_json as serialize_board
from .serialize import serialize_log_entry, serialize_result, serialize_view
from .variants import describe, shipped

JSON = dict[str, Any]


@lru_cache(maxsize=1)
def board_json() -> JSON:
    """The static board as JSON: what the map needs, with the engine's ids."""
    return serialize_board(load_board())


#: Custom boards as JSON, by board (interned by the engine: one object per distinct board).
_CUSTOM_BOARDS: OrderedDict[int, tuple[Board, JSON]] = OrderedDict()


def game_board_json(state: GameState) -> JSON:
    """The board of ``state``'s game as the map draws it: the official one as ``/api/board``
    has it, a custom one named after its variant."""
    board = state.board
    if board == load_board():
        return board_json()
    cached = _CUSTOM_BOARDS.pop(id(board), None)
    if cached is None or cached[0] is not board:
        data = serialize_board(board, state.variant.name)
        if board.cities == load_board().cities:
            data["custom"] = False  # the Nordic map with other numbers: drawn on its land
        cached = (board, data)
    _CUSTOM_BOARDS[id(board)] = cached
    while len(_CUSTOM_BOARDS) > 32:
        _CUSTOM_BOARDS.popitem(last=False)
    return cached[1]


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def replay_step(state: GameState, actions: list[str], step: int) -> JSON:
    """The public state after ``step`` of ``actions`` were applied to ``state`` (changed in place)."""
    for text in actions[:step]:
        state.apply(parse_for(state, text))
    views = [serialize_view(state.view(seat)) for seat in range(state.num_players)]
    main = views[0]
    return {
        "step": step,
        "total": len(actions),
        "action": actions[step - 1] if step > 0 else None,
        "view": main,
        "players": [
            {"hand": v["hand"], "tickets": v["tickets"], "offered_tickets": v["offered_tickets"]} for v in views
        ],
        "result": serialize_result(state.board, state.result()) if state.is_over else None,
    }


#: Finished games' chances, by game id (a finished game never changes): the most recent ones.
_CHANCES: OrderedDict[str, JSON] = OrderedDict()
CHANCES_KEPT = 64


def chances_json(state: GameState, actions: list[str]) -> JSON:
    """Win chances after each of ``actions`` from ``state`` (a new game) and the key moments,
    each with the move's line of the log (the game is over: nothing in it is secret)."""
    parsed = [parse_for(state, text) for text in actions]
    curve = replay_curve(state.config, parsed)
    chances = curve.chances
    for action in parsed:
        state.apply(action)
    log = state.view(0).log
    return {
        "players": state.num_players,
        "chances": [[round(value, 4) for value in step] for step in chances],
        "moments": [
            {
                "step": m.step,
                "player": m.player,
                "before": round(m.before, 4),
                "after": round(m.after, 4),
                "until": m.until,
                "text": log[m.step - 1].text,
                "entry": serialize_log_entry(log[m.step - 1]),
            }
            for m in key_moments(chances, movers=curve.movers, keeps=curve.keeps)
        ],
    }


def install(app: FastAPI) -> None:
    """Add the browser game's pages, static files and routes to ``app``."""
    index = STATIC / "index.html"
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    async def start_page() -> FileResponse:
        return FileResponse(index)

    @app.get("/play/{game_id}", include_in_schema=False)
    async def game_page(game_id: str) -> FileResponse:
        return FileResponse(index)

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_page(game_id: str) -> FileResponse:
        return FileResponse(index)

    @app.get("/i18n/{language}.json", include_in_schema=False, response_model=None)
    async def get_catalogue(language: str) -> JSONResponse:
        if language not in LANGUAGES:
            return _error(404, "unknown_language", f"no language {language!r} (one of {', '.join(LANGUAGES)})")
        # Revalidated on each load: a release's pages and catalogues must go together.
        return JSONResponse(catalogue(language), headers={"Cache-Control": "no-cache"})

    @app.get("/api/board")
    async def get_board() -> JSON:
        return board_json()

    @app.get("/api/variants")
    async def get_variants() -> JSON:
        return {"variants": [describe(v) for v in shipped().values()]}

    @app.get("/api/games/{game_id}/board", response_model=None)
    async def get_game_board(game_id: str, request: Request) -> JSON | JSONResponse:
        # The board is public (a spectator sees it too), like the game's summary.
        try:
            game = await request.app.state.service.get(game_id)
        except RecordError as exc:
            return _error(500, "CORRUPT_GAME", str(exc))
        if game is None:
            return _error(404, "GAME_NOT_FOUND", f"no game {game_id!r}")
        return game_board_json(game.state)

    @app.get("/api/games/{game_id}/replay/{step}", response_model=None)
    async def get_replay(game_id: str, step: int, request: Request) -> JSON | JSONResponse:
        service = request.app.state.service
        try:
            game = await service.get(game_id)
        except RecordError as exc:
            return _error(500, "CORRUPT_GAME", str(exc))
        if game is None:
            return _error(404, "GAME_NOT_FOUND", f"no game {game_id!r}")
        if not may_read_record(request, game):
            return _error(403, "TOKEN_REQUIRED", "a replay is shown to the game's players only: send their token")
        if not game.state.is_over:
            return _error(409, "GAME_NOT_FINISHED", "a replay is available once the game is over")
        record = game.record()
        actions = list(record.actions)
        if not 0 <= step <= len(actions):
            return _error(404, "NO_SUCH_STEP", f"steps go from 0 to {len(actions)}")
        # A long game replays in tens of milliseconds: in a thread, so the event loop serves the others meanwhile.
        data = await asyncio.to_thread(replay_step, GameState.from_config(record.config), actions, step)
        data["seats"] = [s.public() for s in game.seats]
        return data

    @app.get("/api/games/{game_id}/chances", response_model=None)
    async def get_chances(game_id: str, request: Request) -> JSON | JSONResponse:
        service = request.app.state.service
        try:
            game = await service.get(game_id)
        except RecordError as exc:
            return _error(500, "CORRUPT_GAME", str(exc))
        if game is None:
            return _error(404, "GAME_NOT_FOUND", f"no game {game_id!r}")
        if not may_read_record(request, game):
            return _error(403, "TOKEN_REQUIRED", "a replay is shown to the game's players only: send their token")
        if not game.state.is_over:
            return _error(409, "GAME_NOT_FINISHED", "a replay is available once the game is over")
        cached = _CHANCES.pop(game_id, None)
        if cached is None:
            record = game.record()
            # About 0.2 ms a step: in a thread, so that a long game never holds the event loop.
            cached = await asyncio.to_thread(chances_json, GameState.from_config(record.config), list(record.actions))
        _CHANCES[game_id] = cached
        while len(_CHANCES) > CHANCES_KEPT:
            _CHANCES.popitem(last=False)
        return cached
