"""The expert's search of every turn: candidates, truncated rollouts scored by the value model,
blocking claims, and the public route status it plans the opponent's routes on."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ttr_nordic.ai.baselines import RouteFocusAgent
from ttr_nordic.ai.expert import (
    MAX_TURN_CANDIDATES,
    WIN_BONUS,
    LightLongRouteFocus,
    LightRouteFocus,
    LongRouteFocus,
    RolloutSearchAgent,
    leaf_value,
    play_out,
    rollout_value,
    status_for,
)
from ttr_nordic.ai.inference import TicketInference
from ttr_nordic.ai.planning import board_tables, plan_tickets, route_status
from ttr_nordic.engine import Claim, DrawBlind, DrawFaceUp, GameState, Phase


def advance(game: GameState, actions: int, seed: int = 0) -> GameState:
    """``game`` after ``actions`` Route Focus actions (or at its end)."""
    agents = [RouteFocusAgent(seed=seed + q) for q in range(game.num_players)]
    for _ in range(actions):
        if game.is_over:
            break
        player = game.decision.player
        game.apply(agents[player].choose(game.view(player), game.legal_action_list()))
    return game


def midgame_turn(players: int, seed: int, actions: int = 60) -> GameState:
    """A Route Focus game at the first ordinary turn after ``actions`` actions."""
    game = advance(GameState.new(players=players, seed=seed), actions, seed)
    agents = [RouteFocusAgent(seed=seed + 10 + q) for q in range(players)]
    while game.decision.phase is not Phase.CHOOSE_ACTION:
        player = game.decision.player
        game.apply(agents[player].choose(game.view(player), game.legal_action_list()))
    assert not game.is_over
    return game


def turn_searcher(seed: int = 1, block: bool = True, turn_candidates: int = MAX_TURN_CANDIDATES) -> RolloutSearchAgent:
    return RolloutSearchAgent(
        ticket_rollouts=4,
        action_rollouts=2,
        ticket_inference=True,
        light_rollouts=True,
        search_turns=True,
        turn_rollouts=4,
        turn_time=None,
        horizon=10,
        block=block,
        seed=seed,
        turn_candidates=turn_candidates,
    )


def test_leaf_value_of_a_finished_game_is_the_rollout_value() -> None:
    game = advance(GameState.new(players=2, seed=3), 10_000)
    assert game.is_over
    for p in range(2):
        assert leaf_value(game, p) == rollout_value(game, p)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_player_leaf_values_share_the_win_bonus(seed: int) -> None:
    """Judged from both sides, the two players' margins cancel and their win chances add to one."""
    game = midgame_turn(2, seed)
    state = game.determinize(0, random.Random(seed))
    assert leaf_value(state, 0) + leaf_value(state, 1) == pytest.approx(WIN_BONUS)


def test_three_player_leaf_value_is_finite() -> None:
    state = midgame_turn(3, 4).determinize(1, random.Random(0))
    value = leaf_value(state, 1)
    assert -200 < value < 200


def test_three_player_leaf_value_from_every_seat() -> None:
    """``all_seats`` averages the player's own estimate with the one its opponents' estimates
    imply: minus the best other margin, one less the others' win chances."""
    from ttr_nordic.ai.value.model import evaluate

    state = midgame_turn(3, 4).determinize(1, random.Random(0))
    own = [evaluate(state.view(q, log=False)) for q in range(3)]
    margin = (own[1][0] - max(own[0][0], own[2][0])) / 2
    p_win = (own[1][1] + 1.0 - own[0][1] - own[2][1]) / 2
    assert leaf_value(state, 1, all_seats=True) == pytest.approx(margin + WIN_BONUS * p_win)
    assert leaf_value(state, 1, all_seats=True) != leaf_value(state, 1)
    two = midgame_turn(2, 1).determinize(0, random.Random(1))
    assert leaf_value(two, 0, all_seats=True) == leaf_value(two, 0)  # two players: always both


@pytest.mark.parametrize("horizon", [1, 7, 25])
def test_play_out_stops_at_the_horizon(horizon: int) -> None:
    state = midgame_turn(2, 5).determinize(0, random.Random(1))
    before = len(state.history)
    assert play_out(state, seed=3, horizon=horizon)
    assert len(state.history) - before == horizon


