"""Who may read a game's record and replay, and list finished games.

A game's record is shown to its players (a request carrying a token of that game), to the
server's owner (the key ``ttr-nordic serve`` reads from ``TTR_OWNER_KEY``, sent as
``X-Owner-Key``), and to anyone only when the owner made finished games public
(``ttr-nordic serve --public-games``).
"""

from __future__ import annotations

import hmac

from starlette.requests import Request

from .games import LiveGame

TOKEN_HEADER = "X-Game-Token"
OWNER_HEADER = "X-Owner-Key"


def request_token(request: Request) -> str:
    """The game token a request carries (header ``X-Game-Token`` or query ``token``), or ""."""
    return request.headers.get(TOKEN_HEADER) or request.query_params.get("token") or ""


def is_owner(request: Request) -> bool:
    """Whether the request carries the server owner's key."""
    key: str | None = request.app.state.owner_key
    given = request.headers.get(OWNER_HEADER, "")
    return bool(key) and bool(given) and hmac.compare_digest(given.encode(), str(key).encode())


def may_list(request: Request) -> bool:
    """Whether the request may list every finished game."""
    return bool(request.app.state.public_games) or is_owner(request)


def may_read_record(request: Request, game: LiveGame) -> bool:
    """Whether the request may read ``game``'s record and replay."""
    if may_list(request):
        return True
    token = request_token(request)
    if token and game.seats_for(token):
        return True
    # Marked by the accounts' middleware: a seat's account, or a rated game (see account_routes).
    return bool(request.scope.get("state", {}).get("account_reads") == game.id)
