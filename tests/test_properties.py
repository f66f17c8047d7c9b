"""Property-based tests of the rules engine over random legal play (2 and 3 players).

A Hypothesis state machine per player count plays random legal actions, random
claims with arbitrary payments, and illegal variations of legal actions (each
must be refused with ``IllegalActionError`` and change nothing), and checks:

* the 110 train cards are conserved, recounted here from every zone;
* trains and the running score follow from the routes each player owns;
* tickets are partitioned between hands, offers, returns and the ticket deck;
* the listed legal actions are legal, offer exactly the open payable routes,
  are complete for every non-payment action, and agree with an independent
  statement of the payment rules for random claims;
* ``clone`` copies every attribute (random generator included), shares no
  mutable part, and stays equal to the original under the same action;
* the record's JSON replays to the very same state;
* no view leaks hidden information: a view has only the allowed fields, hides
  other players' hands, tickets, offers, blind draws and kept ticket ids, and
  re-dealing everything a viewer cannot see (other hands, tickets, deck order,
  seed, hidden log details) leaves that viewer's view unchanged;
* determinized states hold the full deck, give the viewer the same view (log
  aside) and the same legal actions, and are playable.

The cheap checks (cards, trains, score, tickets, legal actions, clone, record)
run after every action; the view, leak and determinization checks run after
every step of the machine (a step may play many actions). One whole game per
player count runs every check after every action, and 200 uniform random
games must each end within a bound.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from ttr_nordic.engine import (
    GRAY,
    Action,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    GameConfig,
    GameRecord,
    GameState,
    IllegalActionError,
    KeepTickets,
    Pass,
    PayTunnelExtra,
    Phase,
    PlayerView,
    PublicLogEntry,
    Reason,
    RouteKind,
    load_board,
    parse_action,
)
from ttr_nordic.engine.actions import DECLINE_TUNNEL, DRAW_BLIND, DRAW_FACE_UP, DRAW_TICKETS, NUM_SLOTS, PASS
from ttr_nordic.engine.cards import CARD_NAMES, COLORS, LOCOMOTIVE, NUM_KINDS
from ttr_nordic.engine.payments import payment_options

BOARD = load_board()
FULL_DECK = (12, 12, 12, 12, 12, 12, 12, 12, 14)
TRAINS = 40
NUM_TICKETS = len(BOARD.tickets)
# Random games last about 150-300 actions; a game still running after this many is stuck.
MAX_ACTIONS = 1500

# Everything a view may contain. A new field must be checked for leaks before it is added here.
VIEW_FIELDS = {
    "board",
    "variant",  # the rules in force, public (a frozen Variant holding the board)
    "player",
    "num_players",
    "first_player",
    "current",
    "phase",
    "turn",
    "display",
    "deck_count",
    "discard",
    "ticket_deck_count",
    "route_owner",
    "trains",
    "scores",
    "hand_sizes",
    "ticket_counts",
    "offer_counts",
    "known_cards",
    "hand",
    "tickets",
    "offered_tickets",
    "returned_tickets",
    "tunnel",
    "final_turns_left",
    "final_round_trigger",
    "consecutive_passes",
    "log",
    "all_tickets",
    "result",
}
LOG_FIELDS = {"player", "text", "notation", "card", "revealed"}

# Which action types each phase accepts.
ALLOWED: dict[Phase, tuple[type, ...]] = {
    Phase.INITIAL_TICKETS: (KeepTickets,),
    Phase.KEEP_TICKETS: (KeepTickets,),
    Phase.CHOOSE_ACTION: (DrawFaceUp, DrawBlind, DrawTickets, Claim, Pass),
    Phase.SECOND_CARD: (DrawFaceUp, DrawBlind),
    Phase.TUNNEL_EXTRA: (PayTunnelExtra, DeclineTunnel),
    Phase.GAME_OVER: (),
}
# One action of each type, to try in the phases that do not accept it.
PROBES: tuple[Action, ...] = (
    DRAW_FACE_UP[0],
    DRAW_BLIND,
    DRAW_TICKETS,
    KeepTickets((0, 1)),
    Claim(0, (0, 0, 0, 0, 0, 0, 0, 0, 2)),
    PayTunnelExtra((0, 0, 0, 0, 0, 0, 0, 0, 1)),
    DECLINE_TUNNEL,
    PASS,
)


# ---------------------------------------------------------------- helpers


def recount(state: GameState) -> tuple[int, ...]:
    """The card multiset over every zone, counted here rather than by the engine."""
    total = [0] * NUM_KINDS
    assert len(state.discard) == NUM_KINDS
    for kind, count in enumerate(state.discard):
        assert count >= 0
        total[kind] += count
    for card in state.deck:
        assert 0 <= card < NUM_KINDS
        total[card] += 1
    assert len(state.display) == NUM_SLOTS
    for card in state.display:
        if card != -1:
            assert 0 <= card < NUM_KINDS
            total[card] += 1
    for hand in state.hands:
        assert len(hand) == NUM_KINDS
        for kind, count in enumerate(hand):
            assert count >= 0
            total[kind] += count
    if state.tunnel is not None:
        for kind, count in enumerate(state.tunnel.base):
            total[kind] += count
        for card in state.tunnel.revealed:
            total[card] += 1
    return tuple(total)


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        if value and isinstance(value[0], list):
            return tuple(_freeze(v) for v in value)
        return tuple(value)
    if isinstance(value, random.Random):
        return value.getstate()
    return value


# Derived caches kept on a state (described log lines per viewer, claim candidates per hand):
# not part of the game, so left out of state equality; clone independence still covers them.
CACHES = {"described_log", "_candidates"}


def snapshot(state: GameState) -> dict[str, Any]:
    """Every attribute of ``state``, hidden ones and the generator's state included, as plain values."""
    return {
        name: id(value) if name == "board" else _freeze(value)
        for name, value in vars(state).items()
        if name not in CACHES
    }


