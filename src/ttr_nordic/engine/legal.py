"""The legal moves of a game and the checks that refuse illegal ones.

:class:`GameRules` adds to :class:`~ttr_nordic.engine.transitions.GameCore` the listing of
legal actions (one per payment structure for claims, see :mod:`.payments`), the reasons an
action is refused, and the checked :meth:`~GameRules.apply`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain, combinations
from typing import cast, overload

from .actions import (
    DECLINE_TUNNEL,
    DRAW_BLIND,
    DRAW_TICKETS,
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
from .cards import NUM_KINDS, Counts, describe_cards
from .claims import CLAIM_SETS, Candidates, LazySlots, claim_candidates, expensive_claims, keep_action
from .core import EMPTY, Phase
from .errors import IllegalActionError, Reason
from .payments import can_pay, check_payment, check_tunnel_extra, tunnel_extra_options
from .transitions import GameCore


class LegalActions:
    """The legal actions of the current decision: iterable, sized, ``in``-testable.

    Iteration lists one action per distinct payment structure (see
    :mod:`ttr_nordic.engine.payments`); ``in`` accepts every legal action.
    """

    __slots__ = ("_list", "_state")

    def __init__(self, state: GameRules) -> None:
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


_CHOOSE_ACTION = Phase.CHOOSE_ACTION
_SECOND_CARD = Phase.SECOND_CARD


class LegalSequence(Sequence[Action]):
    """The legal actions of a main-action decision (``legal_action_list()``'s actions in its
    order), with the claims of each ferry and of Murmansk–Lieksa worked out only when read.

    Those claims are most of the cost of a listing for a big hand, and an agent that looks at
    the claims of a few routes only (:meth:`claims_of`) or at the draws (:attr:`others`)
    does not pay for the rest. Reading it as a sequence (``len``, an index, iterating past
    the draws) lists everything, once. It holds the hand and the claimable routes of the
    moment it was made: make a new one after the state changes.
    """

    __slots__ = ("_board", "_cache", "_claims", "_full", "_hand", "_lazy", "_runs", "others")

    def __init__(self, state: GameRules) -> None:
        # The same steps as GameRules._choose_action_list, with each route's claims kept apart.
        display = state.display
        if EMPTY in display:
            draws = state._face_up_draws
            others: list[Action] = [draws[i] for i in range(len(display)) if display[i] != EMPTY]
        else:
            others = [*state._face_up_draws]
        if state.deck or any(state.discard):
            others.append(DRAW_BLIND)
        if state.ticket_deck:
            others.append(DRAW_TICKETS)
        p = state.current
        hand = cast(Counts, tuple(state.hands[p]))
        cached = state._candidates.get(hand)
        if cached is None:
            cached = claim_candidates(state.board, state._routes, state._simple_ids, state._candidates, hand)
        candidates, lazy = cached
        trains = state.trains[p]
        owner = state.route_owner
        two_players = state.num_players == 2
        # (route, claim set id) per claimable route, in listing order (negative ids: lazy slots).
        runs: list[tuple[int, int]] = []
        for rid, length, twin, cid in candidates:
            if owner[rid] != EMPTY or length > trains:
                continue
            if twin >= 0:
                twin_owner = owner[twin]
                if twin_owner != EMPTY and (two_players or twin_owner == p):
                    continue
            runs.append((rid, cid))
        #: The actions that are not claims, in order (Pass when nothing else is legal).
        self.others = others
        self._runs = runs
        self._board = state.board
        self._cache: Candidates = state._candidates
        self._hand = hand
        self._lazy: LazySlots = lazy
        self._claims: dict[int, int] | None = None
        self._full: list[Action] | None = None
        if not others and not any(self._run_claims(rid, cid) for rid, cid in runs):
            others.append(PASS)

    def _run_claims(self, rid: int, cid: int) -> tuple[Claim, ...]:
        if cid >= 0:
            return CLAIM_SETS[cid]
        lazy = self._lazy
        claims = lazy[-1 - cid]
        if claims is None:
            claims = lazy[-1 - cid] = expensive_claims(self._board, self._cache, rid, self._hand)  # type: ignore[index]
        return claims

    def claims_of(self, route: int) -> tuple[Claim, ...]:
        """The legal claims of ``route`` (empty if none), in the listing's order."""
        index = self._claims
        if index is None:
            index = self._claims = dict(self._runs)
        cid = index.get(route)
        if cid is None:
            return ()
        return self._run_claims(route, cid)

    def claim_routes(self) -> list[int]:
        """The routes with a legal claim, in the listing's order."""
        run_claims = self._run_claims
        return [rid for rid, cid in self._runs if run_claims(rid, cid)]

    def candidate_routes(self) -> list[int]:
        """:meth:`claim_routes` and, in their places, the ferries and Murmansk–Lieksa whose
        claims are not worked out yet (some may have none): nothing is worked out here."""
        return [rid for rid, _ in self._runs]

    def _items(self) -> list[Action]:
        full = self._full
        if full is None:
            full = self._full = [*self.others]
            for rid, cid in self._runs:
                full.extend(self._run_claims(rid, cid))
        return full

    def __len__(self) -> int:
        return len(self._items())

    def __bool__(self) -> bool:
        # Without it, truth would take the length, which lists every claim.
        return bool(self.others) or bool(self._items())

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        return self._items()[index]

    def __iter__(self) -> Iterator[Action]:
        full = self._full
        if full is not None:
            return iter(full)
        # The draws first, each route's claims only once the iteration gets to them.
        run_claims = self._run_claims
        return chain(self.others, chain.from_iterable(run_claims(rid, cid) for rid, cid in self._runs))

    def __contains__(self, action: object) -> bool:
        if type(action) is Claim and type(action.route) is int:
            # Equal claims have equal routes: only this route's claims can match.
            return action in self.claims_of(action.route)
        # The other actions come first: a legal one is found without listing the claims.
        return action in self.others or action in self._items()

    def __repr__(self) -> str:
        return f"<LegalSequence {[a.notation() for a in self]}>"


