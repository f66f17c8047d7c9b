"""JSON forms of what a seat may see: its :class:`PlayerView`, legal actions with labels, results.

Everything here is built from a :class:`~ttr_nordic.engine.PlayerView` (plus the static
board, which is public), never from a :class:`~ttr_nordic.engine.GameState`, so a message
can hold nothing the seat's view does not. Cards are named (``"red"``), routes and tickets
carry their ids, codes and names.

>>> from ttr_nordic.engine import GameState
>>> data = serialize_view(GameState.new(players=2, seed=3).view(0))
>>> data["player"], data["phase"], len(data["offered_tickets"])
(0, 'INITIAL_TICKETS', 5)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import orjson

from ..engine import (
    CARD_NAMES,
    Action,
    Board,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    GameResult,
    KeepTickets,
    Pass,
    PayTunnelExtra,
    PlayerView,
    PublicLogEntry,
    TunnelAttempt,
)
from ..engine.board import load_board
from ..engine.cards import describe_cards
from ..engine.scoring import connected_components
from ..engine.variant import Variant
from .variants import shipped

JSON = dict[str, Any]


def dumps(data: JSON) -> str:
    """``data`` as compact JSON text (UTF-8, not ASCII-escaped), as every message is sent."""
    return orjson.dumps(data).decode()


def _card(card: int) -> str | None:
    return CARD_NAMES[card] if card >= 0 else None


def _counts(counts: Sequence[int]) -> dict[str, int]:
    return {CARD_NAMES[kind]: counts[kind] for kind in range(len(CARD_NAMES))}


def _ticket(board: Board, ticket: int, completed: bool | None = None) -> JSON:
    t = board.tickets[ticket]
    data: JSON = {
        "id": t.id,
        "name": t.name,
        "from": board.cities[t.a].name,
        "to": board.cities[t.b].name,
        "points": t.points,
    }
    if completed is not None:
        data["completed"] = completed
    return data


def _ticket_status(view: PlayerView) -> list[tuple[int, bool]]:
    """``view.ticket_status()`` (own tickets, each with whether own routes connect its cities),
    with the seat's routes joined into components once per board position, not once per ticket."""
    labels = _pieces_for(view.board).components(view.route_owner, view.player)
    tickets = view.board.tickets
    return [(t, labels[tickets[t].a] == labels[tickets[t].b]) for t in view.tickets]


def _route(board: Board, route: int) -> JSON:
    r = board.routes[route]
    return {"id": r.id, "code": r.code, "name": r.name}


class _BoardPieces:
    """JSON pieces that depend on the board alone (a claimed route with its owner, a ticket,
    an action's label), made once and then shared by every message: read-only."""

    LABELS_KEPT = 50_000
    #: Board positions (route owners) remembered: a move's messages to every seat share one.
    POSITIONS_KEPT = 4_096

    def __init__(self, board: Board) -> None:
        self.board = board
        self.claimed: dict[tuple[int, int], JSON] = {}
        self.tickets: dict[tuple[int, bool | None], JSON] = {}
        self.legal_actions: dict[Action, JSON] = {}
        self.positions: dict[tuple[int, ...], tuple[list[int | None], list[JSON]]] = {}
        self.labelled: dict[tuple[tuple[int, ...], int], list[int]] = {}

    def position(self, route_owner: tuple[int, ...]) -> tuple[list[int | None], list[JSON]]:
        """``route_owner`` as JSON (None for a free route) and the claimed routes with owners."""
        data = self.positions.get(route_owner)
        if data is None:
            if len(self.positions) >= self.POSITIONS_KEPT:
                self.positions.clear()
            data = self.positions[route_owner] = (
                [owner if owner >= 0 else None for owner in route_owner],
                [self.claimed_route(rid, owner) for rid, owner in enumerate(route_owner) if owner >= 0],
            )
        return data

    def components(self, route_owner: tuple[int, ...], player: int) -> list[int]:
        """A component label per city over ``player``'s routes."""
        key = (route_owner, player)
        labels = self.labelled.get(key)
        if labels is None:
            if len(self.labelled) >= self.POSITIONS_KEPT:
                self.labelled.clear()
            routes = self.board.routes
            edges = ((routes[rid].a, routes[rid].b) for rid, owner in enumerate(route_owner) if owner == player)
            labels = self.labelled[key] = connected_components(edges, len(self.board.cities))
        return labels

    def claimed_route(self, route: int, owner: int) -> JSON:
        data = self.claimed.get((route, owner))
        if data is None:
            data = self.claimed[route, owner] = {**_route(self.board, route), "owner": owner}
        return data

    def ticket(self, ticket: int, completed: bool | None = None) -> JSON:
        data = self.tickets.get((ticket, completed))
        if data is None:
            data = self.tickets[ticket, completed] = _ticket(self.board, ticket, completed)
        return data

    def legal(self, action: Action) -> JSON:
        """``{"action": notation, "label": text}`` for a legal action."""
        data = self.legal_actions.get(action)
        if data is None:
            if len(self.legal_actions) >= self.LABELS_KEPT:
                self.legal_actions.clear()
            notation = action.notation()
            data = self.legal_actions[action] = {"action": notation, "label": action_label(self.board, action)}
        return data


