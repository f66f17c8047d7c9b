"""The rules engine for Ticket to Ride: Nordic Countries (standard library only).

>>> import random
>>> from ttr_nordic.engine import GameState
>>> game = GameState.new(players=2, seed=42)
>>> rng = random.Random(0)
>>> while not game.is_over:
...     game.apply(rng.choice(list(game.legal_actions())))
>>> result = game.result()
>>> len(result.players), result.winners[0] in (0, 1)
(2, True)
"""

from .actions import (
    Action,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    Pass,
    PayTunnelExtra,
    parse_action,
)
from .board import GRAY, Board, City, Route, RouteKind, Ticket, load_board
from .cards import CARD_LETTERS, CARD_NAMES, COLORS, LOCOMOTIVE, Card, Counts, parse_cards
from .core import Decision, GameConfig, LogEntry, Phase, PublicLogEntry, TunnelAttempt
from .errors import IllegalActionError, NotationError, Reason, RecordError
from .legal import LegalActions
from .record import GameRecord
from .scoring import GameResult, PlayerResult, TicketResult
from .state import GameState
from .view import PlayerView, determinize

__all__ = [
    "CARD_LETTERS",
    "CARD_NAMES",
    "COLORS",
    "GRAY",
    "LOCOMOTIVE",
    "Action",
    "Board",
    "Card",
    "City",
    "Claim",
    "Counts",
    "Decision",
    "DeclineTunnel",
    "DrawBlind",
    "DrawFaceUp",
    "DrawTickets",
    "GameConfig",
    "GameRecord",
    "GameResult",
    "GameState",
    "IllegalActionError",
    "KeepTickets",
    "LegalActions",
    "LogEntry",
    "NotationError",
    "Pass",
    "PayTunnelExtra",
    "Phase",
    "PlayerResult",
    "PlayerView",
    "PublicLogEntry",
    "Reason",
    "RecordError",
    "Route",
    "RouteKind",
    "Ticket",
    "TicketResult",
    "TunnelAttempt",
    "determinize",
    "load_board",
    "parse_action",
    "parse_cards",
]
