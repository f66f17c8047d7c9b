"""The lobby on two ``ttr-nordic serve`` processes over one PostgreSQL: a table made through
server A is listed and joined through server B, its game opens on both with the seats'
tickets, is watched through B, and a chat message written through A is read through B."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from test_crash import _http
from test_scale_out import _process, _state
from websockets.sync.client import connect


def test_a_table_made_on_one_process_is_joined_on_another(tmp_path: Path, postgres_database: str) -> None:
    with _process(tmp_path, postgres_database) as (port_a, _), _process(tmp_path, postgres_database) as (port_b, _):
        made = _http(port_a, "/api/lobby/tables", {"players": 2, "name": "Astrid"})
        table_id = made["table"]["id"]
        assert [t["id"] for t in _http(port_b, "/api/lobby/tables")["tables"]] == [table_id]
        joined = _http(port_b, f"/api/lobby/tables/{table_id}/join", {"name": "Leif"})
        game_id = joined["table"]["game_id"]
        assert joined["table"]["status"] == "started" and game_id
        assert _http(port_a, f"/api/lobby/tables/{table_id}")["game_id"] == game_id
        tickets = [made["ticket"], joined["ticket"]]
        with (
            connect(f"ws://127.0.0.1:{port_a}/ws/games/{game_id}?token={tickets[0]}") as seat0,
            connect(f"ws://127.0.0.1:{port_b}/ws/games/{game_id}?token={tickets[1]}") as seat1,
            connect(f"ws://127.0.0.1:{port_b}/ws/watch/{game_id}") as spectator,
        ):
            states = [_state(seat0, 0), _state(seat1, 0)]
            assert [s["view"]["player"] for s in states] == [0, 1]
            assert json.loads(spectator.recv(timeout=15))["actions"] == 0
            mover = next(i for i, s in enumerate(states) if s["legal"])
            socket = (seat0, seat1)[mover]
            socket.send(json.dumps({"type": "act", "action": states[mover]["legal"][0]["action"], "expected": 0}))
            while True:  # the spectator on B sees the move made through A or B
                view = json.loads(spectator.recv(timeout=15))
                assert "hand" not in view["view"] and "tickets" not in view["view"]
                if view["actions"] == 1:
                    break
        request = urllib.request.Request(
            f"http://127.0.0.1:{port_a}/api/games/{game_id}/chat",
            data=json.dumps({"phrase": "hello"}).encode(),
            headers={"content-type": "application/json", "X-Game-Token": tickets[0]},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 201
        assert [m["text"] for m in _http(port_b, f"/api/games/{game_id}/chat")["messages"]] == ["Hello"]
