"""Per-player views (spec §10) and determinization for search.

A :class:`PlayerView` holds exactly what one player may see: the public
board state, their own hand and tickets, the cards others are publicly known
to hold (taken face up, or shown in a declined tunnel), and a log in which
other players' blind draws and kept tickets are hidden. Every interface and
every agent works from a view.

>>> import random
>>> from ttr_nordic.engine import GameState
>>> game = GameState.new(players=2, seed=5)
>>> view = game.view(0)
>>> view.hand_sizes, view.deck_count
((4, 4), 97)
>>> sample = view.determinize(random.Random(1))
>>> sample.hands[0] == game.hands[0], sample.deck_count
(True, 97)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from .actions import DrawBlind, KeepTickets
from .board import Board
from .cards import CARD_NAMES, FULL_DECK_COUNTS, NUM_KINDS, Counts, describe_cards, to_counts
from .core import GameConfig, LogEntry, Phase, PublicLogEntry, TunnelAttempt
from .scoring import GameResult, connected_components, score_game
from .transitions import GameCore, game_class
from .variant import OFFICIAL, Variant

if TYPE_CHECKING:
    # For the annotations only: a determinized view is a full GameState (built at run time
    # through game_class(), so this module never imports the state module).
    from .state import GameState


@dataclass(frozen=True)
class PlayerView:
    """Everything ``player`` may see. ``known_cards[q]`` are cards player q is publicly
    known to hold (for ``player`` itself, its whole hand)."""

    board: Board
    player: int
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
    hand: Counts
    tickets: tuple[int, ...]
    offered_tickets: tuple[int, ...]
    returned_tickets: tuple[int, ...]
    tunnel: TunnelAttempt | None
    final_turns_left: int
    final_round_trigger: int
    consecutive_passes: int
    log: tuple[PublicLogEntry, ...]
    all_tickets: tuple[tuple[int, ...], ...] | None
    result: GameResult | None
    #: The rules in force (public: every player knows the rules and the board).
    variant: Variant = OFFICIAL

    @property
    def is_my_turn(self) -> bool:
        return self.current == self.player and self.phase.name != "GAME_OVER"

    def ticket_status(self) -> list[tuple[int, bool]]:
        """Own tickets with whether each is completed by own routes now (the network of own
        routes is worked out once for all of them)."""
        return _ticket_status(self.board, self.player, self.route_owner, self.tickets)

    def determinize(self, rng: random.Random) -> GameState:
        """A full state consistent with this view: unseen cards and tickets dealt at random.

        The sampled state has a fresh random generator drawn from ``rng``, so
        future shuffles are not those of the real game.
        """
        return determinize(self, rng)


class StepView:
    """The fields of ``player``'s :class:`PlayerView` that an observation reads, with the same
    values: all but the log, the first player, the turn count, returned tickets, consecutive
    passes and the end result. For code that needs a fresh view at every step, such as an
    environment's observations: :func:`make_step_view` builds it for about two thirds of the
    cost of a view without its log. Treat it as read-only, like the view."""

    board: Board
    player: int
    num_players: int
    current: int
    phase: Phase
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
    hand: Counts
    tickets: tuple[int, ...]
    offered_tickets: tuple[int, ...]
    tunnel: TunnelAttempt | None
    final_turns_left: int
    final_round_trigger: int
    variant: Variant
    # One slot per field above (the annotations are the single list of its fields).
    __slots__ = tuple(__annotations__)

    def ticket_status(self) -> list[tuple[int, bool]]:
        """Own tickets with whether each is completed by own routes now (as :meth:`PlayerView.ticket_status`)."""
        return _ticket_status(self.board, self.player, self.route_owner, self.tickets)


def _ticket_status(
    board: Board, player: int, route_owner: tuple[int, ...], tickets: tuple[int, ...]
) -> list[tuple[int, bool]]:
    """``tickets`` with whether ``player``'s routes complete each (one network for all of them)."""
    if not tickets:
        return []
    routes = board.routes
    labels = connected_components(
        ((routes[rid].a, routes[rid].b) for rid, owner in enumerate(route_owner) if owner == player),
        len(board.cities),
    )
    ends = board.tickets
    return [(t, labels[ends[t].a] == labels[ends[t].b]) for t in tickets]


