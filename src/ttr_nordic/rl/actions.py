"""A fixed, stable enumeration of every action the engine can offer (6,394 ids on the Nordic board).

Ids are laid out in blocks, in this order (sizes for the Nordic board: 81 routes):

=====================  ======  =================================================================
block                  size    what one id means
=====================  ======  =================================================================
face-up draw           5       take the card in slot 0-4 (``DrawFaceUp``)
blind draw             1       take the top of the draw pile (``DrawBlind``)
ticket draw            1       draw destination tickets (``DrawTickets``)
keep tickets           31      keep a non-empty subset of the offer; bit i = the i-th offered
                               ticket in ascending id order (offers hold at most 5)
decline tunnel         1       give up a tunnel claim (``DeclineTunnel``)
pass                   1       pass (only legal when nothing else is)
tunnel extra           9       pay ``total`` extra cards (1-3) of which ``locomotives`` are
                               locomotives (0..total) (``PayTunnelExtra``)
claim                  6,144   claim route ``r`` with a payment structure
                               ``(main color, locomotives, total cards)``
claim overflow         201     claim a gray ferry or Murmansk-Lieksa with a payment whose
                               main color's slot another legal payment holds
                               ``(OVERFLOW, locomotives, total cards)``
=====================  ======  =================================================================

A claim's *main color* is the color (0-7) of which the payment holds the most cards (the lowest
color on a tie), or -1 when it is all locomotives. For each route the claim block lists every
structure its kind allows: one per color for a regular route (or just its own color); color x
locomotives for a tunnel; color x locomotives x total for ferries (each group of 3 cards that
replaces a locomotive adds 2 cards) and for Murmansk-Lieksa (groups of 4 add 3). Which cards fill
a group is the engine's canonical choice: ``decode`` returns the engine's own legal action, so
the mask and ``decode`` never offer anything the engine would refuse.

Every legal action of a decision has its own id. On a colored ferry the engine lists at most one
payment per (locomotives, total), so the main color is only informative. On the gray ferries and
Murmansk-Lieksa it lists one payment per color paying the single spaces, and two of them can
have the same main color, locomotives and total (their groups hold different cards). There each
(locomotives, total) with a color has nine slots: the eight colors and ``OVERFLOW`` (the
overflow slots come after all other claims, ids 6,193-6,393, so the ids before them kept the
meaning they had before overflow slots existed). The legal payments of one (route, locomotives,
total) are taken in order (most cards of their main color first, then the smaller count
vector); each takes its main color's slot if free, else ``OVERFLOW``, else the lowest free color
slot. The engine lists at most one such payment per single-space color, plus one with none, so
nine slots always suffice.

``encode(action, state)`` needs the state only for ``KeepTickets`` (the offer; ``offer=`` gives
it directly) and for claims of gray ferries and Murmansk-Lieksa (the other legal payments decide
the slot). The enumeration depends only on the board, so ids are stable across games and
versions of the engine that keep the board.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from functools import cache
from itertools import compress, product, repeat
from operator import eq
from typing import TYPE_CHECKING, cast

import numpy as np
from numpy.typing import NDArray

from ttr_nordic.engine import (
    COLORS,
    LOCOMOTIVE,
    Action,
    Board,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    GameState,
    KeepTickets,
    Pass,
    PayTunnelExtra,
    RouteKind,
    load_board,
)

from . import _accel

if TYPE_CHECKING:
    from ._fastobs import IdTable

NUM_SLOTS = 5
MAX_OFFER = 5
NUM_KEEP = (1 << MAX_OFFER) - 1
MAX_EXTRA = 3
MAX_LOCOMOTIVES = 14
_GROUP_EXTRA = {RouteKind.FERRY: 2, RouteKind.SPECIAL: 3}


def main_color(counts: Sequence[int]) -> int:
    """The color the payment holds most of (lowest on a tie), or -1 for locomotives only."""
    # max() and index() scan in C: the first color with the largest count.
    best = max(counts[:LOCOMOTIVE])
    return counts.index(best) if best > 0 else -1


OVERFLOW = 8
"""The claim slot of a payment displaced from its main color's slot (gray ferries and Murmansk-Lieksa)."""


