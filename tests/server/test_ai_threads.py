"""AI seats think in a worker thread: other games stay responsive meanwhile."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import pytest
from server_helpers import create_game, live_state, receive_until, ws_path
from starlette.testclient import TestClient

from ttr_nordic.ai.base import Agent
from ttr_nordic.engine import Action, PlayerView
from ttr_nordic.server import games

HUMAN = {"kind": "human"}


class SlowAgent:
    name = "slow"

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.threads: list[str] = []  # threads choose() ran in

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        self.threads.append(threading.current_thread().name)
        self.started.set()
        assert self.release.wait(10)
        return legal[0]


def test_other_games_answer_while_an_ai_thinks(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = SlowAgent()

    def make(level: str, seed: int | None = None) -> Agent:
        return agent

    monkeypatch.setattr(games, "make_agent", make)
    slow = create_game(client, "ai", [HUMAN, {"kind": "ai", "level": "hard"}], first_player=1)
    other = create_game(client, "online", [HUMAN, HUMAN], first_player=0)
    assert agent.started.wait(10)
    with client.websocket_connect(ws_path(other["game"]["id"], other["invites"][0]["token"])) as ws:
        start = time.monotonic()
        ws.receive_json()
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        assert client.get(f"/api/games/{slow['game']['id']}").json()["actions"] == 0
        assert time.monotonic() - start < 5
    agent.release.set()
    with client.websocket_connect(ws_path(slow["game"]["id"], slow["invites"][0]["token"])) as ws:
        message = receive_until(ws, lambda m: bool(m["legal"]))
        assert message["seat"] == 0
    assert len(live_state(client, slow["game"]["id"]).history) >= 1
    assert agent.threads  # the ping above was answered while choose() blocked, so not on the loop
