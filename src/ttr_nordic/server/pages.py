"""The browser game's HTTP routes (the files themselves are the asset package :mod:`ttr_nordic.web`).

* ``/`` — the start page; ``/play/{id}?seat=TOKEN`` — the game page; ``/replay/{id}`` — the
  replay viewer (all the same single page, ``static/index.html``, which reads the path).
* ``/static/...`` — ES modules, CSS and the map data (``land.json``, see ``scripts/make_land.py``).
* ``GET /i18n/{language}.json`` — the page's messages in one language (see :mod:`ttr_nordic.web.i18n`).
* ``GET /api/board`` — the board (cities with lat/lon, routes, tickets) for drawing the map.
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
from ..engine import GameState, RecordError, load_board, parse_action
from ..web import STATIC
from ..web.i18n import LANGUAGES, catalogue
from .access import may_read_record
from .serialize import board_json as serialize_board
from .serialize import serialize_log_entry, serialize_result, serialize_view

JSON = dict[str, Any]


@lru_cache(maxsize=1)
def board_json() -> JSON:
    """The static board as JSON: what the map needs, with the engine's ids."""
    return serialize_board(load_board())


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def replay_step(state: GameState, actions: list[str], step: int) -> JSON:
    """The public state after ``step`` of ``actions`` were applied to ``state`` (changed in place)."""
    for text in actions[:step]:
        state.apply(parse_action(text))
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
    parsed = [parse_action(text) for text in actions]
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