@dataclass(frozen=True)
class ActionSpace:
    """The enumeration for one board; build it with :func:`action_space`."""

    size: int
    face_up: int
    blind: int
    tickets: int
    keep: int
    decline: int
    pass_: int
    extra: int
    claim: int
    claim_keys: tuple[tuple[int, int, int, int], ...]
    claim_index: dict[tuple[int, int, int, int], int]
    slotted_routes: frozenset[int]
    # Ids of actions by the action object's id(): the engine hands out the same action objects
    # again and again, so encoding each once pays, and an identity lookup is cheaper than
    # hashing a dataclass. ``_held`` keeps every action in the table alive, so that no id() in
    # it can be reused. A claim of a slotted route has its main color's slot there while no
    # other claim object has been seen with that slot (``_slot_owner``): then no two claims
    # listed together can want it. Claims of slots seen with two objects (``_shared_slots``)
    # are marked ``_BY_LISTING``: their ids are worked out per listing and remembered
    # (``_listing_ids``; an entry holds its actions, so their id()s stay theirs) by the
    # listing's claims of slotted routes (``_slotted``: their id()s), the only actions that
    # decide one another's slots. Keeps are not in the table: their ids depend on the offer.
    _fixed_ids: dict[int, int] = field(default_factory=dict, compare=False, hash=False, repr=False)
    # The same table in C when the accelerator is built (None otherwise): a dict lookup by id()
    # reads the index, the entry and the key's int object, three places in memory, where the C
    # table reads one slot (the legal ids cost about a third less in an environment's step).
    _fast_ids: IdTable | None = field(default_factory=_accel.new_id_table, compare=False, hash=False, repr=False)
    _held: list[Action] = field(default_factory=list, compare=False, hash=False, repr=False)
    _slot_owner: dict[int, int] = field(default_factory=dict, compare=False, hash=False, repr=False)
    _shared_slots: set[int] = field(default_factory=set, compare=False, hash=False, repr=False)
    _slotted: set[int] = field(default_factory=set, compare=False, hash=False, repr=False)
    # The main color's slot id of each claim object of a slotted route (its id when no other
    # claim of the listing wants that slot).
    _natural: dict[int, int] = field(default_factory=dict, compare=False, hash=False, repr=False)
    _listing_ids: dict[tuple[int, ...], tuple[tuple[Action, ...], list[int]]] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    def __reduce__(self) -> tuple[type[ActionSpace], tuple[object, ...]]:
        """Pickled and copied without its tables by object: their keys are addresses of this
        process's objects, which a copy's objects do not have (a copy starts them afresh)."""
        return (ActionSpace, tuple(getattr(self, f.name) for f in fields(self) if f.compare))

    def encode(self, action: Action, state: GameState | None = None, offer: Sequence[int] | None = None) -> int:
        """The id of ``action``, a legal action of ``state``.

        ``state`` is needed for ``KeepTickets`` (the offer; or give ``offer``, the offered
        ticket ids) and for claims of gray ferries and Murmansk-Lieksa (the other payments
        legal now decide the slot); other actions have an id of their own.
        """
        if isinstance(action, KeepTickets):
            if offer is None:
                if state is None:
                    raise ValueError("encoding a ticket choice needs the offer or the state")
                offer = state.offers[state.current]
            return self._encode_keep(action, offer)
        if isinstance(action, Claim) and action.route in self.slotted_routes:
            if state is None:
                raise ValueError(f"encoding claim {action.notation()} needs the state (its slot depends on it)")
            if not state.is_over:
                same_route = [a for a in state.legal_action_list() if isinstance(a, Claim) and a.route == action.route]
                slots: dict[int, Action] = {}
                self._assign_slots(same_route, slots)
                for action_id, legal in slots.items():
                    if legal == action:
                        return action_id
            raise ValueError(f"claim {action.notation()} is not one of the engine's listed payments now")
        return self._encode_fixed(action)

    def _encode_keep(self, action: KeepTickets, offer: Sequence[int]) -> int:
        ordered = sorted(offer)
        bits = 0
        for ticket in action.tickets:
            if ticket not in ordered:
                raise ValueError(f"ticket {ticket} is not in the offer {ordered}")
            bits |= 1 << ordered.index(ticket)
        if not 0 < bits <= NUM_KEEP:
            raise ValueError(f"cannot encode keeping {action.tickets} of {ordered}")
        return self.keep + bits - 1

    def _encode_fixed(self, action: Action) -> int:
        if isinstance(action, DrawFaceUp):
            return self.face_up + action.slot
        if isinstance(action, DrawBlind):
            return self.blind
        if isinstance(action, DrawTickets):
            return self.tickets
        if isinstance(action, DeclineTunnel):
            return self.decline
        if isinstance(action, Pass):
            return self.pass_
        if isinstance(action, PayTunnelExtra):
            total = sum(action.cards)
            locos = action.cards[LOCOMOTIVE]
            if not 1 <= total <= MAX_EXTRA:
                raise ValueError(f"a tunnel asks for 1 to {MAX_EXTRA} extra cards, not {total}")
            return self.extra + _extra_offset(total, locos)
        if isinstance(action, Claim):
            return self.claim + self._claim_offset(action.route, main_color(action.payment), action.payment)
        raise TypeError(f"not an action: {action!r}")

    def _claim_offset(self, route: int, slot: int, payment: Sequence[int]) -> int:
        index = self.claim_index.get((route, slot, payment[LOCOMOTIVE], sum(payment)))
        if index is None:
            raise ValueError(f"no id for claim {Claim(route, tuple(payment)).notation()}")  # type: ignore[arg-type]
        return index

    def mask(self, ids: Iterable[int]) -> NDArray[np.int8]:
        """A fresh int8 mask: 1 for each of ``ids``, else 0 (what the environments hand out).

        >>> action_space().mask([0, 5]).nonzero()[0].tolist()
        [0, 5]
        """
        mask = np.zeros(self.size, dtype=np.int8)
        mark = _MARK
        if mark is not None:
            mark(mask, ids if type(ids) is list else list(ids))  # in C: checks every id, then writes
        else:
            cells = mask.data  # one cell at a time: cheaper than numpy's item assignment
            for action_id in ids:
                cells[action_id] = 1
        return mask

    def legal_ids(self, state: GameState) -> dict[int, Action]:
        """The engine's legal actions of ``state`` by id: one id per listed action, no id shared."""
        ids, actions = self.legal_id_list(state)
        return dict(zip(ids, actions, strict=True))

    def legal_id_list(self, state: GameState) -> tuple[list[int], list[Action]]:
        """:meth:`legal_ids` as two lists in the engine's order: the ids and the actions."""
        actions = state.legal_action_list()  # empty once the game is over
        fast = self._fast_ids
        if fast is not None:
            found = fast.lookup(actions)  # None unless every action object is in the table
        else:
            try:
                # Every id in one pass in C, when every action object is in the table.
                found = list(map(self._fixed_ids.__getitem__, map(id, actions)))
            except KeyError:
                found = None
        if found is not None:
            ids = found
        else:
            if type(actions[0]) is KeepTickets:
                # A ticket choice lists only keeps, which are never in the table: their ids
                # depend on the offer, and nine offers in ten are new.
                return self._keep_ids(state, cast(list[KeepTickets], actions)), actions
            ids = self._add_to_table(actions)
        if _BY_LISTING in ids:
            ids = self._ids_of_listing(actions, ids)
        return ids, actions

    def _add_to_table(self, actions: list[Action]) -> list[int]:
        """The ids of ``actions`` from the table, after adding the action objects it lacked."""
        fixed, held, claim_index, fast = self._fixed_ids, self._held, self.claim_index, self._fast_ids
        if len(held) >= _FIXED_CACHE_LIMIT:
            # Emptied only between listings: a listing's slotted claims are judged by one table.
            fixed.clear()
            held.clear()
            if fast is not None:
                fast.clear()
            self._slot_owner.clear()
            self._shared_slots.clear()
            self._slotted.clear()
            self._natural.clear()
            self._listing_ids.clear()
        owners, shared, slotted, natural = self._slot_owner, self._shared_slots, self._slotted, self._natural
        ids = list(map(fixed.get, map(id, actions), repeat(-1)))
        for index in compress(range(len(ids)), map(eq, ids, repeat(-1))):
            action = actions[index]
            kind = type(action)
            if kind is Claim:
                claim: Claim = action  # type: ignore[assignment]  # checked above; cast() costs a call
                payment = claim.payment
                most = max(payment[:LOCOMOTIVE])  # main_color(payment), inline: a call costs more
                key = (claim.route, payment.index(most) if most > 0 else -1, payment[LOCOMOTIVE], sum(payment))
                offset = claim_index.get(key)
                if offset is None:
                    offset = self._claim_offset(claim.route, key[1], payment)  # raises, naming the claim
                action_id = self.claim + offset
                if claim.route in self.slotted_routes:
                    slotted.add(id(action))
                    natural[id(action)] = action_id
                    owner = owners.setdefault(action_id, id(action))
                    if action_id in shared:
                        action_id = _BY_LISTING
                    elif owner != id(action):
                        # A second claim object with this slot: from now on it is assigned per listing.
                        shared.add(action_id)
                        fixed[owner] = action_id = _BY_LISTING
                        if fast is not None:
                            fast.put(owner, _BY_LISTING)
                        # The first object may be in this listing with its natural id already.
                        for position, other in enumerate(actions):
                            if id(other) == owner:
                                ids[position] = _BY_LISTING
            else:  # keeps never come here: legal_id_list works them out from the offer
                action_id = self._encode_fixed(action)
            ids[index] = fixed[id(action)] = action_id
            if fast is not None:
                fast.put(id(action), action_id)
            held.append(action)
        return ids

    def _keep_ids(self, state: GameState, keeps: list[KeepTickets]) -> list[int]:
        """The ids of a ticket choice's keeps: the bits of each keep's tickets' places in the
        sorted offer (the engine lists subsets of the offer only; encode() checks a caller's)."""
        bits = {ticket: 1 << place for place, ticket in enumerate(sorted(state.offers[state.current]))}
        first = self.keep - 1
        return [first + sum(map(bits.__getitem__, keep.tickets)) for keep in keeps]

    def _ids_of_listing(self, actions: list[Action], ids: list[int]) -> list[int]:
        """``ids`` (a fresh list) completed for a listing with claims of shared slots.

        Only the claims of slotted routes decide one another's slots, so their ids are
        remembered by those claims alone: the rest of a listing changes with the hand, and
        keying on it missed nine times in ten.
        """
        # Most listings: the claims of shared slots each want a different slot, so each has
        # its main color's slot (no other claim of the listing wants it: a slot held by one
        # object alone is not shared). Only a clash needs the slots assigned.
        pending = [*compress(range(len(ids)), map(eq, ids, repeat(_BY_LISTING)))]
        wanted = [*map(self._natural.__getitem__, map(id, map(actions.__getitem__, pending)))]
        if len(set(wanted)) == len(wanted):
            for position, action_id in zip(pending, wanted, strict=True):
                ids[position] = action_id
            return ids
        objects = [*map(id, actions)]
        positions = [*compress(range(len(objects)), map(self._slotted.__contains__, objects))]
        key = tuple(map(objects.__getitem__, positions))
        known = self._listing_ids.get(key)
        if known is None:
            claims = [cast(Claim, actions[i]) for i in positions]
            by_id: dict[int, Action] = {}
            self._assign_slots(claims, by_id)
            slot_of = {id(claim): action_id for action_id, claim in by_id.items()}
            known = self._remember_listing(key, tuple(claims), [slot_of[k] for k in key])
        for position, action_id in zip(positions, known[1], strict=True):
            ids[position] = action_id
        return ids

    def _remember_listing(
        self, key: tuple[int, ...], actions: tuple[Action, ...], found: list[int]
    ) -> tuple[tuple[Action, ...], list[int]]:
        """Store a listing's ids under ``key``, with the actions whose id()s make the key."""
        if len(self._listing_ids) >= _LISTING_CACHE_LIMIT:
            self._listing_ids.clear()
        known = self._listing_ids[key] = (actions, found)
        return known

    def _assign_slots(self, claims: list[Claim], out: dict[int, Action]) -> None:
        """Give each claim of a gray ferry or Murmansk-Lieksa its own id (see the module docstring)."""
        groups: dict[tuple[int, int, int], list[Claim]] = {}
        for claim in claims:
            payment = claim.payment
            groups.setdefault((claim.route, payment[LOCOMOTIVE], sum(payment)), []).append(claim)
        for (route, locos, total), group in groups.items():
            if len(group) == 1:  # most groups: the claim has its main color's slot
                claim = group[0]
                offset = self.claim_index.get((route, main_color(claim.payment), locos, total))
                if offset is None:
                    offset = self._claim_offset(route, main_color(claim.payment), claim.payment)  # raises
                out[self.claim + offset] = claim
                continue
            # Order-independent: the payment with more cards of its main color keeps the slot.
            group.sort(key=lambda c: (-max(c.payment[:LOCOMOTIVE]), c.payment))
            taken: set[int] = set()
            displaced: list[Claim] = []
            for claim in group:
                slot = main_color(claim.payment)
                if slot in taken:
                    displaced.append(claim)
                    continue
                taken.add(slot)
                out[self.claim + self._claim_offset(route, slot, claim.payment)] = claim
            for claim in displaced:
                free = [s for s in (OVERFLOW, *COLORS) if s not in taken]
                if not free:
                    raise RuntimeError(f"more than {len(COLORS) + 1} payments for route {route} of {total} cards")
                taken.add(free[0])
                out[self.claim + self._claim_offset(route, free[0], claim.payment)] = claim

    def decode(self, action_id: int, state: GameState) -> Action:
        """The engine's legal action of ``state`` with this id; ValueError if none is legal."""
        if not 0 <= action_id < self.size:
            raise ValueError(f"action ids are 0 to {self.size - 1}, got {action_id}")
        action = self.legal_ids(state).get(action_id)
        if action is None:
            raise ValueError(f"action {action_id} ({self.describe(action_id)}) is not legal now")
        return action

    def describe(self, action_id: int) -> str:
        """A readable name of an id, independent of any position."""
        if not 0 <= action_id < self.size:
            raise ValueError(f"action ids are 0 to {self.size - 1}, got {action_id}")
        if action_id < self.blind:
            return f"draw face-up slot {action_id - self.face_up + 1}"
        if action_id == self.blind:
            return "draw blind"
        if action_id == self.tickets:
            return "draw tickets"
        if action_id < self.decline:
            bits = action_id - self.keep + 1
            return "keep offered tickets " + ",".join(str(i + 1) for i in range(MAX_OFFER) if bits >> i & 1)
        if action_id == self.decline:
            return "decline tunnel"
        if action_id == self.pass_:
            return "pass"
        if action_id < self.claim:
            total, locos = _EXTRA_KEYS[action_id - self.extra]
            return f"tunnel extra: {total} card(s), {locos} locomotive(s)"
        route, color, locos, total = self.claim_keys[action_id - self.claim]
        kind = "another payment" if color == OVERFLOW else f"main color {color}"
        return f"claim R{route + 1:02d}: {total} cards, {kind}, {locos} locomotive(s)"