def assert_same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a.keys() == b.keys()
    differ = [name for name in a if a[name] != b[name]]
    assert not differ, f"states differ in {differ}"


def _lists_in(value: Any) -> Iterable[list[Any]]:
    if isinstance(value, list):
        yield value
        if value and isinstance(value[0], list):
            for item in value:
                yield from _lists_in(item)
    elif isinstance(value, dict):
        for key in sorted(value, key=repr):
            yield from _lists_in(value[key])


def view_diff(a: PlayerView, b: PlayerView, skip: Iterable[str] = ()) -> list[str]:
    """The names of the view fields that differ (``skip`` excepted)."""
    skipped = set(skip)
    return [
        f.name
        for f in dataclasses.fields(PlayerView)
        if f.name not in skipped and getattr(a, f.name) != getattr(b, f.name)
    ]


def assert_immutable(value: Any, where: str) -> None:
    """No list, dict or set anywhere: a view must not alias the state's mutable parts."""
    assert not isinstance(value, (list, dict, set, bytearray)), f"{where} is mutable: {type(value).__name__}"
    if isinstance(value, tuple):
        for index, item in enumerate(value):
            if not isinstance(item, int):
                assert_immutable(item, f"{where}[{index}]")


def owned(state: GameState, player: int) -> list[int]:
    return [rid for rid, owner in enumerate(state.route_owner) if owner == player]


def payment_fits(route_id: int, payment: Sequence[int]) -> bool:
    """An independent statement of the payment rules, by enumerating payment structures.

    Regular: ``length`` cards of one color (the route's, or any for gray), no locomotive.
    Tunnel base: ``length`` cards of one such color and/or locomotives.
    Ferry: each space is paid by a color card, a locomotive, or any 3 cards; at least
    ``ferry_locomotives`` spaces are not paid by color cards.
    Murmansk–Lieksa: each space is paid by a card of the one chosen color or by any 4 cards.
    """
    route = BOARD.routes[route_id]
    n = route.length
    total = sum(payment)
    colors = COLORS if route.color == GRAY else (route.color,)
    used_colors = [c for c in COLORS if payment[c]]
    if route.kind is RouteKind.REGULAR:
        return total == n and not payment[LOCOMOTIVE] and len(used_colors) == 1 and used_colors[0] in colors
    if route.kind is RouteKind.TUNNEL:
        return total == n and len(used_colors) <= 1 and all(c in colors for c in used_colors)
    # Only colors in the payment can pay color spaces; with no color card, any one color stands for all.
    colors = tuple(c for c in colors if payment[c]) or colors[:1]
    if route.kind is RouteKind.FERRY:
        for color in colors:
            for groups in range(n + 1):
                for color_cards in range(n - groups + 1):
                    locos = n - groups - color_cards
                    if (
                        color_cards <= n - route.ferry_locomotives
                        and payment[color] >= color_cards
                        and payment[LOCOMOTIVE] >= locos
                        and total == color_cards + locos + 3 * groups
                    ):
                        return True
        return False
    for color in colors:
        for groups in range(n + 1):
            if payment[color] >= n - groups and total == n - groups + 4 * groups:
                return True
    return False


