"""HTTP API: creating games in each mode, summaries, validation errors, records."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from server_helpers import create_game
from starlette.testclient import TestClient

HUMAN = {"kind": "human"}


def test_create_ai_game(client: TestClient) -> None:
    data = create_game(
        client, "ai", [{"name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "Hard"}]
    )
    game = data["game"]
    assert game["mode"] == "ai" and game["players"] == 3 and game["status"] == "active"
    assert [s["kind"] for s in game["seats"]] == ["human", "ai", "ai"]
    assert [s["level"] for s in game["seats"]] == [None, "easy", "hard"]
    assert game["seats"][0]["name"] == "Ann"
    assert len(data["invites"]) == 1
    invite = data["invites"][0]
    assert invite["seats"] == [0]
    assert invite["path"] == f"/play/{game['id']}?seat={invite['token']}"
    assert len(invite["token"]) >= 24
    assert "seed" not in str(data)


def test_create_hotseat_game_has_one_token_for_all_seats(client: TestClient) -> None:
    data = create_game(client, "hotseat", [HUMAN, HUMAN, {"name": "Cy"}])
    assert len(data["invites"]) == 1
    assert data["invites"][0]["seats"] == [0, 1, 2]
    assert data["invites"][0]["names"] == ["Player 1", "Player 2", "Cy"]


def test_create_online_game_has_one_token_per_seat(client: TestClient) -> None:
    data = create_game(client, "online", [{"name": "A"}, {"name": "B"}], first_player=1)
    invites = data["invites"]
    assert [i["seats"] for i in invites] == [[0], [1]]
    assert invites[0]["token"] != invites[1]["token"]
    game_id = data["game"]["id"]
    summary = client.get(f"/api/games/{game_id}").json()
    assert summary["current"] == 1 and summary["phase"] == "INITIAL_TICKETS"
    assert summary["actions"] == 0
    assert "token" not in str(summary) and "seed" not in summary


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"mode": "chess", "seats": [HUMAN, HUMAN]}, "mode"),
        ({"mode": "ai", "seats": [HUMAN, HUMAN]}, "exactly 1 human"),
        ({"mode": "ai", "seats": [HUMAN, {"kind": "ai", "level": "godlike"}]}, "level"),
        ({"mode": "ai", "seats": [HUMAN, {"kind": "ai"}]}, "level"),
        ({"mode": "online", "seats": [HUMAN]}, "seats"),
        ({"mode": "online", "seats": [HUMAN, HUMAN, HUMAN, HUMAN]}, "seats"),
        ({"mode": "online", "seats": [HUMAN, {"kind": "ai", "level": "easy"}]}, "only human"),
        ({"mode": "hotseat", "seats": [HUMAN, {"kind": "human", "level": "easy"}]}, "level"),
        ({"mode": "online", "seats": [HUMAN, HUMAN], "first_player": 2}, "first_player"),
        ({"mode": "online", "seats": [HUMAN, HUMAN], "seed": 5}, "seed"),
        ({"mode": "online", "seats": [HUMAN, {"name": "   "}]}, "blank"),
        ({"seats": [HUMAN, HUMAN]}, "mode"),
    ],
)
def test_bad_create_requests_are_refused_and_change_nothing(
    client: TestClient, body: dict[str, Any], fragment: str
) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert fragment in error["message"]
    service = client.app.state.service  # type: ignore[attr-defined]
    assert service.live == {}
    from sqlalchemy import func, select

    from ttr_nordic.server.db import GameRow

    with service.sessions() as session:
        assert session.scalar(select(func.count()).select_from(GameRow)) == 0


def test_malformed_json_body(client: TestClient) -> None:
    response = client.post("/api/games", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


def test_unknown_game_and_unfinished_record(client: TestClient) -> None:
    response = client.get("/api/games/nope")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "GAME_NOT_FOUND"
    created = create_game(client, "online", [HUMAN, HUMAN])
    game_id, token = created["game"]["id"], created["invites"][0]["token"]
    response = client.get(f"/api/games/{game_id}/record", headers={"X-Game-Token": token})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "GAME_NOT_FINISHED"
    assert client.get("/api/games").json()["error"]["code"] == "LIST_NOT_PUBLIC"


def test_a_server_process_tunes_the_garbage_collector(tmp_path: Path) -> None:
    """``ttr-nordic serve`` (create_app with tune_gc) freezes what is alive once the app has
    started and raises the first GC threshold; an app built for tests leaves the GC alone.
    In a subprocess, since the GC settings are the whole process's."""
    code = f"""
import gc
from starlette.testclient import TestClient
from ttr_nordic.server import create_app
before = gc.get_threshold()
with TestClient(create_app({f"sqlite:///{tmp_path / 'a.sqlite'}"!r})):
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
with TestClient(create_app({f"sqlite:///{tmp_path / 'b.sqlite'}"!r}, tune_gc=True)):
    assert gc.get_threshold()[0] == 10_000 and gc.get_freeze_count() > 0
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stdout + done.stderr
