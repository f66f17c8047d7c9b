"""Why a move is good, in plain words: a hint's move and its reasons as data, and an English sentence.

:func:`explain` reads one player's view (nothing hidden) and a chosen move, and finds its reasons
in the position and in the ticket plan (the planner the baseline agents and the expert's rollouts
use, :func:`~ttr_nordic.ai.planning.plan_tickets`): which ticket a claimed route completes or lies
on, which planned route a drawn card pays for, what the opponents' claims suggest they need
(:class:`~ttr_nordic.ai.inference.TicketInference`). The result is data -- a move description and
reason codes with parameters -- so that a page can word it in any language; :func:`hint_text`
words it in English (the browser has the same wording in ``web/static/js/hint-text.js``).

>>> from ttr_nordic.engine import GameState, parse_action
>>> game = GameState.new(players=2, seed=4, first_player=0)
>>> game.tickets[0] = [game.board.ticket_between("Oslo", "Helsinki").id]
>>> why = explain(game.view(0), parse_action("T"))
>>> why.reasons[0].code
'trains_to_spare'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from ..engine import (
    Action,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    PayTunnelExtra,
    PlayerView,
)
from ..engine.cards import CARD_NAMES, LOCOMOTIVE, NUM_KINDS
from ..engine.payments import can_pay
from .inference import TicketInference
from .planning import (
    OWN,
    BoardTables,
    Plan,
    board_tables,
    card_deficits,
    costs_for,
    plan_tickets,
    route_status,
    shortest_path,
)

#: A parameter of a move or a reason: a name, a number, or a list of ``[count, card]`` pairs / names.
Param = str | int | list[str] | list[list[str | int]]

#: Every reason code, with the parameters it carries (the page words each one).
REASONS: Final[dict[str, tuple[str, ...]]] = {
    "completes_ticket": ("ticket", "points"),
    "on_ticket_path": ("ticket", "points"),
    "blocks": ("player", "ticket"),
    "scores": ("points", "length"),
    "last_round": (),
    "collects_for": ("card", "route", "ticket", "have", "need"),
    "locomotive": (),
    "nothing_fits": (),
    "cannot_pay_yet": (),
    "cards_short": ("short",),
    "tickets_done": ("trains",),
    "trains_to_spare": ("spare",),
    "tickets_fit": ("trains", "trains_left"),
    "already_connected": ("ticket",),
    "tunnel_on_path": ("ticket",),
    "tunnel_too_dear": (),
    "nothing_else": (),
}


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason: a code of :data:`REASONS` and its parameters."""

    code: str
    params: Mapping[str, Param] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Explanation:
    """The move (``move["kind"]`` and its parameters) and its reasons, the main one first."""

    move: Mapping[str, Param]
    reasons: tuple[Reason, ...]

    def as_json(self) -> dict[str, object]:
        """``{"move": {...}, "reasons": [{"code": ..., **params}, ...]}`` for the page."""
        return {"move": dict(self.move), "reasons": [{"code": r.code, **r.params} for r in self.reasons]}


def card_pairs(counts: Sequence[int]) -> list[list[str | int]]:
    """``[[count, card name], ...]`` of a card multiset, colours first and locomotives last."""
    return [[counts[card], CARD_NAMES[card]] for card in range(NUM_KINDS) if counts[card]]


def _move(view: PlayerView, action: Action) -> dict[str, Param]:
    board = view.board
    if isinstance(action, Claim):
        route = board.routes[action.route]
        return {
            "kind": "claim",
            "route": route.name,
            "length": route.length,
            "color": route.color_name,
            "type": route.kind.value,  # regular, ferry, tunnel or special
            "cards": card_pairs(action.payment),
        }
    if isinstance(action, DrawFaceUp):
        return {"kind": "face_up", "card": CARD_NAMES[view.display[action.slot]]}
    if isinstance(action, DrawBlind):
        return {"kind": "deck"}
    if isinstance(action, DrawTickets):
        return {"kind": "tickets"}
    if isinstance(action, KeepTickets):
        return {"kind": "keep", "tickets": [board.tickets[t].name for t in action.tickets]}
    if isinstance(action, PayTunnelExtra):
        return {"kind": "tunnel_pay", "cards": card_pairs(action.cards)}
    if isinstance(action, DeclineTunnel):
        return {"kind": "tunnel_decline"}
    return {"kind": "pass"}


def _plan(tables: BoardTables, status: Sequence[int], view: PlayerView, tickets: Sequence[int]) -> Plan:
    return plan_tickets(tables, status, tables.train_cost, tickets, trains_left=view.trains[view.player])


def _ticket_of_route(tables: BoardTables, plan: Plan, route: int) -> int:
    """The pending ticket worth most whose planned path runs over ``route`` (-1 if none)."""
    on = [t for t in plan.pending if route in plan.ticket_routes.get(t, ())]
    return max(on, key=lambda t: tables.ticket_points[t], default=-1)


