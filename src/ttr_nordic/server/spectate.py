"""Watching a game without a seat: the public view as JSON, and who may watch.

A game started from a lobby table is public: anyone may watch it. A game made by invite links
is watched by its players only (they hold its tokens). A spectator is sent the engine's
:func:`~ttr_nordic.engine.spectator.public_view`, never a player's view.

>>> from ttr_nordic.engine import GameState
>>> data = serialize_public(GameState.new(players=2, seed=1))
>>> data["hand_sizes"], "hand" in data, "tickets" in data
([4, 4], False, False)
"""

from __future__ import annotations

from ..engine.spectator import public_view
from ..engine.transitions import GameCore
from .serialize import JSON, _card, _counts, _pieces_for, _tunnel, serialize_log_entry


def serialize_public(state: GameCore) -> JSON:
    """The public view of ``state`` as a JSON-safe dict (keys as in a player's view, less the
    hand, the tickets and the result)."""
    view = public_view(state)
    route_owner, claimed_routes = _pieces_for(view.board).position(view.route_owner)
    return {
        "spectator": True,
        "num_players": view.num_players,
        "first_player": view.first_player,
        "current": view.current,
        "phase": view.phase.name,
        "turn": view.turn,
        "display": [_card(c) for c in view.display],
        "deck_count": view.deck_count,
        "discard": _counts(view.discard),
        "ticket_deck_count": view.ticket_deck_count,
        "route_owner": route_owner,
        "claimed_routes": claimed_routes,
        "trains": list(view.trains),
        "scores": list(view.scores),
        "hand_sizes": list(view.hand_sizes),
        "ticket_counts": list(view.ticket_counts),
        "offer_counts": list(view.offer_counts),
        "known_cards": [_counts(c) for c in view.known_cards],
        "tunnel": _tunnel(view.board, view.tunnel),
        "final_turns_left": view.final_turns_left,
        "final_round_trigger": view.final_round_trigger if view.final_round_trigger >= 0 else None,
        "log": [serialize_log_entry(e) for e in view.log],
    }
