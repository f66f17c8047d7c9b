"""Playing one seeded game on the Python engine and in the compiled core side by side, checking at
every decision that they agree: the legal list (in order), every field of the state, and at the
end the whole scoring. Used by ``tests/fast/`` and by ``scripts/core_differential.py`` (the long
run).

>>> from ttr_nordic import fast
>>> if fast.AVAILABLE:
...     seen = compare_game(players=2, seed=3)
...     assert seen["decisions"] > 100
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from ..engine import (
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
from . import FastGame, core_agent, decode_action, encode_action, state_fields


class Mismatch(AssertionError):
    """The core and the engine disagree; the message says where and how."""


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


def _differences(core: dict[str, object], engine: dict[str, object]) -> str:
    return "; ".join(
        f"{key}: core {core[key]!r:.80} engine {engine[key]!r:.80}" for key in core if core[key] != engine[key]
    )


def compare_game(players: int, seed: int, hoard: bool = False) -> Counter[str]:
    """Play one game (``random.Random(seed).choice``, or :func:`hoarding_chooser` with ``hoard``)
    on both; raise :class:`Mismatch` at the first difference. Returns what the game went through
    (claims by route kind, ferry groups, tunnels paid and declined, ticket draws, passes, turns
    with an empty draw pile, how the winner was decided, and ``decisions``)."""
    seen: Counter[str] = Counter()
    game = GameState.new(players=players, seed=seed)
    core = FastGame.new(players=players, seed=seed)
    choose = hoarding_chooser(seed, game) if hoard else random.Random(seed).choice
    routes = game.board.routes
    step = 0
    while True:
        where = f"{players} players, seed {seed}{' (hoarding)' if hoard else ''}, decision {step}"
        ours, theirs = state_fields(game), core.state()
        if ours != theirs:
            raise Mismatch(f"{where}: state differs: {_differences(theirs, ours)}")
        if game.is_over:
            break
        legal = game.legal_action_list()
        codes = core.legal_codes()
        if codes != [encode_action(a) for a in legal]:
            listed = [a.notation() for a in core.legal_actions()]
            raise Mismatch(f"{where}: legal actions differ: core {listed} engine {[a.notation() for a in legal]}")
        action = choose(legal)
        if isinstance(action, Claim):
            kind = routes[action.route].kind
            seen[f"claim {kind.value}"] += 1
            if kind is RouteKind.FERRY and sum(action.payment) > routes[action.route].length:
                seen["ferry groups"] += 1
        elif isinstance(action, (PayTunnelExtra, DeclineTunnel, DrawTickets, Pass)):
            seen[type(action).__name__] += 1
        if not game.deck and game.phase is Phase.CHOOSE_ACTION:
            seen["empty draw pile"] += 1
        game.apply_unchecked(action)
        core.apply(action)
        step += 1
    result = game.result()
    mine = (
        [p.route_points for p in result.players],
        [p.ticket_points for p in result.players],
        [p.tickets_completed for p in result.players],
        [p.globetrotter for p in result.players],
        [p.longest_path for p in result.players],
        list(result.totals),
        list(result.winners),
        result.decided_by,
    )
    if core.core.result() != mine:
        raise Mismatch(f"{players} players, seed {seed}: scoring differs: core {core.core.result()} engine {mine}")
    seen[f"decided by {result.decided_by}"] += 1
    seen["decisions"] += step
    seen["games"] += 1
    return seen


def compare_route_focus_game(players: int, seed: int, light: bool = False) -> int:
    """Play Route Focus against Route Focus (``LightRouteFocus`` with ``light``) as ``play_game``
    does, the Python agents on the engine and the core's agents in the core, seat ``q`` seeded
    ``seed * players + q``; raise :class:`Mismatch` at the first decision where the two choose
    differently. Returns the number of decisions."""
    from ..ai.base import legal_listing
    from ..ai.baselines import RouteFocusAgent
    from ..ai.expert import LightRouteFocus

    agent_class = LightRouteFocus if light else RouteFocusAgent
    game = GameState.new(players=players, seed=seed)
    core = FastGame.new(players=players, seed=seed)
    agents = [agent_class(seed=seed * players + q) for q in range(players)]
    core_agents = [core_agent(seed * players + q, light=light) for q in range(players)]
    listing = legal_listing(game, agent_class)
    step = 0
    while not game.is_over:
        player = game.current
        action = agents[player].choose(game.view(player, log=False), listing())
        code = core_agents[player].choose(core.core)
        if code != encode_action(action):
            raise Mismatch(
                f"Route Focus{' (light)' if light else ''}, {players} players, seed {seed}, decision {step} "
                f"({game.phase.name}): engine {action.notation()}, core {decode_action(code).notation()}"
            )
        game.apply_unchecked(action)
        core.apply(action)
        step += 1
    if any(agent.fallbacks for agent in agents):
        raise Mismatch(f"seed {seed}: a Python agent fell back to its safety net")
    return step


__all__ = ["Mismatch", "compare_game", "compare_route_focus_game", "hoarding_chooser"]
