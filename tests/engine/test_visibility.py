"""Information visibility (R10.1, R10.2, R3.5, R5.11, R7.6) through player views."""

from __future__ import annotations

import dataclasses
import random

import pytest
from builders import GREEN, LOCO, RED, build, claim, counts, full_game

from ttr_nordic.engine import DrawFaceUp, GameState, PlayerView
from ttr_nordic.engine.actions import DECLINE_TUNNEL, DRAW_BLIND
from ttr_nordic.engine.view import StepView, make_step_view


def test_public_and_secret_parts_of_a_view() -> None:
    state = build(hands=["GGW", "KK"], display="RPPPP", deck="LGRWW", ticket_deck=[1, 2], tickets=[[5], [6, 7]])
    state.apply(DrawFaceUp(0))  # face up: public
    state.apply(DRAW_BLIND)  # blind: secret identity
    view = state.view(1)
    assert view.hand == tuple(counts("KK"))
    assert view.hand_sizes == (5, 2)
    assert view.known_cards[0] == tuple(counts("R"))  # only the face-up card is known
    assert view.tickets == (6, 7)
    assert view.ticket_counts == (1, 2)
    assert view.ticket_deck_count == 2
    assert view.deck_count == len(state.deck)
    assert view.display == tuple(state.display)
    assert view.discard == tuple(state.discard)
    assert view.trains == (40, 40) and view.scores == (0, 0)
    own = state.view(0)
    assert own.hand == tuple(state.hands[0])
    assert own.known_cards[0] == tuple(state.hands[0])


def test_tunnel_reveal_payment_and_declined_base_are_public() -> None:
    state = build(hands=["GGG", ""], deck="GLRW", display="PPPPP")
    state.apply(claim("R44", "GG"))
    entry = state.view(1).log[-1]
    assert entry.revealed == (GREEN, LOCO, RED)
    assert "2 green" in entry.text
    state.apply(DECLINE_TUNNEL)
    # The base payment went back to the hand in full view: the other player knows it.
    assert state.view(1).known_cards[0] == tuple(counts("GG"))


def test_tickets_revealed_at_the_end() -> None:
    state = build(display=".....", tickets=[[3], [4]])
    assert state.view(1).all_tickets is None
    from ttr_nordic.engine.actions import PASS

    state.apply(PASS)
    state.apply(PASS)
    assert state.is_over
    view = state.view(1)
    assert view.all_tickets == ((3,), (4,))
    assert view.result is not None


def test_a_sampled_state_agrees_with_the_view() -> None:
    state = full_game(players=3, seed=17)
    for _ in range(4):
        state.apply(DRAW_BLIND)
    view = state.view(2)
    sample = view.determinize(random.Random(3))
    assert sample.hands[2] == state.hands[2]
    assert sample.tickets[2] == state.tickets[2]
    assert [sum(h) for h in sample.hands] == [sum(h) for h in state.hands]
    assert sample.display == state.display
    assert len(sample.deck) == len(state.deck)
    assert sum(sample.card_total()) == 110
    assert [len(t) for t in sample.tickets] == [len(t) for t in state.tickets]


def test_a_view_without_log_differs_only_in_the_log() -> None:
    state = full_game(seed=4)
    for player in range(state.num_players):
        full, bare = state.view(player), state.view(player, log=False)
        assert full.log and bare.log == ()
        assert dataclasses.replace(full, log=()) == bare


def test_a_step_view_holds_the_views_values_at_every_step() -> None:
    """``make_step_view`` applies the same rules of what a player sees as ``make_view``: each of
    its fields equals the view's, for every seat after every step of random 2- and 3-player games
    (tunnels, the final round and the end included), and it has no field the view lacks, each
    declared with the view's type."""
    declared = PlayerView.__annotations__
    assert StepView.__slots__ == tuple(StepView.__annotations__)
    assert {name: declared[name] for name in StepView.__slots__} == StepView.__annotations__
    rng = random.Random(21)
    checked = tunnels = 0
    for g in range(6):
        state = GameState.new(players=2 + g % 2, seed=40 + g)
        while True:
            for player in range(state.num_players):
                view, step = state.view(player, log=False), make_step_view(state, player)
                assert {name: getattr(step, name) for name in StepView.__slots__} == {
                    name: getattr(view, name) for name in StepView.__slots__
                }
                assert step.ticket_status() == view.ticket_status()
                checked += 1
            tunnels += state.tunnel is not None
            if state.is_over:
                break
            state.apply(rng.choice(state.legal_action_list()))
    assert checked > 1000 and tunnels > 0
    with pytest.raises(ValueError, match="no player 2"):
        make_step_view(GameState.new(players=2, seed=1), 2)