def test_play_out_without_horizon_finishes_the_game() -> None:
    state = midgame_turn(2, 5).determinize(0, random.Random(1))
    assert play_out(state, seed=3)
    assert state.is_over


@pytest.mark.parametrize(("players", "seed"), [(2, 5), (3, 8)])
def test_play_out_plays_as_route_focus_does_on_the_full_list(players: int, seed: int) -> None:
    """Rollouts hand Route Focus the lazily listed legal actions; every action is the one it
    picks from ``legal_action_list()``."""
    state = midgame_turn(players, seed).determinize(0, random.Random(1))
    reference = state.clone()
    start = len(state.history)
    assert play_out(state, seed=3)
    agents = [RouteFocusAgent(seed=3 + q) for q in range(players)]
    while not reference.is_over:
        player = reference.current
        reference.apply(agents[player].choose(reference.view(player, log=False), reference.legal_action_list()))
    assert state.history[start:] == reference.history[start:]
    assert state.scores == reference.scores


@pytest.mark.parametrize(("players", "seed"), [(2, 6), (2, 7), (3, 8), (3, 9)])
def test_status_for_a_player_matches_that_players_own_view(players: int, seed: int) -> None:
    game = midgame_turn(players, seed)
    for viewer in range(players):
        for player in range(players):
            assert tuple(status_for(game.view(viewer), player)) == route_status(game.view(player))


@pytest.mark.parametrize(("players", "seed"), [(2, 10), (2, 11), (3, 12)])
def test_turn_candidates_are_legal_distinct_and_few(players: int, seed: int) -> None:
    game = midgame_turn(players, seed)
    view = game.view(game.current)
    legal = game.legal_action_list()
    agent = turn_searcher()
    default = agent.base.choose(view, legal)
    candidates = agent._turn_candidates(view, legal, default)
    assert candidates[0] == default
    assert len(candidates) == len(set(candidates)) <= MAX_TURN_CANDIDATES
    assert all(c in legal for c in candidates)
    if len(candidates) < MAX_TURN_CANDIDATES:  # room left: every kind of draw is in
        assert DrawBlind in {type(c) for c in candidates} or DrawBlind not in {type(a) for a in legal}
    # one face-up card per colour at most
    colours = [view.display[c.slot] for c in candidates if isinstance(c, DrawFaceUp)]
    assert len(colours) == len(set(colours))


@pytest.mark.parametrize(("players", "seed"), [(2, 10), (2, 11), (3, 12)])
def test_a_wider_turn_search_keeps_the_default_candidates_and_adds_claims_and_draws(players: int, seed: int) -> None:
    game = midgame_turn(players, seed)
    view = game.view(game.current)
    legal = game.legal_action_list()
    narrow, wide = turn_searcher(), turn_searcher(turn_candidates=12)
    default = narrow.base.choose(view, legal)
    six = narrow._turn_candidates(view, legal, default)
    twelve = wide._turn_candidates(view, legal, default)
    assert len(twelve) == len(set(twelve)) <= 12 and all(c in legal for c in twelve)
    claims = [c for c in six if isinstance(c, Claim)]
    assert twelve[0] == default and set(claims) <= set(twelve)
    assert sum(isinstance(c, Claim) for c in twelve) >= len(claims)
    if len(six) == MAX_TURN_CANDIDATES:  # the narrow search ran out of room: the wide one has more
        assert len(twelve) > len(six)
    with pytest.raises(ValueError, match="turn_candidates"):
        turn_searcher(turn_candidates=1)


