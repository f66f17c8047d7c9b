"""HTTP routes of accounts, profiles and ratings, and the hooks the app calls.

Accounts (all answers JSON; errors ``{"error": {"code", "message"}}``):

* ``GET /api/account`` — ``{"user": null}``, or the signed-in account with its ``csrf`` token.
* ``POST /api/account/sign-up`` ``{"name", "password"}``, ``POST /api/account/sign-in`` (same):
  a session cookie (HttpOnly, SameSite=Lax, Secure over HTTPS). Wrong name or password: 401,
  the same words either way; too many failures for the name or the address: 429.
* With the session's ``X-CSRF-Token`` header: ``POST /api/account/sign-out``,
  ``/sign-out-everywhere``, ``/password`` ``{"current", "new"}`` (ends the other sessions),
  ``/delete`` ``{"password"}``, ``/claim`` ``{"games": [{"id", "token"}]}`` (a guest's seats
  move to the account), ``/passkeys/options`` and ``/passkeys`` ``{"credential"}`` (add one).
* ``POST /api/account/passkey-sign-in/options`` and ``/passkey-sign-in`` ``{"credential"}``.
* ``GET /api/account/games`` — the unfinished games whose seats the account holds.

Every POST here is refused from another site (``Origin``/``Sec-Fetch-Site``), and bodies are
at most :data:`MAX_BODY_BYTES`.

Profiles and ratings: ``GET /api/players/{name}`` (the page is ``/players/{name}``),
``GET /api/ratings?names=a,b`` (each account's ``display``, ``ordinal``, ``mu``, ``sigma``,
``games``), ``GET /api/games/{id}/rating`` (a rated game's change per seat).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import logging
import re
from collections import OrderedDict
from collections.abc import Callable
from typing import Annotated, Any, ParamSpec, TypeVar

from fastapi import APIRouter, Depends, FastAPI, Query, Request, WebSocket
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session
from starlette.middleware import Middleware
from starlette.requests import HTTPConnection

from ..web import STATIC
from .account_db import GameRatingRow, SeatAccountRow
from .accounts import AccountError, AccountService, User, check_name, csrf_token
from .db import shared_memory_fault, sqlite_path
from .games import FINISHED, GameService, LiveGame, StorageError
from .limits import origin_allowed
from .passkeys import Passkeys, rp_of
from .profiles import profile
from .ratings import APPLIED, FinishedGame, apply_rating, game_rating, mark_rated, pending_games, ranks_of, rating_of

log = logging.getLogger(__name__)

COOKIE = "ttr_session"
CSRF_HEADER = "X-CSRF-Token"
MAX_BODY_BYTES = 32 * 1024
MAX_RATINGS = 50

JSON = dict[str, Any]
P = ParamSpec("P")
R = TypeVar("R")


# ------------------------------------------------------------------ request bodies


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=40)
    password: str = Field(max_length=1024)


class NewPassword(BaseModel):
    model_config = ConfigDict(extra="forbid")

    current: str = Field(max_length=1024)
    new: str = Field(max_length=1024)


class Confirm(BaseModel):
    model_config = ConfigDict(extra="forbid")

    password: str | None = Field(default=None, max_length=1024)


class Seat(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=64)
    token: str = Field(min_length=1, max_length=128)


class Claim(BaseModel):
    model_config = ConfigDict(extra="forbid")

    games: list[Seat] = Field(max_length=200)


class PasskeyAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    credential: dict[str, Any]


# ------------------------------------------------------------------ helpers


async def in_db(where: HTTPConnection | Engine, function: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run ``function`` in a thread, unless the SQLite database cannot be touched safely now
    (its shared-memory file made unwritable: the access would kill the process, see
    :func:`.db.shared_memory_fault`): then :class:`.games.StorageError` (503)."""
    engine: Engine = where.app.state.service.engine if isinstance(where, HTTPConnection) else where

    def guarded() -> R:
        fault = shared_memory_fault(sqlite_path(engine))
        if fault is not None:
            raise StorageError(fault)
        return function(*args, **kwargs)

    return await asyncio.to_thread(guarded)


