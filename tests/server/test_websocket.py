"""The game WebSocket: joining, acting, protocol errors, seats and privacy of messages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from server_helpers import WholeLog, create_game, live_state, receive_until, ws_path
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ttr_nordic.engine import parse_action
from ttr_nordic.server.serialize import serialize_view

HUMAN = {"kind": "human"}


def online_game(client: TestClient, players: int = 2) -> tuple[str, list[str]]:
    data = create_game(client, "online", [HUMAN] * players, first_player=0)
    return data["game"]["id"], [invite["token"] for invite in data["invites"]]


def test_join_with_valid_token_gets_own_state(client: TestClient) -> None:
    game_id, tokens = online_game(client)
    with client.websocket_connect(ws_path(game_id, tokens[1])) as ws:
        message = ws.receive_json()
    assert message["type"] == "state" and message["seat"] == 1
    assert message["view"]["player"] == 1
    assert message["legal"] == []  # seat 0 chooses tickets first
    assert message["view"] == serialize_view(live_state(client, game_id).view(1))
    with client.websocket_connect(ws_path(game_id, tokens[0])) as ws:
        message = ws.receive_json()
    assert message["seat"] == 0
    legal = message["legal"]
    assert legal and all(set(item) == {"action", "label"} for item in legal)
    assert legal[0]["action"].startswith("K ") and legal[0]["label"].startswith("Keep ")


@pytest.mark.parametrize("token", ["", "wrong-token"])
def test_join_with_bad_token_is_refused(client: TestClient, token: str) -> None:
    game_id, _ = online_game(client)
    with client.websocket_connect(ws_path(game_id, token)) as ws:
        message = ws.receive_json()
        assert message == {"type": "error", "code": "BAD_TOKEN", "message": message["message"]}
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
    assert info.value.code == 4401


def test_token_of_another_game_is_refused(client: TestClient) -> None:
    game_a, _ = online_game(client)
    _, tokens_b = online_game(client)
    with client.websocket_connect(ws_path(game_a, tokens_b[0])) as ws:
        assert ws.receive_json()["code"] == "BAD_TOKEN"


def test_unknown_game(client: TestClient) -> None:
    with client.websocket_connect(ws_path("0" * 32, "x")) as ws:
        assert ws.receive_json()["code"] == "GAME_NOT_FOUND"


def test_protocol_errors_change_nothing(client: TestClient) -> None:
    game_id, tokens = online_game(client)
    with client.websocket_connect(ws_path(game_id, tokens[0])) as ws:
        first = ws.receive_json()
        cases: list[tuple[Any, str]] = [
            ("{not json", "BAD_MESSAGE"),
            ("[1, 2]", "BAD_MESSAGE"),
            (json.dumps({"action": "B"}), "BAD_MESSAGE"),
            (json.dumps({"type": "dance"}), "UNKNOWN_TYPE"),
            (json.dumps({"type": "act"}), "BAD_MESSAGE"),
            (json.dumps({"type": "act", "action": 7}), "BAD_MESSAGE"),
            (json.dumps({"type": "act", "action": "zz top"}), "BAD_ACTION"),
            (json.dumps({"type": "act", "action": "B", "seat": "0"}), "BAD_MESSAGE"),
            (json.dumps({"type": "act", "action": "B"}), "ACTION_IN_PROGRESS"),
            (json.dumps({"type": "act", "action": "K 999"}), "BAD_ACTION"),  # no ticket 999 on this board
        ]
        for text, code in cases:
            ws.send_text(text)
            message = ws.receive_json()
            assert message["type"] == "error", text
            assert message["code"] == code, (text, message)
            assert message["message"]
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        ws.send_bytes(b"\x00")
        assert ws.receive_json()["code"] == "BAD_MESSAGE"
    state = live_state(client, game_id)
    assert state.history == []
    assert first["view"] == serialize_view(state.view(0))


def test_illegal_action_carries_the_engine_reason(client: TestClient) -> None:
    game_id, tokens = online_game(client)
    state = live_state(client, game_id)
    not_offered = f"K {min(set(range(len(state.board.tickets))) - set(state.offers[0]))}"
    wanted = state.rejection(parse_action(not_offered), 0)
    assert wanted is not None
    with client.websocket_connect(ws_path(game_id, tokens[0])) as ws:
        ws.receive_json()
        ws.send_json({"type": "act", "action": not_offered})
        error = ws.receive_json()
    assert error["code"] == wanted.name == "INVALID_TICKET_CHOICE"
    assert error["action"] == not_offered


def test_out_of_turn_and_other_seat(client: TestClient) -> None:
    game_id, tokens = online_game(client)
    with client.websocket_connect(ws_path(game_id, tokens[1])) as ws:
        ws.receive_json()
        keep = "K " + " ".join(str(t) for t in live_state(client, game_id).offers[1])
        ws.send_json({"type": "act", "action": keep})
        assert ws.receive_json()["code"] == "NOT_YOUR_TURN"
        # The token of seat 1 cannot act, or look, for seat 0.
        offers0 = live_state(client, game_id).offers[0]
        ws.send_json({"type": "act", "seat": 0, "action": "K " + " ".join(map(str, offers0))})
        assert ws.receive_json()["code"] == "NOT_YOUR_SEAT"
        ws.send_json({"type": "view", "seat": 0})
        assert ws.receive_json()["code"] == "NOT_YOUR_SEAT"
    with client.websocket_connect(ws_path(game_id, tokens[1], seat=0)) as ws:
        assert ws.receive_json()["code"] == "NOT_YOUR_SEAT"
    assert live_state(client, game_id).history == []


def test_ai_seat_cannot_be_driven_by_the_human(client: TestClient) -> None:
    data = create_game(client, "ai", [HUMAN, {"kind": "ai", "level": "easy"}], first_player=1)
    game_id, token = data["game"]["id"], data["invites"][0]["token"]
    with client.websocket_connect(ws_path(game_id, token)) as ws:
        ws.send_json({"type": "act", "seat": 1, "action": "B"})
        error = receive_until(ws, lambda m: m["type"] == "error")
        assert error["code"] == "NOT_YOUR_SEAT"


def test_hotseat_one_token_views_and_acts_per_seat(client: TestClient) -> None:
    data = create_game(client, "hotseat", [HUMAN, HUMAN, HUMAN], first_player=2)
    game_id, token = data["game"]["id"], data["invites"][0]["token"]
    with client.websocket_connect(ws_path(game_id, token)) as ws:
        first = ws.receive_json()
        assert first["seat"] == 2  # the seat that must act
        assert first["view"]["player"] == 2
        ws.send_json({"type": "view", "seat": 0})
        other = ws.receive_json()
        assert other["seat"] == 0 and other["view"]["player"] == 0 and other["legal"] == []
        keep = first["legal"][0]["action"]
        ws.send_json({"type": "act", "seat": 2, "action": keep})
        after = ws.receive_json()
        # Seat 2 kept its tickets; the device now shows seat 0, who chooses next.
        assert after["type"] == "state" and after["seat"] == 0 and after["legal"]
        assert after["view"]["ticket_counts"][2] > 0
        assert "offered_tickets" in after["view"] and after["view"]["hand_sizes"]
        ws.send_json({"type": "act", "seat": 1, "action": "B"})
        assert ws.receive_json()["code"] == "NOT_YOUR_TURN"
        # Without "seat", the action is for the seat on screen (0).
        ws.send_json({"type": "act", "action": after["legal"][0]["action"]})
        next_seat = ws.receive_json()
        assert next_seat["seat"] == 1
        # Another seat's view: the whole log as that seat sees it.
        assert next_seat["log_start"] == 0 and len(next_seat["view"]["log"]) == 2
        assert next_seat["view"] == serialize_view(live_state(client, game_id).view(1))
    assert len(live_state(client, game_id).history) == 2
    with client.websocket_connect(ws_path(game_id, token, seat=2)) as ws:
        shown = ws.receive_json()
        assert shown["seat"] == 2 and shown["legal"] == []


def _assert_private(text: str, seat: int, state: Any) -> None:
    data = json.loads(text)
    assert '"seed"' not in text and str(state.config.seed) not in text
    assert '"deck"' not in text and '"hands"' not in text and '"offers"' not in text
    if data["type"] != "state":
        return
    assert data["seat"] == seat
    view = data["view"]
    assert view == serialize_view(state.view(seat), data["log_start"])
    board = state.board
    for other in range(state.num_players):
        if other == seat:
            continue
        for ticket in [*state.offers[other], *state.tickets[other]]:
            assert board.tickets[ticket].name not in text, "another seat's ticket leaked"


def test_messages_hide_other_seats_and_the_deck(client: TestClient) -> None:
    game_id, tokens = online_game(client, players=3)
    state = live_state(client, game_id)
    with (
        client.websocket_connect(ws_path(game_id, tokens[0])) as ws0,
        client.websocket_connect(ws_path(game_id, tokens[1])) as ws1,
    ):
        # The very first message of each seat.
        _assert_private(ws0.receive_text(), 0, state)
        _assert_private(ws1.receive_text(), 1, state)
        first = json.loads(json.dumps(serialize_view(state.view(0))))
        assert first["hand_sizes"] == [4, 4, 4] and "hand" in first
        keep = "K " + " ".join(map(str, state.offers[0]))
        ws0.send_json({"type": "act", "action": keep})
        text0, text1 = ws0.receive_text(), ws1.receive_text()
        state = live_state(client, game_id)
        _assert_private(text0, 0, state)
        _assert_private(text1, 1, state)
        # Seat 1 sees that seat 0 kept 5 tickets, not which.
        entry = json.loads(text1)["view"]["log"][-1]
        assert entry["notation"] is None and entry["player"] == 0
        assert json.loads(text1)["view"]["ticket_counts"] == [5, 0, 0]
        assert json.loads(text1)["view"]["tickets"] == []


def test_action_stored_elsewhere_first_is_refused_then_recovered(client: TestClient) -> None:
    """Another server process stored action 0 first: ours is refused, the socket closes,
    and a new connection sees the stored game."""
    from ttr_nordic.server.db import ActionRow

    game_id, tokens = online_game(client)
    offers = live_state(client, game_id).offers[0]
    service = client.app.state.service  # type: ignore[attr-defined]
    with client.websocket_connect(ws_path(game_id, tokens[0])) as ws:
        ws.receive_json()
        with service.sessions.begin() as session:
            session.add(ActionRow(game_id=game_id, index=0, seat=0, notation="K " + " ".join(map(str, offers))))
        ws.send_json({"type": "act", "action": "K " + " ".join(map(str, offers[:2]))})
        if service.shared:
            # PostgreSQL: several processes may share the database, so the game catches up with
            # what is stored before acting: the client is shown it, and the move is refused by
            # the rules (seat 1 chooses next).
            shown = ws.receive_json()
            assert shown["type"] == "state" and shown["actions"] == 1
            error = ws.receive_json()
            assert error["type"] == "error" and error["code"] != "STORAGE_ERROR"
        else:
            error = ws.receive_json()
            assert error["code"] == "STORAGE_ERROR"
            with pytest.raises(WebSocketDisconnect):
                ws.receive_json()
    with client.websocket_connect(ws_path(game_id, tokens[0])) as ws:
        message = ws.receive_json()
    assert message["actions"] == 1 and len(message["view"]["tickets"]) == 5


def test_states_carry_only_the_log_entries_the_client_lacks(client: TestClient) -> None:
    """The first state has the whole log; each later one only the entries from the length the
    client holds, which put together make the seat's whole log. Asking for the view again
    sends the whole log."""
    game_id, tokens = online_game(client)
    with (
        client.websocket_connect(ws_path(game_id, tokens[0])) as ws0,
        client.websocket_connect(ws_path(game_id, tokens[1])) as ws1,
    ):
        sockets = [WholeLog(ws0), WholeLog(ws1)]
        states = [socket.receive_json() for socket in sockets]
        assert [m["log_start"] for m in states] == [0, 0]
        for _ in range(16):
            seat = next(s for s in (0, 1) if states[s]["legal"])
            actions = [item["action"] for item in states[seat]["legal"]]
            held = [len(socket.log) for socket in sockets]
            sockets[seat].send_json({"type": "act", "action": "B" if "B" in actions else actions[0]})
            states = [socket.receive_json() for socket in sockets]
            state = live_state(client, game_id)
            for s in (0, 1):
                assert states[s]["log_start"] == held[s]
                assert sockets[s].carried == len(state.log) - held[s] == 1
                assert states[s]["view"] == serialize_view(state.view(s))
        sockets[1].send_json({"type": "view"})
        again = sockets[1].receive_json()
        assert again["log_start"] == 0 and sockets[1].carried == len(state.log) == 16
        assert again["view"] == serialize_view(state.view(1))
