"""The engine's basic game types: phases, decisions, the config, log entries and constants.

These are plain values shared by every other part of the engine; this module depends
only on the board, the variant and the actions. The constants below are the official
rules' numbers; a game reads its own from its variant (``game.variant``).

>>> GameConfig(players=2, seed=7).first_player is None
True
>>> Decision(0, Phase.CHOOSE_ACTION).phase.value
'choose an action'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final, NamedTuple

from .actions import Action
from .board import RouteKind
from .cards import Counts
from .variant import OFFICIAL, Variant

TRAINS_PER_PLAYER: Final = 40
INITIAL_HAND: Final = 4
INITIAL_TICKETS_DEALT: Final = 5
INITIAL_TICKETS_KEPT: Final = 2
TICKETS_DRAWN: Final = 3
FINAL_ROUND_TRAINS: Final = 2
EMPTY: Final = -1  # an empty face-up slot, an unowned route

# Route kinds as small ints: the legal-move loop compares these on its hot path.
REGULAR_CODE, FERRY_CODE, TUNNEL_CODE, SPECIAL_CODE = 0, 1, 2, 3
KIND_CODE: Final = {
    RouteKind.REGULAR: REGULAR_CODE,
    RouteKind.FERRY: FERRY_CODE,
    RouteKind.TUNNEL: TUNNEL_CODE,
    RouteKind.SPECIAL: SPECIAL_CODE,
}


class Phase(Enum):
    """What the current player must decide."""

    INITIAL_TICKETS = "choose initial tickets (keep at least 2)"
    CHOOSE_ACTION = "choose an action"
    SECOND_CARD = "take a second train card"
    KEEP_TICKETS = "keep at least 1 of the drawn tickets"
    TUNNEL_EXTRA = "pay the tunnel's extra cards or decline"
    GAME_OVER = "the game is over"

    def text(self, variant: Variant = OFFICIAL) -> str:
        """The phase in words with ``variant``'s numbers (the value is the official rules' text).

        >>> from ttr_nordic.engine.variant import variant_from_toml
        >>> Phase.KEEP_TICKETS.text(variant_from_toml('name = "v"\\n[tickets]\\nkept = 2\\n'))
        'keep at least 2 of the drawn tickets'
        """
        if self is Phase.INITIAL_TICKETS:
            return f"choose initial tickets (keep at least {variant.initial_tickets_kept})"
        if self is Phase.KEEP_TICKETS:
            return f"keep at least {variant.tickets_kept} of the drawn tickets"
        text: str = self.value
        return text


class Decision(NamedTuple):
    """Whose decision it is and of what kind; ``player`` is -1 once the game is over."""

    player: int
    phase: Phase


@dataclass(frozen=True, slots=True)
class GameConfig:
    """What defines a game besides its actions: the player count, the seed, the first player
    and the rules in force (:data:`~ttr_nordic.engine.variant.OFFICIAL` unless given).

    >>> GameConfig(2, 1).variant.name
    'official'
    """

    players: int
    seed: int
    first_player: int | None = None
    variant: Variant = OFFICIAL

    def __post_init__(self) -> None:
        # Exact ints only: a float, bool or None seed would deal a game whose record cannot be loaded.
        if type(self.players) is not int or self.players not in (2, 3):
            raise ValueError(f"Nordic Countries is for 2 or 3 players, not {self.players!r:.40}")
        if type(self.seed) is not int:
            raise ValueError(f"the seed must be a whole number, got {self.seed!r:.40}")
        if self.first_player is not None and (
            type(self.first_player) is not int or not 0 <= self.first_player < self.players
        ):
            raise ValueError(
                f"first_player must be None or a seat from 0 to {self.players - 1}, got {self.first_player!r:.40}"
            )
        if not isinstance(self.variant, Variant):
            raise ValueError(f"variant must be a Variant, got {self.variant!r:.40}")
        self.variant.check_players(self.players)


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One applied action with what it revealed. ``card`` is the card taken by a draw
    (public for a face-up slot, private for a blind draw); ``revealed`` the cards a
    tunnel turned over; ``claimed`` whether a claim placed trains."""

    player: int
    action: Action
    card: int = EMPTY
    revealed: tuple[int, ...] = ()
    claimed: bool = False


class RouteInfo(NamedTuple):
    """A route's numbers for the hot paths (its kind as a code, -1 for no twin)."""

    id: int
    length: int
    color: int
    kind: int
    twin: int  # -1 when none


class TunnelAttempt(NamedTuple):
    """A tunnel claim waiting for its extra payment."""

    route: int
    base: Counts
    revealed: tuple[int, ...]
    needed: int
    color: int
    locomotive_only: bool


@dataclass(frozen=True, slots=True)
class PublicLogEntry:
    """A log line as ``viewer`` may see it: ``text`` is readable, ``notation`` is
    None when the action is hidden (another player's blind draw or ticket choice)."""

    player: int
    text: str
    notation: str | None
    card: int
    revealed: tuple[int, ...]
