"""The expert's rollout caps grow only where its rollouts run in the compiled core.

``core_rollout_scale`` multiplies the caps of searches with cut rollouts, ``core_full_rollout_scale``
those of searches playing them to the end; with the core off (or a board it does not play) the
caps stay as they are. Every search here runs without a clock, so the counts and choices are the
same from run to run whatever the machine's load.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest

from ttr_nordic import fast
from ttr_nordic.ai.base import play_game
from ttr_nordic.ai.baselines import RouteFocusAgent
from ttr_nordic.ai.expert import RolloutSearchAgent, core_plays
from ttr_nordic.ai.registry import AGENTS, LEVELS, TURN_SEARCH_SETTINGS
from ttr_nordic.engine import GameState
from ttr_nordic.engine.variant import load_variant

needs_core = pytest.mark.skipif(not fast.AVAILABLE, reason="the compiled core is not built or is turned off")

SMALL_BOARD = Path(__file__).resolve().parents[2] / "examples" / "variants" / "small-board.toml"


def cheap(**overrides: object) -> RolloutSearchAgent:
    """The expert level's settings with small caps, every scale 1 and no clocks, ``overrides`` on top."""
    settings: dict[str, object] = {
        **TURN_SEARCH_SETTINGS,
        "core_rollout_scale": 1.0,
        "core_full_rollout_scale": 1.0,
        "three_player_core_rollout_scale": None,
        "ticket_rollouts": 6,
        "action_rollouts": 4,
        "turn_rollouts": 6,
        "time_limit": None,
        "turn_time": None,
        "seed": 7,
    }
    settings.update(overrides)
    return RolloutSearchAgent(**settings)  # type: ignore[arg-type]


def position(players: int, turns: int, seed: int = 3) -> GameState:
    """A Route Focus game after ``turns`` turns (0: the first ticket choice)."""
    state = GameState.new(players=players, seed=seed)
    agents = [RouteFocusAgent(seed=seed + q) for q in range(players)]
    while state.turn < turns:
        player = state.current
        state.apply_unchecked(agents[player].choose(state.view(player, log=False), state.legal_action_list()))
    return state


def decide(agent: RolloutSearchAgent, state: GameState) -> tuple[str, int]:
    player = state.current
    action = agent.choose(state.view(player), state.legal_action_list())
    assert agent.searches == 1, "the position is one the expert searches"
    return action.notation(), agent.last_rollouts


def test_the_expert_level_is_the_turn_search_with_its_core_scales() -> None:
    assert LEVELS["expert"] == "turn_search"
    agent = AGENTS["turn_search"](1)
    assert isinstance(agent, RolloutSearchAgent)
    assert agent.core_rollout_scale == TURN_SEARCH_SETTINGS["core_rollout_scale"]
    assert agent.core_full_rollout_scale == TURN_SEARCH_SETTINGS["core_full_rollout_scale"]
    # The Python caps and clocks are those of the level before the scales.
    assert (agent.turn_rollouts, agent.ticket_rollouts, agent.action_rollouts) == (120, 400, 48)
    assert (agent.turn_time, agent.time_limit) == (0.8, 4.0)


def test_a_scale_is_a_positive_number() -> None:
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="core_rollout_scale must be a positive number"):
            RolloutSearchAgent(core_rollout_scale=bad)
        with pytest.raises(ValueError, match="core_full_rollout_scale must be a positive number"):
            RolloutSearchAgent(core_full_rollout_scale=bad)
    assert RolloutSearchAgent(core_rollout_scale=3).core_full_rollout_scale == 3.0


@needs_core
def test_core_plays_agrees_with_the_core_on_the_samples() -> None:
    rng = random.Random(1)
    for players in (2, 3):
        view = position(players, 4).view(0)
        assert core_plays(view) and fast.supports(view.determinize(rng))
    small = GameState.new(players=2, seed=1, variant=load_variant(SMALL_BOARD)).view(0)
    assert not core_plays(small) and not fast.supports(small.determinize(rng))


@needs_core
@pytest.mark.parametrize("turns", [0, 12])
def test_in_the_core_a_scaled_cap_searches_like_the_cap_times_the_scale(turns: int) -> None:
    state = position(2, turns)
    # Two-player searches cut their rollouts at the horizon: core_rollout_scale applies.
    scaled = decide(cheap(core_rollout_scale=5, core_full_rollout_scale=2), state)
    assert scaled == decide(cheap(ticket_rollouts=30, turn_rollouts=30), state)
    assert scaled[1] > decide(cheap(), state)[1]