def _describe(state: GameCore, entry: LogEntry, viewer: int) -> PublicLogEntry:
    who = f"Player {entry.player + 1}"
    action = entry.action
    notation: str | None = action.notation()
    card = entry.card
    own = entry.player == viewer or state.phase.name == "GAME_OVER"
    if isinstance(action, DrawBlind):
        if own:
            text = f"{who} drew {CARD_NAMES[card]} from the deck"
        else:
            text, notation, card = f"{who} drew a card from the deck", None, -1
    elif isinstance(action, KeepTickets):
        if own:
            names = ", ".join(state.board.tickets[t].name for t in action.tickets)
            text = f"{who} kept {_tickets(len(action.tickets))}: {names}"
        else:
            text, notation = f"{who} kept {_tickets(len(action.tickets))}", None
    else:
        kind = type(action).__name__
        if kind == "DrawFaceUp":
            text = f"{who} took a face-up {CARD_NAMES[card]}"
        elif kind == "DrawTickets":
            text = f"{who} drew destination tickets"
        elif kind == "Claim":
            route = state.board.routes[action.route]  # type: ignore[union-attr]
            paid = describe_cards(action.payment)  # type: ignore[union-attr]
            if entry.revealed or route.kind.name == "TUNNEL":
                shown = describe_cards(to_counts([entry.revealed.count(k) for k in range(NUM_KINDS)]))
                result = "and claimed it" if entry.claimed else "and must pay extra or decline"
                text = f"{who} tried tunnel {route.name} with {paid}, revealed {shown}, {result}"
            else:
                text = f"{who} claimed {route.name} with {paid}"
        elif kind == "PayTunnelExtra":
            text = f"{who} paid {describe_cards(action.cards)} extra and claimed the tunnel"  # type: ignore[union-attr]
        elif kind == "DeclineTunnel":
            text = f"{who} declined the tunnel"
        else:
            text = f"{who} passed"
    return PublicLogEntry(entry.player, text, notation, card, entry.revealed)


def _described_log(state: GameCore, player: int, over: bool) -> tuple[PublicLogEntry, ...]:
    """The log as ``player`` sees it, described incrementally: entries never change once
    written, except that the end of the game reveals everything (a separate cache key)."""
    key = (player, over)
    described = state.described_log.get(key)
    if described is None:
        described = state.described_log[key] = []
    for index in range(len(described), len(state.log)):
        described.append(_describe(state, state.log[index], player))
    return tuple(described)


# A view is filled through its instance dict rather than the frozen dataclass's __init__, which
# sets each of its 29 fields through object.__setattr__; the dict starts as a copy of a template
# with every field (copying it and storing the values costs less than a 29-key dict display).
_new_object = object.__new__
_set_attribute = object.__setattr__
_GAME_OVER = Phase.GAME_OVER
_FIELDS_TEMPLATE: dict[str, object] = {name: None for name in PlayerView.__dataclass_fields__}
_FIELDS_TEMPLATE["log"] = ()


def make_view(state: GameCore, player: int, log: bool = True) -> PlayerView:
    """Build ``player``'s view of ``state`` (with an empty log if ``log`` is False)."""
    if not 0 <= player < state.num_players:
        raise ValueError(f"no player {player} in a {state.num_players}-player game")
    over = state.phase is _GAME_OVER
    n = state.num_players
    # The engine's own nine-count lists: copied as tuples, not checked again (to_counts would).
    hand = cast(Counts, tuple(state.hands[player]))
    # Each player's publicly known cards, and the viewer's own whole hand (no comprehension:
    # it would cost a frame of its own).
    known = [*map(tuple, state.known)]
    known[player] = hand
    fields = _FIELDS_TEMPLATE.copy()
    fields["board"] = state.board
    fields["variant"] = state.variant
    fields["player"] = player
    fields["num_players"] = n
    fields["first_player"] = state.first_player
    fields["current"] = state.current
    fields["phase"] = state.phase
    fields["turn"] = state.turn
    fields["display"] = tuple(state.display)
    fields["deck_count"] = len(state.deck)
    fields["discard"] = tuple(state.discard)
    fields["ticket_deck_count"] = len(state.ticket_deck)
    fields["route_owner"] = tuple(state.route_owner)
    fields["trains"] = tuple(state.trains)
    fields["scores"] = tuple(state.scores)
    fields["hand_sizes"] = tuple(map(sum, state.hands))
    fields["ticket_counts"] = tuple(map(len, state.tickets))
    fields["offer_counts"] = tuple(map(len, state.offers))
    fields["known_cards"] = tuple(known)
    fields["hand"] = hand
    fields["tickets"] = tuple(state.tickets[player])
    fields["offered_tickets"] = tuple(state.offers[player])
    fields["returned_tickets"] = tuple(state.returned_tickets[player])
    fields["tunnel"] = state.tunnel
    fields["final_turns_left"] = state.final_turns_left
    fields["final_round_trigger"] = state.final_round_trigger
    fields["consecutive_passes"] = state.consecutive_passes
    if log:
        fields["log"] = _described_log(state, player, over)
    if over:
        fields["all_tickets"] = tuple(tuple(t) for t in state.tickets)
        fields["result"] = score_game(state)
    view: PlayerView = _new_object(PlayerView)
    _set_attribute(view, "__dict__", fields)
    return view


