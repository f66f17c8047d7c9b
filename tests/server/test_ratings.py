"""OpenSkill updates for people (Plackett-Luce), two and three players, and the ranks of a
finished game (the engine's tie-breaks; a forfeited seat last)."""

from __future__ import annotations

import random

import pytest

from ttr_nordic.engine import GameConfig, GameState
from ttr_nordic.server.ratings import START_MU, START_SIGMA, display, ordinal, ranks_of, rate

NEW = (START_MU, START_SIGMA)


def test_two_players_the_winner_gains_what_the_loser_loses() -> None:
    (w_mu, w_sigma), (l_mu, l_sigma) = rate([NEW, NEW], [1, 2])
    assert w_mu > START_MU > l_mu
    assert w_mu - START_MU == pytest.approx(START_MU - l_mu)
    assert w_sigma < START_SIGMA and l_sigma < START_SIGMA  # both are better known now
    assert display(w_mu, w_sigma) > display(*NEW) == 1000
    # Beating a stronger player is worth more than beating an equal one.
    strong = (30.0, 4.0)
    (upset_mu, _), _ = rate([NEW, strong], [1, 2])
    assert upset_mu - START_MU > w_mu - START_MU


def test_two_players_a_tie_moves_equal_players_nowhere() -> None:
    (a_mu, a_sigma), (b_mu, b_sigma) = rate([NEW, NEW], [1, 1])
    assert a_mu == pytest.approx(START_MU) and b_mu == pytest.approx(START_MU)
    assert a_sigma == pytest.approx(b_sigma) and a_sigma < START_SIGMA


def test_three_players_are_ordered_by_rank() -> None:
    after = rate([NEW, NEW, NEW], [2, 1, 3])
    mus = [mu for mu, _ in after]
    assert mus[1] > mus[0] > mus[2]
    assert mus[1] > START_MU > mus[2]
    assert sum(mus) == pytest.approx(3 * START_MU, abs=0.5)
    # Two sharing first place rise alike.
    shared = rate([NEW, NEW, NEW], [1, 1, 3])
    assert shared[0][0] == pytest.approx(shared[1][0]) and shared[0][0] > START_MU > shared[2][0]


def test_a_rated_game_has_two_or_three_players() -> None:
    with pytest.raises(ValueError, match="2 or 3 players"):
        rate([NEW], [1])
    with pytest.raises(ValueError, match="2 or 3 players"):
        rate([NEW, NEW], [1, 2, 3])


def test_repeated_wins_converge_and_the_ordinal_is_conservative() -> None:
    strong, weak = NEW, NEW
    for _ in range(30):
        strong, weak = rate([strong, weak], [1, 2])
    assert ordinal(*strong) > ordinal(*weak)
    assert strong[1] < START_SIGMA * 0.8  # sigma shrinks with games
    assert ordinal(*strong) == pytest.approx(strong[0] - 3 * strong[1])


def test_ranks_follow_the_engines_result_and_forfeits_go_last() -> None:
    rng = random.Random(5)
    for players in (2, 3):
        state = GameState.from_config(GameConfig(players, 11))
        while not state.is_over:
            state.apply(rng.choice(state.legal_action_list()))
        result = state.result()
        ranks = ranks_of(result)
        assert {ranks[w] for w in result.winners} == {1}
        assert all(ranks[p] > 1 for p in range(players) if p not in result.winners)
        totals = result.totals
        for a in range(players):
            for b in range(players):
                if totals[a] > totals[b]:
                    assert ranks[a] < ranks[b]
        winner = result.winners[0]
        forfeited = ranks_of(result, [winner])
        assert forfeited[winner] == players
        assert sorted(r for p, r in enumerate(forfeited) if p != winner)[0] == 1