@pytest.mark.parametrize("seed", [13, 14, 15, 16])
def test_blocking_claim_is_on_a_route_the_opponents_tickets_need(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Told the opponent's real tickets, the block (if any) is a legal claim on a route the
    opponent's plan for them uses; and there is one whenever such a claim is legal."""
    game = midgame_turn(2, seed, actions=40)
    me = game.current
    opponent = 1 - me
    real = list(game.tickets[opponent])
    monkeypatch.setattr(TicketInference, "sample", lambda self, view, player, rng: list(real))
    view = game.view(me)
    claims = [a for a in game.legal_action_list() if isinstance(a, Claim)]
    tables = board_tables(view.board)
    plan = plan_tickets(tables, status_for(view, opponent), tables.train_cost, real, trains_left=view.trains[opponent])
    blocks = turn_searcher(block=True)._blocking_claims(view, claims)
    assert len(blocks) <= 1
    assert all(b in claims and b.route in plan.routes for b in blocks)
    assert bool(blocks) == any(c.route in plan.routes for c in claims)


def test_without_block_no_blocking_claim_is_added(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(RolloutSearchAgent, "_blocking_claims", lambda self, view, claims: calls.append(1) or [])
    game = midgame_turn(2, 17)
    view = game.view(game.current)
    legal = game.legal_action_list()
    agent = turn_searcher(block=False)
    agent._turn_candidates(view, legal, agent.base.choose(view, legal))
    assert not calls
    agent = turn_searcher(block=True)
    agent._turn_candidates(view, legal, agent.base.choose(view, legal))
    assert calls


def test_ordinary_turns_and_second_cards_are_searched() -> None:
    """With ``search_turns`` the agent runs rollouts on ordinary turns and second cards
    (without it, only on turns where a ticket draw is weighed, never on a second card)."""
    searched: set[str] = set()
    plain: set[str] = set()
    for seed in range(4):
        game = GameState.new(players=2, seed=20 + seed)
        agents = [turn_searcher(seed), RolloutSearchAgent(ticket_rollouts=2, seed=seed)]
        while not game.is_over and len(game.history) < 120:
            player = game.decision.player
            view = game.view(player)
            action = agents[player].choose(view, game.legal_action_list())
            if agents[player].last_rollouts:
                (searched if player == 0 else plain).add(view.phase.name)
            game.apply(action)
    assert {"CHOOSE_ACTION", "SECOND_CARD"} <= searched
    assert "SECOND_CARD" not in plain


def test_blocking_route_focus_blocks_only_long_needed_routes_instead_of_drawing() -> None:
    """The Route Focus that blocks plays Route Focus's move except that some card draws become
    claims on long routes; it finishes legal games and makes some blocks over a few games."""
    from ttr_nordic.ai.blocking import MIN_BLOCK_LENGTH, BlockingRouteFocusAgent

    blocks = 0
    for seed in range(6):
        game = GameState.new(players=2, seed=30 + seed)
        # ``plain`` sees the same decisions with the same seed: it is the blocker without blocks
        blocker, plain = BlockingRouteFocusAgent(seed=seed), RouteFocusAgent(seed=seed)
        opponent = RouteFocusAgent(seed=seed + 50)
        while not game.is_over:
            player = game.decision.player
            view, legal = game.view(player), game.legal_action_list()
            if player == 0:
                action = blocker.choose(view, legal)
                expected = plain.choose(view, legal)
                if action != expected:
                    assert isinstance(expected, DrawBlind | DrawFaceUp) and isinstance(action, Claim)
                    assert board_tables(view.board).length[action.route] >= MIN_BLOCK_LENGTH
                    blocks += 1
            else:
                action = opponent.choose(view, legal)
            assert action in legal
            game.apply(action)
    assert blocks > 0


@pytest.mark.parametrize("players", [2, 3])
def test_three_player_default_move_plans_with_long_route_weights(players: int) -> None:
    """With ``three_player_weights="long_cost"`` the default move of a three-player game is
    Long Route Focus's; two-player games keep Route Focus, and so does the default setting."""
    game = midgame_turn(players, seed=5)
    agent = RolloutSearchAgent(
        ticket_rollouts=2, turn_rollouts=2, turn_time=None, search_turns=True, three_player_weights="long_cost", seed=3
    )
    view = game.view(game.decision.player)
    agent.choose(view, game.legal_action_list())
    tables = board_tables(game.board)
    if players == 3:
        assert isinstance(agent.base, LongRouteFocus)
        assert agent.base._weights(tables) == tables.long_cost
    else:
        assert type(agent.base) is RouteFocusAgent
        assert agent.base._weights(tables) == tables.train_cost
    default = RolloutSearchAgent(ticket_rollouts=2, seed=3)
    default.choose(view, game.legal_action_list())
    assert type(default.base) is RouteFocusAgent


def test_three_player_weights_must_be_known() -> None:
    with pytest.raises(ValueError, match="three_player_weights"):
        RolloutSearchAgent(three_player_weights="short_cost")


@pytest.mark.parametrize("players", [2, 3])
def test_own_rollouts_with_long_route_weights_only_for_the_searching_seat(players: int) -> None:
    """With ``three_player_own_rollouts="long_cost"`` the searching seat plays long-route
    weights in its own three-player rollouts and every other seat the rollout policy;
    two-player games and the default setting keep the rollout policy for every seat."""
    game = midgame_turn(players, seed=5)
    view = game.view(game.decision.player)
    agent = RolloutSearchAgent(light_rollouts=True, three_player_own_rollouts="long_cost", seed=3)
    policies = agent._seat_policies(view)
    expected: list[type[RouteFocusAgent]] = [LightRouteFocus] * players
    if players == 3:
        expected[view.player] = LightLongRouteFocus
    assert policies == expected
    full = RolloutSearchAgent(three_player_own_rollouts="long_cost", seed=3)._seat_policies(view)
    assert full[view.player] is (LongRouteFocus if players == 3 else RouteFocusAgent)
    assert [p for q, p in enumerate(full) if q != view.player] == [RouteFocusAgent] * (players - 1)
    assert RolloutSearchAgent(light_rollouts=True, seed=3)._seat_policies(view) == [LightRouteFocus] * players
    assert LightLongRouteFocus().weights_name == "long_cost"


def test_play_out_gives_each_seat_its_own_policy() -> None:
    """``seat_policies`` replaces ``policy`` seat by seat: the same rollout as agents of those
    classes playing the game on the full list."""
    state = midgame_turn(3, 8).determinize(0, random.Random(1))
    reference = state.clone()
    start = len(state.history)
    seats: list[type[RouteFocusAgent]] = [RouteFocusAgent, LongRouteFocus, RouteFocusAgent]
    assert play_out(state, seed=3, seat_policies=seats)
    agents = [seats[q](seed=3 + q) for q in range(3)]
    while not reference.is_over:
        player = reference.current
        reference.apply(agents[player].choose(reference.view(player, log=False), reference.legal_action_list()))
    assert state.history[start:] == reference.history[start:]
    with pytest.raises(ValueError, match="one policy per seat"):
        play_out(state.clone(), seed=3, seat_policies=seats[:2])


def test_three_player_own_rollouts_must_be_known() -> None:
    with pytest.raises(ValueError, match="three_player_own_rollouts"):
        RolloutSearchAgent(three_player_own_rollouts="short_cost")


@pytest.mark.parametrize("players", [2, 3])
def test_three_player_ticket_searches_use_their_own_horizon(players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``three_player_ticket_horizon`` the ticket searches of a three-player game cut their
    rollouts there (0: played to the end); its turn searches, and every search of a two-player
    game, keep ``horizon``."""
    import ttr_nordic.ai.expert as expert_module

    seen: list[int] = []
    real_play_out = expert_module.play_out

    def recording_play_out(state: GameState, seed: int, *args: Any, **kwargs: Any) -> bool:
        seen.append(kwargs.get("horizon", 0))
        return real_play_out(state, seed, *args, **kwargs)

    monkeypatch.setattr(expert_module, "play_out", recording_play_out)
    agent = RolloutSearchAgent(
        ticket_rollouts=4,
        turn_rollouts=4,
        turn_time=None,
        search_turns=True,
        horizon=24,
        three_player_ticket_horizon=0,
        seed=2,
        core_rollouts=False,  # it watches the Python play_out (the core's: tests/fast/test_expert_rollouts.py)
    )
    setup = GameState.new(players=players, seed=4)
    agent.choose(setup.view(setup.decision.player), setup.legal_action_list())
    assert seen and set(seen) == {0 if players == 3 else 24}
    seen.clear()
    turn = midgame_turn(players, seed=5)
    agent.choose(turn.view(turn.decision.player), turn.legal_action_list())
    assert seen and set(seen) == {24}
    with pytest.raises(ValueError, match="three_player_ticket_horizon"):
        RolloutSearchAgent(three_player_ticket_horizon=-1)
