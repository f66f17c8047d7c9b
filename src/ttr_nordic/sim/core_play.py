"""Tournament games in the compiled core, where every seat is one of the agents it plays.

A game whose seats are all ``route_focus`` or ``random`` (seeded) is played in the core
(:mod:`ttr_nordic.fast`): each decision is the core agent's (Route Focus in C, or the same
``random.Random(seed).randrange`` draw as :class:`~ttr_nordic.ai.base.RandomAgent`) and is applied
to the engine's game too, so the result, the record and every row field are the engine's own;
only the agents' thinking is faster. At the end the two games must hold the same state, else
the game is refused (:class:`~ttr_nordic.sim.play.TournamentError` by the caller).

>>> from ttr_nordic import fast
>>> from ttr_nordic.sim.schedule import schedule
>>> spec = schedule(["route_focus", "random"], players=2, games=1, seed=3)[0]
>>> played = play_in_core(spec)
>>> played is None or played[0].is_over
True
"""

from __future__ import annotations

import random
import time
from array import array
from collections.abc import Callable

from .. import fast
from ..engine import GameState
from .schedule import GameSpec

#: The registry's agents the core plays exactly as the engine's agents play.
CORE_AGENTS = frozenset({"route_focus", "random"})


class CoreMismatch(RuntimeError):
    """The core's game and the engine's game of one tournament game differ at the end."""


def _random_chooser(seed: int) -> Callable[[fast.FastGame], int]:
    pick = random.Random(seed).randrange

    def choose(game: fast.FastGame) -> int:
        codes = game.legal_codes()
        return codes[pick(len(codes))]

    return choose


def _route_focus_chooser(seed: int) -> Callable[[fast.FastGame], int]:
    agent = fast.core_agent(seed)
    return lambda game: agent.choose(game.core)


def play_in_core(spec: GameSpec) -> tuple[GameState, list[array[float]]] | None:
    """The finished engine game of ``spec`` and each seat's decision times, played in the core;
    None where the core cannot play it (not built, another agent, an unseeded agent)."""
    if not fast.AVAILABLE or not all(name in CORE_AGENTS for name in spec.agents):
        return None
    if any(type(seed) is not int or seed < 0 for seed in spec.agent_seeds):
        return None
    game = fast.FastGame.new(spec.players, spec.seed, spec.first_player)
    state = GameState.new(players=spec.players, seed=spec.seed, first_player=spec.first_player)
    if not fast.supports(state):
        return None
    choosers = [
        _route_focus_chooser(seed) if name == "route_focus" else _random_chooser(seed)
        for name, seed in zip(spec.agents, spec.agent_seeds, strict=True)
    ]
    times = [array("d") for _ in range(spec.players)]
    perf = time.perf_counter
    decode, apply_core, apply_engine = fast.decode_action, game.core.apply, state.apply_unchecked
    while not game.is_over:
        player = game.current
        start = perf()
        code = choosers[player](game)
        times[player].append(perf() - start)
        apply_core(code)
        apply_engine(decode(code))
    if not state.is_over or game.state() != fast.state_fields(state):
        raise CoreMismatch(f"game {spec.game} (seed {spec.seed}): the core's game and the engine's differ")
    return state, times


__all__ = ["CORE_AGENTS", "CoreMismatch", "play_in_core"]