def accounts_of(connection: HTTPConnection) -> AccountService:
    service: AccountService = connection.app.state.accounts
    return service


def same_site(request: Request) -> None:
    """Refuse a request sent by a page of another site (a browser says where it comes from)."""
    site = request.headers.get("sec-fetch-site")
    origin = request.headers.get("origin")
    if (site is not None and site not in ("same-origin", "none")) or not origin_allowed(
        origin, request.headers.get("host"), request.app.state.allowed_origins
    ):
        raise AccountError(403, "CROSS_SITE", "refused: this request came from another site")


def _is_https(request: Request) -> bool:
    return request.url.scheme == "https" or bool(getattr(request.app.state, "secure_cookies", False))


def set_session(response: Response, request: Request, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=30 * 24 * 3600,
        httponly=True,
        samesite="lax",
        secure=_is_https(request),
        path="/",
    )


def clear_session(response: Response, request: Request) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=_is_https(request))


async def current_user(connection: HTTPConnection) -> tuple[User, str] | None:
    """The signed-in account of a request or WebSocket (its cookie), with the session token."""
    token = connection.cookies.get(COOKIE, "")
    if not token:
        return None
    user = await in_db(connection, accounts_of(connection).session_user, token)
    return None if user is None else (user, token)


async def signed_in(request: Request) -> tuple[User, str]:
    """The signed-in account, its CSRF token checked (for a request that changes something)."""
    same_site(request)
    found = await current_user(request)
    if found is None:
        raise AccountError(401, "SIGN_IN_REQUIRED", "sign in first")
    given = request.headers.get(CSRF_HEADER, "")
    if not given or not hmac.compare_digest(given.encode(), csrf_token(found[1]).encode()):
        raise AccountError(403, "CSRF", f"refused: the page's {CSRF_HEADER} header is missing or wrong (reload it)")
    return found


def _rp(request: Request) -> tuple[str, str]:
    public_url: str | None = request.app.state.public_url
    if public_url:
        scheme, _, host = public_url.partition("://")
        return rp_of(scheme, host.split("/")[0])
    return rp_of(request.url.scheme, request.headers.get("host", request.url.netloc))


def _session_answer(request: Request, user: User, token: str, status: int = 200) -> JSONResponse:
    response = JSONResponse({"user": user.public(), "csrf": csrf_token(token)}, status_code=status)
    set_session(response, request, token)
    return response


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


# ------------------------------------------------------------------ routes

router = APIRouter()
Signed = Annotated[tuple[User, str], Depends(signed_in)]


@router.get("/api/account")
async def whoami(request: Request) -> JSON:
    found = await current_user(request)
    if found is None:
        return {"user": None}
    user, token = found
    passkeys = await in_db(request, request.app.state.passkeys.count, user.id)
    return {"user": {**user.public(), "passkeys": passkeys}, "csrf": csrf_token(token)}


@router.post("/api/account/sign-up")
async def sign_up(body: Credentials, request: Request) -> JSONResponse:
    same_site(request)
    user, token = await in_db(request, accounts_of(request).sign_up, body.name, body.password, _client(request))
    return _session_answer(request, user, token, 201)


@router.post("/api/account/sign-in")
async def sign_in(body: Credentials, request: Request) -> JSONResponse:
    same_site(request)
    user, token = await in_db(request, accounts_of(request).sign_in, body.name, body.password, _client(request))
    return _session_answer(request, user, token)


@router.post("/api/account/sign-out")
async def sign_out(request: Request, signed: Signed) -> JSONResponse:
    await in_db(request, accounts_of(request).sign_out, signed[1])
    response = JSONResponse({"signed_out": 1})
    clear_session(response, request)
    return response


