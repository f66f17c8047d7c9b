"""Helpers for the account tests: sign up or in on a test client, switch between sessions."""

from __future__ import annotations

import random
from typing import Any

from starlette.testclient import TestClient

from ttr_nordic.server.account_routes import COOKIE, CSRF_HEADER

PASSWORD = "a long enough password"


def sign_up(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, Any]:
    """Create an account (the client keeps its session cookie); returns ``{"user", "csrf"}``."""
    response = client.post("/api/account/sign-up", json={"name": name, "password": password})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    data["token"] = response.cookies[COOKIE]
    return data


def sign_in(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, Any]:
    response = client.post("/api/account/sign-in", json={"name": name, "password": password})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    data["token"] = response.cookies[COOKIE]
    return data


def use(client: TestClient, session: dict[str, Any]) -> dict[str, str]:
    """Make ``client`` send ``session``'s cookie; returns its CSRF header."""
    client.cookies.clear()
    client.cookies.set(COOKIE, session["token"])
    return {CSRF_HEADER: session["csrf"]}


def finish(client: TestClient, game_id: str, seed: int = 3) -> None:
    """Play the game to its end with random legal actions, through the service (as the socket does)."""
    service = client.app.state.service  # type: ignore[attr-defined]
    rng = random.Random(seed)
    game = client.portal.call(service.get, game_id)  # type: ignore[union-attr]
    while not game.state.is_over:
        state = game.state
        action = rng.choice(state.legal_action_list())
        client.portal.call(service.act, game, state.decision.player, action)  # type: ignore[union-attr]


def settle(client: TestClient) -> None:
    """Wait for the tasks started when a game ended (its rating) to finish."""
    service = client.app.state.service  # type: ignore[attr-defined]

    async def wait() -> None:
        import asyncio

        while service._end_tasks:
            await asyncio.gather(*list(service._end_tasks), return_exceptions=True)

    client.portal.call(wait)  # type: ignore[union-attr]
