"""What a log line is made of, sent beside its English text so that a page can word it in its
own language: every line of every seat's log has a kind, a hidden ticket choice still says how
many were kept, and a tunnel try says whether it claimed the route."""

from __future__ import annotations

import random
from collections import Counter

from ttr_nordic.engine import GameState
from ttr_nordic.server.serialize import serialize_log_entry, serialize_view

KINDS = {"draw_blind", "draw_faceup", "draw_tickets", "keep", "claim", "tunnel", "pay_extra", "decline", "pass"}


def _games(count: int) -> list[GameState]:
    """Games played at random, claiming whenever possible (so that tunnels come up), each stopped
    part-way for an odd seed (the others' draws and ticket choices are hidden then)."""
    games = []
    for seed in range(count):
        state = GameState.new(players=2 + seed % 2, seed=seed)
        rng = random.Random(seed)
        for _ in range(150 if seed % 2 else 10_000):
            if state.is_over:
                break
            legal = state.legal_action_list()
            claims = [a for a in legal if a.notation().startswith(("C ", "X "))]
            state.apply(rng.choice(claims if claims and rng.random() < 0.7 else legal))
        games.append(state)
    return games


def test_every_line_has_a_kind_that_matches_its_text() -> None:
    seen: Counter[str] = Counter()
    for state in _games(8):
        for seat in range(state.num_players):
            for entry in state.view(seat).log:
                line = serialize_log_entry(entry)
                kind = line["kind"]
                assert kind in KINDS, line
                seen[kind] += 1
                if kind == "keep":
                    assert f" kept {line['kept']} ticket" in line["text"], line
                else:
                    assert line["kept"] is None, line
                if kind == "tunnel":
                    assert line["text"].endswith("and claimed it") == line["claimed"], line
                if kind == "draw_blind" and line["notation"] is None:
                    assert line["card"] is None and "drew a card" in line["text"], line
    # The random games met every kind but the rare ones (a pass needs an empty deck and display).
    assert KINDS - {"pass"} <= set(seen), seen


def test_another_seats_hidden_ticket_choice_keeps_its_count() -> None:
    state = GameState.new(players=2, seed=5)
    keep = next(a for a in state.legal_action_list() if a.notation().count(" ") == 3)  # three tickets
    state.apply(keep)
    keeper = state.view(0).log[0].player
    own, other = serialize_view(state.view(keeper))["log"][0], serialize_view(state.view(1 - keeper))["log"][0]
    assert (own["kind"], own["kept"], len(own["notation"].split()) - 1) == ("keep", 3, 3)
    assert (other["kind"], other["kept"], other["notation"]) == ("keep", 3, None)


def test_the_phase_carries_its_number_of_tickets_to_keep() -> None:
    state = GameState.new(players=2, seed=2)
    assert serialize_view(state.view(0))["phase_args"] == {"kept": 2}
    state.apply(state.legal_action_list()[0])
    state.apply(state.legal_action_list()[0])
    assert serialize_view(state.view(0))["phase_args"] == {"kept": None}
