"""Spectators: the engine's public view holds what every seat sees alike and nothing private;
a lobby game is watched over HTTP and its own WebSocket, whose messages never carry a hand,
a ticket or the deck; an invite game is not watched."""

from __future__ import annotations

import json
import random

import pytest
from server_helpers import create_game, live_state
from starlette.testclient import TestClient

from ttr_nordic.engine import GameState
from ttr_nordic.engine.spectator import public_view
from ttr_nordic.server.spectate import serialize_public

SHARED = [
    "num_players",
    "current",
    "phase",
    "turn",
    "display",
    "deck_count",
    "discard",
    "ticket_deck_count",
    "route_owner",
    "trains",
    "scores",
    "hand_sizes",
    "ticket_counts",
    "offer_counts",
    "tunnel",
    "final_turns_left",
    "final_round_trigger",
]


def _assert_public(text: str, state: GameState) -> None:
    data = json.loads(text)
    view = data.get("view", data)
    for private in ("hand", "tickets", "offered_tickets", "returned_tickets", "all_tickets", "result", "deck"):
        assert private not in view, private
    if state.phase.name == "GAME_OVER":
        return  # the end reveals every ticket to everyone, as at the table
    board = state.board
    for seat in range(state.num_players):
        for ticket in [*state.offers[seat], *state.tickets[seat]]:
            assert board.tickets[ticket].name not in text, "a ticket reached a spectator"
    for entry in view["log"]:
        assert "from the deck" not in entry["text"] or entry["card"] is None, entry


@pytest.mark.parametrize("players", [2, 3])
def test_the_public_view_is_what_every_seat_sees_alike(players: int) -> None:
    rng = random.Random(players)
    state = GameState.new(players=players, seed=11 + players)
    steps = 0
    while not state.is_over and steps < 400:
        public = public_view(state)
        views = [state.view(seat) for seat in range(players)]
        for name in SHARED:
            assert {getattr(v, name) for v in views} == {getattr(public, name)}, name
        for seat in range(players):  # a seat's known cards as the others see them
            assert public.known_cards[seat] == views[(seat + 1) % players].known_cards[seat]
        # The log: an entry hidden from some seat is hidden from the spectator.
        for index, entry in enumerate(public.log):
            if any(v.log[index].notation is None for v in views):
                assert entry.notation is None
        _assert_public(json.dumps(serialize_public(state)), state)
        state.apply(rng.choice(state.legal_action_list()))
        steps += 1
    assert steps > 50


def lobby_game(client: TestClient) -> str:
    made = client.post("/api/lobby/tables", json={"players": 2, "name": "Astrid"}).json()
    joined = client.post(f"/api/lobby/tables/{made['table']['id']}/join", json={"name": "Leif"}).json()
    game_id: str = joined["table"]["game_id"]
    return game_id


def test_a_lobby_game_is_watched_and_no_message_carries_a_secret(client: TestClient) -> None:
    game_id = lobby_game(client)
    service = client.app.state.service  # type: ignore[attr-defined]
    rng = random.Random(4)
    answer = client.get(f"/api/games/{game_id}/watch")
    assert answer.status_code == 200
    _assert_public(answer.text, live_state(client, game_id))
    with client.websocket_connect(f"/ws/watch/{game_id}") as ws:
        first = ws.receive_text()
        assert json.loads(first)["actions"] == 0
        _assert_public(first, live_state(client, game_id))
        for moves in range(1, 13):
            game = client.portal.call(service.get, game_id)  # type: ignore[union-attr]
            action = rng.choice(game.state.legal_action_list())
            client.portal.call(service.act, game, game.state.decision.player, action)  # type: ignore[union-attr]
            while True:  # the socket sends each position it sees (it may skip one)
                text = ws.receive_text()
                if json.loads(text)["actions"] >= moves:
                    break
            _assert_public(text, live_state(client, game_id))


def test_an_invite_game_is_not_watched(client: TestClient) -> None:
    created = create_game(client, "online", [{"name": "A"}, {"name": "B"}])
    game_id = created["game"]["id"]
    refused = client.get(f"/api/games/{game_id}/watch")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "NOT_PUBLIC"
    with client.websocket_connect(f"/ws/watch/{game_id}") as ws:
        assert ws.receive_json()["code"] == "NOT_PUBLIC"
    assert client.get("/api/games/nope/watch").status_code == 404
