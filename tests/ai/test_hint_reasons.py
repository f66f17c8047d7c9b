"""A hint's reasons, each on a constructed position: what the move does for the player's tickets,
which card it collects for which route, whom it blocks, and the plain words of payments."""

from __future__ import annotations

import pytest

from ttr_nordic.ai.hints import REASONS, Explanation, Reason, cards_words, explain, hint_text
from ttr_nordic.ai.planning import board_tables, plan_tickets, route_status
from ttr_nordic.engine import Claim, DeclineTunnel, GameState, KeepTickets, PayTunnelExtra, parse_action
from ttr_nordic.engine.cards import CARD_NAMES, LOCOMOTIVE, parse_cards
from ttr_nordic.engine.core import TunnelAttempt

NAMES = ["You", "Computer 2"]


def main_phase(seed: int = 4) -> GameState:
    """A two-player game after the opening ticket choices, seat 0 to move, with one ticket:
    Oslo–Helsinki (no other tickets, no cards)."""
    game = GameState.new(players=2, seed=seed, first_player=0)
    while game.decision.phase.name == "INITIAL_TICKETS":
        game.apply(game.legal_action_list()[-1])
    assert game.decision.player == 0
    game.tickets = [[game.board.ticket_between("Oslo", "Helsinki").id], list(game.tickets[1])]
    game.hands[0] = [0] * 9
    return game


def planned_routes(game: GameState) -> list[int]:
    view = game.view(0)
    tables = board_tables(game.board)
    return plan_tickets(tables, route_status(view), tables.train_cost, view.tickets, view.trains[0]).routes


def codes(game: GameState, action: object) -> list[str]:
    why = explain(game.view(0), action)  # type: ignore[arg-type]
    assert all(r.code in REASONS and set(r.params) == set(REASONS[r.code]) for r in why.reasons)
    return [r.code for r in why.reasons]


def paying(game: GameState, route: int) -> Claim:
    """Give seat 0 exactly the cards for ``route`` and return the claim paying with them."""
    r = game.board.routes[route]
    color = r.color if r.color < LOCOMOTIVE else 0
    hand = [0] * 9
    hand[color] = r.length - r.ferry_locomotives
    hand[LOCOMOTIVE] = r.ferry_locomotives
    game.hands[0] = hand
    return Claim(route, tuple(hand))  # type: ignore[arg-type]


def test_a_claim_that_completes_a_ticket_says_which() -> None:
    game = main_phase()
    route, *rest = planned_routes(game)
    for other in rest:
        game.route_owner[other] = 0
    why = explain(game.view(0), paying(game, route))
    assert why.reasons[0] == Reason("completes_ticket", {"ticket": "Oslo–Helsinki", "points": 8})
    assert hint_text(why, NAMES).endswith(": completes your ticket Oslo–Helsinki (8 points).")


def test_a_claim_on_the_way_of_a_ticket_names_it() -> None:
    game = main_phase()
    route = planned_routes(game)[0]
    assert codes(game, paying(game, route)) == ["on_ticket_path"]


def test_a_claim_off_every_ticket_says_what_it_scores_and_the_last_round() -> None:
    game = main_phase()
    planned = set(planned_routes(game))
    route = next(r.id for r in game.board.routes if r.id not in planned and r.length == 4 and r.kind.value == "regular")
    assert codes(game, paying(game, route)) == ["scores"]
    game.final_round_trigger = 1
    why = explain(game.view(0), paying(game, route))
    assert [r.code for r in why.reasons] == ["scores", "last_round"]
    assert "scores 7 points for 4 trains; the last round is on" in hint_text(why, NAMES)


def test_a_claim_on_the_way_the_opponents_claims_point_to_blocks_them() -> None:
    game = main_phase(seed=6)
    board = game.board
    # Seat 1 claims the first routes of its way from København to Murmansk (in the log: that is
    # what the inference reads); seat 0 draws in between.
    tables = board_tables(board)
    plan = plan_tickets(
        tables, route_status(game.view(1)), tables.train_cost, [board.ticket_between("København", "Murmansk").id]
    )
    way = plan.routes
    assert len(way) >= 4
    for route in way[:3]:
        game.hands[1] = [12] * 8 + [4]
        while game.decision.player == 0:
            game.apply(parse_action("B"))
        claim = next(a for a in game.legal_action_list() if isinstance(a, Claim) and a.route == route)
        game.apply(claim)
    while game.decision.player == 1:
        game.apply(parse_action("B"))
    view = game.view(0)
    blocker = next(r for r in way[3:] if view.route_owner[r] < 0)
    why = explain(view, paying(game, blocker))
    blocks = [r for r in why.reasons if r.code == "blocks"]
    assert blocks and blocks[0].params["player"] == 1
    assert "blocks Computer 2, whose claims point to a ticket " in hint_text(why, NAMES)


