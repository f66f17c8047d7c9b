"""``serialize_view`` carries what the view holds and nothing else."""

from __future__ import annotations

import dataclasses
import json
import random

from ttr_nordic.engine import GameState, PlayerView
from ttr_nordic.server.serialize import action_label, serialize_legal, serialize_view

#: Keys computed from the view alone (documented in serialize_view).
DERIVED = {"is_my_turn", "phase_text", "phase_args", "claimed_routes"}


def _played(seed: int, actions: int, players: int = 3) -> GameState:
    state = GameState.new(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(actions):
        if state.is_over:
            break
        state.apply(rng.choice(state.legal_action_list()))
    return state


def test_keys_are_the_view_fields() -> None:
    data = serialize_view(GameState.new(players=2, seed=1).view(0))
    fields = {f.name for f in dataclasses.fields(PlayerView)} - {"board"}
    assert set(data) == fields | DERIVED
    json.dumps(data)  # JSON-safe


def test_output_depends_only_on_the_view() -> None:
    """A state sampled from a seat's view differs in every hidden part (other hands and
    tickets, offers, the deck order, the seed) yet serializes the same for that seat:
    so nothing hidden can be in the output. (The sample has no log; logs are compared
    with the view's own log entries below.)"""
    for seed, actions in [(1, 0), (2, 7), (3, 40), (4, 60)]:
        state = _played(seed, actions)
        for seat in range(state.num_players):
            view = state.view(seat)
            sample = view.determinize(random.Random(seed * 10 + seat))
            assert sample.config.seed != state.config.seed
            assert sample.deck != state.deck or len(state.deck) < 3
            mine = serialize_view(view)
            theirs = serialize_view(sample.view(seat))
            mine_log, theirs_log = mine.pop("log"), theirs.pop("log")
            assert mine == theirs
            assert theirs_log == []
            assert [e["text"] for e in mine_log] == [e.text for e in view.log]
            assert [e["notation"] for e in mine_log] == [e.notation for e in view.log]


def test_other_seats_secrets_are_absent() -> None:
    state = _played(5_123_456_789_012, 30, players=2)
    view = state.view(0)
    data = serialize_view(view)
    text = json.dumps(data, ensure_ascii=False)
    assert str(state.config.seed) not in text
    assert [t["id"] for t in data["tickets"]] == list(state.tickets[0])
    assert data["hand"] == dict(zip(data["hand"], state.hands[0], strict=True))
    # Seat 1's cards appear only as its public hand size and publicly known cards.
    assert data["hand_sizes"][1] == sum(state.hands[1])
    assert data["known_cards"][1] == dict(zip(data["hand"], view.known_cards[1], strict=True))
    hidden = [e for e in data["log"] if e["player"] == 1 and e["notation"] is None]
    assert all(e["card"] is None for e in hidden if "drew a card" in e["text"])


def test_legal_actions_have_labels() -> None:
    state = _played(6, 12, players=2)
    items = serialize_legal(state.board, state.legal_action_list())
    assert items and all(item["label"] and item["action"] for item in items)
    assert [i["action"] for i in items] == [a.notation() for a in state.legal_action_list()]


def test_ticket_completion_and_labels_are_the_engines() -> None:
    """Tickets' completion flags are ``view.ticket_status()``; labels are ``action_label``
    (both are worked out once and remembered, so check them over whole games)."""
    completed = 0
    for seed in (7, 8, 9):
        state = GameState.new(players=3, seed=seed)
        rng = random.Random(seed)
        while not state.is_over and len(state.history) < 400:
            legal = state.legal_action_list()
            items = serialize_legal(state.board, legal)
            assert [i["label"] for i in items] == [action_label(state.board, a) for a in legal]
            for seat in range(state.num_players):
                view = state.view(seat)
                tickets = serialize_view(view)["tickets"]
                assert [(t["id"], t["completed"]) for t in tickets] == view.ticket_status()
                completed += sum(done for _, done in view.ticket_status())
            state.apply(rng.choice(legal))
    assert completed > 0
