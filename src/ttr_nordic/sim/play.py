"""Playing scheduled games (the part that runs in worker processes or Ray tasks).

>>> from ttr_nordic.sim.schedule import schedule
>>> row = play_batch(schedule(["random", "random"], players=2, games=1, seed=3))[0]
>>> row.game, len(row.scores), row.actions == sum(row.decisions)
(0, 2, True)
"""

from __future__ import annotations

import dataclasses
import functools
import json
import statistics
import time
from array import array
from collections.abc import Sequence

from ..ai.base import Agent, play_game
from ..ai.registry import make_agent
from ..engine import Action, PlayerView
from ..engine.variant import Variant
from .core_play import play_in_core
from .results import GameRow
from .schedule import GameSpec


class TournamentError(RuntimeError):
    """A tournament could not be run (bad setup, a missing optional package, an agent that failed)."""


class TimedAgent:
    """Wraps an agent and records the wall time of each ``choose`` call."""

    def __init__(self, agent: Agent, times: array[float]) -> None:
        self.inner = agent
        self.name = agent.name
        # What play_game may skip for the agent (see ai.base.Agent), passed on.
        self.reads_log: bool = getattr(agent, "reads_log", True)
        self.accepts_legal_sequence: bool = getattr(agent, "accepts_legal_sequence", False)
        self.times = times

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        start = time.perf_counter()
        action = self.inner.choose(view, legal)
        self.times.append(time.perf_counter() - start)
        return action


def play_spec(spec: GameSpec) -> GameRow:
    """Play one game and summarise it as a :class:`GameRow`."""
    start = time.perf_counter()
    times = [array("d") for _ in range(spec.players)]
    try:
        # Seats the compiled core plays (Route Focus, random) play there under the official rules:
        # the same game, faster.
        in_core = None if spec.variant else play_in_core(spec)
        if in_core is not None:
            state, times = in_core
        else:
            agents = [
                TimedAgent(make_agent(name, seed), times[seat])
                for seat, (name, seed) in enumerate(zip(spec.agents, spec.agent_seeds, strict=True))
            ]
            state = play_game(
                agents, seed=spec.seed, first_player=spec.first_player, variant=spec_variant(spec.variant)
            )
    except Exception as exc:  # an agent's failure, reported with what reproduces it
        raise TournamentError(
            f"game {spec.game} (seed {spec.seed}, agents {', '.join(spec.labels)}) failed: {type(exc).__name__}: {exc}"
        ) from None
    result = state.result()
    record = state.record()
    # The same keys as the terminal's records ("names", "agents", "totals", "winners"), so that
    # ``ttr-nordic replay`` shows who played; nothing here depends on the clock.
    meta = {
        "app": "ttr-nordic tournament",
        "names": list(spec.labels),
        "agents": list(spec.agents),
        "agent_seeds": list(spec.agent_seeds),
        "finished": True,
        "totals": list(result.totals),
        "winners": [spec.labels[seat] for seat in result.winners],
        "tournament": {"seed": spec.tournament_seed, "game": spec.game, "seating": list(spec.seating)},
    }
    record_json = dataclasses.replace(record, meta=meta).to_json()
    players = result.players
    return GameRow(
        game=spec.game,
        seed=spec.seed,
        players=spec.players,
        first_player=spec.first_player,
        seating=spec.seating,
        agents=spec.agents,
        labels=spec.labels,
        agent_seeds=spec.agent_seeds,
        scores=tuple(p.total for p in players),
        route_points=tuple(p.route_points for p in players),
        tickets_completed=tuple(p.tickets_completed for p in players),
        tickets_failed=tuple(p.tickets_failed for p in players),
        globetrotter=tuple(p.globetrotter for p in players),
        longest_path=tuple(p.longest_path for p in players),
        turns=state.turn,
        actions=len(state.history),
        winners=result.winners,
        decided_by=result.decided_by,
        route_owners=encode_owners(state.route_owner),
        record=record_json,
        decisions=tuple(len(t) for t in times),
        time_total=tuple(sum(t) for t in times),
        time_mean=tuple(statistics.fmean(t) if t else 0.0 for t in times),
        time_median=tuple(statistics.median(t) if t else 0.0 for t in times),
        time_max=tuple(max(t, default=0.0) for t in times),
        wall_s=time.perf_counter() - start,
        decision_times=tuple(times),
    )


@functools.lru_cache(maxsize=8)
def spec_variant(text: str) -> Variant | None:
    """The variant a :class:`GameSpec` carries as JSON (None for the official rules), read once per
    process: games under one variant then share one board and the engine's tables for it."""
    return Variant.from_dict(json.loads(text), source="the game's variant") if text else None


def play_batch(specs: Sequence[GameSpec]) -> list[GameRow]:
    """Play several games in order (one worker task)."""
    return [play_spec(spec) for spec in specs]


def encode_owners(owners: Sequence[int]) -> str:
    """Route owners as one character per route: the seat number, or ``-`` when unclaimed.

    >>> encode_owners([-1, 0, 2])
    '-02'
    """
    return "".join("-" if owner < 0 else str(owner) for owner in owners)


def decode_owners(text: str) -> list[int]:
    """The inverse of :func:`encode_owners`.

    >>> decode_owners('-02')
    [-1, 0, 2]
    """
    return [-1 if char == "-" else int(char) for char in text]
