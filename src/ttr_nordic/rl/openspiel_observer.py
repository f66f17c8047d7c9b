"""OpenSpiel observers of ``ttr_nordic``: what each ``IIGObservationType`` lets a player see.

The pieces, all built from the engine's view of the player (the engine decides what a player
sees) and from the history of the game's public and private events:

==================  ======  ===================================================================
piece               length  contents
==================  ======  ===================================================================
observation         510     :mod:`ttr_nordic.rl.observation`'s vector (public and private parts)
public              363     the observation without the own hand, tickets and ticket offer
private             147     own hand (9), own tickets held and completed (92), offer (46)
public_history      52      per relative seat: actions taken by type (8) / 50, face-up cards
                            taken by kind (9) / 12; then turns played / 100
private_history     55      own blind draws by kind (9) / 12, own returned tickets (46)
==================  ======  ===================================================================

- Default observation (public and own private information): ``observation``.
- Information state (``perfect_recall=True``): ``observation``, ``public_history``,
  ``private_history`` (617 values); the public part with its history for ``public_info`` only,
  the private part with its history for private information only.
- ``private_info=ALL_PLAYERS`` is refused (that would be the perfect-information state).

The history pieces summarise the past (counts, not the order); the information-state *string*
is the player's whole log as the engine describes it to them: perfect recall.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyspiel
from numpy.typing import NDArray

from ttr_nordic.engine import CARD_LETTERS
from ttr_nordic.engine.actions import (
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    Pass,
    PayTunnelExtra,
)
from ttr_nordic.engine.core import LogEntry
from ttr_nordic.engine.view import make_step_view

from .observation import (
    HAND_START,
    KNOWN_START,
    NUM_KINDS,
    NUM_TICKETS,
    SEATS,
    SIZE,
    TICKETS_END,
    TICKETS_START,
    ObservationEncoder,
)

if TYPE_CHECKING:
    from .openspiel import TTRNordicState

ACTION_TYPES = (DrawFaceUp, DrawBlind, DrawTickets, KeepTickets, Claim, PayTunnelExtra, DeclineTunnel, Pass)
"""The action types counted per seat in the public history, in this order."""
SEAT_HISTORY = len(ACTION_TYPES) + NUM_KINDS
PUBLIC_HISTORY_SIZE = SEATS * SEAT_HISTORY + 1
PRIVATE_HISTORY_SIZE = NUM_KINDS + NUM_TICKETS
INFO_STATE_SIZE = SIZE + PUBLIC_HISTORY_SIZE + PRIVATE_HISTORY_SIZE
_TYPE_INDEX = {kind: index for index, kind in enumerate(ACTION_TYPES)}

_PRIVATE_RANGES = ((HAND_START, KNOWN_START), (TICKETS_START, TICKETS_END))
PRIVATE_INDEX = np.concatenate([np.arange(a, b) for a, b in _PRIVATE_RANGES])
"""Where the private values (own hand, tickets, offer) sit in the observation vector."""
PUBLIC_INDEX = np.setdiff1d(np.arange(SIZE), PRIVATE_INDEX)
"""Where the public values sit in the observation vector (everything else, in order)."""


class History:
    """Counts of what happened so far, per absolute seat: the public action counts and face-up
    kinds, and each seat's own blind-draw kinds (private to that seat)."""

    __slots__ = ("blind", "public", "turns")

    def __init__(self, players: int) -> None:
        self.public = [[0] * SEAT_HISTORY for _ in range(players)]
        self.blind = [[0] * NUM_KINDS for _ in range(players)]
        self.turns = 0

    def copy(self, keep_private_of: int | None = None) -> History:
        """A copy; with ``keep_private_of``, the other seats' private counts are left out."""
        other = History(len(self.public))
        other.public = [row[:] for row in self.public]
        other.blind = [
            row[:] if keep_private_of is None or seat == keep_private_of else [0] * NUM_KINDS
            for seat, row in enumerate(self.blind)
        ]
        other.turns = self.turns
        return other

    def record(self, entries: list[LogEntry], turns: int) -> None:
        """Count the new log ``entries`` of the engine (whose turn counter is now ``turns``)."""
        for entry in entries:
            index = _TYPE_INDEX.get(type(entry.action))
            if index is None:
                continue
            row = self.public[entry.player]
            row[index] += 1
            if index == 0 and entry.card >= 0:  # a face-up card: everyone saw it
                row[len(ACTION_TYPES) + entry.card] += 1
            elif index == 1 and entry.card >= 0:  # a blind draw: only its player saw the card
                self.blind[entry.player][entry.card] += 1
        self.turns = turns

    def public_values(self, player: int) -> list[float]:
        """The public history piece seen from ``player`` (seats relative, as in the observation)."""
        n = len(self.public)
        values: list[float] = []
        for r in range(SEATS):
            if r < n:
                row = self.public[(player + r) % n]
                values += [c / 50 for c in row[: len(ACTION_TYPES)]]
                values += [c / 12 for c in row[len(ACTION_TYPES) :]]
            else:
                values += [0.0] * SEAT_HISTORY
        values.append(self.turns / 100)
        return _float32(values)

    def private_values(self, player: int, returned: tuple[int, ...]) -> list[float]:
        """The private history piece of ``player``: own blind kinds, own returned tickets."""
        values = [c / 12 for c in self.blind[player]]
        tickets = [0.0] * NUM_TICKETS
        for ticket in returned:
            tickets[ticket] = 1.0
        return _float32(values + tickets)