_MARK = None if _accel.FAST is None else _accel.FAST.mark
_FIXED_CACHE_LIMIT = 200_000  # entries hold their actions alive: about 40 MB at most (0.2 KB an entry)
_LISTING_CACHE_LIMIT = 20_000
_BY_LISTING = -2  # in the table: the action's id is worked out per listing


_EXTRA_KEYS = tuple((total, locos) for total in range(1, MAX_EXTRA + 1) for locos in range(total + 1))


def _extra_offset(total: int, locos: int) -> int:
    return _EXTRA_KEYS.index((total, locos))


def _claim_keys(board: Board) -> Iterable[tuple[int, int, int, int]]:
    for route in board.routes:
        n = route.length
        colors = list(COLORS) if route.color < 0 else [route.color]
        if route.kind is RouteKind.REGULAR:
            for color in colors:
                yield (route.id, color, 0, n)
        elif route.kind is RouteKind.TUNNEL:
            for color, locos in product(colors, range(n)):
                yield (route.id, color, locos, n)
            yield (route.id, -1, n, n)
        else:
            step = _GROUP_EXTRA[route.kind]
            # Cards in groups may be of any color, so the main color can be any.
            for total in range(n, n + step * n + 1, step):
                for locos in range(min(total, MAX_LOCOMOTIVES) + 1):
                    if locos < total:
                        for color in COLORS:
                            yield (route.id, color, locos, total)
                    else:
                        yield (route.id, -1, locos, total)