@router.post("/api/account/sign-out-everywhere")
async def sign_out_everywhere(request: Request, signed: Signed) -> JSONResponse:
    ended = await in_db(request, accounts_of(request).sign_out_everywhere, signed[0].id)
    response = JSONResponse({"signed_out": ended})
    clear_session(response, request)
    return response


@router.post("/api/account/password")
async def change_password(body: NewPassword, request: Request, signed: Signed) -> JSON:
    user, token = signed
    ended = await in_db(request, accounts_of(request).change_password, user.id, body.current, body.new, token)
    return {"changed": True, "signed_out": ended}


@router.post("/api/account/delete")
async def delete_account(body: Confirm, request: Request, signed: Signed) -> JSONResponse:
    seats = await in_db(request, accounts_of(request).delete_account, signed[0].id, body.password)
    _rename_live_seats(request.app.state.service, seats)
    response = JSONResponse({"deleted": True})
    clear_session(response, request)
    return response


@router.post("/api/account/claim")
async def claim(body: Claim, request: Request, signed: Signed) -> JSON:
    pairs = list(dict.fromkeys((g.id, g.token) for g in body.games))
    games = await in_db(request, accounts_of(request).claim, signed[0].id, pairs)
    return {"claimed": games}


@router.get("/api/account/games")
async def account_games(request: Request) -> JSON:
    found = await current_user(request)
    if found is None:
        raise AccountError(401, "SIGN_IN_REQUIRED", "sign in first")
    user = found[0]
    service: GameService = request.app.state.service
    out: list[JSON] = []
    for game_id in await in_db(request, accounts_of(request).game_ids, user.id, 100):
        game = await service.get(game_id)
        if game is None or game.state.is_over:
            continue
        summary = game.summary()
        summary["mine"] = sorted(await in_db(request, accounts_of(request).seats_held, user.id, game_id))
        summary["present"] = game.present()
        out.append(summary)
    return {"games": out}


@router.post("/api/account/passkeys/options")
async def passkey_options(request: Request, signed: Signed) -> Response:
    rp_id, _ = _rp(request)
    user = signed[0]
    text = await in_db(request, request.app.state.passkeys.registration_options, user.id, user.name, rp_id)
    return Response(text, media_type="application/json")


@router.post("/api/account/passkeys", status_code=201)
async def add_passkey(body: PasskeyAnswer, request: Request, signed: Signed) -> JSON:
    rp_id, origin = _rp(request)
    credential_id = await in_db(
        request, request.app.state.passkeys.register, signed[0].id, body.credential, rp_id, origin
    )
    return {"added": credential_id}


@router.post("/api/account/passkey-sign-in/options")
async def passkey_sign_in_options(request: Request) -> Response:
    same_site(request)
    rp_id, _ = _rp(request)
    return Response(
        await in_db(request, request.app.state.passkeys.sign_in_options, rp_id), media_type="application/json"
    )


@router.post("/api/account/passkey-sign-in")
async def passkey_sign_in(body: PasskeyAnswer, request: Request) -> JSONResponse:
    same_site(request)
    rp_id, origin = _rp(request)
    user_id = await in_db(request, request.app.state.passkeys.sign_in, body.credential, rp_id, origin)
    user, token = await in_db(request, accounts_of(request).sign_in_user, user_id)
    return _session_answer(request, user, token)


@router.get("/api/players/{name}")
async def player(name: str, request: Request) -> JSON:
    try:
        check_name(name)
    except AccountError:
        raise AccountError(404, "PLAYER_NOT_FOUND", "no player of that name") from None
    user = await in_db(request, accounts_of(request).user_by_name, name)
    if user is None:
        raise AccountError(404, "PLAYER_NOT_FOUND", f"no player {name}")
    data = await in_db(request, profile, request.app.state.service.engine, user)
    found = await current_user(request)
    viewer = found[0].id if found else None
    public = bool(request.app.state.public_games)
    for game in data["recent"]:
        # A rated game's record is public; a casual one is shown to its players (and on a public server).
        game["replay"] = public or game["rated"] or viewer == user.id
    data["own"] = viewer == user.id
    return data