_pieces: _BoardPieces | None = None


def _pieces_for(board: Board) -> _BoardPieces:
    global _pieces
    if _pieces is None or _pieces.board is not board:
        _pieces = _BoardPieces(board)
    return _pieces


def _tunnel(board: Board, tunnel: TunnelAttempt | None) -> JSON | None:
    if tunnel is None:
        return None
    return {
        "route": _route(board, tunnel.route),
        "base": _counts(tunnel.base),
        "revealed": [_card(c) for c in tunnel.revealed],
        "needed": tunnel.needed,
        "color": _card(tunnel.color),
        "locomotive_only": tunnel.locomotive_only,
    }


def serialize_result(board: Board, result: GameResult) -> JSON:
    """The final scoring breakdown (public once the game is over)."""
    return {
        "winners": list(result.winners),
        "decided_by": result.decided_by,
        "totals": list(result.totals),
        "players": [
            {
                "player": p.player,
                "route_points": p.route_points,
                "ticket_points": p.ticket_points,
                "tickets": [
                    {**_ticket(board, t.ticket), "completed": t.completed, "value": t.value} for t in p.tickets
                ],
                "tickets_completed": p.tickets_completed,
                "tickets_failed": p.tickets_failed,
                "globetrotter": p.globetrotter,
                "longest_path": p.longest_path,
                "longest_path_bonus": p.longest_path_bonus,
                "total": p.total,
            }
            for p in result.players
        ],
    }


def board_json(board: Board, name: str = "Nordic Countries") -> JSON:
    """A board as the map draws it: cities (with ``lat``/``lon`` and the board's ``x``/``y``),
    routes and tickets with the engine's ids. ``custom`` is true for any board but the official
    one: the map then places the cities by ``x``/``y`` and draws no Nordic land around them.

    >>> data = board_json(load_board())
    >>> data["custom"], len(data["cities"]), data["cities"][0]["x"]
    (False, 39, 429.0)
    """
    return {
        "name": name,
        "custom": board != load_board(),
        "cities": [
            {
                "id": c.id,
                "name": c.name,
                "english_name": c.english_name,
                "country": c.country,
                "lat": c.lat,
                "lon": c.lon,
                "x": c.x,
                "y": c.y,
            }
            for c in board.cities
        ],
        "routes": [
            {
                "id": r.id,
                "code": r.code,
                "name": r.name,
                "a": r.a,
                "b": r.b,
                "length": r.length,
                "color": r.color_name,
                "kind": r.kind.value,
                "ferry_locomotives": r.ferry_locomotives,
                "twin": r.twin,
                "points": r.points,
                "group": r.group,
            }
            for r in board.routes
        ],
        "tickets": [{"id": t.id, "name": t.name, "a": t.a, "b": t.b, "points": t.points} for t in board.tickets],
    }


# What a log line is, for a page that writes it in its own language: the notation's first word
# (kept when the seat may see the move), else the engine's wording of the two hidden moves.
_LOG_KINDS: dict[str, str] = {
    "B": "draw_blind",
    "T": "draw_tickets",
    "K": "keep",
    "C": "claim",
    "X": "pay_extra",
    "decline": "decline",
    "pass": "pass",
}
_KEPT = re.compile(r"\bkept (\d+) tickets?\b")


def log_entry_kind(entry: PublicLogEntry) -> tuple[str, int | None, bool]:
    """``(kind, tickets kept, tunnel claimed)`` of a log line: ``kind`` is one of ``draw_blind``,
    ``draw_faceup``, ``draw_tickets``, ``keep``, ``claim``, ``tunnel``, ``pay_extra``, ``decline``
    and ``pass``; the count is that of a ``keep``; the flag says a ``tunnel`` try claimed the route.

    >>> from ttr_nordic.engine import GameState
    >>> state = GameState.new(players=2, seed=3)
    >>> state.apply(next(iter(state.legal_actions())))  # seat 0 keeps all five tickets
    >>> log_entry_kind(state.view(0).log[0]), log_entry_kind(state.view(1).log[0])
    (('keep', 5, False), ('keep', 5, False))
    """
    notation = entry.notation
    if notation is None:  # another seat's blind draw or ticket choice: only the wording tells which
        kept = _KEPT.search(entry.text)
        return ("keep", int(kept.group(1)), False) if kept else ("draw_blind", None, False)
    head = notation.split(" ", 1)[0]
    if head == "K":
        return "keep", len(notation.split()) - 1, False
    if head == "C" and " tried tunnel " in entry.text:
        return "tunnel", None, entry.text.endswith("and claimed it")
    if head.startswith("F"):
        return "draw_faceup", None, False
    return _LOG_KINDS[head], None, False