def route_open(state: GameState, rid: int) -> bool:
    """Whether the current player may claim route ``rid`` (cards aside), by the rules:
    unowned, enough trains, and not the second lane of a double route that the player
    already uses, or that anyone uses in a 2-player game."""
    p = state.current
    if not 0 <= rid < len(BOARD.routes) or state.route_owner[rid] != -1:
        return False
    route = BOARD.routes[rid]
    if route.twin is not None:
        twin_owner = state.route_owner[route.twin]
        if twin_owner == p or (twin_owner != -1 and state.num_players == 2):
            return False
    return state.trains[p] >= route.length


def claim_is_legal(state: GameState, claim: Claim) -> bool:
    """Whether ``claim`` is legal now, by the rules, without asking the engine."""
    if state.phase is not Phase.CHOOSE_ACTION or not route_open(state, claim.route):
        return False
    p = state.current
    payment = claim.payment
    if len(payment) != NUM_KINDS or any(c < 0 or c > h for c, h in zip(payment, state.hands[p], strict=True)):
        return False
    return payment_fits(claim.route, payment)


def non_payment_actions(state: GameState) -> list[Action]:
    """Every action without a card payment that could make sense now (legal or not)."""
    out: list[Action] = [*DRAW_FACE_UP, DRAW_BLIND, DRAW_TICKETS, DECLINE_TUNNEL, PASS]
    offer = state.offers[state.current] if not state.is_over else []
    subsets: list[tuple[int, ...]] = [()]
    for ticket in offer:
        subsets += [(*s, ticket) for s in subsets]
    out.extend(KeepTickets(s) for s in subsets)
    stranger = next(t for t in range(NUM_TICKETS) if t not in offer)
    out.append(KeepTickets((*offer, stranger)))
    return out


def random_claim(state: GameState, rng: random.Random, *, aim_legal: bool) -> Claim:
    """A claim with a random payment from the current hand; with ``aim_legal``, up to 40
    tries for one the rules accept, on a route the listed actions often point to."""
    p = state.current
    hand = state.hands[p]
    free = [rid for rid, owner in enumerate(state.route_owner) if owner == -1] or [0]
    hinted = [a.route for a in state.legal_action_list() if isinstance(a, Claim)]
    claim = Claim(0, (0, 0, 0, 0, 0, 0, 0, 0, 0))
    for _ in range(40 if aim_legal else 1):
        rid = rng.choice(hinted if hinted and aim_legal and rng.random() < 0.7 else free)
        route = BOARD.routes[rid]
        held = [c for c in COLORS if hand[c]] or list(COLORS)
        main = route.color if route.color != GRAY else rng.choice(held)
        payment = [0] * NUM_KINDS
        payment[main] = rng.randint(0, min(hand[main], route.length + 1))
        payment[LOCOMOTIVE] = rng.randint(0, min(hand[LOCOMOTIVE], route.length))
        rest = [c for c in range(NUM_KINDS) for _ in range(hand[c] - payment[c])]
        for card in rng.sample(rest, min(len(rest), rng.choice((0, 0, 0, 1, 2, 3, 4, 6, 8)))):
            payment[card] += 1
        claim = Claim(rid, (*payment,))
        if claim_is_legal(state, claim):
            break
    return claim


