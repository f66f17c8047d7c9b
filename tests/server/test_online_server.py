"""Playing with friends, server side: invite addresses, a browser's own games, who may read a
finished game, presence, and a seat handed to the computer."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from server_helpers import create_game, live_state, receive_until, ws_path
from starlette.testclient import TestClient

from ttr_nordic.server import create_app
from ttr_nordic.server.ai_workers import AIPool, DecisionJob, decide

SLOW_DECISION_S = 2.5


def slow_decide(job: DecisionJob) -> str:
    """A computer that thinks for a while (runs in a worker process, which imports this module)."""
    time.sleep(SLOW_DECISION_S)
    return decide(job)


HUMAN = {"kind": "human"}


def finish(client: TestClient, game_id: str, seed: int = 3) -> None:
    """Play the game to its end with random legal actions, through the service (as the socket does)."""
    service = client.app.state.service  # type: ignore[attr-defined]
    rng = random.Random(seed)
    game = client.portal.call(service.get, game_id)  # type: ignore[union-attr]
    while not game.state.is_over:
        state = game.state
        action = rng.choice(state.legal_action_list())
        client.portal.call(service.act, game, state.decision.player, action)  # type: ignore[union-attr]


def test_invite_links_use_the_address_asked_or_the_public_url(database_url: str) -> None:
    with TestClient(create_app(database_url), base_url="http://192.168.1.20:8000") as client:
        invites = create_game(client, "online", [HUMAN, HUMAN])["invites"]
        assert [i["url"] for i in invites] == [f"http://192.168.1.20:8000{i['path']}" for i in invites]
    with TestClient(create_app(database_url, public_url="https://trains.example.org/")) as client:
        invites = create_game(client, "online", [HUMAN, HUMAN, HUMAN])["invites"]
        assert len(invites) == 3
        assert all(i["url"] == f"https://trains.example.org{i['path']}" for i in invites)


def test_my_games_answer_only_to_a_token_of_each_game(client: TestClient) -> None:
    first = create_game(client, "online", [{"name": "Astrid"}, {"name": "Leif"}])
    second = create_game(client, "ai", [{"name": "Solo"}, {"kind": "ai", "level": "easy"}])
    a_id, b_id = first["game"]["id"], second["game"]["id"]
    leif = first["invites"][1]["token"]
    asked = {
        "games": [
            {"id": a_id, "token": leif},
            {"id": b_id, "token": leif},  # a token of another game opens nothing here
            {"id": "nope", "token": leif},
        ]
    }
    answer = client.post("/api/games/mine", json=asked).json()
    assert [g["id"] for g in answer["games"]] == [a_id]
    assert answer["games"][0]["mine"] == [1]
    assert answer["games"][0]["status"] == "active"
    assert answer["unknown"] == [b_id, "nope"]
    assert client.post("/api/games/mine", json={"games": [{"id": a_id}]}).status_code == 422
    too_many = {"games": [{"id": str(i), "token": "x"} for i in range(201)]}
    assert client.post("/api/games/mine", json=too_many).json()["error"]["code"] == "VALIDATION_ERROR"


def test_a_finished_game_is_shown_to_its_players_only(client: TestClient) -> None:
    created = create_game(client, "hotseat", [{"name": "A"}, {"name": "B"}])
    game_id, token = created["game"]["id"], created["invites"][0]["token"]
    other = create_game(client, "online", [HUMAN, HUMAN])["invites"][0]["token"]
    finish(client, game_id)
    # Listed to its player from the stored row, without replaying it into memory.
    live = client.app.state.service.live  # type: ignore[attr-defined]
    live.pop(game_id, None)
    answer = client.post("/api/games/mine", json={"games": [{"id": game_id, "token": token}]}).json()
    (listed,) = answer["games"]
    assert listed["status"] == "finished" and listed["mine"] == [0, 1] and listed["finished_at"]
    assert listed["winners"] and set(listed["winners"]) <= {0, 1}
    assert game_id not in live
    assert client.get("/api/games").status_code == 403
    assert client.get("/api/server").json() == {"public_games": False}
    for path in (f"/api/games/{game_id}/record", f"/api/games/{game_id}/replay/1", f"/api/games/{game_id}/chances"):
        for headers in ({}, {"X-Game-Token": other}, {"X-Game-Token": "forged"}):
            response = client.get(path, headers=headers)
            assert response.status_code == 403, (path, headers)
            assert response.json()["error"]["code"] == "TOKEN_REQUIRED"
        assert client.get(path, headers={"X-Game-Token": token}).status_code == 200
        assert client.get(f"{path}?token={token}").status_code == 200


def test_the_owner_can_make_finished_games_public(database_url: str) -> None:
    with TestClient(create_app(database_url, public_games=True)) as client:
        game_id = create_game(client, "hotseat", [HUMAN, HUMAN])["game"]["id"]
        assert client.get("/api/games").json() == {"games": []}  # only finished games are listed
        finish(client, game_id)
        assert [g["id"] for g in client.get("/api/games").json()["games"]] == [game_id]
        assert client.get(f"/api/games/{game_id}/record").status_code == 200
        assert client.get("/api/server").json() == {"public_games": True}


def watch(game_id: str, token: str) -> str:
    return ws_path(game_id, token) + "&presence=1"


def test_the_owner_reads_every_record_with_the_owner_key(database_url: str) -> None:
    with TestClient(create_app(database_url, owner_key="owner-secret")) as client:
        game_id = create_game(client, "hotseat", [HUMAN, HUMAN])["game"]["id"]
        finish(client, game_id)
        for wrong in ({}, {"X-Owner-Key": "guess"}, {"X-Owner-Key": ""}):
            assert client.get("/api/games", headers=wrong).status_code == 403
            assert client.get(f"/api/games/{game_id}/record", headers=wrong).status_code == 403
        owner = {"X-Owner-Key": "owner-secret"}
        assert [g["id"] for g in client.get("/api/games", headers=owner).json()["games"]] == [game_id]
        assert client.get(f"/api/games/{game_id}/record", headers=owner).status_code == 200
        assert client.get(f"/api/games/{game_id}/replay/0", headers=owner).status_code == 200


def presence(ws: Any) -> list[int]:
    message = receive_until(ws, lambda m: m["type"] == "presence")
    present: list[int] = message["present"]
    return present


def test_presence_follows_connections(client: TestClient) -> None:
    created = create_game(client, "online", [HUMAN, HUMAN, HUMAN])
    game_id = created["game"]["id"]
    tokens = [i["token"] for i in created["invites"]]
    with client.websocket_connect(ws_path(game_id, tokens[1])) as second:  # asks for no presence
        receive_until(second, lambda m: m["type"] == "state")
    with client.websocket_connect(watch(game_id, tokens[0])) as first:
        assert presence(first) == [0]
        with client.websocket_connect(watch(game_id, tokens[2])) as third:
            assert presence(third) == [0, 2]
            assert presence(first) == [0, 2]
        assert presence(first) == [0]
        answer = client.post("/api/games/mine", json={"games": [{"id": game_id, "token": tokens[0]}]}).json()
        assert answer["games"][0]["present"] == [0]


def test_the_creator_hands_an_absent_seat_to_the_computer(database_url: str) -> None:
    with TestClient(create_app(database_url)) as client:
        created = create_game(client, "online", [{"name": "Astrid"}, {"name": "Leif"}], first_player=0)
        game_id = created["game"]["id"]
        astrid, leif = (i["token"] for i in created["invites"])
        with client.websocket_connect(ws_path(game_id, leif)) as ws:
            receive_until(ws, lambda m: m["type"] == "state")
            ws.send_json({"type": "hand_over", "seat": 0, "level": "easy"})
            assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "NOT_CREATOR"
            with client.websocket_connect(ws_path(game_id, astrid)) as creator:
                creator.send_json({"type": "hand_over", "seat": 1, "level": "easy"})
                assert receive_until(creator, lambda m: m["type"] == "error")["code"] == "SEAT_PRESENT"
        with client.websocket_connect(watch(game_id, astrid)) as creator:
            receive_until(creator, lambda m: m["type"] == "presence" and m["present"] == [0])
            for bad, code in (
                ({"seat": 1, "level": "grandmaster"}, "BAD_MESSAGE"),
                ({"seat": 0, "level": "easy"}, "BAD_SEAT"),
                ({"seat": 5, "level": "easy"}, "BAD_SEAT"),
                ({"seat": "1", "level": "easy"}, "BAD_MESSAGE"),
            ):
                creator.send_json({"type": "hand_over", **bad})
                assert receive_until(creator, lambda m: m["type"] == "error")["code"] == code, bad
            assert live_state(client, game_id).history == []
            creator.send_json({"type": "hand_over", "seat": 1, "level": "easy"})
            # A refusal says why at once (rather than waiting for a state that never comes).
            state = receive_until(
                creator, lambda m: m["type"] == "error" or (m["type"] == "state" and m["seats"][1]["kind"] == "ai")
            )
            assert state["type"] == "state", state
            assert state["seats"][1] == {"seat": 1, "name": "Leif", "kind": "ai", "level": "easy"}
            # Astrid keeps her tickets and draws; the computer plays Leif's seat in between.
            for _ in range(400):
                if state["legal"]:
                    creator.send_json({"type": "act", "action": state["legal"][0]["action"]})
                if len(live_state(client, game_id).history) >= 8:
                    break
                state = receive_until(creator, lambda m: m["type"] == "state")
            # Astrid alone cannot make 8 moves: Leif keeps initial tickets and takes turns.
            assert len(live_state(client, game_id).history) >= 8
        # Leif's link still opens the game to watch; acting is refused.
        with client.websocket_connect(ws_path(game_id, leif)) as ws:
            assert receive_until(ws, lambda m: m["type"] == "state")["legal"] == []  # nothing to do
            ws.send_json({"type": "act", "action": "B", "seat": 1})
            assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "SEAT_HANDED_OVER"
        moves = len(live_state(client, game_id).history)
    # Stored: after a restart the seat is still the computer's.
    with TestClient(create_app(database_url)) as client:
        summary = client.get(f"/api/games/{game_id}").json()
        assert summary["seats"][1] == {"seat": 1, "name": "Leif", "kind": "ai", "level": "easy"}
        assert summary["actions"] >= moves


@pytest.mark.parametrize("mode", ["hotseat", "ai"])
def test_only_online_games_hand_seats_over(client: TestClient, mode: str) -> None:
    seats = [HUMAN, HUMAN] if mode == "hotseat" else [HUMAN, {"kind": "ai", "level": "easy"}]
    created = create_game(client, mode, seats)
    with client.websocket_connect(ws_path(created["game"]["id"], created["invites"][0]["token"])) as ws:
        receive_until(ws, lambda m: m["type"] == "state")
        ws.send_json({"type": "hand_over", "seat": 1, "level": "easy"})
        assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "NOT_CREATOR"


def test_serve_refuses_a_public_url_that_is_not_http(capsys: pytest.CaptureFixture[str]) -> None:
    from ttr_nordic.cli import main

    assert main(["serve", "--public-url", "192.168.1.20:8000"]) == 2
    assert "--public-url: '192.168.1.20:8000' does not start with http:// or https://" in capsys.readouterr().err


def test_the_creator_gives_a_seat_back_to_its_returning_player(client: TestClient) -> None:
    created = create_game(client, "online", [{"name": "Astrid"}, {"name": "Leif"}], first_player=0)
    game_id = created["game"]["id"]
    astrid, leif = (i["token"] for i in created["invites"])
    with client.websocket_connect(watch(game_id, astrid)) as creator:
        receive_until(creator, lambda m: m["type"] == "presence" and m["present"] == [0])
        creator.send_json({"type": "hand_back", "seat": 1})
        assert receive_until(creator, lambda m: m["type"] == "error")["code"] == "SEAT_ABSENT"
        creator.send_json({"type": "hand_over", "seat": 1, "level": "easy"})
        receive_until(creator, lambda m: m["type"] == "state" and m["seats"][1]["kind"] == "ai")
        creator.send_json({"type": "hand_back", "seat": 1})  # Leif is not back yet
        assert receive_until(creator, lambda m: m["type"] == "error")["code"] == "SEAT_ABSENT"
        with client.websocket_connect(watch(game_id, leif)) as ws:
            # Leif watches: he is there, on a seat the computer plays
            assert receive_until(creator, lambda m: m["type"] == "presence")["present"] == [0, 1]
            ws.send_json({"type": "hand_back", "seat": 1})
            assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "NOT_CREATOR"
            creator.send_json({"type": "hand_back", "seat": 0})
            assert receive_until(creator, lambda m: m["type"] == "error")["code"] == "BAD_SEAT"
            creator.send_json({"type": "hand_back", "seat": 1})
            state = receive_until(ws, lambda m: m["type"] == "state" and m["seats"][1]["kind"] == "human")
            assert state["seats"][1] == {"seat": 1, "name": "Leif", "kind": "human", "level": None}

            # Leif plays his own seat again: when it is his turn he is offered the moves.
            def current(m: dict[str, Any]) -> bool:
                return m["type"] == "state" and bool(m["legal"]) and m["actions"] == len(game.history)

            game = live_state(client, game_id)
            mine: dict[str, Any] = {"type": "none"}
            for _ in range(200):
                game = live_state(client, game_id)
                if game.decision.player == 1:
                    break
                # Astrid's turn: she keeps or draws (her last state may be the one to answer)
                if not current(mine):
                    mine = receive_until(creator, current)
                creator.send_json({"type": "act", "action": mine["legal"][0]["action"]})
                mine = receive_until(creator, lambda m, n=mine["actions"]: m["type"] == "state" and m["actions"] > n)
            if not state["legal"]:
                state = receive_until(ws, lambda m: m["type"] == "state" and bool(m["legal"]))
            assert state["legal"] and state["view"]["current"] == 1
            before = len(live_state(client, game_id).history)
            ws.send_json({"type": "act", "action": state["legal"][0]["action"]})
            receive_until(ws, lambda m: m["type"] == "state" and m["actions"] > before)
            creator.send_json({"type": "hand_back", "seat": 1})  # a person's seat already
            assert receive_until(creator, lambda m: m["type"] == "error")["code"] == "BAD_SEAT"
    assert client.get(f"/api/games/{game_id}").json()["seats"][1]["kind"] == "human"


def test_a_seat_given_back_while_the_computer_thinks_gets_no_computer_move(tmp_path: Any) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.sqlite'}")) as client:
        service = client.app.state.service  # type: ignore[attr-defined]
        service.ai = AIPool(1, decider=slow_decide)
        created = create_game(client, "online", [{"name": "Astrid"}, {"name": "Leif"}], first_player=0)
        game_id = created["game"]["id"]
        astrid, leif = (i["token"] for i in created["invites"])
        with client.websocket_connect(watch(game_id, astrid)) as creator:
            receive_until(creator, lambda m: m["type"] == "presence")
            creator.send_json({"type": "hand_over", "seat": 1, "level": "easy"})
            state = receive_until(creator, lambda m: m["type"] == "state" and m["seats"][1]["kind"] == "ai")
            game = live_state(client, game_id)
            while game.decision.player != 1:  # Astrid keeps her tickets: then the computer thinks for Leif
                if not state["legal"]:
                    state = receive_until(creator, lambda m: m["type"] == "state" and bool(m["legal"]))
                creator.send_json({"type": "act", "action": state["legal"][0]["action"]})
                state = receive_until(creator, lambda m, n=state["actions"]: m["type"] == "state" and m["actions"] > n)
                game = live_state(client, game_id)
            moves = len(game.history)
            with client.websocket_connect(watch(game_id, leif)) as ws:
                receive_until(creator, lambda m: m["type"] == "presence" and m["present"] == [0, 1])
                creator.send_json({"type": "hand_back", "seat": 1})
                mine = receive_until(ws, lambda m: m["type"] == "state" and m["seats"][1]["kind"] == "human")
                assert mine["legal"] and mine["actions"] == moves  # Leif's own decision, offered to him
                time.sleep(SLOW_DECISION_S + 1.5)  # the computer's answer would have landed by now
                assert len(live_state(client, game_id).history) == moves
                ws.send_json({"type": "act", "action": mine["legal"][0]["action"]})
                receive_until(ws, lambda m: m["type"] == "state" and m["actions"] == moves + 1)
