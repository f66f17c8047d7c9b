"""The expert's rollouts in the core are the Python rollouts: states move into the core and back
unchanged, a core play-out ends where ``ai.expert.play_out`` ends, and the expert chooses the same
moves from the same rollout counts with its rollouts in the core or in Python."""

from __future__ import annotations

import random

import pytest

from ttr_nordic import fast
from ttr_nordic.ai.base import play_game
from ttr_nordic.ai.baselines import RouteFocusAgent
from ttr_nordic.ai.expert import (
    LightLongRouteFocus,
    LightRouteFocus,
    LongRouteFocus,
    RolloutSearchAgent,
    core_policies,
    play_out,
)
from ttr_nordic.ai.registry import EXPERT_SETTINGS, TURN_SEARCH_SETTINGS
from ttr_nordic.engine import GameState
from ttr_nordic.fast import FastGame, state_fields

pytestmark = pytest.mark.skipif(not fast.AVAILABLE, reason="the compiled core is not built or is turned off")

POLICIES = (RouteFocusAgent, LightRouteFocus, LongRouteFocus, LightLongRouteFocus)


def mid_game_sample(seed: int, players: int) -> GameState:
    game = GameState.new(players=players, seed=seed)
    agents = [RouteFocusAgent(seed=q) for q in range(players)]
    for _ in range(15 + 4 * seed):
        if game.is_over:
            break
        player = game.current
        game.apply_unchecked(agents[player].choose(game.view(player, log=False), game.legal_action_list()))
    return game.view(game.current).determinize(random.Random(seed))


@pytest.mark.parametrize("seed", range(12))
def test_core_play_out_ends_where_the_python_play_out_ends(seed: int) -> None:
    players = 2 + seed % 2
    sample = mid_game_sample(seed, players)
    core = FastGame.from_state(sample)
    assert core.state() == state_fields(sample)
    back = core.to_state(sample)
    assert state_fields(back) == state_fields(sample)
    assert back.rng.getstate() == sample.rng.getstate()
    policies = [POLICIES[(seed + q) % 4] for q in range(players)]
    flags = core_policies(policies)
    assert flags is not None
    horizon = 24 if seed % 3 == 0 else 0
    play_out(sample, 500 + seed, horizon=horizon, seat_policies=policies)
    core.play_out(500 + seed, horizon, flags)
    assert core.state() == state_fields(sample)
    assert core.core.rng_state() == sample.rng.getstate()[1]


@pytest.mark.parametrize("seed", range(4))
def test_a_play_out_still_going_after_its_cap_stops_there_on_both_paths(seed: int) -> None:
    # Policies can go round in circles (a tunnel tried and declined again and again: a ladder game
    # of full rollouts met one that ran past 3,000 actions): the rollout stops at its cap and is
    # judged as it stands, the same on both paths, instead of failing the whole decision.
    players = 2 + seed % 2
    sample = mid_game_sample(seed, players)
    core = FastGame.from_state(sample)
    flags = core_policies([RouteFocusAgent] * players)
    assert flags is not None
    assert play_out(sample, 700 + seed, max_actions=7) is True and not sample.is_over
    assert core.play_out(700 + seed, 0, flags, max_actions=7) is False
    assert core.state() == state_fields(sample)
    assert core.rollout_result() == (list(sample.result().totals), list(sample.result().winners))
    assert core.play_out(700 + seed, 0, flags) is True and core.core.is_over


def test_the_search_judges_a_rollout_that_runs_past_its_cap_as_it_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    capped = FastGame.play_out

    def short(self: FastGame, seed: int, horizon: int, policies: list[tuple[bool, bool]], cap: int = 3000) -> bool:
        return capped(self, seed, horizon, policies, max_actions=5)

    monkeypatch.setattr(FastGame, "play_out", short)
    settings = {**TURN_SEARCH_SETTINGS, "horizon": 0, "time_limit": None, "turn_time": None, "turn_rollouts": 16}
    expert = RolloutSearchAgent(seed=3, **settings)  # type: ignore[arg-type]
    sample = mid_game_sample(2, 2)
    legal = sample.legal_action_list()
    assert expert.choose(sample.view(sample.current), legal) in legal
    assert expert.searches and expert.last_rollouts > 0


SAME_ON_BOTH_PATHS = {"core_rollout_scale": 1.0, "core_turn_candidates": 6, "ticket_rollouts": 16}


@pytest.mark.parametrize(
    ("players", "settings"),
    [
        (3, {**EXPERT_SETTINGS, "time_limit": None, "ticket_rollouts": 30, "action_rollouts": 8}),
        # (the same caps and candidates on both paths: the registered ones grow in the core)
        (2, {**TURN_SEARCH_SETTINGS, **SAME_ON_BOTH_PATHS, "time_limit": None, "turn_time": None, "turn_rollouts": 8}),
    ],
)
def test_the_expert_chooses_the_same_with_core_rollouts(players: int, settings: dict[str, object]) -> None:
    games = {}
    for core in (True, False):
        expert = RolloutSearchAgent(seed=5, core_rollouts=core, **settings)  # type: ignore[arg-type]
        choices: list[tuple[str, int]] = []

        def record(
            state: GameState,
            player: int,
            action: object,
            expert: RolloutSearchAgent = expert,
            choices: list[tuple[str, int]] = choices,
        ) -> None:
            if player == 0:
                choices.append((action.notation(), expert.last_rollouts))  # type: ignore[attr-defined]

        opponents = [RouteFocusAgent(seed=q) for q in range(1, players)]
        game = play_game([expert, *opponents], seed=11, on_action=record)
        games[core] = (choices, game.result().totals, expert.searches)
    assert games[True] == games[False]
    assert games[True][2] > 0  # the expert searched


@pytest.mark.parametrize("players", [2, 3])
def test_core_value_features_are_the_views_features(players: int) -> None:
    from ttr_nordic.ai.value.features import FEATURE_NAMES, features

    checked = 0
    for seed in range(12):
        game = GameState.new(players=players, seed=seed)
        choose = random.Random(seed).choice
        while not game.is_over:
            if game.turn % 9 == 0:
                core = FastGame.from_state(game)
                for q in range(players):
                    values = core.core.features(q)
                    assert len(values) == len(FEATURE_NAMES)
                    assert values == features(game.view(q)), (seed, game.turn, q)
                    checked += 1
            game.apply_unchecked(choose(game.legal_action_list()))
    assert checked > 100
