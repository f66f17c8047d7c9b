"""The game state and how actions change it (no checking: see :mod:`.legal`).

:class:`GameCore` holds every field of a game, sets a game up, copies it and applies
actions. :class:`~ttr_nordic.engine.state.GameState` adds the legal moves, the checks,
scoring, views and records on top of it; create games with ``GameState.new``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Self

from .actions import (
    FACE_UP_DRAWS,
    Action,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    Pass,
    PayTunnelExtra,
)
from .board import GRAY, Board
from .cards import COLORS, FULL_DECK_COUNTS, LOCOMOTIVE, NUM_KINDS, Counts
from .claims import Candidates, SimpleIds, route_tables
from .core import (
    EMPTY,
    TUNNEL_CODE,
    Decision,
    GameConfig,
    LogEntry,
    Phase,
    PublicLogEntry,
    RouteInfo,
    TunnelAttempt,
)
from .variant import FLUSH_LOCOMOTIVES, Variant

DrawHook = Callable[[str, list[int]], int]
"""``hook(pile, items) -> index``: the item of a pile that the next draw takes, for callers that
choose the draws themselves (an explicit chance model, such as OpenSpiel's). ``pile`` is
``"card"`` (``items``: the draw pile's card kinds, after any reshuffle of the discard pile) or
``"ticket"`` (``items``: the ticket pile's ticket ids). Without a hook a draw takes the last item
(the top of the shuffled pile)."""

CARD_PILE = "card"
TICKET_PILE = "ticket"

# The complete game class (GameState), registered by the state module: views and records,
# which sit below it in the module order, build new games through it.
_GAME_CLASS: list[type[GameCore]] = []


def register_game_class(cls: type[GameCore]) -> None:
    """Make ``cls`` the class that :func:`game_class` returns (the state module registers GameState)."""
    _GAME_CLASS[:] = [cls]


def game_class() -> type[GameCore]:
    """The complete game class, for modules below :mod:`ttr_nordic.engine.state` that build games."""
    if not _GAME_CLASS:
        raise RuntimeError("no game class registered: import ttr_nordic.engine first")
    return _GAME_CLASS[0]


# Card draws are most of a game's actions: their log entries are made without the frozen
# dataclass's __init__ (which sets each field through object.__setattr__), by the slots'
# own setters: the same LogEntry in about half the time.
_new_object = object.__new__
_SET_PLAYER, _SET_ACTION, _SET_CARD, _SET_REVEALED, _SET_CLAIMED = (
    LogEntry.__dict__[name].__set__ for name in ("player", "action", "card", "revealed", "claimed")
)


def _draw_entry(player: int, action: Action, card: int) -> LogEntry:
    """``LogEntry(player, action, card)``, made faster (see above)."""
    entry: LogEntry = _new_object(LogEntry)
    _SET_PLAYER(entry, player)
    _SET_ACTION(entry, action)
    _SET_CARD(entry, card)
    _SET_REVEALED(entry, ())
    _SET_CLAIMED(entry, False)
    return entry


class GameCore:
    """Every field of a game in progress, its setup and its transitions (``apply_unchecked``)."""

    board: Board
    config: GameConfig
    variant: Variant
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
    draw_hook: DrawHook | None
    _routes: tuple[RouteInfo, ...]
    _simple_ids: SimpleIds
    _candidates: Candidates
    # The variant's numbers that the hot paths read (one attribute each, not two).
    _face_up_draws: tuple[DrawFaceUp, ...]
    _final_round_trains: int

    # ------------------------------------------------------------------ setup

    @classmethod
    def new(
        cls, players: int = 2, seed: int = 0, first_player: int | None = None, variant: Variant | None = None
    ) -> Self:
        """Set up a new game (R3): shuffle, deal 4 cards, lay 5 face up, deal 5 tickets each
        (the variant's numbers, when one is given; the official rules otherwise).

        >>> from ttr_nordic.engine import GameState
        >>> GameState.new(players=3, seed=1).deck_count
        93
        """
        if variant is None:
            return cls.from_config(GameConfig(players, seed, first_player))
        return cls.from_config(GameConfig(players, seed, first_player, variant))

    @classmethod
    def from_config(cls, config: GameConfig, draw_hook: DrawHook | None = None) -> Self:
        """Set up a new game from a :class:`GameConfig`; ``draw_hook`` (see :data:`DrawHook`)
        chooses the dealt cards and tickets, and stays on the state for later draws.

        >>> from ttr_nordic.engine import GameState
        >>> from ttr_nordic.engine.core import GameConfig
        >>> hook = lambda pile, items: items.index(8) if pile == "card" and 8 in items else len(items) - 1
        >>> GameState.from_config(GameConfig(2, 5), draw_hook=hook).hands[0][8]  # locomotives dealt first
        4
        """
        variant = config.variant
        state = cls._blank(variant.board, config)
        state.draw_hook = draw_hook
        rng = state.rng
        n = config.players
        first = rng.randrange(n) if config.first_player is None else config.first_player
        deck = [card for card in range(NUM_KINDS) for _ in range(FULL_DECK_COUNTS[card])]
        rng.shuffle(deck)
        state.deck = deck
        for p in range(n):
            for _ in range(variant.initial_hand):
                state.hands[p][state._draw_card()] += 1
        state.display = [state._draw_card() for _ in range(variant.face_up_cards)]
        if variant.locomotive_flush:
            state._flush_display()
        ticket_deck = list(range(len(state.board.tickets)))
        rng.shuffle(ticket_deck)
        state.ticket_deck = ticket_deck
        for p in range(n):
            state.offers[p] = sorted(state._draw_ticket() for _ in range(variant.initial_tickets_dealt))
        state.first_player = first
        state.current = first
        state.phase = Phase.INITIAL_TICKETS
        return state

    @classmethod
    def _blank(cls, board: Board, config: GameConfig) -> Self:
        state = cls.__new__(cls)
        n = config.players
        variant = config.variant
        state.board = board
        state.config = config
        state.variant = variant
        state.num_players = n
        state.rng = random.Random(config.seed)
        state.deck = []
        state.discard = [0] * NUM_KINDS
        state.display = [EMPTY] * variant.face_up_cards
        state.hands = [[0] * NUM_KINDS for _ in range(n)]
        state.known = [[0] * NUM_KINDS for _ in range(n)]
        state.tickets = [[] for _ in range(n)]
        state.returned_tickets = [[] for _ in range(n)]
        state.ticket_deck = []
        state.offers = [[] for _ in range(n)]
        state.route_owner = [EMPTY] * len(board.routes)
        state.trains = [variant.trains_per_player] * n
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
        state.draw_hook = None
        state._routes, state._simple_ids, state._candidates = route_tables(board)
        state._face_up_draws = FACE_UP_DRAWS[: variant.face_up_cards]
        state._final_round_trains = variant.final_round_trains
        return state

    first_player: int

    def clone(self, rng: random.Random | None = None) -> Self:
        """An independent copy, random generator included; with ``rng`` the copy shuffles with
        that generator instead of a copy of this one's (copying a generator's state is most of a
        clone's cost: for callers whose draws do not depend on it, such as a draw hook's).

        >>> from ttr_nordic.engine import GameState
        >>> game = GameState.new(seed=3)
        >>> copy = game.clone()
        >>> copy.apply(next(iter(copy.legal_actions())))
        >>> game.history == []
        True
        """
        cls = type(self)
        other = cls.__new__(cls)
        other.board = self.board
        other.config = self.config
        other.variant = self.variant
        other.num_players = self.num_players
        if rng is None:
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
        other.draw_hook = self.draw_hook
        other._routes = self._routes
        other._simple_ids = self._simple_ids
        other._candidates = self._candidates
        other._face_up_draws = self._face_up_draws
        other._final_round_trains = self._final_round_trains
        return other

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without what games share or rebuild: the board (the variant carries it),
        its tables (the per-hand claim cache grows all process long), the log descriptions (a
        cache) and any draw hook (a caller's tool, often a closure).

        >>> import pickle
        >>> from ttr_nordic.engine import GameState, load_board
        >>> game = GameState.new(seed=2)
        >>> copy = pickle.loads(pickle.dumps(game))
        >>> copy.board is load_board(), copy.view(0) == game.view(0)
        (True, True)
        """
        fields = self.__dict__.copy()
        for name in ("_routes", "_simple_ids", "_candidates", "described_log"):
            fields.pop(name, None)
        fields["draw_hook"] = None
        fields["board"] = None  # the variant's board, interned when the variant is unpickled
        return fields

    def __setstate__(self, fields: dict[str, Any]) -> None:
        self.__dict__.update(fields)
        if self.board is None:
            self.board = self.variant.board
        self.described_log = {}
        self._routes, self._simple_ids, self._candidates = route_tables(self.board)

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

    # -------------------------------------------------------------- applying

    def apply_unchecked(self, action: Action) -> None:
        """Apply a legal action without checking it: the fast path for search. An illegal
        action here corrupts the state; use :meth:`apply` for untrusted input."""
        self.history.append(action)
        # One dict lookup by exact type instead of a chain of isinstance tests.
        apply = _APPLY.get(type(action))
        if apply is None:
            apply = _apply_for_subclass(action)
        apply(self, action)

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
        hook = self.draw_hook
        if hook is not None:
            index = hook(CARD_PILE, deck)
            deck[index], deck[-1] = deck[-1], deck[index]
        return deck.pop()

    def _draw_ticket(self) -> int:
        """The top ticket of the ticket pile (the caller checks that it is not empty)."""
        deck = self.ticket_deck
        hook = self.draw_hook
        if hook is not None:
            index = hook(TICKET_PILE, deck)
            deck[index], deck[-1] = deck[-1], deck[index]
        return deck.pop()

    def _after_first_card(self) -> None:
        # available_cards() > 0, short-circuited: the draw pile is rarely empty.
        if self.phase is Phase.CHOOSE_ACTION and (
            self.deck or any(self.discard) or any(card != EMPTY for card in self.display)
        ):
            self.phase = Phase.SECOND_CARD
        else:
            self._end_turn(passed=False)

    def _take_face_up(self, action: DrawFaceUp) -> None:
        p = self.current
        card = self.display[action.slot]
        self.hands[p][card] += 1
        self.known[p][card] += 1
        self.display[action.slot] = self._draw_card()
        if self.variant.locomotive_flush:
            self._flush_display()
        self.log.append(_draw_entry(p, action, card))
        self._after_first_card()

    def _take_blind(self, action: DrawBlind) -> None:
        p = self.current
        card = self._draw_card()
        self.hands[p][card] += 1
        self.log.append(_draw_entry(p, action, card))
        self._after_first_card()

    def _draw_tickets(self, action: DrawTickets) -> None:
        p = self.current
        count = min(self.variant.tickets_drawn, len(self.ticket_deck))
        self.offers[p] = sorted(self._draw_ticket() for _ in range(count))
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
        if info.kind != TUNNEL_CODE:
            self._pay(p, payment)
            self._place(p, rid)
            self.log.append(LogEntry(p, action, claimed=True))
            self._end_turn(passed=False)
            return
        # Tunnel (R6.11): set the base aside, reveal up to 3 (the variant's number), count matches.
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
        for _ in range(self.variant.tunnel_reveal):
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
        for slot in range(len(display)):
            if display[slot] == EMPTY:
                card = self._draw_card()
                if card == EMPTY:
                    break
                display[slot] = card
        if self.variant.locomotive_flush:
            self._flush_display()

    def _flush_display(self) -> None:
        """A variant's three-locomotive flush (the base game's rule; Nordic has none, R5.9):
        while 3 or more face-up cards are locomotives, discard the display and lay out a new one.

        It stops when the draw and discard piles together could not lay out a whole new
        display, or after as many flushes in a row as there are locomotives: then the
        locomotives stay (otherwise a deck short of other cards would flush forever).
        """
        display = self.display
        for _ in range(FULL_DECK_COUNTS[LOCOMOTIVE]):
            if display.count(LOCOMOTIVE) < FLUSH_LOCOMOTIVES:
                return
            if len(self.deck) + sum(self.discard) < len(display):
                return
            for slot, card in enumerate(display):
                if card != EMPTY:
                    self.discard[card] += 1
                    display[slot] = EMPTY
            for slot in range(len(display)):
                display[slot] = self._draw_card()

    def _end_turn(self, passed: bool) -> None:
        """R4.5: refill the display, check the end, pass the turn."""
        if EMPTY in self.display:
            self._refill_display()
        p = self.current
        self.turn += 1
        self.consecutive_passes = self.consecutive_passes + 1 if passed else 0
        if self.final_turns_left < 0:
            if self.trains[p] <= self._final_round_trains:
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


_APPLY: dict[type, Callable[[Any, Any], None]] = {
    DrawFaceUp: GameCore._take_face_up,
    DrawBlind: GameCore._take_blind,
    Claim: GameCore._claim_route,
    KeepTickets: GameCore._keep_tickets,
    DrawTickets: GameCore._draw_tickets,
    PayTunnelExtra: GameCore._pay_tunnel_extra,
    DeclineTunnel: GameCore._decline_tunnel,
    Pass: GameCore._pass,
}


def _apply_for_subclass(action: Action) -> Callable[[Any, Any], None]:
    """The transition of an instance of a subclass of an action type (Pass for anything else)."""
    for kind, apply in _APPLY.items():
        if isinstance(action, kind):
            return apply
    return GameCore._pass
