"""The draw hook: a caller chooses which card or ticket each draw takes; nothing else changes."""

from __future__ import annotations

import pickle
import random

from ttr_nordic.engine import GameState, load_board
from ttr_nordic.engine.actions import DrawBlind, DrawTickets
from ttr_nordic.engine.cards import FULL_DECK_COUNTS
from ttr_nordic.engine.core import GameConfig


def test_without_a_hook_games_are_those_of_their_seed() -> None:
    plain = GameState.new(players=3, seed=11, first_player=1)
    hooked = GameState.from_config(GameConfig(3, 11, 1), draw_hook=lambda pile, items: len(items) - 1)
    assert hooked.hands == plain.hands and hooked.offers == plain.offers and hooked.deck == plain.deck


def test_a_hook_chooses_every_dealt_and_drawn_item() -> None:
    calls: list[tuple[str, int]] = []

    def lowest(pile: str, items: list[int]) -> int:
        calls.append((pile, len(items)))
        return items.index(min(items))

    state = GameState.from_config(GameConfig(2, 3, 0), draw_hook=lowest)
    assert [pile for pile, _ in calls] == ["card"] * (2 * 4 + 5) + ["ticket"] * (2 * 5)
    # The lowest kinds first: purple (0) then white (1) cards, the lowest ticket ids.
    assert state.hands[0][0] == 4 and state.hands[1][0] == 4 and sorted(state.display) == [0, 0, 0, 0, 1]
    assert state.offers == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]  # dealt player by player
    assert state.card_total() == FULL_DECK_COUNTS
    # Keep the initial tickets, then the hook picks a blind draw and a ticket draw.
    for _ in range(2):
        state.apply(state.legal_action_list()[-1])
    calls.clear()
    state.apply(DrawBlind())
    assert calls == [("card", len(state.deck) + 1)] and state.card_total() == FULL_DECK_COUNTS
    state.apply(next(a for a in state.legal_action_list() if isinstance(a, DrawBlind)))
    state.apply(DrawTickets())
    assert state.offers[state.current] == [10, 11, 12]
    copy = state.clone()
    assert copy.draw_hook is lowest


def test_a_hook_sees_the_reshuffled_discard_pile() -> None:
    rng = random.Random(2)
    state = GameState.new(players=2, seed=2)
    piles: list[int] = []
    while state.deck or not any(state.discard):
        state.apply(rng.choice(state.legal_action_list()))
        if state.is_over:
            raise AssertionError("the game ended before the draw pile ran out")

    def record(pile: str, items: list[int]) -> int:
        piles.append(len(items))
        return 0

    state.draw_hook = record
    while not piles:
        discard = sum(state.discard)
        state.apply(rng.choice(state.legal_action_list()))
    # The draw pile was empty: the hook's first pile is the discard pile (and what the action paid).
    assert piles[0] >= discard > 0 and state.card_total() == FULL_DECK_COUNTS


def test_a_clone_may_take_another_generator() -> None:
    state = GameState.new(players=2, seed=4)
    scratch = random.Random(1)
    copy = state.clone(rng=scratch)
    assert copy.rng is scratch and state.rng is not scratch
    assert copy.hands == state.hands and copy.deck == state.deck
    plain = state.clone()
    assert plain.rng is not state.rng and plain.rng.getstate() == state.rng.getstate()


def test_pickles_leave_out_the_shared_tables_and_the_hook() -> None:
    """A pickle holds the game, not the board's per-hand claim cache (which grows all process
    long) nor a draw hook; the copy plays on alike."""
    rng = random.Random(5)
    state = GameState.new(players=3, seed=5)
    for _ in range(80):
        state.apply(rng.choice(state.legal_action_list()))
    state.draw_hook = lambda pile, items: len(items) - 1
    size = len(pickle.dumps(state))
    for seed in range(30):  # fill the shared claim cache with other games' hands
        other = GameState.new(players=2, seed=seed)
        for _ in range(60):
            other.apply(random.Random(seed).choice(other.legal_action_list()))
    assert len(pickle.dumps(state)) == size < 40_000
    copy = pickle.loads(pickle.dumps(state))
    assert copy.draw_hook is None and copy.board is load_board() and copy.view(1) == state.view(1)
    state.draw_hook = None
    for _ in range(40):
        if state.is_over:
            break
        action = rng.choice(state.legal_action_list())
        state.apply(action)
        copy.apply(action)
    assert copy.view(0) == state.view(0) and copy.rng.getstate() == state.rng.getstate()
