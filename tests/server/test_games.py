"""Whole games over the socket: against the AI to the end, two online players live,
and a server restart in the middle of a game."""

from __future__ import annotations

from typing import Any

from server_helpers import WholeLog, create_game, live_state, receive_until, ws_path
from starlette.testclient import TestClient

from ttr_nordic.engine import GameRecord
from ttr_nordic.server import create_app
from ttr_nordic.server.serialize import serialize_view

HUMAN = {"kind": "human"}


def choose(legal: list[dict[str, Any]]) -> str:
    """A simple player: claim when possible, else draw blind, else the first choice."""
    actions = [item["action"] for item in legal]
    claims = [a for a in actions if a.startswith("C ")]
    if claims:
        return claims[0]
    return "B" if "B" in actions else actions[0]


def test_full_game_against_easy_ai(client: TestClient) -> None:
    data = create_game(client, "ai", [{"name": "Ann"}, {"kind": "ai", "level": "easy"}])
    game_id, token = data["game"]["id"], data["invites"][0]["token"]
    seen_ai_moves = 0
    last_state: dict[str, Any] = {}
    with client.websocket_connect(ws_path(game_id, token)) as socket:
        ws = WholeLog(socket)
        for _ in range(3000):
            message = ws.receive_json()
            assert message["type"] in ("state", "game_over"), message
            if message["type"] == "game_over":
                # The last state carried the whole log again: the end reveals every hidden entry.
                assert last_state["log_start"] == 0
                assert last_state["view"] == serialize_view(live_state(client, game_id).view(0))
                break
            last_state = message
            assert message["seat"] == 0
            log = message["view"]["log"]
            seen_ai_moves = sum(1 for entry in log if entry["player"] == 1)
            if message["legal"]:
                ws.send_json({"type": "act", "action": choose(message["legal"])})
        else:
            raise AssertionError("the game did not end")
    assert message["result"]["winners"] == [
        message["result"]["players"][w]["player"] for w in message["result"]["winners"]
    ]
    assert message["winners"]
    assert seen_ai_moves > 10
    # Joining a finished game: its final state, then the result.
    with client.websocket_connect(ws_path(game_id, token)) as ws:
        final = ws.receive_json()
        assert final["type"] == "state" and final["legal"] == []
        assert final["view"]["phase"] == "GAME_OVER" and final["view"]["result"] == message["result"]
        assert ws.receive_json()["type"] == "game_over"
        ws.send_json({"type": "act", "action": "B"})
        assert ws.receive_json()["code"] == "GAME_OVER"
    assert client.get(f"/api/games/{game_id}").json()["result"] is None  # the scoring: players only
    summary = client.get(f"/api/games/{game_id}", headers={"X-Game-Token": token}).json()
    assert summary["status"] == "finished" and summary["result"]["totals"]
    mine = client.post("/api/games/mine", json={"games": [{"id": game_id, "token": token}]}).json()["games"]
    assert [g["id"] for g in mine] == [game_id]
    assert mine[0]["winners"] == message["result"]["winners"]
    record = client.get(f"/api/games/{game_id}/record", headers={"X-Game-Token": token})
    assert record.status_code == 200
    replayed = GameRecord.from_dict(record.json()).replay()
    assert replayed.is_over
    assert replayed.history == live_state(client, game_id).history
    assert record.json()["meta"]["seats"][1]["level"] == "easy"


def test_online_players_see_each_others_moves_live(client: TestClient) -> None:
    data = create_game(client, "online", [{"name": "A"}, {"name": "B"}], first_player=0)
    game_id = data["game"]["id"]
    tokens = [invite["token"] for invite in data["invites"]]
    with (
        client.websocket_connect(ws_path(game_id, tokens[0])) as ws0,
        client.websocket_connect(ws_path(game_id, tokens[1])) as ws1,
    ):
        sockets = [ws0, ws1]
        states = [ws0.receive_json(), ws1.receive_json()]
        for step in range(12):
            seat = next(s for s in (0, 1) if states[s]["legal"])
            action = choose(states[seat]["legal"])
            sockets[seat].send_json({"type": "act", "action": action})
            states = [ws0.receive_json(), ws1.receive_json()]
            assert [m["type"] for m in states] == ["state", "state"]
            assert states[0]["actions"] == states[1]["actions"] == step + 1
            # Both see the same public board.
            for key in ("route_owner", "scores", "trains", "hand_sizes", "display", "current", "phase"):
                assert states[0]["view"][key] == states[1]["view"][key]
            other = states[1 - seat]["view"]["log"][-1]
            assert other["player"] == seat
            if action != "B" and not action.startswith("K "):
                assert other["notation"] == action


def test_restart_recovers_the_game_exactly(database_url: str) -> None:
    with TestClient(create_app(database_url)) as client:
        data = create_game(client, "ai", [HUMAN, {"kind": "ai", "level": "easy"}], first_player=0)
        game_id, token = data["game"]["id"], data["invites"][0]["token"]
        with client.websocket_connect(ws_path(game_id, token)) as socket:
            ws = WholeLog(socket)
            moves = 0
            while moves < 6:
                message = receive_until(ws, lambda m: bool(m["legal"]))
                ws.send_json({"type": "act", "action": choose(message["legal"])})
                moves += 1
            last = receive_until(ws, lambda m: bool(m["legal"]))
        before = live_state(client, game_id)
        before_history = list(before.history)
        before_deck = list(before.deck)
        before_rng = before.rng.getstate()
    # A new app on the same database file: the game is rebuilt from its stored actions.
    with TestClient(create_app(database_url)) as client:
        assert client.app.state.service.live == {}  # type: ignore[attr-defined]
        with client.websocket_connect(ws_path(game_id, token)) as ws:
            resumed = ws.receive_json()
            assert resumed["view"] == last["view"]
            assert resumed["legal"] == last["legal"]
            state = live_state(client, game_id)
            assert state.history == before_history
            assert state.deck == before_deck and state.rng.getstate() == before_rng
            ws.send_json({"type": "act", "action": choose(resumed["legal"])})
            after = ws.receive_json()
            assert after["type"] == "state" and after["actions"] == resumed["actions"] + 1