def illegal_candidates(state: GameState, base: Action | None) -> list[tuple[Any, int | None]]:
    """Actions that are certainly illegal now, with the player who tries them (None: the current one).

    ``base`` is a legal action that some of them are built from.
    """
    if state.is_over:
        return [(a, None) for a in PROBES] + [(a, 0) for a in PROBES]
    assert base is not None
    p = state.current
    n = state.num_players
    phase = state.phase
    out: list[tuple[Any, int | None]] = [(base, (p + 1) % n), ("B", None)]
    out += [(a, None) for a in PROBES if not isinstance(a, ALLOWED[phase])]
    if isinstance(base, Claim):
        pay = list(base.payment)
        for kind in range(NUM_KINDS):  # one card more or less never fits: totals are n, n+2g or n+3g
            more = pay.copy()
            more[kind] += 1
            out.append((Claim(base.route, (*more,)), None))
            if pay[kind]:
                less = pay.copy()
                less[kind] -= 1
                out.append((Claim(base.route, (*less,)), None))
        out.append((Claim(base.route, base.payment[:8]), None))
        out.append((Claim(len(BOARD.routes), base.payment), None))
        out.append((Claim(-1, base.payment), None))
    if phase is Phase.CHOOSE_ACTION:
        # Payable routes that are closed: owned, the other lane of a used double route, too long.
        closed = [rid for rid in range(len(BOARD.routes)) if not route_open(state, rid)]
        for rid in closed:
            options = payment_options(BOARD.routes[rid], state.hands[p])
            if options:
                out.append((Claim(rid, options[0]), None))
    if isinstance(base, PayTunnelExtra):
        tunnel = state.tunnel
        assert tunnel is not None
        pay = list(base.cards)
        more = pay.copy()
        more[LOCOMOTIVE] += 1
        out.append((PayTunnelExtra((*more,)), None))
        for kind in range(NUM_KINDS):
            if pay[kind]:
                less = pay.copy()
                less[kind] -= 1
                out.append((PayTunnelExtra((*less,)), None))
                wrong = next(c for c in COLORS if c != tunnel.color)
                swapped = less.copy()
                swapped[wrong] += 1
                out.append((PayTunnelExtra((*swapped,)), None))
    if isinstance(base, KeepTickets):
        offer = state.offers[p]
        stranger = next(t for t in range(NUM_TICKETS) if t not in offer)
        out.append((KeepTickets((*base.tickets, stranger)), None))
        out.append((KeepTickets((*base.tickets, base.tickets[0])), None))
        out.append((KeepTickets(()), None))
        if phase is Phase.INITIAL_TICKETS:
            out.append((KeepTickets(base.tickets[:1]), None))
        if state.tickets[p]:
            out.append((KeepTickets((state.tickets[p][0],)), None))
    if phase in (Phase.CHOOSE_ACTION, Phase.SECOND_CARD):
        out += [(DrawFaceUp(NUM_SLOTS), None), (DrawFaceUp(-1), None)]
        out += [(DRAW_FACE_UP[s], None) for s in range(NUM_SLOTS) if state.display[s] == -1]
        if not state.deck and not any(state.discard):
            out.append((DRAW_BLIND, None))
    if phase is Phase.CHOOSE_ACTION:
        if not state.ticket_deck:
            out.append((DRAW_TICKETS, None))
        if PASS not in state.legal_action_list():
            out.append((PASS, None))
    return out


def check_refused(state: GameState, action: Any, player: int | None) -> Reason:
    """``action`` is refused with IllegalActionError, and the state does not change at all."""
    before = snapshot(state)
    reason = state.rejection(action, player)
    assert isinstance(reason, Reason), f"{action!r} by {player} is not refused"
    assert not state.is_legal(action, player)
    with pytest.raises(IllegalActionError) as refused:
        state.apply(action, player)
    assert refused.value.reason is reason
    assert_same(snapshot(state), before)
    return reason


# ------------------------------------------------------------- invariants


