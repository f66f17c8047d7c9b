"""A game under a rule variant on several ``ttr-nordic serve`` processes over one PostgreSQL
database: a process that did not store a move reads it in the game's own notation (six face-up
cards: "F6", which the official rules do not have) and plays on from there."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

from test_crash import _http
from test_scale_out import _process, _state
from websockets.sync.client import ClientConnection, connect

SIX = {"source": "six.toml", "text": 'name = "six"\n[cards]\nface_up = 6\n'}


def test_processes_read_each_others_moves_under_the_games_variant(tmp_path: Path, postgres_database: str) -> None:
    with ExitStack() as stack:
        (port_a, _), (port_b, _) = (stack.enter_context(_process(tmp_path, postgres_database)) for _ in range(2))
        created = _http(port_a, "/api/games", {"mode": "online", "seats": [{}, {}], "first_player": 0, "variant": SIX})
        game_id = created["game"]["id"]
        tokens = [invite["token"] for invite in created["invites"]]

        def ws(port: int, seat: int) -> ClientConnection:
            return stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}?token={tokens[seat]}"))

        sockets = [ws(port_a, 0), ws(port_b, 1)]  # the game is loaded on B from the database
        states = [_state(s, 0) for s in sockets]
        sixth = 0
        for _ in range(14):
            count = states[0]["actions"]
            actor = next(i for i, s in enumerate(states) if s["legal"])
            legal = [a["action"] for a in states[actor]["legal"]]
            move = "F6" if "F6" in legal else legal[0]
            sixth += move == "F6"
            sockets[actor].send(json.dumps({"type": "act", "action": move, "expected": count}))
            states = [_state(s, count + 1) for s in sockets]
            assert all(s["actions"] == count + 1 for s in states), "a move was not seen on the other process"
            assert all(len(s["view"]["display"]) == 6 for s in states)
        assert sixth >= 4  # both seats drew the sixth card, each read by the other process
        for port in (port_a, port_b):
            summary = _http(port, f"/api/games/{game_id}")
            assert summary["actions"] == states[0]["actions"] and summary["variant"]["name"] == "six"
