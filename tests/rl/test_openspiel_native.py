"""The OpenSpiel game in C++ (``ttr_nordic_native``): the same game as ``ttr_nordic`` node for
node, OpenSpiel's own checks and C++ loops, its errors, and its build's refusals."""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pyspiel
import pytest

import ttr_nordic.rl.openspiel  # noqa: F401  (registers ttr_nordic, the reference)
from ttr_nordic import fast
from ttr_nordic.rl import openspiel_native

BUILT = openspiel_native.load()

if not BUILT and os.environ.get("CI") and fast.AVAILABLE:
    raise RuntimeError(
        "ttr_nordic_native is not built: make test builds it (python -m ttr_nordic.rl.openspiel_native build)"
    )
needs_game = pytest.mark.skipif(not BUILT, reason="ttr_nordic_native is not built (make test builds it)")


def _walk_both(players: int, reward: str, seed: int) -> int:
    """Play one seeded random game on ttr_nordic and ttr_nordic_native together, comparing every
    node; the number of nodes."""
    params = {"players": players, "reward": reward}
    reference = pyspiel.load_game("ttr_nordic", params).new_initial_state()
    native = pyspiel.load_game("ttr_nordic_native", params).new_initial_state()
    rng = random.Random(seed)
    nodes = 0
    while True:
        assert native.current_player() == reference.current_player()
        assert str(native) == str(reference)
        if reference.is_terminal():
            assert native.is_terminal()
            assert native.returns() == reference.returns()
            return nodes
        assert native.returns() == [0.0] * players
        if reference.is_chance_node():
            outcomes = reference.chance_outcomes()
            assert native.chance_outcomes() == outcomes
            action = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
            assert native.action_to_string(pyspiel.PlayerId.CHANCE, action) == reference.action_to_string(
                pyspiel.PlayerId.CHANCE, action
            )
        else:
            legal = reference.legal_actions()
            assert native.legal_actions() == legal
            for seat in range(players):
                assert native.observation_tensor(seat) == reference.observation_tensor(seat)
            action = rng.choice(legal)
        native.apply_action(action)
        reference.apply_action(action)
        nodes += 1


@needs_game
@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("reward", ["win", "margin"])
def test_every_node_is_the_reference_games(players: int, reward: str) -> None:
    """Players, chance outcomes with their probabilities, legal ids, every seat's observation,
    the state string and the returns agree with ttr_nordic at every node of seeded games."""
    for seed in range(6):
        assert _walk_both(players, reward, seed) > 200


@needs_game
def test_openspiels_own_checks_pass() -> None:
    for players in (2, 3):
        game = pyspiel.load_game("ttr_nordic_native", {"players": players})
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@needs_game
def test_openspiels_cpp_loop_plays_whole_games_as_the_reference_scores_them() -> None:
    """``evaluate_bots`` (C++ bots, chance sampled in C++) ends each game; replayed on ttr_nordic,
    its history gives the same returns."""
    game = pyspiel.load_game("ttr_nordic_native", {"reward": "margin"})
    reference = pyspiel.load_game("ttr_nordic", {"reward": "margin"})
    bots = [pyspiel.make_uniform_random_bot(p, 5) for p in range(2)]
    for seed in range(3):
        state = game.new_initial_state()
        returns = pyspiel.evaluate_bots(state, bots, seed)
        assert state.is_terminal() and returns == state.returns()
        replay = reference.new_initial_state()
        for action in state.history():
            replay.apply_action(action)
        assert replay.is_terminal() and replay.returns() == returns


@needs_game
def test_cpp_mcts_searches_it() -> None:
    game = pyspiel.load_game("ttr_nordic_native")
    evaluator = pyspiel.RandomRolloutEvaluator(1, 3)
    bot = pyspiel.MCTSBot(game, evaluator, 2.0, 20, 1000, False, 7, False)
    state = game.new_initial_state()
    rng = random.Random(2)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
    assert bot.step(state) in state.legal_actions()


@needs_game
def test_states_survive_serialization_and_pickle() -> None:
    game = pyspiel.load_game("ttr_nordic_native", {"players": 3})
    state = game.new_initial_state()
    rng = random.Random(4)
    for _ in range(120):
        state.apply_action(
            rng.choices(*zip(*state.chance_outcomes(), strict=True))[0]
            if state.is_chance_node()
            else rng.choice(state.legal_actions())
        )
    text = pyspiel.serialize_game_and_state(game, state)
    again_game, again = pyspiel.deserialize_game_and_state(text)
    assert str(again_game) == str(game) and str(again) == str(state) and again.history() == state.history()
    copy = pickle.loads(pickle.dumps(state))
    assert copy.history() == state.history() and copy.observation_tensor(0) == state.observation_tensor(0)
    assert str(pickle.loads(pickle.dumps(game))) == "ttr_nordic_native(players=3)"
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0] if not clone.is_chance_node() else clone.chance_outcomes()[0][0])
    assert state.history() == copy.history()  # the clone is its own


@needs_game
def test_an_illegal_action_or_outcome_is_refused_in_one_line_and_changes_nothing() -> None:
    game = pyspiel.load_game("ttr_nordic_native")
    state = game.new_initial_state()
    with pytest.raises(pyspiel.SpielError, match="not a possible outcome"):
        state.apply_action(7)
    assert state.history() == [] and state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    rng = random.Random(1)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
    before, legal = str(state), state.legal_actions()
    wrong = next(i for i in range(game.num_distinct_actions()) if i not in legal)
    with pytest.raises(pyspiel.SpielError, match=r"^action \d+ \(.*\) is not legal now$"):
        state.apply_action(wrong)
    assert str(state) == before and state.legal_actions() == legal


@needs_game
def test_bad_parameters_are_refused() -> None:
    with pytest.raises(pyspiel.SpielError, match="2 or 3 players, not 4"):
        pyspiel.load_game("ttr_nordic_native", {"players": 4})
    with pytest.raises(pyspiel.SpielError, match="reward must be"):
        pyspiel.load_game("ttr_nordic_native", {"reward": "points"})


def test_a_source_folder_without_openspiel_is_refused_in_one_line(tmp_path: Path) -> None:
    env = dict(os.environ, TTR_OPENSPIEL_SOURCE=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "ttr_nordic.rl.openspiel_native", "build", "--force"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and ("holds no open_spiel/spiel.h" in lines[0] or "compiled core" in lines[0])
    assert openspiel_native.is_built() == BUILT  # the built game is untouched