def check_state(state: GameState, *, complete_tickets: bool = True, actions: bool = True) -> None:
    """The invariants of every state: cards, trains, score, tickets, phase, legal actions."""
    n = state.num_players
    assert state.card_total() == FULL_DECK
    assert recount(state) == FULL_DECK
    for p in range(n):
        routes = owned(state, p)
        assert state.trains[p] == TRAINS - sum(BOARD.routes[r].length for r in routes) >= 0
        assert state.scores[p] == sum(BOARD.routes[r].points for r in routes)
        assert all(0 <= k <= h for k, h in zip(state.known[p], state.hands[p], strict=True)), "known > hand"
    for rid, owner in enumerate(state.route_owner):
        twin = BOARD.routes[rid].twin
        if owner != -1 and twin is not None:
            assert state.route_owner[twin] != owner, "a player owns both lanes of a double route"
            if n == 2:
                assert state.route_owner[twin] == -1, "both lanes of a double route used with 2 players"
    # Tickets: each one in exactly one place (a determinized state drops others' returned tickets).
    places = [*state.tickets, *state.returned_tickets, *state.offers, state.ticket_deck]
    every = [t for place in places for t in place]
    assert len(every) == len(set(every)), "a ticket is in two places"
    assert set(every) <= set(range(NUM_TICKETS))
    if complete_tickets:
        assert len(every) == NUM_TICKETS
    # Phase bookkeeping.
    phase = state.phase
    assert (state.tunnel is not None) == (phase is Phase.TUNNEL_EXTRA)
    assert (state.final_turns_left >= 0) == (state.final_round_trigger >= 0)
    for q in range(n):
        if phase is Phase.KEEP_TICKETS and q == state.current:
            assert state.offers[q]
        elif phase is not Phase.INITIAL_TICKETS:
            assert not state.offers[q], "tickets left on offer outside a ticket decision"
    if -1 in state.display:
        assert not state.deck and not any(state.discard), "an empty face-up slot while cards remain"
    assert state.decision == ((-1, Phase.GAME_OVER) if state.is_over else (state.current, phase))
    assert state.deck_count == len(state.deck) and state.discard_count == sum(state.discard)
    assert state.available_cards() == len(state.deck) + sum(state.discard) + NUM_SLOTS - state.display.count(-1)
    if not actions:
        return
    # Legal actions: listed ones are legal; every other non-payment action is refused.
    legal = state.legal_action_list()
    lazy = state.legal_actions()
    assert len(lazy) == len(legal) and list(lazy) == legal and all(a in lazy for a in legal[:3])
    assert len(legal) == len(set(legal)), "an action listed twice"
    assert bool(legal) != state.is_over
    for action in legal:
        reason = state.rejection(action)
        assert reason is None, f"listed {action.notation()} is refused: {reason}"
        assert isinstance(action, ALLOWED[phase])
        if isinstance(action, Claim):
            assert claim_is_legal(state, action), f"listed {action.notation()} breaks the payment rules"
    listed = set(legal)
    if phase is Phase.CHOOSE_ACTION:
        hand = state.hands[state.current]
        payable = {
            rid
            for rid in range(len(BOARD.routes))
            if route_open(state, rid) and payment_options(BOARD.routes[rid], hand)
        }
        assert {a.route for a in legal if isinstance(a, Claim)} == payable, "listed routes differ from open ones"
    for action in non_payment_actions(state):
        assert state.is_legal(action) == (action in listed), action
    if phase is Phase.TUNNEL_EXTRA:
        tunnel = state.tunnel
        assert tunnel is not None
        hand = state.hands[state.current]
        kinds = (LOCOMOTIVE,) if tunnel.locomotive_only else (tunnel.color, LOCOMOTIVE)
        for extra in range(tunnel.needed + 1):
            cards = [0] * NUM_KINDS
            cards[kinds[-1]] = extra
            cards[kinds[0]] += tunnel.needed - extra
            action = PayTunnelExtra((*cards,))
            payable = all(c <= h for c, h in zip(cards, hand, strict=True))
            assert (action in listed) == payable == state.is_legal(action), action.notation()


def check_view(state: GameState, viewer: int) -> PlayerView:
    """``viewer``'s view shows exactly what it may see, and nothing aliases the state."""
    view = state.view(viewer)
    names = {f.name for f in dataclasses.fields(view)}
    assert names == VIEW_FIELDS, f"view fields changed: {names ^ VIEW_FIELDS}"
    assert set(vars(view)) == VIEW_FIELDS
    assert [f.name for f in dataclasses.fields(PublicLogEntry)] == ["player", "text", "notation", "card", "revealed"]
    assert sorted(name for name in names if "deck" in name) == ["deck_count", "ticket_deck_count"]
    for name in VIEW_FIELDS - {"board"}:
        assert_immutable(getattr(view, name), name)
    over = state.is_over
    n = state.num_players
    assert view.player == viewer and view.num_players == n
    assert view.deck_count == len(state.deck)
    assert view.hand == tuple(state.hands[viewer])
    assert view.known_cards[viewer] == view.hand
    assert view.hand_sizes == tuple(sum(h) for h in state.hands)
    for q in range(n):
        if q != viewer:
            assert view.known_cards[q] == tuple(state.known[q])
            assert all(k <= h for k, h in zip(view.known_cards[q], state.hands[q], strict=True))
    assert view.tickets == tuple(state.tickets[viewer])
    assert view.offered_tickets == tuple(state.offers[viewer])
    assert view.returned_tickets == tuple(state.returned_tickets[viewer])
    assert view.ticket_counts == tuple(len(t) for t in state.tickets)
    assert view.offer_counts == tuple(len(o) for o in state.offers)
    assert view.ticket_deck_count == len(state.ticket_deck)
    if over:
        assert view.all_tickets == tuple(tuple(t) for t in state.tickets)
        assert view.result is not None and view.result == state.result()
    else:
        assert view.all_tickets is None and view.result is None
    assert len(view.log) == len(state.log)
    for seen, entry in zip(view.log, state.log, strict=True):
        assert seen.player == entry.player
        assert seen.revealed == entry.revealed
        hidden = entry.player != viewer and not over
        if hidden and isinstance(entry.action, DrawBlind):
            assert seen.card == -1 and seen.notation is None
            assert not any(name in seen.text for name in CARD_NAMES), seen.text
        elif hidden and isinstance(entry.action, KeepTickets):
            assert seen.notation is None
            assert not any(BOARD.tickets[t].name in seen.text for t in entry.action.tickets), seen.text
        else:
            assert seen.notation == entry.action.notation()
            assert seen.card == entry.card
    return view


