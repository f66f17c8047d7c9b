"""The browser edition's server: a FastAPI app with a JSON API and a game WebSocket.

Needs the ``web`` extra. :func:`create_app` builds the app; ``ttr-nordic serve`` runs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI


def create_app(database_url: str | None = None, **options: Any) -> FastAPI:
    """The application (see :func:`ttr_nordic.server.app.create_app` for the options)."""
    from .app import create_app as _create_app

    return _create_app(database_url, **options)


__all__ = ["create_app"]
