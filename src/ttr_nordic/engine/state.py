"""The game state: the full :class:`GameState` and the names this module always exported.

A :class:`GameState` is mutable, deterministic given its config and seed, and
cheap to :meth:`~GameState.clone`. Every decision is atomic: the current
:class:`Decision` says whose turn it is and which phase (initial tickets,
choose an action, second card, keep tickets, tunnel extra payment, game over).

>>> from ttr_nordic.engine import GameState, parse_action
>>> game = GameState.new(players=2, seed=7, first_player=0)
>>> game.decision.phase.name
'INITIAL_TICKETS'
>>> len(game.legal_actions())  # keep 2 to 5 of the 5 dealt tickets
26
>>> game.apply(next(iter(game.legal_actions())))
>>> game.decision.player
1

The engine's modules depend on one another in one direction only::

    cards, errors → board → actions → variant → payments → core → claims
      → transitions → legal → scoring → view → record → state

:mod:`.core` holds the plain types (phases, decisions, config, log entries),
:mod:`.transitions` the fields, setup and state changes, :mod:`.legal` the legal
moves and checks; this module puts scoring, views and records on top. Views and
records build new games through the class registered here
(:func:`~ttr_nordic.engine.transitions.game_class`), not by importing this module.
"""

from __future__ import annotations

import random

from .core import (
    EMPTY,
    FINAL_ROUND_TRAINS,
    INITIAL_HAND,
    INITIAL_TICKETS_DEALT,
    INITIAL_TICKETS_KEPT,
    TICKETS_DRAWN,
    TRAINS_PER_PLAYER,
    Decision,
    GameConfig,
    LogEntry,
    Phase,
    TunnelAttempt,
)
from .legal import GameRules, LegalActions
from .record import GameRecord
from .scoring import GameResult, score_game
from .transitions import register_game_class
from .view import PlayerView, make_view

__all__ = [
    "EMPTY",
    "FINAL_ROUND_TRAINS",
    "INITIAL_HAND",
    "INITIAL_TICKETS_DEALT",
    "INITIAL_TICKETS_KEPT",
    "TICKETS_DRAWN",
    "TRAINS_PER_PLAYER",
    "Decision",
    "GameConfig",
    "GameState",
    "LegalActions",
    "LogEntry",
    "Phase",
    "TunnelAttempt",
]


class GameState(GameRules):
    """A game of Nordic Countries in progress. Create one with :meth:`new`."""

    def result(self) -> GameResult:
        """The final scoring breakdown and winners (callable at any time; final once over)."""
        return score_game(self)

    def view(self, player: int, log: bool = True) -> PlayerView:
        """What ``player`` may see (spec §10); the only input an interface or agent needs.

        ``log=False`` leaves the view's log empty: a faster view for rollouts whose
        policy does not read the log.

        >>> GameState.new(players=2, seed=1).view(0, log=False).log
        ()
        """
        return make_view(self, player, log)

    def determinize(self, player: int, rng: random.Random) -> GameState:
        """A full state consistent with ``player``'s view, hidden parts sampled with ``rng``."""
        return self.view(player).determinize(rng)

    def record(self) -> GameRecord:
        """The game's record: config, seed and actions."""
        if self.determinized:
            raise ValueError("a determinized state has no true record")
        return GameRecord(config=self.config, actions=tuple(a.notation() for a in self.history))

    def __repr__(self) -> str:
        return (
            f"<GameState players={self.num_players} seed={self.config.seed} turn={self.turn} "
            f"decision={self.decision.phase.name}:{self.decision.player} scores={self.scores}>"
        )


register_game_class(GameState)