def resample_hidden(state: GameState, viewer: int, rng: random.Random) -> GameState:
    """A copy of ``state`` in which everything ``viewer`` cannot see is dealt anew."""
    other = state.clone()
    n = state.num_players
    others = [q for q in range(n) if q != viewer]
    # Train cards: the draw pile and the part of other hands nobody saw.
    pool = list(other.deck)
    sizes = {}
    for q in others:
        hand, known = other.hands[q], other.known[q]
        sizes[q] = sum(hand) - sum(known)
        for kind in range(NUM_KINDS):
            pool += [kind] * (hand[kind] - known[kind])
        other.hands[q] = list(known)
    rng.shuffle(pool)
    for q in others:
        for _ in range(sizes[q]):
            other.hands[q][pool.pop()] += 1
    other.deck = pool
    other.described_log = {}  # the views' cache of log lines: this state must describe its own log
    other.config = GameConfig(n, rng.getrandbits(62), state.config.first_player)
    other.rng = random.Random(rng.getrandbits(62))
    if state.is_over:  # tickets and the log are public now
        return other
    # Tickets: others' kept, offered and returned tickets and the ticket deck.
    tickets = list(other.ticket_deck)
    for q in others:
        tickets += other.tickets[q] + other.offers[q] + other.returned_tickets[q]
    rng.shuffle(tickets)

    def deal(count: int) -> list[int]:
        return [tickets.pop() for _ in range(count)]

    for q in others:
        other.tickets[q] = deal(len(other.tickets[q]))
        other.offers[q] = sorted(deal(len(other.offers[q])))
        other.returned_tickets[q] = deal(len(other.returned_tickets[q]))
    other.ticket_deck = deal(len(other.ticket_deck))
    # The log: others' blind-draw cards and kept ticket ids.
    log = []
    for entry in other.log:
        if entry.player != viewer:
            if isinstance(entry.action, DrawBlind):
                entry = dataclasses.replace(entry, card=rng.randrange(NUM_KINDS))
            elif isinstance(entry.action, KeepTickets):
                ids = tuple(sorted(rng.sample(range(NUM_TICKETS), len(entry.action.tickets))))
                entry = dataclasses.replace(entry, action=KeepTickets(ids))
        log.append(entry)
    other.log = log
    return other


def check_no_leak(state: GameState, view: PlayerView, rng: random.Random) -> None:
    """Re-dealing what ``view.player`` cannot see leaves that player's view unchanged."""
    other = resample_hidden(state, view.player, rng)
    assert other.card_total() == FULL_DECK
    assert view_diff(other.view(view.player), view) == []


def check_determinize(state: GameState, view: PlayerView, rng: random.Random) -> None:
    """A determinized state is full, consistent with the view, and playable."""
    viewer = view.player
    sample = view.determinize(random.Random(rng.getrandbits(62)))
    assert sample.determinized
    assert sample.card_total() == FULL_DECK
    check_state(sample, complete_tickets=False, actions=False)
    seen = sample.view(viewer)
    assert seen.log == ()
    assert view_diff(seen, view, skip=("log",)) == []
    assert sample.hands[viewer] == state.hands[viewer]
    assert sample.tickets[viewer] == state.tickets[viewer]
    assert sample.offers[viewer] == state.offers[viewer]
    if viewer == state.current and not state.is_over:
        assert sample.legal_action_list() == state.legal_action_list()
    # A second sample differs only in hidden information: the same view again.
    again = view.determinize(random.Random(rng.getrandbits(62)))
    assert view_diff(again.view(viewer), seen) == []
    with pytest.raises(ValueError):
        sample.record()
    if not sample.is_over:
        sample.apply(rng.choice(sample.legal_action_list()))
        assert sample.card_total() == FULL_DECK
        assert recount(sample) == FULL_DECK


# ---------------------------------------------------------- state machine

SEEDS = st.integers(0, 2**32 - 1)


