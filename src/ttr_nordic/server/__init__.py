"""The browser edition's server: a FastAPI app with a JSON API and a game WebSocket.

Needs the ``web`` extra. :func:`create_app` builds the app; ``ttr-nordic serve`` runs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI


def create_app(
    database_url: str | None = None,
    *,
    tune_gc: bool = False,
    public_games: bool = False,
    public_url: str | None = None,
    owner_key: str | None = None,
) -> FastAPI:
    """The application (see :func:`ttr_nordic.server.app.create_app`)."""
    from .app import create_app as _create_app

    return _create_app(
        database_url, tune_gc=tune_gc, public_games=public_games, public_url=public_url, owner_key=owner_key
    )


__all__ = ["create_app"]