@router.get("/api/ratings")
async def ratings(request: Request, names: Annotated[str, Query(max_length=2000)] = "") -> JSON:
    wanted = [n for n in dict.fromkeys(names.split(",")) if n][:MAX_RATINGS]
    out: list[JSON] = []
    engine = request.app.state.service.engine
    for name in wanted:
        if re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{2,19}", name) is None:
            continue
        user = await in_db(request, accounts_of(request).user_by_name, name)
        if user is not None:
            rating = await in_db(request, rating_of, engine, user.id)
            out.append({"name": user.name, **rating.public()})
    return {"ratings": out}


@router.get("/api/games/{game_id}/rating")
async def rating_of_game(game_id: str, request: Request) -> JSON:
    data = await in_db(request, game_rating, request.app.state.service.engine, game_id[:64])
    return (
        data
        if data is not None
        else {
            "rated": False,
            "state": None,
            "reason": None,
            "reason_code": None,
            "held": [],
            "started": None,
            "changes": [],
        }
    )


@router.get("/players/{name}", include_in_schema=False)
async def player_page(name: str) -> FileResponse:
    return FileResponse(STATIC / "index.html")


# ------------------------------------------------------------------ middleware

_READABLE = re.compile(r"^/api/games/([0-9a-f]{32})(?:/record|/replay/\d+|/chances)?$")