class _EngineMachine(RuleBasedStateMachine):
    """Random play: cheap invariants after every action, views and determinization after every step."""

    players = 2

    def __init__(self) -> None:
        super().__init__()
        self.state: GameState
        self.replayed: GameState  # the record replayed action by action
        self.recorded: tuple[str, ...] = ()  # the actions replayed so far
        self.check_rng = random.Random(0)

    @initialize(seed=st.integers(0, 2**32 - 1), data=st.data())
    def start(self, seed: int, data: st.DataObject) -> None:
        first = data.draw(st.none() | st.integers(0, self.players - 1), label="first_player")
        self.new_game(seed, first)

    def new_game(self, seed: int, first: int | None) -> None:
        self.state = GameState.new(players=self.players, seed=seed, first_player=first)
        record = GameRecord.from_json(self.state.record().to_json())
        assert record.actions == ()
        self.recorded = record.actions
        self.replayed = record.replay()
        self.check_rng = random.Random(seed)
        check_state(self.state)

    # -- applying actions

    def play(self, action: Action, *, checked: bool) -> None:
        """Apply ``action`` to a clone and to the state; check the clone's copy and independence."""
        state = self.state
        before = snapshot(state)
        copy = state.clone()
        assert_same(snapshot(copy), before)
        assert vars(copy).keys() == vars(state).keys()
        assert copy.described_log == state.described_log
        for name, value in vars(state).items():
            if name == "_candidates":  # shared on purpose by every game on the board
                continue
            copied = getattr(copy, name)
            if isinstance(value, (list, dict, random.Random)):
                assert copied is not value, f"clone shares {name}"
            for original, clone_part in zip(_lists_in(value), _lists_in(copied), strict=True):
                assert original is not clone_part, f"clone shares part of {name}"
        copy.apply(action)  # checked on the copy, so the original must not change
        assert_same(snapshot(state), before)
        if checked:
            state.apply(action)
        else:
            state.apply_unchecked(action)
        assert_same(snapshot(state), snapshot(copy))
        self.follow_record()

    def follow_record(self) -> None:
        """The record's JSON, replayed step by step with checking, reproduces the state exactly."""
        state = self.state
        record = GameRecord.from_json(state.record().to_json())
        assert record.config == state.config
        done = len(self.recorded)
        assert record.actions[:done] == self.recorded
        for text in record.actions[done:]:
            self.replayed.apply(parse_action(text))
        self.recorded = record.actions
        assert_same(snapshot(self.replayed), snapshot(state))

    def full_replay(self) -> None:
        state = self.state
        replayed = GameRecord.from_json(state.record().to_json()).replay()
        assert replayed.history == state.history
        assert replayed.deck == state.deck
        assert replayed.hands == state.hands
        assert replayed.scores == state.scores
        assert replayed.route_owner == state.route_owner
        assert replayed.phase is state.phase
        assert_same(snapshot(replayed), snapshot(state))

    # -- rules

    def restart_if_over(self, seed: int) -> bool:
        """After a game ends (and its record replays in full), the machine plays a new one."""
        if not self.state.is_over:
            return False
        event("a game was played to the end")
        self.full_replay()
        self.new_game(seed, None)
        return True

    @rule(data=st.data())
    def legal_action(self, data: st.DataObject) -> None:
        """Any listed legal action, applied with or without checking."""
        if self.restart_if_over(data.draw(SEEDS, label="seed")):
            return
        action = data.draw(st.sampled_from(self.state.legal_action_list()), label="action")
        self.play(action, checked=data.draw(st.booleans(), label="checked"))
        event(f"phase after an action: {self.state.phase.name}")

    @rule(count=st.integers(1, 60), seed=SEEDS)
    def random_actions(self, count: int, seed: int) -> None:
        """Several uniform random legal actions (cheap invariants after each, all after the last)."""
        if self.restart_if_over(seed):
            return
        rng = random.Random(seed)
        for _ in range(count):
            if self.state.is_over:
                break
            self.play(rng.choice(self.state.legal_action_list()), checked=False)
            check_state(self.state)

    @rule(seed=SEEDS, aim=st.booleans())
    def arbitrary_claim(self, seed: int, aim: bool) -> None:
        """A claim with an arbitrary payment: the engine agrees with the rules checker, and the
        listed actions offer the route (the exact payment for regular routes and tunnels)."""
        state = self.state
        claim = random_claim(state, random.Random(seed), aim_legal=aim)
        legal = claim_is_legal(state, claim)
        kind = BOARD.routes[claim.route].kind
        event(f"arbitrary claim on a {kind.name} route: {'legal' if legal else 'illegal'}")
        assert state.is_legal(claim) == legal, f"{claim.notation()}: engine says {not legal}, rules say {legal}"
        if not legal:
            before = snapshot(state)
            with pytest.raises(IllegalActionError):
                state.apply(claim)
            assert_same(snapshot(state), before)
            return
        listed = [a for a in state.legal_action_list() if isinstance(a, Claim) and a.route == claim.route]
        if kind in (RouteKind.REGULAR, RouteKind.TUNNEL):
            assert claim in listed
        else:
            assert sum(claim.payment) in {sum(a.payment) for a in listed}, "a payment structure is not listed"
        self.play(claim, checked=True)

    @rule(data=st.data())
    def illegal_action(self, data: st.DataObject) -> None:
        """Illegal actions (variations of a legal one, and others) are refused with
        IllegalActionError and change nothing."""
        state = self.state
        legal = state.legal_action_list()
        base = data.draw(st.sampled_from(legal), label="base") if legal else None
        for action, player in illegal_candidates(state, base):
            reason = check_refused(state, action, player)
            event(f"illegal action refused: {reason.name}")

    # -- invariants

    @invariant()
    def everything_holds(self) -> None:
        state = self.state
        check_state(state)
        rng = self.check_rng
        for viewer in range(state.num_players):
            view = check_view(state, viewer)
            check_no_leak(state, view, rng)
            check_determinize(state, view, rng)
        if state.is_over:
            self.full_replay()

    def teardown(self) -> None:
        if hasattr(self, "state"):
            self.full_replay()