class GameRules(GameCore):
    """A game with its legal moves and checks; :class:`~ttr_nordic.engine.state.GameState` is the full game."""

    def legal_actions(self) -> LegalActions:
        """The legal actions now, as a lazy view (iterate, ``len``, ``in``)."""
        return LegalActions(self)

    def is_legal(self, action: Action, player: int | None = None) -> bool:
        """Whether ``action`` (by ``player``, default the current one) is legal now."""
        return self.rejection(action, player) is None

    # --------------------------------------------------------- legal actions

    def legal_sequence(self) -> Sequence[Action]:
        """The legal actions now, as :meth:`legal_action_list` lists them: for a main action a
        :class:`LegalSequence` (the claims of ferries and Murmansk–Lieksa worked out when read),
        otherwise that list."""
        if self.phase is _CHOOSE_ACTION:
            return LegalSequence(self)
        return self.legal_action_list()

    def legal_action_list(self) -> list[Action]:
        """The legal actions as a fresh list (one per payment structure for claims)."""
        phase = self.phase
        if phase is _CHOOSE_ACTION:
            return self._choose_action_list()
        if phase is _SECOND_CARD:
            display = self.display
            if EMPTY in display:
                draws = self._face_up_draws
                out: list[Action] = [draws[i] for i in range(len(display)) if display[i] != EMPTY]
            else:
                out = [*self._face_up_draws]
            if self.deck or any(self.discard):
                out.append(DRAW_BLIND)
            return out
        if phase is Phase.KEEP_TICKETS or phase is Phase.INITIAL_TICKETS:
            offer = self.offers[self.current]
            variant = self.variant
            minimum = variant.initial_tickets_kept if phase is Phase.INITIAL_TICKETS else variant.tickets_kept
            minimum = min(minimum, len(offer))
            return [
                keep_action(subset)
                for size in range(len(offer), minimum - 1, -1)
                for subset in combinations(offer, size)
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
        # The hot path of random play and rollouts: one function, locals only. LegalSequence
        # takes the same steps (tests/engine/test_legal_sequence.py holds the two together).
        display = self.display
        if EMPTY in display:
            draws = self._face_up_draws
            out: list[Action] = [draws[i] for i in range(len(display)) if display[i] != EMPTY]
        else:
            out = [*self._face_up_draws]
        if self.deck or any(self.discard):
            out.append(DRAW_BLIND)
        if self.ticket_deck:
            out.append(DRAW_TICKETS)
        # Claims: the candidates of this hand (cached per hand), filtered by ownership and trains.
        p = self.current
        key = cast(Counts, tuple(self.hands[p]))  # a hand always has the nine kinds
        cached = self._candidates.get(key)
        if cached is None:
            cached = claim_candidates(self.board, self._routes, self._simple_ids, self._candidates, key)
        candidates, lazy = cached
        trains = self.trains[p]
        owner = self.route_owner
        two_players = self.num_players == 2
        claim_sets = CLAIM_SETS
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
                claims = lazy[-1 - cid] = expensive_claims(self.board, self._candidates, rid, key)  # type: ignore[index]
            out.extend(claims)
        if not out:
            out.append(PASS)
        return out

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
                raise IllegalActionError(Reason.ACTION_IN_PROGRESS, f"now: {phase.text(self.variant)}")
            self._check_keep(action, phase)
            return
        if phase is Phase.INITIAL_TICKETS or phase is Phase.KEEP_TICKETS:
            raise IllegalActionError(Reason.ACTION_IN_PROGRESS, f"now: {phase.text(self.variant)}")
        if isinstance(action, (PayTunnelExtra, DeclineTunnel)):
            if phase is not Phase.TUNNEL_EXTRA:
                if phase is Phase.CHOOSE_ACTION:
                    raise IllegalActionError(Reason.INVALID_TUNNEL_EXTRA, "no tunnel claim is being resolved")
                raise IllegalActionError(Reason.ACTION_IN_PROGRESS, f"now: {phase.text(self.variant)}")
            if isinstance(action, PayTunnelExtra):
                self._check_tunnel_extra(action)
            return
        if phase is Phase.TUNNEL_EXTRA:
            raise IllegalActionError(Reason.ACTION_IN_PROGRESS, f"now: {phase.text(self.variant)}")
        if isinstance(action, (DrawFaceUp, DrawBlind)):
            self._check_draw(action)
            return
        if phase is Phase.SECOND_CARD:
            raise IllegalActionError(Reason.ACTION_IN_PROGRESS, f"now: {phase.text(self.variant)}")
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
        variant = self.variant
        minimum = variant.initial_tickets_kept if phase is Phase.INITIAL_TICKETS else variant.tickets_kept
        minimum = min(minimum, len(offer))
        if len(chosen) < minimum:
            raise IllegalActionError(Reason.MUST_KEEP_TICKETS, f"keep at least {minimum} of the {len(offer)} tickets")

    def _check_draw(self, action: DrawFaceUp | DrawBlind) -> None:
        if not self.available_cards():
            raise IllegalActionError(Reason.NO_TRAIN_CARDS)
        if isinstance(action, DrawFaceUp):
            if not 0 <= action.slot < len(self.display):
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
