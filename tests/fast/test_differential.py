"""The compiled core against the Python engine, decision by decision.

Every seeded game is dealt by both from the same seed and played with ``random.Random(seed).choice``
(or a hoarding random player) over the engine's legal list: at every decision the two legal lists
(in order), every field of the state (deck order, hands, known cards, display, discard, tickets,
tunnel, final round) and at the end the whole scoring must be equal
(:func:`ttr_nordic.fast.differential.compare_game`). ``scripts/core_differential.py`` runs the same
check for millions of decisions.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ttr_nordic import fast
from ttr_nordic.engine import DrawTickets, GameState
from ttr_nordic.fast import FastGame, state_fields

pytestmark = pytest.mark.skipif(not fast.AVAILABLE, reason="the compiled core is not built or is turned off")

GAMES_PER_TABLE = 110
HOARDING_GAMES = 30


@pytest.mark.parametrize("players", [2, 3])
def test_random_games_agree_at_every_decision(players: int) -> None:
    from ttr_nordic.fast.differential import compare_game

    seen: Counter[str] = Counter()
    for seed in range(GAMES_PER_TABLE):
        seen += compare_game(players, seed)
    # The games reached every part of the rules the comparison is meant to cover.
    for part in ("claim regular", "claim ferry", "ferry groups", "claim tunnel", "PayTunnelExtra", "DeclineTunnel"):
        assert seen[part] > 0, (part, seen)
    assert seen["DrawTickets"] > GAMES_PER_TABLE
    assert seen["decisions"] > 150 * GAMES_PER_TABLE


@pytest.mark.parametrize("players", [2, 3])
def test_hoarding_games_agree_at_every_decision(players: int) -> None:
    from ttr_nordic.fast.differential import compare_game

    seen: Counter[str] = Counter()
    for seed in range(HOARDING_GAMES):
        seen += compare_game(players, 10_000 + seed, hoard=True)
    for part in ("claim special", "ferry groups", "empty draw pile", "claim tunnel"):
        assert seen[part] > 0, (part, seen)


@pytest.mark.parametrize("seed", [0, 1, -7, 2**31, 2**32 + 5, 2**64 + 3, -(2**90)])
def test_seeds_deal_the_same_cards(seed: int) -> None:
    for players in (2, 3):
        assert FastGame.new(players, seed).state() == state_fields(GameState.new(players, seed))
        assert FastGame.new(players, seed, 1).state() == state_fields(GameState.new(players, seed, 1))


def test_play_random_games_are_the_engine_benchmark_games() -> None:
    totals: list[int] = []
    actions = 0
    for seed in range(5, 25):
        game = GameState.new(players=3, seed=seed)
        choose = random.Random(seed).choice
        while not game.is_over:
            game.apply_unchecked(choose(game.legal_action_list()))
        totals += game.result().totals
        actions += len(game.history)
    assert fast.play_random_games(3, 5, 20) == (actions, totals)


def test_illegal_action_is_refused_and_changes_nothing() -> None:
    core = FastGame.new(2, 3)
    before = core.state()
    with pytest.raises(ValueError, match="not legal now"):
        core.apply(DrawTickets())  # initial tickets come first
    assert core.state() == before


def test_clone_is_independent() -> None:
    core = FastGame.new(2, 11)
    copy = core.clone()
    copy.apply(copy.legal_actions()[0])
    assert core.state() == state_fields(GameState.new(2, 11))
    assert copy.state() != core.state()
