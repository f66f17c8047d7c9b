"""Win chances move by move, and a game's key moments, for replays.

Each step's chances are the calibrated chances of :mod:`.calibration`: every seat's inputs come
from that seat's own view (what that player knew then), and a fitted map turns them into
chances that add up to 1. Once the game is over the result decides: the winners share 1.

>>> from ttr_nordic.engine import GameConfig, GameState
>>> state = GameState.from_config(GameConfig(2, seed=3))
>>> actions = []
>>> for _ in range(6):
...     action = state.legal_action_list()[0]
...     actions.append(action)
...     state.apply(action)
>>> chances = win_chances(GameConfig(2, seed=3), actions)
>>> len(chances), all(abs(sum(step) - 1) < 1e-9 for step in chances)
(7, True)
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Final

from ...engine import Action, GameConfig, GameState, KeepTickets
from .calibration import calibrated_chances

#: A ticket keep is judged over this many of the keeper's later moves, not by its instant jump.
KEEP_HORIZON: Final = 8


def step_chances(state: GameState) -> tuple[float, ...]:
    """Each seat's calibrated chance to win in ``state`` (the result once the game is over)."""
    n = state.num_players
    if state.is_over:
        winners = state.result().winners
        return tuple(1.0 / len(winners) if p in winners else 0.0 for p in range(n))
    return calibrated_chances([state.view(p, log=False) for p in range(n)])


@dataclass(frozen=True, slots=True)
class Curve:
    """A game's chances after 0, 1, … steps, who made each step (``movers[s - 1]`` made step ``s``)
    and which steps kept tickets."""

    chances: list[tuple[float, ...]]
    movers: list[int]
    keeps: frozenset[int]


def replay_curve(config: GameConfig, actions: Sequence[Action]) -> Curve:
    """Replay ``actions`` from a new game of ``config`` and return its :class:`Curve`."""
    state = GameState.from_config(config)
    chances = [step_chances(state)]
    movers: list[int] = []
    keeps = set()
    for step, action in enumerate(actions, start=1):
        movers.append(state.decision.player)
        if isinstance(action, KeepTickets):
            keeps.add(step)
        state.apply(action)
        chances.append(step_chances(state))
    return Curve(chances, movers, frozenset(keeps))


def win_chances(config: GameConfig, actions: Sequence[Action]) -> list[tuple[float, ...]]:
    """Each player's chance to win after 0, 1, …, ``len(actions)`` actions (each step adds up to 1)."""
    return replay_curve(config, actions).chances


@dataclass(frozen=True, slots=True)
class Moment:
    """A decision whose player's chance moved the most: from ``before`` (just before step ``step``)
    to ``after`` (just after step ``until``; ``until > step`` for a ticket keep, judged over the
    keeper's following moves)."""

    step: int
    player: int
    before: float
    after: float
    until: int

    @property
    def swing(self) -> float:
        return self.after - self.before


def key_moments(
    chances: Sequence[Sequence[float]],
    limit: int = 5,
    movers: Sequence[int] | None = None,
    keeps: Collection[int] = (),
    horizon: int = KEEP_HORIZON,
) -> list[Moment]:
    """The ``limit`` decisions that moved their player's chance most, largest first.

    A step is credited to its mover (``movers[step - 1]``; without movers, to the player whose
    chance moved most, the gainer of a tie). The last step is left out: there the game ends and
    every ticket is revealed, which is the result, not a move. A ticket keep (a step in
    ``keeps``) is not judged by its instant jump -- the model cannot tell yet whether the tickets
    will be connected -- but by the keeper's chance just before it against the chance after the
    keeper's ``horizon``-th following move (or the step before the end, if that comes first).

    >>> chances = [(0.5, 0.5), (0.6, 0.4), (0.1, 0.9), (0.3, 0.7), (1.0, 0.0)]
    >>> [(m.step, m.player, round(m.swing, 2)) for m in key_moments(chances, 2)]
    [(2, 1, 0.5), (3, 0, 0.2)]
    >>> [(m.step, m.player, m.until, round(m.swing, 2)) for m in key_moments(chances, 3, [0, 1, 0, 1], {1}, 1)]
    [(2, 1, 2, 0.5), (1, 0, 3, -0.2), (3, 0, 3, 0.2)]
    """
    last = len(chances) - 1
    moments = []
    for step in range(1, last):
        before, after = chances[step - 1], chances[step]
        if movers is None:
            player = max(range(len(after)), key=lambda p: (round(abs(after[p] - before[p]), 9), after[p] - before[p]))
        else:
            player = movers[step - 1]
        until = step
        if step in keeps and movers is not None:
            later = [s for s in range(step + 1, last) if movers[s - 1] == player]
            until = later[horizon - 1] if len(later) >= horizon else last - 1
        if chances[until][player] != before[player]:
            moments.append(Moment(step, player, before[player], chances[until][player], until))
    moments.sort(key=lambda m: (-abs(m.swing), m.step))
    return moments[:limit]
