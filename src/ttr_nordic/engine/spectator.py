"""The public view: what someone without a seat (a spectator) may see of a game.

It is the part of every :class:`.view.PlayerView` that does not depend on the viewer: the
board's state, counts of each player's cards and tickets, the cards a player is publicly known
to hold (taken face up, shown in a declined tunnel), and the log with every blind draw and
every kept ticket hidden. No hand, no ticket, no deck order, and no scoring by tickets (the
tickets are shown to the players at the end, spectators see the board's scores).

>>> from ttr_nordic.engine import GameState
>>> game = GameState.new(players=3, seed=5)
>>> public = public_view(game)
>>> public.hand_sizes, public.ticket_counts, public.deck_count
((4, 4, 4), (0, 0, 0), 93)
>>> hasattr(public, "hand") or hasattr(public, "tickets")
False
"""

from __future__ import annotations

from dataclasses import dataclass

from .board import Board
from .cards import Counts
from .core import Phase, PublicLogEntry, TunnelAttempt
from .transitions import GameCore
from .view import _described_log

#: The log's viewer id for no seat: every blind draw and kept ticket is hidden from it.
NO_SEAT = -1


@dataclass(frozen=True)
class PublicView:
    """What a spectator sees: the fields of a :class:`.view.PlayerView` that every seat sees alike."""

    board: Board
    num_players: int
    first_player: int
    current: int
    phase: Phase
    turn: int
    display: tuple[int, ...]
    deck_count: int
    discard: Counts
    ticket_deck_count: int
    route_owner: tuple[int, ...]
    trains: tuple[int, ...]
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    ticket_counts: tuple[int, ...]
    offer_counts: tuple[int, ...]
    known_cards: tuple[Counts, ...]
    tunnel: TunnelAttempt | None
    final_turns_left: int
    final_round_trigger: int
    log: tuple[PublicLogEntry, ...]


def public_view(state: GameCore) -> PublicView:
    """The public view of ``state`` (see the module's docstring)."""
    # The log as seen from no seat; while the game runs that hides what only a seat's holder saw.
    # At the end the engine reveals every line to everyone (as it does to each player).
    log = tuple(_described_log(state, NO_SEAT, state.phase is Phase.GAME_OVER))
    return PublicView(
        board=state.board,
        num_players=state.num_players,
        first_player=state.first_player,
        current=state.current,
        phase=state.phase,
        turn=state.turn,
        display=tuple(state.display),
        deck_count=len(state.deck),
        discard=tuple(state.discard),  # type: ignore[arg-type]
        ticket_deck_count=len(state.ticket_deck),
        route_owner=tuple(state.route_owner),
        trains=tuple(state.trains),
        scores=tuple(state.scores),
        hand_sizes=tuple(map(sum, state.hands)),
        ticket_counts=tuple(map(len, state.tickets)),
        offer_counts=tuple(map(len, state.offers)),
        known_cards=tuple(tuple(k) for k in state.known),  # type: ignore[misc]
        tunnel=state.tunnel,
        final_turns_left=state.final_turns_left,
        final_round_trigger=state.final_round_trigger,
        log=log,
    )