def make_step_view(state: GameCore, player: int) -> StepView:
    """``player``'s :class:`StepView` of ``state``: the fields of ``make_view(state, player)``
    that an observation reads, with the same values (the same rules of what a player sees)."""
    if not 0 <= player < state.num_players:
        raise ValueError(f"no player {player} in a {state.num_players}-player game")
    hands = state.hands
    hand: Counts = tuple(hands[player])  # type: ignore[assignment]  # the engine's nine counts
    known = [*map(tuple, state.known)]
    known[player] = hand
    # Slots stored one by one from here: cheaper than a constructor call with 22 arguments.
    view: StepView = _new_object(StepView)
    view.board = state.board
    view.variant = state.variant
    view.player = player
    view.num_players = state.num_players
    view.current = state.current
    view.phase = state.phase
    view.display = tuple(state.display)
    view.deck_count = len(state.deck)
    view.discard = tuple(state.discard)  # type: ignore[assignment]
    view.ticket_deck_count = len(state.ticket_deck)
    view.route_owner = tuple(state.route_owner)
    view.trains = tuple(state.trains)
    view.scores = tuple(state.scores)
    view.hand_sizes = tuple(map(sum, hands))
    view.ticket_counts = tuple(map(len, state.tickets))
    view.offer_counts = tuple(map(len, state.offers))
    view.known_cards = tuple(known)  # type: ignore[arg-type]
    view.hand = hand
    view.tickets = tuple(state.tickets[player])
    view.offered_tickets = tuple(state.offers[player])
    view.tunnel = state.tunnel
    view.final_turns_left = state.final_turns_left
    view.final_round_trigger = state.final_round_trigger
    return view


def determinize(view: PlayerView, rng: random.Random) -> GameState:
    """Sample a full :class:`GameState` consistent with ``view`` (see :meth:`PlayerView.determinize`)."""
    # The real seed is secret (it fixes the deck order), so the sample gets its own.
    config = GameConfig(view.num_players, rng.getrandbits(63), view.first_player, view.variant)
    state = cast("GameState", game_class()._blank(view.board, config))
    me = view.player
    n = view.num_players
    # Cards: everything not seen by the viewer is shuffled into a pool.
    unseen = list(FULL_DECK_COUNTS)
    seen: list[Counts] = [view.hand, view.discard]
    seen.extend(view.known_cards[q] for q in range(n) if q != me)
    for counts in seen:
        for kind in range(NUM_KINDS):
            unseen[kind] -= counts[kind]
    for card in view.display:
        if card >= 0:
            unseen[card] -= 1
    if view.tunnel is not None:
        for kind in range(NUM_KINDS):
            unseen[kind] -= view.tunnel.base[kind]
        for card in view.tunnel.revealed:
            unseen[card] -= 1
    if any(c < 0 for c in unseen):
        raise ValueError("inconsistent view: more cards seen than exist")
    pool = [kind for kind in range(NUM_KINDS) for _ in range(unseen[kind])]
    rng.shuffle(pool)
    for q in range(n):
        if q == me:
            state.hands[q] = list(view.hand)
            state.known[q] = list(view.known_cards[q])
            continue
        hand = list(view.known_cards[q])
        state.known[q] = list(view.known_cards[q])
        for _ in range(view.hand_sizes[q] - sum(hand)):
            hand[pool.pop()] += 1
        state.hands[q] = hand
    if len(pool) != view.deck_count:
        raise ValueError(f"inconsistent view: {len(pool)} unseen cards for a draw pile of {view.deck_count}")
    state.deck = pool
    state.discard = list(view.discard)
    state.display = list(view.display)
    # Tickets: the viewer knows its own kept, offered and returned tickets.
    mine = set(view.tickets) | set(view.offered_tickets) | set(view.returned_tickets)
    ticket_pool = [t for t in range(len(view.board.tickets)) if t not in mine]
    rng.shuffle(ticket_pool)
    for q in range(n):
        if q == me:
            state.tickets[q] = list(view.tickets)
            state.offers[q] = list(view.offered_tickets)
            state.returned_tickets[q] = list(view.returned_tickets)
            continue
        if view.all_tickets is not None:
            state.tickets[q] = list(view.all_tickets[q])
            ticket_pool = [t for t in ticket_pool if t not in state.tickets[q]]
        else:
            state.tickets[q] = [ticket_pool.pop() for _ in range(view.ticket_counts[q])]
        state.offers[q] = sorted(ticket_pool.pop() for _ in range(view.offer_counts[q]))
    state.ticket_deck = [ticket_pool.pop() for _ in range(view.ticket_deck_count)]
    # Whatever is left was returned by other players; it is out of the game.
    state.route_owner = list(view.route_owner)
    state.trains = list(view.trains)
    state.scores = list(view.scores)
    state.first_player = view.first_player
    state.current = view.current
    state.phase = view.phase
    state.tunnel = view.tunnel
    state.final_turns_left = view.final_turns_left
    state.final_round_trigger = view.final_round_trigger
    state.consecutive_passes = view.consecutive_passes
    state.turn = view.turn
    state.determinized = True
    return state


def _tickets(count: int) -> str:
    """``1 ticket``, ``2 tickets``."""
    return f"{count} ticket{'' if count == 1 else 's'}"
