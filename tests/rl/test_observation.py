"""The observation is built from the view only: re-dealing what the player cannot see changes nothing."""

from __future__ import annotations

import random

import numpy as np

from ttr_nordic.engine import GameState
from ttr_nordic.rl.observation import SIZE, encode_view


def test_observation_is_unchanged_when_hidden_information_is_redealt() -> None:
    rng = random.Random(3)
    checked = 0
    for g in range(6):
        state = GameState.new(players=2 + g % 2, seed=100 + g)
        while not state.is_over:
            for player in range(state.num_players):
                view = state.view(player, log=False)
                obs = encode_view(view)
                assert obs.shape == (SIZE,) and obs.dtype == np.float32
                redealt = view.determinize(rng)
                assert np.array_equal(encode_view(redealt.view(player, log=False)), obs)
                checked += 1
            state.apply(rng.choice(state.legal_action_list()))
    assert checked > 1000


def test_observation_changes_with_what_the_player_sees() -> None:
    state = GameState.new(players=2, seed=5)
    before = encode_view(state.view(0))
    state.apply(state.legal_action_list()[0])  # player's own ticket choice
    assert not np.array_equal(encode_view(state.view(0)), before)