def _float32(values: list[float]) -> list[float]:
    """``values`` rounded to float32 (what OpenSpiel's own tensor copies hold)."""
    rounded: list[float] = np.array(values, dtype=np.float32).tolist()
    return rounded


def observer_pieces(iig_obs_type: Any) -> tuple[bool, bool, bool]:
    """(public, private, perfect recall) of an ``IIGObservationType`` (None: the default)."""
    if iig_obs_type is None:
        return True, True, False
    private = iig_obs_type.private_info
    if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
        raise ValueError("ttr_nordic observers show one player's private information, not all players'")
    return (
        bool(iig_obs_type.public_info),
        private == pyspiel.PrivateInfoType.SINGLE_PLAYER,
        bool(iig_obs_type.perfect_recall),
    )


def _layout(public: bool, private: bool, recall: bool) -> list[tuple[str, int]]:
    """The observer tensor's pieces and lengths, in order."""
    pieces: list[tuple[str, int]] = []
    if public and private:
        pieces.append(("observation", SIZE))
    elif public:
        pieces.append(("public", len(PUBLIC_INDEX)))
    elif private:
        pieces.append(("private", len(PRIVATE_INDEX)))
    if recall and public:
        pieces.append(("public_history", PUBLIC_HISTORY_SIZE))
    if recall and private:
        pieces.append(("private_history", PRIVATE_HISTORY_SIZE))
    return pieces


class TTRNordicObserver:
    """OpenSpiel's Python observer for one ``IIGObservationType`` (see the module docstring).

    >>> import pyspiel, ttr_nordic.rl.openspiel
    >>> game = pyspiel.load_game("ttr_nordic")
    >>> public = game.make_py_observer(pyspiel.IIGObservationType(
    ...     perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
    >>> public.tensor.shape, list(public.dict)
    ((363,), ['public'])
    """

    def __init__(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.public, self.private, self.perfect_recall = observer_pieces(iig_obs_type)
        pieces = _layout(self.public, self.private, self.perfect_recall)
        self.tensor = np.zeros(sum(length for _, length in pieces), np.float32)
        self.dict: dict[str, NDArray[np.float32]] = {}
        start = 0
        for name, length in pieces:
            self.dict[name] = self.tensor[start : start + length]
            start += length
        # Views are compared field by field, so states of any trajectory may follow one another.
        self._encoder = ObservationEncoder()

    def set_from(self, state: TTRNordicState, player: int) -> None:
        position = state.position
        engine = position.engine
        if engine is None:
            self.tensor[:] = 0.0
            return
        vector = self._encoder.update(make_step_view(engine, player))
        pieces = self.dict
        if "observation" in pieces:
            pieces["observation"][:] = vector
        elif "public" in pieces:
            pieces["public"][:] = vector[PUBLIC_INDEX]
        else:
            pieces["private"][:] = vector[PRIVATE_INDEX]
        if "public_history" in pieces:
            pieces["public_history"][:] = position.history.public_values(player)
        if "private_history" in pieces:
            returned = tuple(engine.returned_tickets[player])
            pieces["private_history"][:] = position.history.private_values(player, returned)

    def string_from(self, state: TTRNordicState, player: int) -> str:
        engine = state.engine
        if engine is None:
            return f"p{player} before the deal"
        view = engine.view(player, log=False)
        parts = []
        if self.public:
            known = ";".join("".join(CARD_LETTERS[k] * n for k, n in enumerate(c)) for c in view.known_cards)
            owners = "".join("." if o < 0 else str(o) for o in view.route_owner)
            display = "".join(CARD_LETTERS[c] if c >= 0 else "-" for c in view.display)
            tunnel = "" if view.tunnel is None else f" tunnel:{view.tunnel.route}/{view.tunnel.revealed}"
            if not self.private:  # the view's own entry of known_cards is the whole hand: use what all know
                known = ";".join("".join(CARD_LETTERS[k] * n for k, n in enumerate(c)) for c in engine.known)
            parts.append(
                f"p{player} {view.phase.name} to:{view.current} turn:{view.turn}"
                f" known:{known} display:{display} deck:{view.deck_count}"
                f" tdeck:{view.ticket_deck_count} trains:{view.trains} scores:{view.scores}"
                f" hands:{view.hand_sizes} nt:{view.ticket_counts} final:{view.final_turns_left}"
                f"{tunnel} routes:{owners}"
            )
        if self.private:
            hand = "".join(CARD_LETTERS[k] * n for k, n in enumerate(view.hand))
            tickets = ",".join(f"{t}{'+' if done else ''}" for t, done in view.ticket_status())
            parts.append(f"p{player} hand:{hand} tickets:{tickets} offer:{view.offered_tickets}")
        summary = " ".join(parts)
        if not self.perfect_recall:
            return summary
        if self.private:
            return "\n".join((*state.history_lines(player), summary))
        return "\n".join((*state.public_history_lines(), summary))
