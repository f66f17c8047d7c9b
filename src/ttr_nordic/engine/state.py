"""The game state and the rules that change it.

A :class:`GameState` is mutable, deterministic given its config and seed, and
cheap to :meth:`~GameState.clone`. Every decision is atomic: the current
:class:`Decision` says whose turn it is and which phase (initial tickets,
choose an action, second card, keep tickets, tunnel extra payment, game over).

>>> from ttr_nordic.engine import GameState, parse_action
>>> game = GameState.new(players=2, seed=7, first_player=0)
>>> game.decision.phase.name
'INITIAL_TICKETS'
>>> len(game.legal_actions())  # keep 2 to 5 of the 5 dealt tickets
26
>>> game.apply(next(iter(game.legal_actions())))
>>> game.decision.player
1
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import combinations
from typing import TYPE_CHECKING, Final, NamedTuple

from .actions import (
    DECLINE_TUNNEL,
    DRAW_BLIND,
    DRAW_FACE_UP,
    DRAW_TICKETS,
    NUM_SLOTS,
    PASS,
    Action,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    Pass,
    PayTunnelExtra,
    field_error,
)
from .board import GRAY, Board, RouteKind, load_board
from .cards import COLORS, FULL_DECK_COUNTS, LOCOMOTIVE, NUM_KINDS, Counts, describe_cards, to_counts
from .errors import IllegalActionError, Reason
from .payments import (
    can_pay,
    check_payment,
    check_tunnel_extra,
    ferry_options,
    special_options,
    tunnel_extra_options,
    tunnel_options,
)

if TYPE_CHECKING:
    from .record import GameRecord
    from .scoring import GameResult
    from .view import PlayerView, PublicLogEntry

TRAINS_PER_PLAYER: Final = 40
INITIAL_HAND: Final = 4
INITIAL_TICKETS_DEALT: Final = 5
INITIAL_TICKETS_KEPT: Final = 2
TICKETS_DRAWN: Final = 3
FINAL_ROUND_TRAINS: Final = 2
EMPTY: Final = -1  # an empty face-up slot, an unowned route

_REGULAR, _FERRY, _TUNNEL, _SPECIAL = 0, 1, 2, 3
_KIND_CODE: Final = {
    RouteKind.REGULAR: _REGULAR,
    RouteKind.FERRY: _FERRY,
    RouteKind.TUNNEL: _TUNNEL,
    RouteKind.SPECIAL: _SPECIAL,
}


class Phase(Enum):
    """What the current player must decide."""

    INITIAL_TICKETS = "choose initial tickets (keep at least 2)"
    CHOOSE_ACTION = "choose an action"
    SECOND_CARD = "take a second train card"
    KEEP_TICKETS = "keep at least 1 of the drawn tickets"
    TUNNEL_EXTRA = "pay the tunnel's extra cards or decline"
    GAME_OVER = "the game is over"


class Decision(NamedTuple):
    """Whose decision it is and of what kind; ``player`` is -1 once the game is over."""

    player: int
    phase: Phase


@dataclass(frozen=True, slots=True)
class GameConfig:
    """What defines a game besides its actions: the player count, the seed and the first player."""

    players: int
    seed: int
    first_player: int | None = None

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


class _RouteInfo(NamedTuple):
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


_CLAIM_CACHE: dict[tuple[int, Counts], Claim] = {}
# The claim candidates of one hand: (route, length, twin, claim set id) per route the hand
# might pay for, plus a slot per ferry or Murmansk–Lieksa whose many payments are worked out
# only once it is claimable (claim set id -1 - slot). The entries are plain integers, so the
# garbage collector stops tracking them: with lists of claims per route, 200,000 cached
# hands made a full collection take seconds (hence also the smaller bound).
_RouteClaims = tuple[tuple[int, int, int, int], ...]
_LazySlots = list[tuple[Claim, ...] | None] | tuple[()]
_Candidates = dict[Counts, tuple[_RouteClaims, _LazySlots]]
# Claim candidates per hand, shared by all games on one board (see _claim_candidates).
_CANDIDATE_CACHE_SIZE: Final = 50_000
# Ferry payments are many for a big hand: once the ferry claims held pass this count, the
# older half of the hands is dropped (5,000 random games stay below it), which keeps a full
# collection under about a second.
_LAZY_CLAIM_LIMIT: Final = 1_200_000
_lazy_claim_count = 0
# Claim sets by id: the few distinct tuples of claims that regular routes and tunnels offer.
_CLAIM_SETS: list[tuple[Claim, ...]] = [()]
_CLAIM_SET_IDS: dict[tuple[Claim, ...], int] = {(): 0}
_KEEP_CACHE: dict[tuple[int, ...], KeepTickets] = {}
# The caches above are shared by all games, also games on other threads (expert AIs think
# in threads): lookups and inserts are single dict operations, atomic in CPython; the rare
# multi-step changes (a new claim set id, dropping old hands) hold this lock.
_CACHE_LOCK = threading.Lock()


def _claim_set_id(claims: tuple[Claim, ...]) -> int:
    cid = _CLAIM_SET_IDS.get(claims)
    if cid is None:
        # A miss is rare after warm-up; the lock keeps an id and its entry together when
        # games on other threads add claim sets at the same time.
        with _CACHE_LOCK:
            cid = _CLAIM_SET_IDS.get(claims)
            if cid is None:
                _CLAIM_SETS.append(claims)
                cid = _CLAIM_SET_IDS[claims] = len(_CLAIM_SETS) - 1
    return cid


def _claim(route: int, payment: Counts) -> Claim:
    key = (route, payment)
    action = _CLAIM_CACHE.get(key)
    if action is None:
        action = _CLAIM_CACHE[key] = Claim(route, payment)
    return action


def _claims(route: int, payments: list[Counts]) -> tuple[Claim, ...]:
    return tuple([_claim(route, payment) for payment in payments])


def _keep(tickets: tuple[int, ...]) -> KeepTickets:
    action = _KEEP_CACHE.get(tickets)
    if action is None:
        action = _KEEP_CACHE[tickets] = KeepTickets(tickets)
    return action


class LegalActions:
    """The legal actions of the current decision: iterable, sized, ``in``-testable.

    Iteration lists one action per distinct payment structure (see
    :mod:`ttr_nordic.engine.payments`); ``in`` accepts every legal action.
    """

    __slots__ = ("_list", "_state")

    def __init__(self, state: GameState) -> None:
        self._state = state
        self._list: list[Action] | None = None

    def _items(self) -> list[Action]:
        if self._list is None:
            self._list = self._state.legal_action_list()
        return self._list

    def __iter__(self) -> Iterator[Action]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())

    def __bool__(self) -> bool:
        return bool(self._items())

    def __contains__(self, action: object) -> bool:
        return self._state.rejection(action) is None  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"<LegalActions {[a.notation() for a in self._items()]}>"


class GameState:
    """A game of Nordic Countries in progress. Create one with :meth:`new`."""

    board: Board
    config: GameConfig
    num_players: int
    rng: random.Random
    deck: list[int]
    discard: list[int]
    display: list[int]
    hands: list[list[int]]
    known: list[list[int]]
    tickets: list[list[int]]
    returned_tickets: list[list[int]]
    ticket_deck: list[int]
    offers: list[list[int]]
    route_owner: list[int]
    trains: list[int]
    scores: list[int]
    current: int
    phase: Phase
    tunnel: TunnelAttempt | None
    final_turns_left: int
    final_round_trigger: int
    consecutive_passes: int
    turn: int
    history: list[Action]
    log: list[LogEntry]
    described_log: dict[tuple[int, bool], list[PublicLogEntry]]
    determinized: bool
    _routes: tuple[_RouteInfo, ...]
    _simple_ids: _SimpleIds
    _candidates: _Candidates

    # ------------------------------------------------------------------ setup

    @classmethod
    def new(cls, players: int = 2, seed: int = 0, first_player: int | None = None) -> GameState:
        """Set up a new game (R3): shuffle, deal 4 cards, lay 5 face up, deal 5 tickets each.

        >>> GameState.new(players=3, seed=1).deck_count
        93
        """
        return cls.from_config(GameConfig(players, seed, first_player))

    @classmethod
    def from_config(cls, config: GameConfig) -> GameState:
        """Set up a new game from a :class:`GameConfig`."""
        state = cls._blank(load_board(), config)
        rng = state.rng
        n = config.players
        first = rng.randrange(n) if config.first_player is None else config.first_player
        deck = [card for card in range(NUM_KINDS) for _ in range(FULL_DECK_COUNTS[card])]
        rng.shuffle(deck)
        state.deck = deck
        for p in range(n):
            for _ in range(INITIAL_HAND):
                state.hands[p][deck.pop()] += 1
        state.display = [deck.pop() for _ in range(NUM_SLOTS)]
        ticket_deck = list(range(len(state.board.tickets)))
        rng.shuffle(ticket_deck)
        state.ticket_deck = ticket_deck
        for p in range(n):
            state.offers[p] = sorted(ticket_deck.pop() for _ in range(INITIAL_TICKETS_DEALT))
        state.first_player = first
        state.current = first
        state.phase = Phase.INITIAL_TICKETS
        return state

    @classmethod
    def _blank(cls, board: Board, config: GameConfig) -> GameState:
        state = cls.__new__(cls)
        n = config.players
        state.board = board
        state.config = config
        state.num_players = n
        state.rng = random.Random(config.seed)
        state.deck = []
        state.discard = [0] * NUM_KINDS
        state.display = [EMPTY] * NUM_SLOTS
        state.hands = [[0] * NUM_KINDS for _ in range(n)]
        state.known = [[0] * NUM_KINDS for _ in range(n)]
        state.tickets = [[] for _ in range(n)]
        state.returned_tickets = [[] for _ in range(n)]
        state.ticket_deck = []
        state.offers = [[] for _ in range(n)]
        state.route_owner = [EMPTY] * len(board.routes)
        state.trains = [TRAINS_PER_PLAYER] * n
        state.scores = [0] * n
        state.first_player = 0
        state.current = 0
        state.phase = Phase.CHOOSE_ACTION
        state.tunnel = None
        state.final_turns_left = -1
        state.final_round_trigger = EMPTY
        state.consecutive_passes = 0
        state.turn = 0
        state.history = []
        state.log = []
        state.described_log = {}
        state.determinized = False
        state._routes, state._simple_ids, state._candidates = _route_tables(board)
        return state

    first_player: int

    def clone(self) -> GameState:
        """An independent copy, random generator included.

        >>> game = GameState.new(seed=3)
        >>> copy = game.clone()
        >>> copy.apply(next(iter(copy.legal_actions())))
        >>> game.history == []
        True
        """
        other = GameState.__new__(GameState)
        other.board = self.board
        other.config = self.config
        other.num_players = self.num_players
        rng = random.Random(0)  # a fixed seed: seeding from the OS would cost more than the copy
        rng.setstate(self.rng.getstate())
        other.rng = rng
        other.deck = self.deck[:]
        other.discard = self.discard[:]
        other.display = self.display[:]
        other.hands = [h[:] for h in self.hands]
        other.known = [k[:] for k in self.known]
        other.tickets = [t[:] for t in self.tickets]
        other.returned_tickets = [t[:] for t in self.returned_tickets]
        other.ticket_deck = self.ticket_deck[:]
        other.offers = [o[:] for o in self.offers]
        other.route_owner = self.route_owner[:]
        other.trains = self.trains[:]
        other.scores = self.scores[:]
        other.first_player = self.first_player
        other.current = self.current
        other.phase = self.phase
        other.tunnel = self.tunnel
        other.final_turns_left = self.final_turns_left
        other.final_round_trigger = self.final_round_trigger
        other.consecutive_passes = self.consecutive_passes
        other.turn = self.turn
        other.history = self.history[:]
        other.log = self.log[:]
        other.described_log = {key: lines[:] for key, lines in self.described_log.items()}
        other.determinized = self.determinized
        other._routes = self._routes
        other._simple_ids = self._simple_ids
        other._candidates = self._candidates
        return other

    # ------------------------------------------------------------ inspection

    @property
    def decision(self) -> Decision:
        """The current decision: who acts and in which phase."""
        if self.phase is Phase.GAME_OVER:
            return Decision(-1, Phase.GAME_OVER)
        return Decision(self.current, self.phase)

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    @property
    def deck_count(self) -> int:
        return len(self.deck)

    @property
    def discard_count(self) -> int:
        return sum(self.discard)

    def available_cards(self) -> int:
        """Train cards available to draw (D6): draw pile, discard pile and display."""
        return len(self.deck) + sum(self.discard) + sum(1 for c in self.display if c != EMPTY)

    def card_total(self) -> Counts:
        """Every card in every zone added up (always the full 110-card multiset)."""
        total = list(self.discard)
        for card in self.deck:
            total[card] += 1
        for card in self.display:
            if card != EMPTY:
                total[card] += 1
        for hand in self.hands:
            for kind in range(NUM_KINDS):
                total[kind] += hand[kind]
        if self.tunnel is not None:
            for kind in range(NUM_KINDS):
                total[kind] += self.tunnel.base[kind]
            for card in self.tunnel.revealed:
                total[card] += 1
        return (total[0], total[1], total[2], total[3], total[4], total[5], total[6], total[7], total[8])

    def legal_actions(self) -> LegalActions:
        """The legal actions now, as a lazy view (iterate, ``len``, ``in``)."""
        return LegalActions(self)

    def is_legal(self, action: Action, player: int | None = None) -> bool:
        """Whether ``action`` (by ``player``, default the current one) is legal now."""
        return self.rejection(action, player) is None

    # --------------------------------------------------------- legal actions

    def legal_action_list(self) -> list[Action]:
        """The legal actions as a fresh list (one per payment structure for claims)."""
        phase = self.phase
        if phase is Phase.CHOOSE_ACTION:
            return self._choose_action_list()
        if phase is Phase.SECOND_CARD:
            out: list[Action] = [DRAW_FACE_UP[i] for i, c in enumerate(self.display) if c != EMPTY]
            if self.deck or any(self.discard):
                out.append(DRAW_BLIND)
            return out
        if phase is Phase.KEEP_TICKETS or phase is Phase.INITIAL_TICKETS:
            offer = self.offers[self.current]
            minimum = INITIAL_TICKETS_KEPT if phase is Phase.INITIAL_TICKETS else 1
            minimum = min(minimum, len(offer))
            return [
                _keep(subset) for size in range(len(offer), minimum - 1, -1) for subset in combinations(offer, size)
            ]
        if phase is Phase.TUNNEL_EXTRA:
            tunnel = self.tunnel
            assert tunnel is not None
            extras: list[Action] = [
                PayTunnelExtra(p)
                for p in tunnel_extra_options(
                    tunnel.needed, tunnel.locomotive_only, tunnel.color, self.hands[self.current]
                )
            ]
            extras.append(DECLINE_TUNNEL)
            return extras
        return []

    def _choose_action_list(self) -> list[Action]:
        display = self.display
        if EMPTY in display:
            out: list[Action] = [DRAW_FACE_UP[i] for i in range(NUM_SLOTS) if display[i] != EMPTY]
        else:
            out = [*DRAW_FACE_UP]
        if self.deck or any(self.discard):
            out.append(DRAW_BLIND)
        if self.ticket_deck:
            out.append(DRAW_TICKETS)
        self._append_claims(out)
        if not out:
            out.append(PASS)
        return out

    def _append_claims(self, out: list[Action]) -> None:
        p = self.current
        hand = self.hands[p]
        key = (hand[0], hand[1], hand[2], hand[3], hand[4], hand[5], hand[6], hand[7], hand[8])
        cached = self._candidates.get(key)
        if cached is None:
            cached = self._claim_candidates(key)
        candidates, lazy = cached
        trains = self.trains[p]
        owner = self.route_owner
        two_players = self.num_players == 2
        claim_sets = _CLAIM_SETS
        for rid, length, twin, cid in candidates:
            if owner[rid] != EMPTY or length > trains:
                continue
            if twin >= 0:
                twin_owner = owner[twin]
                if twin_owner != EMPTY and (two_players or twin_owner == p):
                    continue
            if cid >= 0:
                out.extend(claim_sets[cid])
                continue
            claims = lazy[-1 - cid]
            if claims is None:
                # Ferries and Murmansk–Lieksa are worked out only once they are claimable.
                claims = lazy[-1 - cid] = self._expensive_claims(rid, key)  # type: ignore[index]
            out.extend(claims)

    def _expensive_claims(self, rid: int, hand: Counts) -> tuple[Claim, ...]:
        global _lazy_claim_count
        route = self.board.routes[rid]
        if route.kind is RouteKind.FERRY:
            claims = _claims(rid, ferry_options(route, hand))
        else:
            claims = _claims(rid, special_options(route, hand))
        _lazy_claim_count += len(claims)
        if _lazy_claim_count > _LAZY_CLAIM_LIMIT:
            self._drop_candidates()
        return claims

    def _drop_candidates(self) -> None:
        """Forget the older half of the cached hands (insertion order), and their ferry claims."""
        global _lazy_claim_count
        cached = self._candidates
        with _CACHE_LOCK:
            # Snapshots (list() of a dict is one C call): other threads may insert meanwhile,
            # and another drop may have removed a hand already.
            hands = list(cached)
            for hand in hands[: (len(hands) + 1) // 2]:
                cached.pop(hand, None)
            _CLAIM_CACHE.clear()  # ferry payments of the dropped hands; the claim sets keep the rest
            _lazy_claim_count = sum(
                len(claims) for _, lazy in list(cached.values()) for claims in lazy if claims is not None
            )

    def _claim_candidates(self, hand: Counts) -> tuple[_RouteClaims, _LazySlots]:
        """Every claim ``hand`` can pay for, by route, ignoring ownership and trains (cached
        per hand: hands recur often, and this is the hot path of random play)."""
        locos = hand[LOCOMOTIVE]
        best_color = max(hand[0], hand[1], hand[2], hand[3], hand[4], hand[5], hand[6], hand[7])
        hand_total = sum(hand)
        simple = self._simple_ids
        routes = self.board.routes
        found: list[tuple[int, int, int, int]] = []
        slots = 0
        for rid, length, color, kind, twin in self._routes:
            if kind == _REGULAR:
                if color != GRAY:
                    if hand[color] >= length:
                        found.append((rid, length, twin, simple[rid][color]))
                elif best_color >= length:
                    row = simple[rid]
                    claims = tuple([_CLAIM_SETS[row[c]][0] for c in COLORS if hand[c] >= length])
                    found.append((rid, length, twin, _claim_set_id(claims)))
            elif kind == _TUNNEL:
                top = best_color if color == GRAY else hand[color]
                if top + locos >= length:
                    found.append((rid, length, twin, _claim_set_id(_claims(rid, tunnel_options(routes[rid], hand)))))
            elif kind == _FERRY:
                if hand_total >= length and (locos or hand_total >= length + 2):
                    found.append((rid, length, twin, -1 - slots))
                    slots += 1
            elif hand_total >= length:
                found.append((rid, length, twin, -1 - slots))
                slots += 1
        lazy: _LazySlots = [None] * slots if slots else ()
        candidates = (tuple(found), lazy)
        if len(self._candidates) >= _CANDIDATE_CACHE_SIZE:
            self._drop_candidates()
        self._candidates[hand] = candidates
        return candidates

    def _can_claim_any(self) -> bool:
        p = self.current
        hand = self.hands[p]
        return any(self._route_rejection(r.id, p) is None and can_pay(r, hand) for r in self.board.routes)

    # ------------------------------------------------------------- checking

    def rejection(self, action: Action, player: int | None = None) -> Reason | None:
        """Why ``action`` would be refused now, or None if it is legal."""
        try:
            self._check(action, player)
        except IllegalActionError as err:
            return err.reason
        return None

    def check(self, action: Action, player: int | None = None) -> None:
        """Raise :class:`IllegalActionError` if ``action`` is not legal now."""
        self._check(action, player)

    def _check(self, action: Action, player: int | None) -> None:
        # Malformed values first: a float count or a string id must never reach the rules below
        # (they would compare, and corrupt the hand, or fail with a bare TypeError).
        if player is not None and type(player) is not int:
            raise IllegalActionError(Reason.MALFORMED_ACTION, f"a player is a seat number, got {player!r:.60}")
        detail = field_error(action)
        if detail is not None:
            raise IllegalActionError(Reason.MALFORMED_ACTION, detail)
        phase = self.phase
        if phase is Phase.GAME_OVER:
            raise IllegalActionError(Reason.GAME_OVER)
        p = self.current
        if player is not None and player != p:
            raise IllegalActionError(Reason.NOT_YOUR_TURN, f"it is player {p + 1}'s turn, not player {player + 1}'s")
        if isinstance(action, KeepTickets):
            if phase is not Phase.KEEP_TICKETS and phase is not Phase.INITIAL_TICKETS:
                if phase is Phase.CHOOSE_ACTION:
                    raise IllegalActionError(Reason.INVALID_TICKET_CHOICE, "no tickets are on offer")
                raise IllegalActionError(Reason.ACTION_IN_PROGRESS, f"now: {phase.value}")
            self._check_keep(action, phase)
            return
        if phase is Phase.INITIAL_TICKETS or phase is Phase.KEEP_TICKETS:
            raise IllegalActionError(Reason.ACTION_IN_PROGRESS, f"now: {phase.value}")
        if isinstance(action, (PayTunnelExtra, DeclineTunnel)):
            if phase is not Phase.TUNNEL_EXTRA:
                if phase is Phase.CHOOSE_ACTION:
                    raise IllegalActionError(Reason.INVALID_TUNNEL_EXTRA, "no tunnel claim is being resolved")
                raise IllegalActionError(Reason.ACTION_IN_PROGRESS, f"now: {phase.value}")
            if isinstance(action, PayTunnelExtra):
                self._check_tunnel_extra(action)
            return
        if phase is Phase.TUNNEL_EXTRA:
            raise IllegalActionError(Reason.ACTION_IN_PROGRESS, f"now: {phase.value}")
        if isinstance(action, (DrawFaceUp, DrawBlind)):
            self._check_draw(action)
            return
        if phase is Phase.SECOND_CARD:
            raise IllegalActionError(Reason.ACTION_IN_PROGRESS, f"now: {phase.value}")
        if isinstance(action, DrawTickets):
            if not self.ticket_deck:
                raise IllegalActionError(Reason.TICKET_DECK_EMPTY)
            return
        if isinstance(action, Claim):
            self._check_claim(action)
            return
        if isinstance(action, Pass):
            if self.available_cards() or self.ticket_deck or self._can_claim_any():
                raise IllegalActionError(Reason.CANNOT_PASS)
            return
        raise IllegalActionError(Reason.INVALID_PAYMENT, f"not an action: {action!r}")

    def _check_keep(self, action: KeepTickets, phase: Phase) -> None:
        offer = self.offers[self.current]
        chosen = action.tickets
        if len(set(chosen)) != len(chosen):
            raise IllegalActionError(Reason.INVALID_TICKET_CHOICE, "a ticket is named twice")
        for ticket in chosen:
            if ticket not in offer:
                if ticket in self.tickets[self.current]:
                    raise IllegalActionError(
                        Reason.INVALID_TICKET_CHOICE, "tickets kept earlier stay with you; name only offered ones"
                    )
                raise IllegalActionError(Reason.INVALID_TICKET_CHOICE, f"ticket {ticket} was not offered to you")
        minimum = INITIAL_TICKETS_KEPT if phase is Phase.INITIAL_TICKETS else 1
        minimum = min(minimum, len(offer))
        if len(chosen) < minimum:
            raise IllegalActionError(Reason.MUST_KEEP_TICKETS, f"keep at least {minimum} of the {len(offer)} tickets")

    def _check_draw(self, action: DrawFaceUp | DrawBlind) -> None:
        if not self.available_cards():
            raise IllegalActionError(Reason.NO_TRAIN_CARDS)
        if isinstance(action, DrawFaceUp):
            if not 0 <= action.slot < NUM_SLOTS:
                raise IllegalActionError(Reason.EMPTY_SLOT, f"there is no slot {action.slot + 1}")
            if self.display[action.slot] == EMPTY:
                raise IllegalActionError(Reason.EMPTY_SLOT, f"face-up slot {action.slot + 1} is empty")
        elif not self.deck and not any(self.discard):
            raise IllegalActionError(Reason.DRAW_PILE_EMPTY)

    def _route_rejection(self, rid: int, p: int) -> Reason | None:
        owner = self.route_owner
        if owner[rid] != EMPTY:
            return Reason.ROUTE_CLAIMED
        twin = self._routes[rid].twin
        if twin >= 0 and owner[twin] != EMPTY:
            if owner[twin] == p:
                return Reason.DOUBLE_ROUTE_OWN
            if self.num_players == 2:
                return Reason.DOUBLE_ROUTE_CLOSED
        if self.trains[p] < self._routes[rid].length:
            return Reason.NOT_ENOUGH_TRAINS
        return None

    def _check_claim(self, action: Claim) -> None:
        rid = action.route
        if not 0 <= rid < len(self._routes):
            raise IllegalActionError(Reason.INVALID_PAYMENT, f"there is no route R{rid + 1:02d}")
        p = self.current
        route = self.board.routes[rid]
        reason = self._route_rejection(rid, p)
        if reason is not None:
            raise IllegalActionError(reason, f"{route.name}: {reason.value}")
        payment = action.payment
        if len(payment) != NUM_KINDS or any(c < 0 for c in payment):
            raise IllegalActionError(Reason.INVALID_PAYMENT, "a payment is nine non-negative card counts")
        hand = self.hands[p]
        if any(payment[k] > hand[k] for k in range(NUM_KINDS)):
            raise IllegalActionError(Reason.CARDS_NOT_IN_HAND, f"you do not hold {describe_cards(payment)}")
        reason = check_payment(route, payment)
        if reason is not None:
            raise IllegalActionError(reason, f"{describe_cards(payment)} for {route.describe()}: {reason.value}")

    def _check_tunnel_extra(self, action: PayTunnelExtra) -> None:
        tunnel = self.tunnel
        assert tunnel is not None
        cards = action.cards
        hand = self.hands[self.current]
        if len(cards) != NUM_KINDS or any(c < 0 for c in cards):
            raise IllegalActionError(Reason.INVALID_TUNNEL_EXTRA, "extra cards are nine non-negative card counts")
        if not check_tunnel_extra(tunnel.needed, tunnel.locomotive_only, tunnel.color, cards):
            wanted = "locomotives" if tunnel.locomotive_only else "cards of the tunnel's color or locomotives"
            raise IllegalActionError(
                Reason.INVALID_TUNNEL_EXTRA, f"pay exactly {tunnel.needed} {wanted}, got {describe_cards(cards)}"
            )
        if any(cards[k] > hand[k] for k in range(NUM_KINDS)):
            raise IllegalActionError(Reason.CARDS_NOT_IN_HAND, f"you do not hold {describe_cards(cards)}")

    # -------------------------------------------------------------- applying

    def apply(self, action: Action, player: int | None = None) -> None:
        """Check and apply ``action``; on refusal raise :class:`IllegalActionError` and change nothing."""
        self._check(action, player)
        self.apply_unchecked(action)

    def apply_unchecked(self, action: Action) -> None:
        """Apply a legal action without checking it: the fast path for search. An illegal
        action here corrupts the state; use :meth:`apply` for untrusted input."""
        self.history.append(action)
        if isinstance(action, DrawFaceUp):
            self._take_face_up(action)
        elif isinstance(action, DrawBlind):
            self._take_blind(action)
        elif isinstance(action, Claim):
            self._claim_route(action)
        elif isinstance(action, KeepTickets):
            self._keep_tickets(action)
        elif isinstance(action, DrawTickets):
            self._draw_tickets(action)
        elif isinstance(action, PayTunnelExtra):
            self._pay_tunnel_extra(action)
        elif isinstance(action, DeclineTunnel):
            self._decline_tunnel(action)
        else:
            self._pass(action)

    def _draw_card(self) -> int:
        """The top card of the draw pile, reshuffling the discard pile when needed (R5.5)."""
        deck = self.deck
        if not deck:
            discard = self.discard
            if not any(discard):
                return EMPTY
            deck.extend(card for card in range(NUM_KINDS) for _ in range(discard[card]))
            self.discard = [0] * NUM_KINDS
            self.rng.shuffle(deck)
        return deck.pop()

    def _after_first_card(self) -> None:
        if self.phase is Phase.CHOOSE_ACTION and self.available_cards():
            self.phase = Phase.SECOND_CARD
        else:
            self._end_turn(passed=False)

    def _take_face_up(self, action: DrawFaceUp) -> None:
        p = self.current
        card = self.display[action.slot]
        self.hands[p][card] += 1
        self.known[p][card] += 1
        self.display[action.slot] = self._draw_card()
        self.log.append(LogEntry(p, action, card))
        self._after_first_card()

    def _take_blind(self, action: DrawBlind) -> None:
        p = self.current
        card = self._draw_card()
        self.hands[p][card] += 1
        self.log.append(LogEntry(p, action, card))
        self._after_first_card()

    def _draw_tickets(self, action: DrawTickets) -> None:
        p = self.current
        deck = self.ticket_deck
        count = min(TICKETS_DRAWN, len(deck))
        self.offers[p] = sorted(deck.pop() for _ in range(count))
        self.phase = Phase.KEEP_TICKETS
        self.log.append(LogEntry(p, action))

    def _keep_tickets(self, action: KeepTickets) -> None:
        p = self.current
        offer = self.offers[p]
        kept = action.tickets
        self.tickets[p].extend(kept)
        self.returned_tickets[p].extend(t for t in offer if t not in kept)
        self.offers[p] = []
        self.log.append(LogEntry(p, action))
        if self.phase is Phase.INITIAL_TICKETS:
            n = self.num_players
            nxt = (p + 1) % n
            if nxt == self.first_player:
                self.phase = Phase.CHOOSE_ACTION
            self.current = nxt
        else:
            self._end_turn(passed=False)

    def _pay(self, p: int, payment: Sequence[int]) -> None:
        hand = self.hands[p]
        known = self.known[p]
        discard = self.discard
        for kind in range(NUM_KINDS):
            count = payment[kind]
            if count:
                hand[kind] -= count
                discard[kind] += count
                if known[kind]:
                    known[kind] = max(0, known[kind] - count)

    def _place(self, p: int, rid: int) -> None:
        length = self._routes[rid].length
        self.route_owner[rid] = p
        self.trains[p] -= length
        self.scores[p] += self.board.routes[rid].points

    def _claim_route(self, action: Claim) -> None:
        p = self.current
        rid = action.route
        info = self._routes[rid]
        payment = action.payment
        if info.kind != _TUNNEL:
            self._pay(p, payment)
            self._place(p, rid)
            self.log.append(LogEntry(p, action, claimed=True))
            self._end_turn(passed=False)
            return
        # Tunnel (R6.11): set the base aside, reveal up to 3, count matches.
        hand = self.hands[p]
        known = self.known[p]
        for kind in range(NUM_KINDS):
            if payment[kind]:
                hand[kind] -= payment[kind]
                known[kind] = max(0, known[kind] - payment[kind])
        locomotive_only = sum(payment) == payment[LOCOMOTIVE]
        color = info.color
        if color == GRAY:
            color = next((c for c in COLORS if payment[c]), LOCOMOTIVE)
        revealed: list[int] = []
        for _ in range(3):
            card = self._draw_card()
            if card == EMPTY:
                break
            revealed.append(card)
        if locomotive_only:
            needed = sum(1 for card in revealed if card == LOCOMOTIVE)
        else:
            needed = sum(1 for card in revealed if card in (LOCOMOTIVE, color))
        shown = tuple(revealed)
        if needed == 0:
            for card in revealed:
                self.discard[card] += 1
            for kind in range(NUM_KINDS):
                self.discard[kind] += payment[kind]
            self._place(p, rid)
            self.log.append(LogEntry(p, action, revealed=shown, claimed=True))
            self._end_turn(passed=False)
            return
        self.tunnel = TunnelAttempt(rid, payment, shown, needed, color, locomotive_only)
        self.phase = Phase.TUNNEL_EXTRA
        self.log.append(LogEntry(p, action, revealed=shown))

    def _finish_tunnel(self) -> TunnelAttempt:
        tunnel = self.tunnel
        assert tunnel is not None
        for card in tunnel.revealed:
            self.discard[card] += 1
        self.tunnel = None
        return tunnel

    def _pay_tunnel_extra(self, action: PayTunnelExtra) -> None:
        p = self.current
        tunnel = self._finish_tunnel()
        self._pay(p, action.cards)
        for kind in range(NUM_KINDS):
            self.discard[kind] += tunnel.base[kind]
        self._place(p, tunnel.route)
        self.log.append(LogEntry(p, action, claimed=True))
        self._end_turn(passed=False)

    def _decline_tunnel(self, action: DeclineTunnel) -> None:
        p = self.current
        tunnel = self._finish_tunnel()
        hand = self.hands[p]
        known = self.known[p]
        for kind in range(NUM_KINDS):
            hand[kind] += tunnel.base[kind]
            known[kind] += tunnel.base[kind]  # everyone saw the base payment go back
        self.log.append(LogEntry(p, action))
        self._end_turn(passed=False)

    def _pass(self, action: Pass) -> None:
        self.log.append(LogEntry(self.current, action))
        self._end_turn(passed=True)

    def _refill_display(self) -> None:
        display = self.display
        for slot in range(NUM_SLOTS):
            if display[slot] == EMPTY:
                card = self._draw_card()
                if card == EMPTY:
                    return
                display[slot] = card

    def _end_turn(self, passed: bool) -> None:
        """R4.5: refill the display, check the end, pass the turn."""
        if EMPTY in self.display:
            self._refill_display()
        p = self.current
        self.turn += 1
        self.consecutive_passes = self.consecutive_passes + 1 if passed else 0
        if self.final_turns_left < 0:
            if self.trains[p] <= FINAL_ROUND_TRAINS:
                self.final_round_trigger = p
                self.final_turns_left = self.num_players
        else:
            self.final_turns_left -= 1
            if self.final_turns_left == 0:
                self._game_over()
                return
        if self.consecutive_passes >= self.num_players:
            self._game_over()
            return
        self.current = (p + 1) % self.num_players
        self.phase = Phase.CHOOSE_ACTION

    def _game_over(self) -> None:
        self.phase = Phase.GAME_OVER

    # -------------------------------------------------------------- outputs

    def result(self) -> GameResult:
        """The final scoring breakdown and winners (callable at any time; final once over)."""
        from .scoring import score_game

        return score_game(self)

    def view(self, player: int, log: bool = True) -> PlayerView:
        """What ``player`` may see (spec §10); the only input an interface or agent needs.

        ``log=False`` leaves the view's log empty: a faster view for rollouts whose
        policy does not read the log.

        >>> GameState.new(players=2, seed=1).view(0, log=False).log
        ()
        """
        from .view import make_view

        return make_view(self, player, log)

    def determinize(self, player: int, rng: random.Random) -> GameState:
        """A full state consistent with ``player``'s view, hidden parts sampled with ``rng``."""
        return self.view(player).determinize(rng)

    def record(self) -> GameRecord:
        """The game's record: config, seed and actions."""
        from .record import GameRecord

        if self.determinized:
            raise ValueError("a determinized state has no true record")
        return GameRecord(config=self.config, actions=tuple(a.notation() for a in self.history))

    def __repr__(self) -> str:
        return (
            f"<GameState players={self.num_players} seed={self.config.seed} turn={self.turn} "
            f"decision={self.decision.phase.name}:{self.decision.player} scores={self.scores}>"
        )


