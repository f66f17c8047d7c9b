"""Win chances move by move, and a game's key moments, for replays.

Each player's chance after each step comes from the value model on that player's own view
(what that player knew then), and the chances of one step are scaled to add up to 1. Once the
game is over the result decides: the winners share 1.

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

from collections.abc import Sequence
from dataclasses import dataclass

from ...engine import Action, GameConfig, GameState
from .model import evaluate


def _step_chances(state: GameState) -> tuple[float, ...]:
    n = state.num_players
    if state.is_over:
        winners = state.result().winners
        return tuple(1.0 / len(winners) if p in winners else 0.0 for p in range(n))
    raw = [min(max(evaluate(state.view(p, log=False))[1], 1e-6), 1.0) for p in range(n)]
    total = sum(raw)
    return tuple(value / total for value in raw)


def win_chances(config: GameConfig, actions: Sequence[Action]) -> list[tuple[float, ...]]:
    """Each player's chance to win after 0, 1, …, ``len(actions)`` actions (each step adds up to 1)."""
    state = GameState.from_config(config)
    chances = [_step_chances(state)]
    for action in actions:
        state.apply(action)
        chances.append(_step_chances(state))
    return chances


@dataclass(frozen=True, slots=True)
class Moment:
    """A step where a player's chance moved the most: from ``before`` to ``after``."""

    step: int
    player: int
    before: float
    after: float

    @property
    def swing(self) -> float:
        return self.after - self.before


def key_moments(chances: Sequence[Sequence[float]], limit: int = 5) -> list[Moment]:
    """The ``limit`` largest swings of one step (the player whose chance moved most at that
    step), largest first. The last step is left out: there the game ends and every ticket is
    revealed, which is the result, not a move.

    Of players whose chances moved as much, the one who gained is named.

    >>> chances = [(0.5, 0.5), (0.6, 0.4), (0.1, 0.9), (0.3, 0.7), (1.0, 0.0)]
    >>> [(m.step, m.player, round(m.swing, 2)) for m in key_moments(chances, 2)]
    [(2, 1, 0.5), (3, 0, 0.2)]
    """
    moments = []
    for step in range(1, len(chances) - 1):
        before, after = chances[step - 1], chances[step]
        player = max(range(len(after)), key=lambda p: (round(abs(after[p] - before[p]), 9), after[p] - before[p]))
        if after[player] != before[player]:
            moments.append(Moment(step, player, before[player], after[player]))
    moments.sort(key=lambda m: (-abs(m.swing), m.step))
    return moments[:limit]