class AccountMiddleware:
    """Bounds the bodies of account requests, and marks a request for a game's record or replay
    that its account may read (it holds a seat of that game, or the game is rated: a rated
    game's record is public), for :func:`.access.may_read_record`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if path.startswith("/api/account") and scope["method"] == "POST":
            # A length given up front (a browser's fetch always gives one), so nothing unbounded is read.
            length = dict(scope["headers"]).get(b"content-length")
            refusal = None
            if length is None or not length.isdigit():
                refusal = (411, "LENGTH_REQUIRED", "a request here must give its Content-Length")
            elif int(length) > MAX_BODY_BYTES:
                refusal = (413, "TOO_LARGE", f"a request here is at most {MAX_BODY_BYTES} bytes")
            if refusal is not None:
                status, code, message = refusal
                response = JSONResponse({"error": {"code": code, "message": message}}, status_code=status)
                await response(scope, receive, send)
                return
        match = _READABLE.match(path) if scope["method"] == "GET" else None
        if match is not None and hasattr(scope.get("app", self.app), "state"):
            request = Request(scope)
            with contextlib.suppress(StorageError):  # unreadable now: only a token opens it
                if await _account_may_read(request, match.group(1)):
                    scope.setdefault("state", {})["account_reads"] = match.group(1)
        await self.app(scope, receive, send)


async def _account_may_read(request: Request, game_id: str) -> bool:
    engine = request.app.state.service.engine
    found = await current_user(request) if request.cookies.get(COOKIE) else None

    def check() -> bool:
        with Session(engine) as session:
            rating = session.get(GameRatingRow, game_id)
            if rating is not None and rating.state == APPLIED:
                return True
            if found is None:
                return False
            return (
                session.scalar(
                    select(SeatAccountRow.seat).where(
                        SeatAccountRow.game_id == game_id, SeatAccountRow.user_id == found[0].id
                    )
                )
                is not None
            )

    return await in_db(engine, check)


# ------------------------------------------------------------------ hooks the app calls


def install(app: FastAPI) -> None:
    """Add the account routes, their error answers and the middleware to ``app``."""
    app.include_router(router)
    # Innermost of the app's middleware: its own answers (411, 413) get the security headers too.
    app.user_middleware.append(Middleware(AccountMiddleware))

    @app.exception_handler(AccountError)
    async def _account_error(_: Request, exc: AccountError) -> JSONResponse:
        return JSONResponse({"error": {"code": exc.code, "message": exc.message}}, status_code=exc.status)


async def start(app: FastAPI, service: GameService) -> None:
    """Start accounts on the game service's database: rate each game when it ends here, and
    rate now the rated games that ended on a process that stopped before rating them."""
    engine = service.engine
    app.state.accounts = AccountService(engine)
    app.state.passkeys = Passkeys(engine)

    async def rate_game(game: LiveGame) -> None:
        finished = FinishedGame(
            game.id,
            game.mode,
            tuple(seat.token_hash is not None for seat in game.seats),
            tuple(ranks_of(game.state.result(), [s.seat for s in game.seats if s.kind == "ai" and s.token_hash])),
            tuple(s.seat for s in game.seats if s.kind == "ai" and s.token_hash),
        )
        try:
            await in_db(engine, apply_rating, engine, finished)
        except Exception:
            log.exception("cannot rate game %s (it stays pending: rated at the next start)", game.id)

    service.on_game_end(rate_game)
    for game_id in await in_db(engine, pending_games, engine):
        game = await service.get(game_id)
        if game is not None and game.status == FINISHED:
            await rate_game(game)


async def rated_creator(request: Request, rated: bool) -> User | None:
    """For a game asked rated: the signed-in creator (CSRF checked), else refused (401/403)."""
    if not rated:
        return None
    return (await signed_in(request))[0]


async def game_created(request: Request, game: LiveGame, tokens: dict[int, str], creator: User | None) -> None:
    """A game was created: a rated one is recorded as such, its creator holding seat 0."""
    if creator is None:
        return
    engine = request.app.state.service.engine
    await in_db(request, mark_rated, engine, game.id)
    await in_db(request, accounts_of(request).claim, creator.id, [(game.id, tokens[0])])


async def account_seats(ws: WebSocket, game: LiveGame) -> frozenset[int]:
    """The seats of ``game`` that the socket's signed-in account holds (none without one, or
    while the database cannot be read)."""
    try:
        found = await current_user(ws)
        if found is None:
            return frozenset()
        return await in_db(ws, accounts_of(ws).seats_held, found[0].id, game.id)
    except StorageError:
        return frozenset()


WAITING_FOR_ACCOUNTS = "a rated game starts when every player has opened their link signed in to an account"
#: Whether a game was created rated (fixed at creation), by id: the games of this process asked lately.
_RATED: OrderedDict[str, bool] = OrderedDict()
_RATED_KEPT = 10_000


async def may_start(service: GameService, game: LiveGame) -> bool:
    """Whether the first move of ``game`` may be made: a rated game waits until an account holds
    every seat (so that it is rated between accounts); any other game starts at once."""
    if _RATED.get(game.id) is False:
        return True

    def look() -> tuple[bool, bool]:
        with Session(service.engine) as session:
            if session.get(GameRatingRow, game.id) is None:
                return False, True
            held = session.scalar(select(func.count()).where(SeatAccountRow.game_id == game.id))
            return True, held == len(game.seats)

    try:
        rated, ready = await in_db(service.engine, look)
    except StorageError:
        return True  # the move itself is refused by the storage (and says why)
    _RATED[game.id] = rated
    while len(_RATED) > _RATED_KEPT:
        _RATED.popitem(last=False)
    return ready


def _rename_live_seats(service: GameService, seats: list[tuple[str, int]]) -> None:
    """A deleted account's seats in the games this process holds take the deleted name now."""
    from .accounts import DELETED_NAME

    for game_id, seat in seats:
        game = service.live.get(game_id)
        if game is not None and seat < len(game.seats):
            game.seats[seat] = dataclasses.replace(game.seats[seat], name=DELETED_NAME)
            game.public_seats = [s.public() for s in game.seats]
