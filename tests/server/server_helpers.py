"""Helpers for the server tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.testclient import TestClient


def create_game(client: TestClient, mode: str, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={"mode": mode, "seats": seats, **extra})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def ws_path(game_id: str, token: str, seat: int | None = None) -> str:
    path = f"/ws/games/{game_id}?token={token}"
    return path if seat is None else f"{path}&seat={seat}"


def receive_until(ws: Any, predicate: Callable[[dict[str, Any]], bool], limit: int = 200) -> dict[str, Any]:
    """Read messages until one satisfies ``predicate`` (and return it)."""
    for _ in range(limit):
        message: dict[str, Any] = ws.receive_json()
        if predicate(message):
            return message
    raise AssertionError("expected message did not arrive")


class WholeLog:
    """A test WebSocket whose ``receive_json`` puts each state's log together as a client
    does: a state carries the log from its ``log_start`` on, after the entries sent before."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.log: list[dict[str, Any]] = []
        self.carried = 0  # the log entries the last state carried

    def receive_json(self) -> dict[str, Any]:
        message: dict[str, Any] = self.ws.receive_json()
        if message.get("type") == "state":
            start = message["log_start"]
            assert 0 <= start <= len(self.log), (start, len(self.log))
            self.carried = len(message["view"]["log"])
            self.log = self.log[:start] + message["view"]["log"]
            message["view"]["log"] = list(self.log)
        return message

    def send_json(self, data: Any) -> None:
        self.ws.send_json(data)


def live_state(client: TestClient, game_id: str) -> Any:
    """The server's full game state (for checks only; no client ever sees it)."""
    return client.app.state.service.live[game_id].state  # type: ignore[attr-defined]