def test_a_face_up_card_collects_for_a_planned_route() -> None:
    game = main_phase()
    first = game.board.routes[planned_routes(game)[0]]
    color = first.color if first.color < LOCOMOTIVE else 0
    game.hands[0][color] = 1
    game.display = [color, LOCOMOTIVE, LOCOMOTIVE, LOCOMOTIVE, LOCOMOTIVE]
    why = explain(game.view(0), parse_action("F1"))
    (reason,) = why.reasons
    assert reason.code == "collects_for" and reason.params["card"] == CARD_NAMES[color] and reason.params["have"] == 1
    assert reason.params["ticket"] == "Oslo–Helsinki" and reason.params["need"] > 1
    assert f"you have 1 of the {reason.params['need']} " in hint_text(why, NAMES)
    assert codes(game, parse_action("F2")) == ["locomotive"]


def test_a_deck_draw_says_nothing_fits_and_nothing_can_be_paid() -> None:
    game = main_phase()
    needed = {game.board.routes[r].color for r in planned_routes(game)}
    spare = [c for c in range(8) if c not in needed]
    game.display = [spare[0]] * 5
    why = explain(game.view(0), parse_action("B"))
    assert [r.code for r in why.reasons] == ["nothing_fits", "cannot_pay_yet"]
    assert hint_text(why, NAMES) == (
        "Draw from the deck: no face-up card fits the routes your tickets need;"
        " you cannot pay for a route that helps a ticket yet."
    )
    # With the cards for a planned route in hand and a fitting card shown: how many cards short.
    routes = planned_routes(game)
    paying(game, routes[0])
    game.display = [game.board.routes[routes[-1]].color] * 5
    assert codes(game, parse_action("B")) == ["cards_short"]


def test_ticket_draws_and_keeps_say_how_the_trains_fit() -> None:
    game = main_phase()
    assert codes(game, parse_action("T")) == ["trains_to_spare"]
    for route in planned_routes(game):
        game.route_owner[route] = 0
    assert codes(game, parse_action("T")) == ["tickets_done"]
    oslo_helsinki = game.board.ticket_between("Oslo", "Helsinki").id
    game.tickets[0] = []
    why = explain(game.view(0), KeepTickets((oslo_helsinki,)))
    assert [r.code for r in why.reasons] == ["tickets_fit", "already_connected"]
    assert why.reasons[0].params["trains"] == 0


def test_tunnel_answers_say_why() -> None:
    game = main_phase()
    tables = board_tables(game.board)
    status = route_status(game.view(0))
    # A ticket whose planned way runs through a tunnel, and that tunnel being tried.
    ticket, tunnel = next(
        (t.id, r)
        for t in game.board.tickets
        for r in plan_tickets(tables, status, tables.train_cost, [t.id], 40).routes
        if game.board.routes[r].kind.value == "tunnel"
    )
    game.tickets[0] = [ticket]
    game.tunnel = TunnelAttempt(tunnel, parse_cards("LL"), (LOCOMOTIVE, 0, 1), 1, -1, True)
    why = explain(game.view(0), PayTunnelExtra(parse_cards("L")))
    assert [r.code for r in why.reasons] == ["tunnel_on_path", "scores"]
    assert why.reasons[0].params["ticket"] == game.board.tickets[ticket].name
    assert hint_text(why, NAMES).startswith("Pay the tunnel's extra 1 locomotive: the tunnel lies on your way for ")
    assert codes(game, DeclineTunnel()) == ["tunnel_too_dear"]


@pytest.mark.parametrize(
    ("pairs", "words"),
    [
        ([[1, "orange"], [1, "locomotive"]], "1 orange card and 1 locomotive"),
        ([[4, "green"]], "4 green cards"),
        ([[2, "red"], [1, "green"], [2, "locomotive"]], "2 red cards, 1 green card and 2 locomotives"),
    ],
)
def test_payments_in_plain_words(pairs: list[list[str | int]], words: str) -> None:
    assert cards_words(pairs) == words


def test_a_claim_hint_reads_as_a_sentence() -> None:
    game = main_phase()
    route = planned_routes(game)[0]
    r = game.board.routes[route]
    text = hint_text(explain(game.view(0), paying(game, route)), NAMES)
    shape = f"{r.length} {r.color_name}" + ("" if r.kind.value == "regular" else f" {r.kind.value}")
    assert text.startswith(f"Claim {r.name} ({shape}) with ")
    assert text.endswith("it lies on your way for Oslo–Helsinki.")
    assert isinstance(explain(game.view(0), paying(game, route)), Explanation)