def _blocked_player(view: PlayerView, route: int) -> tuple[int, int]:
    """(opponent, ticket): the opponent whose likeliest ticket (the one explaining most of its
    claims, at least two) runs over ``route`` on its cheapest path; (-1, -1) if none."""
    tables = board_tables(view.board)
    inference = TicketInference()
    for other in range(view.num_players):
        if other == view.player:
            continue
        explains, claims = inference.explanations(view, other)
        if claims < 2 or not explains:
            continue
        best = max(explains, key=lambda t: (len(explains[t]), tables.ticket_points[t]))
        if len(explains[best]) < 2:
            continue
        cost = costs_for(route_status(view, respect_trains=False, player=other), tables.train_cost)
        _, path = shortest_path(tables, cost, tables.ticket_a[best], tables.ticket_b[best])
        if route in path:
            return other, best
    return -1, -1


def _claim_reasons(view: PlayerView, action: Claim, tables: BoardTables, status: Sequence[int]) -> list[Reason]:
    board = view.board
    before = _plan(tables, status, view, view.tickets)
    after_status = list(status)
    after_status[action.route] = OWN
    after = _plan(tables, after_status, view, view.tickets)
    reasons = []
    done = [t for t in after.completed if t not in before.completed]
    if done:
        best = max(done, key=lambda t: tables.ticket_points[t])
        reasons.append(
            Reason("completes_ticket", {"ticket": board.tickets[best].name, "points": tables.ticket_points[best]})
        )
    else:
        ticket = _ticket_of_route(tables, before, action.route)
        if ticket >= 0:
            reasons.append(
                Reason("on_ticket_path", {"ticket": board.tickets[ticket].name, "points": tables.ticket_points[ticket]})
            )
    opponent, guess = _blocked_player(view, action.route)
    if opponent >= 0:
        reasons.append(Reason("blocks", {"player": opponent, "ticket": board.tickets[guess].name}))
    if not reasons:
        route = board.routes[action.route]
        reasons.append(Reason("scores", {"points": route.points, "length": route.length}))
    if view.final_round_trigger >= 0:
        reasons.append(Reason("last_round"))
    return reasons


def _draw_reasons(view: PlayerView, action: DrawFaceUp | DrawBlind, tables: BoardTables, plan: Plan) -> list[Reason]:
    board = view.board
    hand = view.hand
    deficits, _colors = card_deficits(tables, plan.routes, hand)
    needed = {card for deficit in deficits for card in range(NUM_KINDS) if deficit[card] > 0}
    if isinstance(action, DrawFaceUp):
        card = view.display[action.slot]
        if card == LOCOMOTIVE:
            return [Reason("locomotive")]
        for index, route in enumerate(plan.routes):
            if deficits[index][card] > 0:
                ticket = _ticket_of_route(tables, plan, route)
                return [
                    Reason(
                        "collects_for",
                        {
                            "card": CARD_NAMES[card],
                            "route": board.routes[route].name,
                            "ticket": board.tickets[ticket].name if ticket >= 0 else "",
                            "have": hand[card],
                            # the hand is spent route by route: all held cards of this colour
                            # are planned, and the deficits say how many more
                            "need": hand[card] + sum(deficit[card] for deficit in deficits),
                        },
                    )
                ]
    display = [c for c in view.display if c >= 0]
    reasons = [Reason("nothing_fits")] if not any(c in needed or c == LOCOMOTIVE for c in display) else []
    if not any(can_pay(board.routes[r], hand) for r in plan.routes):
        reasons.append(Reason("cannot_pay_yet"))
    elif not reasons:
        reasons.append(Reason("cards_short", {"short": sum(sum(deficit) for deficit in deficits)}))
    return reasons


def explain(view: PlayerView, action: Action) -> Explanation:
    """Why ``action`` is a good move for ``view.player`` in ``view``: its :class:`Explanation`."""
    board = view.board
    tables = board_tables(board)
    status = route_status(view)
    move = _move(view, action)
    reasons: list[Reason]
    if isinstance(action, Claim):
        reasons = _claim_reasons(view, action, tables, status)
    elif isinstance(action, DrawFaceUp | DrawBlind):
        reasons = _draw_reasons(view, action, tables, _plan(tables, status, view, view.tickets))
    elif isinstance(action, DrawTickets):
        plan = _plan(tables, status, view, view.tickets)
        trains = view.trains[view.player]
        if plan.pending:
            reasons = [Reason("trains_to_spare", {"spare": max(0, trains - plan.trains)})]
        else:
            reasons = [Reason("tickets_done", {"trains": trains})]
    elif isinstance(action, KeepTickets):
        plan = _plan(tables, status, view, [*view.tickets, *action.tickets])
        reasons = [Reason("tickets_fit", {"trains": plan.trains, "trains_left": view.trains[view.player]})]
        for t in action.tickets:
            if t in plan.completed:
                reasons.append(Reason("already_connected", {"ticket": board.tickets[t].name}))
    elif isinstance(action, PayTunnelExtra) and view.tunnel is not None:
        ticket = _ticket_of_route(tables, _plan(tables, status, view, view.tickets), view.tunnel.route)
        reasons = [Reason("tunnel_on_path", {"ticket": board.tickets[ticket].name})] if ticket >= 0 else []
        reasons.append(
            Reason(
                "scores",
                {"points": board.routes[view.tunnel.route].points, "length": board.routes[view.tunnel.route].length},
            )
        )
    elif isinstance(action, DeclineTunnel):
        reasons = [Reason("tunnel_too_dear")]
    else:
        reasons = [Reason("nothing_else")]
    return Explanation(move, tuple(reasons))


