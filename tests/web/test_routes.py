"""The browser game's HTTP routes, without a browser: pages, static files, board, replay steps."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ttr_nordic.engine import GameState
from ttr_nordic.server import create_app
from ttr_nordic.server.pages import replay_step
from ttr_nordic.web import STATIC


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.sqlite3'}")) as c:
        yield c


def test_pages_and_static_files(client: TestClient) -> None:
    for path in ("/", "/play/abc?seat=x", "/replay/abc"):
        response = client.get(path)
        assert response.status_code == 200
        assert '<script type="module" src="/static/js/main.js">' in response.text
    for name in ("js/main.js", "js/map.js", "js/game.js", "js/replay.js", "js/start.js", "js/ui.js", "css/style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    # no asset names another host
    for path in STATIC.rglob("*"):
        if path.suffix in {".js", ".css", ".html"}:
            text = path.read_text(encoding="utf-8")
            assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text, path


def test_board_and_land(client: TestClient) -> None:
    board = client.get("/api/board").json()
    assert len(board["cities"]) == 39 and len(board["routes"]) == 81 and len(board["tickets"]) == 46
    assert sum(r["length"] for r in board["routes"]) == 207
    assert all(
        r["color"] in {"purple", "white", "blue", "yellow", "orange", "black", "red", "green", "gray"}
        for r in board["routes"]
    )
    twins = [r for r in board["routes"] if r["twin"] is not None]
    assert len(twins) == 28 and all(board["routes"][r["twin"]]["twin"] == r["id"] for r in twins)
    land = json.loads((STATIC / "land.json").read_text(encoding="utf-8"))
    assert "Natural Earth" in land["provenance"]
    assert {"NO", "SE", "FI", "DK"} <= {c["code"] for c in land["countries"]}


def test_replay_only_for_finished_games(client: TestClient) -> None:
    created = client.post("/api/games", json={"mode": "online", "seats": [{"name": "A"}, {"name": "B"}]}).json()
    game_id, token = created["game"]["id"], created["invites"][1]["token"]
    response = client.get(f"/api/games/{game_id}/replay/0")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "TOKEN_REQUIRED"
    response = client.get(f"/api/games/{game_id}/replay/0", headers={"X-Game-Token": token})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "GAME_NOT_FINISHED"
    assert client.get("/api/games/nope/replay/0").status_code == 404


def test_replay_step_shows_everything_at_every_step() -> None:
    game = GameState.new(players=2, seed=11)
    rng = random.Random(11)
    while not game.is_over:
        game.apply(rng.choice(game.legal_action_list()))
    record = game.record()
    actions = list(record.actions)
    start = replay_step(GameState.from_config(record.config), actions, 0)
    assert start["step"] == 0 and start["action"] is None and start["result"] is None
    assert all(len(p["offered_tickets"]) == 5 for p in start["players"])  # both seats' offers are shown
    middle = replay_step(GameState.from_config(record.config), actions, 40)
    assert middle["action"] == actions[39] and middle["total"] == len(actions)
    end = replay_step(GameState.from_config(record.config), actions, len(actions))
    assert end["result"] is not None and end["result"]["totals"] == list(game.result().totals)
    assert [sum(p["hand"].values()) for p in end["players"]] == end["view"]["hand_sizes"]