MACHINE_SETTINGS = settings(
    max_examples=20,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


class TwoPlayerMachine(_EngineMachine):
    players = 2


class ThreePlayerMachine(_EngineMachine):
    players = 3


TestTwoPlayerPlay = TwoPlayerMachine.TestCase
TestTwoPlayerPlay.settings = MACHINE_SETTINGS
TestThreePlayerPlay = ThreePlayerMachine.TestCase
TestThreePlayerPlay.settings = MACHINE_SETTINGS


# ---------------------------------------------------------- complete games


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("first_seed", [0, 10_000, 20_000, 30_000])
def test_random_games_end(players: int, first_seed: int) -> None:
    """Uniform random games (25 per case, 200 in all) end, by the final round or by passing."""
    lengths = []
    for seed in range(first_seed, first_seed + 25):
        state = GameState.new(players=players, seed=seed)
        rng = random.Random(seed)
        trigger_turn = -1
        actions = 0
        while not state.is_over:
            assert actions < MAX_ACTIONS, f"seed {seed}: still running after {MAX_ACTIONS} actions"
            state.apply(rng.choice(state.legal_action_list()))
            actions += 1
            if trigger_turn < 0 and state.final_round_trigger >= 0:
                trigger_turn = state.turn
        lengths.append(actions)
        assert state.card_total() == FULL_DECK
        assert state.legal_action_list() == []
        if state.consecutive_passes < players:
            # R: the final round gives every player, the trigger included, one more turn.
            assert min(state.trains) <= 2 and trigger_turn >= 0
            assert state.trains[state.final_round_trigger] <= 2
            assert state.turn == trigger_turn + players
        result = state.result()
        assert len(result.players) == players and result.winners
        assert Counter(type(a).__name__ for a in state.history)["KeepTickets"] >= players
    assert max(lengths) < MAX_ACTIONS


@pytest.mark.parametrize(("players", "seed"), [(2, 101), (3, 202)])
def test_full_game_every_invariant_after_every_action(players: int, seed: int) -> None:
    """One whole random game per player count with every check of the state machine (views,
    leaks, determinization, clone, record) after every single action, and every illegal
    variation of the chosen action refused."""
    machine = TwoPlayerMachine() if players == 2 else ThreePlayerMachine()
    machine.new_game(seed, None)
    rng = random.Random(seed)
    machine.everything_holds()
    while not machine.state.is_over:
        assert len(machine.state.history) < MAX_ACTIONS
        action = rng.choice(machine.state.legal_action_list())
        for illegal, player in illegal_candidates(machine.state, action):
            check_refused(machine.state, illegal, player)
        machine.play(action, checked=False)
        machine.everything_holds()
    for illegal, player in illegal_candidates(machine.state, None):
        check_refused(machine.state, illegal, player)
    machine.full_replay()