def _route_tables(board: Board) -> tuple[tuple[_RouteInfo, ...], _SimpleIds, _Candidates]:
    cached = _TABLES.get(id(board))
    if cached is not None and cached[0] is board:
        return cached[1], cached[2], cached[3]
    infos = tuple(
        _RouteInfo(r.id, r.length, r.color, _KIND_CODE[r.kind], -1 if r.twin is None else r.twin) for r in board.routes
    )
    simple: list[tuple[tuple[Claim, ...], ...]] = []
    for r in board.routes:
        row: list[tuple[Claim, ...]] = []
        for color in COLORS:
            if r.kind is RouteKind.REGULAR and r.color in (GRAY, color):
                payment = [0] * NUM_KINDS
                payment[color] = r.length
                row.append((_claim(r.id, to_counts(payment)),))
            else:
                row.append(())
        simple.append(tuple(row))
    ids = tuple(tuple(_claim_set_id(claims) for claims in row) for row in simple)
    candidates: _Candidates = {}
    _TABLES[id(board)] = (board, infos, ids, candidates)
    return infos, ids, candidates


# By route, per color: the id in _CLAIM_SETS of the regular route's claim in that color (one or none).
_SimpleIds = tuple[tuple[int, ...], ...]
_TABLES: dict[int, tuple[Board, tuple[_RouteInfo, ...], _SimpleIds, _Candidates]] = {}