def serialize_log_entry(entry: PublicLogEntry) -> JSON:
    """One line of a view's log: the engine's English ``text`` (for records and the terminal) and
    what a page needs to write it in another language: ``kind`` (see :func:`log_entry_kind`),
    ``kept`` (tickets kept, also when hidden) and ``claimed`` (a tunnel try that claimed); the
    route, the cards paid and the tickets kept are in ``notation`` when the seat may see them."""
    kind, kept, claimed = log_entry_kind(entry)
    return {
        "player": entry.player,
        "text": entry.text,
        "notation": entry.notation,
        "card": _card(entry.card),
        "revealed": [_card(c) for c in entry.revealed],
        "kind": kind,
        "kept": kept,
        "claimed": claimed,
    }


def _phase_kept(view: PlayerView) -> int | None:
    """The least number of tickets to keep in a ticket-choosing phase (the variant's), else None."""
    if view.phase.name == "INITIAL_TICKETS":
        return view.variant.initial_tickets_kept
    if view.phase.name == "KEEP_TICKETS":
        return view.variant.tickets_kept
    return None


def serialize_view(view: PlayerView, log_start: int = 0) -> JSON:
    """``view`` as a JSON-safe dict: one key per :class:`PlayerView` field but the board (plus
    ``is_my_turn``, ``phase_text``, ``phase_args`` and ``claimed_routes``, which are computed from the
    view alone; ``phase_args`` holds the phase's numbers, for a page that words it in its own language);
    ``variant`` holds the rules in force (name and numbers).

    With ``log_start`` the ``log`` holds only the entries from that index on (a client that
    has the first ``log_start`` entries of this view's log adds them; see the protocol).
    Route and ticket entries are shared between results: treat the result as read-only."""
    board = view.board
    pieces = _pieces_for(board)
    route_owner, claimed_routes = pieces.position(view.route_owner)
    return {
        "player": view.player,
        "num_players": view.num_players,
        "first_player": view.first_player,
        "current": view.current,
        "phase": view.phase.name,
        "phase_text": view.phase.text(view.variant),
        "phase_args": {"kept": _phase_kept(view)},
        "is_my_turn": view.is_my_turn,
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
        "hand": _counts(view.hand),
        "tickets": [pieces.ticket(t, done) for t, done in _ticket_status(view)],
        "offered_tickets": [pieces.ticket(t) for t in view.offered_tickets],
        "returned_tickets": [pieces.ticket(t) for t in view.returned_tickets],
        "tunnel": _tunnel(board, view.tunnel),
        "final_turns_left": view.final_turns_left,
        "final_round_trigger": view.final_round_trigger if view.final_round_trigger >= 0 else None,
        "consecutive_passes": view.consecutive_passes,
        "log": [serialize_log_entry(e) for e in view.log[log_start:]],
        "all_tickets": (
            None if view.all_tickets is None else [[pieces.ticket(t) for t in seat] for seat in view.all_tickets]
        ),
        "result": None if view.result is None else serialize_result(board, view.result),
        "variant": _variant_rules(view.variant),
    }


# The rules of each variant met, as JSON (by identity: hashing a variant hashes its board).
_VARIANT_RULES: dict[int, tuple[Variant, JSON]] = {}


def _variant_rules(variant: Variant) -> JSON:
    """The variant's name and rule numbers as in its file (the board is sent apart, see
    :func:`board_json`), and whether it is a shipped variant as shipped. Shared between
    messages: treat it as read-only."""
    cached = _VARIANT_RULES.get(id(variant))
    if cached is None or cached[0] is not variant:
        data = variant.to_dict()
        data.pop("board", None)
        data["shipped"] = shipped().get(variant.name) == variant  # the pages word its description
        if len(_VARIANT_RULES) >= 64:
            _VARIANT_RULES.clear()
        cached = _VARIANT_RULES[id(variant)] = (variant, data)
    return cached[1]


def action_label(board: Board, action: Action) -> str:
    """A readable label for a legal action, e.g. ``'Claim Oslo–Örebro with 2 orange + 1 locomotive'``."""
    if isinstance(action, DrawFaceUp):
        return f"Take face-up card {action.slot + 1}"
    if isinstance(action, DrawBlind):
        return "Draw from the deck"
    if isinstance(action, DrawTickets):
        return "Draw destination tickets"
    if isinstance(action, KeepTickets):
        return "Keep " + ", ".join(board.tickets[t].name for t in action.tickets)
    if isinstance(action, Claim):
        return f"Claim {board.routes[action.route].describe()} with {describe_cards(action.payment)}"
    if isinstance(action, PayTunnelExtra):
        return f"Pay {describe_cards(action.cards)} extra for the tunnel"
    if isinstance(action, DeclineTunnel):
        return "Decline the tunnel"
    assert isinstance(action, Pass)
    return "Pass"


def serialize_legal(board: Board, actions: Sequence[Action]) -> list[JSON]:
    """Legal actions as ``{"action": notation, "label": text}``."""
    pieces = _pieces_for(board)
    return [pieces.legal(action) for action in actions]