def _overflow_keys(board: Board) -> Iterable[tuple[int, int, int, int]]:
    """The overflow slots, after every other claim so that the earlier ids kept their meaning."""
    for route in board.routes:
        if route.color < 0 and route.kind in _GROUP_EXTRA:
            n, step = route.length, _GROUP_EXTRA[route.kind]
            for total in range(n, n + step * n + 1, step):
                for locos in range(min(total - 1, MAX_LOCOMOTIVES) + 1):
                    yield (route.id, OVERFLOW, locos, total)


@cache
def action_space(board: Board | None = None) -> ActionSpace:
    """The enumeration for ``board`` (the Nordic board by default)."""
    board = board or load_board()
    keys = (*_claim_keys(board), *_overflow_keys(board))
    face_up = 0
    blind = face_up + NUM_SLOTS
    tickets = blind + 1
    keep = tickets + 1
    decline = keep + NUM_KEEP
    pass_ = decline + 1
    extra = pass_ + 1
    claim = extra + len(_EXTRA_KEYS)
    return ActionSpace(
        size=claim + len(keys),
        face_up=face_up,
        blind=blind,
        tickets=tickets,
        keep=keep,
        decline=decline,
        pass_=pass_,
        extra=extra,
        claim=claim,
        claim_keys=keys,
        claim_index={key: i for i, key in enumerate(keys)},
        slotted_routes=frozenset(
            r.id for r in board.routes if r.color < 0 and r.kind in (RouteKind.FERRY, RouteKind.SPECIAL)
        ),
    )
