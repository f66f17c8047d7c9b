"""The hint of a game against the computer: what the expert would do, searched in an AI worker on
the asking seat's view; refused elsewhere, one at a time per connection."""

from __future__ import annotations

from server_helpers import create_game, receive_until, ws_path
from starlette.testclient import TestClient

from ttr_nordic.ai.hints import REASONS


def test_a_hint_is_a_legal_action_for_the_deciding_seat(client: TestClient) -> None:
    made = create_game(client, "ai", [{"kind": "human", "name": "Ola"}, {"kind": "ai", "level": "easy"}])
    game_id, token = made["game"]["id"], made["invites"][0]["token"]
    with client.websocket_connect(ws_path(game_id, token)) as ws:
        state = receive_until(ws, lambda m: m["type"] == "state" and bool(m["legal"]))
        legal = {entry["action"] for entry in state["legal"]}
        ws.send_json({"type": "hint"})
        ws.send_json({"type": "hint"})  # while the first is being searched
        busy = receive_until(ws, lambda m: m["type"] == "error")
        assert busy["code"] == "HINT_BUSY"
        hint = receive_until(ws, lambda m: m["type"] == "hint")
        assert hint["seat"] == 0 and hint["actions"] == state["actions"]
        assert hint["action"] in legal
        # Why, as data the page words: the move, and reasons with their parameters.
        why = hint["why"]
        assert why["move"]["kind"] in {"claim", "face_up", "deck", "tickets", "keep", "tunnel_pay", "tunnel_decline"}
        assert why["reasons"] and all(set(r) == {"code", *REASONS[r["code"]]} for r in why["reasons"])
        if hint["action"].startswith("K "):  # the opening ticket choice: kept tickets by name
            assert why["move"]["kind"] == "keep" and why["reasons"][0]["code"] == "tickets_fit"
        # A hint changes nothing: seat 0 has not moved (the computer may have chosen its tickets).
        state = client.app.state.service.live[game_id].state  # type: ignore[attr-defined]
        assert [entry for entry in state.log if entry.player == 0] == []


def test_hints_are_only_for_games_against_the_computer(client: TestClient) -> None:
    for mode in ("online", "hotseat"):
        made = create_game(client, mode, [{}, {}])
        game_id, token = made["game"]["id"], made["invites"][0]["token"]
        with client.websocket_connect(ws_path(game_id, token)) as ws:
            receive_until(ws, lambda m: m["type"] == "state")
            ws.send_json({"type": "hint"})
            error = receive_until(ws, lambda m: m["type"] == "error")
            assert error["code"] == "HINTS_OFF", mode