@needs_core
def test_three_player_turns_take_their_own_scale() -> None:
    state = position(3, 12)  # a three-player turn: rollouts cut at the horizon
    own = decide(cheap(core_rollout_scale=5, three_player_core_rollout_scale=1), state)
    assert own == decide(cheap(), state)
    same = decide(cheap(core_rollout_scale=5, three_player_core_rollout_scale=None), state)
    assert same == decide(cheap(turn_rollouts=30), state)
    two = position(2, 12)
    assert decide(cheap(core_rollout_scale=5, three_player_core_rollout_scale=1), two) == decide(
        cheap(turn_rollouts=30), two
    )
    with pytest.raises(ValueError, match="three_player_core_rollout_scale must be a positive number"):
        RolloutSearchAgent(three_player_core_rollout_scale=0)


def test_the_expert_searches_twelve_actions_a_turn_only_in_two_player_games_in_the_core() -> None:
    agent = AGENTS["turn_search"](1)
    assert isinstance(agent, RolloutSearchAgent)
    assert agent.turn_caps == {(2, False): 6, (2, True): 12, (3, False): 6, (3, True): 6}
    assert agent.three_player_core_rollout_scale == 1.0 and agent.core_rollout_scale == 10.0


@pytest.mark.parametrize("core", [False, True])
def test_core_turn_candidates_apply_where_the_core_plays_the_rollouts(core: bool) -> None:
    if core and not fast.AVAILABLE:
        pytest.skip("the compiled core is not built or is turned off")
    state = position(2, 8)  # (a turn with more than six actions worth searching)
    view, legal = state.view(state.current), state.legal_action_list()

    def candidates(turn: int, in_core: int) -> list[Any]:
        agent = cheap(core_rollouts=core, turn_candidates=turn, core_turn_candidates=in_core)
        return agent._turn_candidates(view, legal, agent.base.choose(view, legal))  # (the choice plans)

    six, twelve = candidates(6, 6), candidates(12, 12)
    assert len(six) <= 6 and len(twelve) > len(six)
    assert candidates(6, 12) == (twelve if core else six)


@needs_core
def test_a_search_to_the_end_takes_the_full_rollout_scale() -> None:
    state = position(3, 0)  # the three-player first ticket choice plays its rollouts to the end
    scaled = decide(cheap(core_rollout_scale=5, core_full_rollout_scale=2), state)
    assert scaled == decide(cheap(ticket_rollouts=12), state)


@pytest.mark.parametrize("turns", [0, 12])
def test_without_the_core_the_caps_stay(turns: int) -> None:
    state = position(2, turns)
    python = decide(cheap(core_rollouts=False, core_rollout_scale=5, core_full_rollout_scale=5), state)
    assert python == decide(cheap(core_rollouts=False), state)
    assert python[1] < decide(cheap(core_rollouts=False, ticket_rollouts=30, turn_rollouts=30), state)[1]


def test_on_a_board_the_core_does_not_play_the_caps_stay() -> None:
    state = GameState.new(players=2, seed=2, variant=load_variant(SMALL_BOARD))
    scaled = RolloutSearchAgent(
        ticket_rollouts=6, time_limit=None, core_rollout_scale=5, core_full_rollout_scale=5, seed=7
    )
    assert not scaled.searches_in_core(state.view(state.current))
    assert decide(scaled, state) == decide(RolloutSearchAgent(ticket_rollouts=6, time_limit=None, seed=7), state)


@needs_core
def test_a_scaled_expert_plays_the_same_game_from_the_same_seeds() -> None:
    def game() -> tuple[tuple[str, ...], list[int]]:
        expert = cheap(ticket_rollouts=2, turn_rollouts=2, core_rollout_scale=10, core_full_rollout_scale=10)
        counts: list[int] = []

        def record(state: GameState, player: int, action: object) -> None:
            if player == 0 and expert.last_rollouts:
                counts.append(expert.last_rollouts)

        finished = play_game([expert, RouteFocusAgent(seed=2)], seed=5, on_action=record)
        assert finished.is_over
        return finished.record().actions, counts

    first = game()
    assert first == game()
    assert max(first[1]) > 2  # the caps of 2 were scaled in the core