def cards_words(pairs: Sequence[Sequence[str | int]]) -> str:
    """``[[1, "orange"], [1, "locomotive"]]`` as ``'1 orange card and 1 locomotive'``.

    >>> cards_words([[2, "red"], [1, "green"], [2, "locomotive"]])
    '2 red cards, 1 green card and 2 locomotives'
    """
    words = []
    for count, card in pairs:
        if card == "locomotive":
            words.append(f"{count} locomotive{'s' if count != 1 else ''}")
        else:
            words.append(f"{count} {card} card{'s' if count != 1 else ''}")
    if len(words) <= 1:
        return "".join(words) or "no cards"
    return ", ".join(words[:-1]) + " and " + words[-1]


def _move_text(move: Mapping[str, Param]) -> str:
    kind = move["kind"]
    if kind == "claim":
        shape = f"{move['length']} {move['color']}" + (
            f" {move['type']}" if move.get("type", "regular") != "regular" else ""
        )
        return f"Claim {move['route']} ({shape}) with {cards_words(move['cards'])}"  # type: ignore[arg-type]
    if kind == "face_up":
        return (
            f"Take the face-up {move['card']} card" if move["card"] != "locomotive" else "Take the face-up locomotive"
        )
    if kind == "deck":
        return "Draw from the deck"
    if kind == "tickets":
        return "Draw destination tickets"
    if kind == "keep":
        return "Keep " + ", ".join(move["tickets"])  # type: ignore[arg-type]
    if kind == "tunnel_pay":
        return f"Pay the tunnel's extra {cards_words(move['cards'])}"  # type: ignore[arg-type]
    if kind == "tunnel_decline":
        return "Give up the tunnel"
    return "Pass"


def _count(n: Param, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _reason_text(reason: Reason, names: Sequence[str]) -> str:
    p = reason.params
    code = reason.code
    if code == "completes_ticket":
        return f"completes your ticket {p['ticket']} ({_count(p['points'], 'point')})"
    if code == "on_ticket_path":
        return f"it lies on your way for {p['ticket']}"
    if code == "blocks":
        player = p["player"]
        name = names[player] if isinstance(player, int) and 0 <= player < len(names) else "an opponent"
        return f"blocks {name}, whose claims point to a ticket {p['ticket']}"
    if code == "scores":
        return f"scores {_count(p['points'], 'point')} for {_count(p['length'], 'train')}"
    if code == "last_round":
        return "the last round is on: use your trains while you can"
    if code == "collects_for":
        route = f"{p['route']} for {p['ticket']}" if p["ticket"] else p["route"]
        return f"you have {p['have']} of the {p['need']} {p['card']} cards your planned routes need ({route})"
    if code == "locomotive":
        return "a locomotive pays for any colour"
    if code == "nothing_fits":
        return "no face-up card fits the routes your tickets need"
    if code == "cannot_pay_yet":
        return "you cannot pay for a route that helps a ticket yet"
    if code == "cards_short":
        short = p["short"]
        return f"you are {_count(short, 'card')} short of your planned routes" if short else "more cards, more choice"
    if code == "tickets_done":
        return f"your tickets are connected and you have {_count(p['trains'], 'train')} left for new ones"
    if code == "trains_to_spare":
        return f"your tickets need fewer trains than you have ({p['spare']} to spare)"
    if code == "tickets_fit":
        return (
            f"they fit your network: about {_count(p['trains'], 'train')} for all your tickets,"
            f" and you have {p['trains_left']}"
        )
    if code == "already_connected":
        return f"{p['ticket']} is connected already"
    if code == "tunnel_on_path":
        return f"the tunnel lies on your way for {p['ticket']}"
    if code == "tunnel_too_dear":
        return "the extra cards cost more than the tunnel is worth to you now"
    return "nothing else is possible"


def hint_text(explanation: Explanation, names: Sequence[str] = ()) -> str:
    """The English sentence of an explanation (``names``: the players' names by seat).

    >>> move = {"kind": "claim", "route": "Bergen–Trondheim", "length": 4, "color": "green", "cards": [[4, "green"]]}
    >>> hint_text(Explanation(move, (Reason("completes_ticket", {"ticket": "Bergen–Trondheim", "points": 8}),)))
    'Claim Bergen–Trondheim (4 green) with 4 green cards: completes your ticket Bergen–Trondheim (8 points).'
    """
    reasons = "; ".join(_reason_text(r, names) for r in explanation.reasons)
    return f"{_move_text(explanation.move)}: {reasons}." if reasons else f"{_move_text(explanation.move)}."
