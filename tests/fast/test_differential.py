"""The compiled core against the Python engine, decision by decision.

Every seeded game is dealt by both from the same seed and played with ``random.Random(seed).choice``
over the engine's legal list: at every decision the two legal lists (in order), every field of
the state (deck order, hands, known cards, display, discard, tickets, tunnel, final round) and at
the end the whole scoring must be equal. ``scripts/core_differential.py`` runs the same check for
millions of decisions.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest

from ttr_nordic import fast
from ttr_nordic.engine import (
    Action,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    GameState,
    Pass,
    PayTunnelExtra,
    Phase,
    RouteKind,
)
from ttr_nordic.fast import FastGame, encode_action, state_fields

pytestmark = pytest.mark.skipif(not fast.AVAILABLE, reason="the compiled core is not built or is turned off")

GAMES_PER_TABLE = 110
HOARDING_GAMES = 30


def hoarding_chooser(seed: int, game: GameState) -> Callable[[list[Action]], Action]:
    """A random player that draws until it holds 14 cards, then claims the longest route it can:
    it reaches big hands, Murmansk–Lieksa and the ferries' groups, which uniform play seldom does."""
    rng = random.Random(seed)
    routes = game.board.routes

    def choose(legal: list[Action]) -> Action:
        draws = [a for a in legal if isinstance(a, (DrawBlind, DrawFaceUp))]
        if draws and sum(game.hands[game.current]) < 14:
            return rng.choice(draws)
        claims = [a for a in legal if isinstance(a, Claim)]
        if claims:
            longest = max(routes[a.route].length for a in claims)
            return rng.choice([a for a in claims if routes[a.route].length == longest])
        return rng.choice(legal)

    return choose


def play_both(players: int, seed: int, seen: Counter[str], hoard: bool = False) -> None:
    """Play one random game in both, asserting they agree at every step."""
    game = GameState.new(players=players, seed=seed)
    core = FastGame.new(players=players, seed=seed)
    choose = hoarding_chooser(seed, game) if hoard else random.Random(seed).choice
    routes = game.board.routes
    step = 0
    while True:
        where = f"{players} players, seed {seed}, decision {step}"
        assert core.state() == state_fields(game), where
        if game.is_over:
            break
        legal = game.legal_action_list()
        assert core.legal_codes() == [encode_action(a) for a in legal], where
        action = choose(legal)
        if isinstance(action, Claim):
            kind = routes[action.route].kind
            seen[f"claim {kind.value}"] += 1
            if kind is RouteKind.FERRY and sum(action.payment) > routes[action.route].length:
                seen["ferry groups"] += 1
            if kind is RouteKind.TUNNEL:
                seen["tunnel"] += 1
        elif isinstance(action, (PayTunnelExtra, DeclineTunnel, DrawTickets, Pass)):
            seen[type(action).__name__] += 1
        if not game.deck and game.phase is Phase.CHOOSE_ACTION:
            seen["empty draw pile"] += 1
        game.apply_unchecked(action)
        core.apply(action)
        step += 1
    ours = game.result()
    routes_points, ticket_points, completed, globetrotter, longest, totals, winners, decided_by = core.core.result()
    assert totals == list(ours.totals)
    assert winners == list(ours.winners)
    assert decided_by == ours.decided_by
    assert routes_points == [p.route_points for p in ours.players]
    assert ticket_points == [p.ticket_points for p in ours.players]
    assert completed == [p.tickets_completed for p in ours.players]
    assert globetrotter == [p.globetrotter for p in ours.players]
    assert longest == [p.longest_path for p in ours.players]
    seen[f"decided by {decided_by}"] += 1
    seen["decisions"] += step


@pytest.mark.parametrize("players", [2, 3])
def test_random_games_agree_at_every_decision(players: int) -> None:
    seen: Counter[str] = Counter()
    for seed in range(GAMES_PER_TABLE):
        play_both(players, seed, seen)
    # The games reached every part of the rules the comparison is meant to cover.
    for part in ("claim regular", "claim ferry", "ferry groups", "tunnel", "PayTunnelExtra", "DeclineTunnel"):
        assert seen[part] > 0, (part, seen)
    assert seen["DrawTickets"] > GAMES_PER_TABLE
    assert seen["decisions"] > 150 * GAMES_PER_TABLE


@pytest.mark.parametrize("players", [2, 3])
def test_hoarding_games_agree_at_every_decision(players: int) -> None:
    seen: Counter[str] = Counter()
    for seed in range(HOARDING_GAMES):
        play_both(players, 10_000 + seed, seen, hoard=True)
    for part in ("claim special", "ferry groups", "empty draw pile", "tunnel"):
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
