"""Payment rules by route type (spec R6.7–R6.12): checking and enumerating.

A payment is nine card counts. ``check_payment`` answers whether a payment
fits a route (and why not); ``payment_options`` lists the distinct payments a
hand allows for a route.

Enumeration lists one payment per *payment structure*: the chosen color, how
many spaces are paid with single color cards, with single locomotives and
with groups (3 cards on ferries, 4 on Murmansk–Lieksa). Which cards fill the
groups is a free choice of the player; the options fill groups canonically
(colors other than the payment color first, fewest-held first, then the
payment color, then locomotives last), and any other valid filling is still
accepted by ``check_payment`` and by the game.

>>> from ttr_nordic.engine.board import load_board
>>> from ttr_nordic.engine.cards import parse_cards, cards_to_letters
>>> ferry = load_board().route_by_code("R45")  # Kristiansand–Stavanger, 3 orange, 1 loco
>>> check_payment(ferry, parse_cards("OOL")) is None
True
>>> check_payment(ferry, parse_cards("OOO")).name
'MISSING_LOCOMOTIVES'
>>> sorted(cards_to_letters(p) for p in payment_options(ferry, parse_cards("OOOLL")))
['OLL', 'OOL', 'OOOLL']
"""

from __future__ import annotations

from collections.abc import Sequence

from .board import GRAY, Route, RouteKind
from .cards import COLORS, LOCOMOTIVE, Counts
from .errors import Reason

# The group sizes (3 on ferries, 4 on Murmansk–Lieksa) come from each route's ``group``: a
# variant may change them.

_Counts9 = list[int]


def _single_color(payment: Sequence[int]) -> int | None:
    """The one color among the non-locomotive cards, -2 if none, None if several."""
    found = -2
    for color in COLORS:
        if payment[color]:
            if found != -2:
                return None
            found = color
    return found


def check_payment(route: Route, payment: Sequence[int]) -> Reason | None:
    """Why ``payment`` cannot claim ``route`` (ignoring the hand), or None if it fits."""
    kind = route.kind
    n = route.length
    total = sum(payment)
    locos = payment[LOCOMOTIVE]
    if kind is RouteKind.REGULAR or kind is RouteKind.TUNNEL:
        # Both take N cards of one color; tunnels also take locomotives (R6.7, R6.8, R6.10).
        if locos and kind is RouteKind.REGULAR:
            return Reason.LOCOMOTIVE_NOT_ALLOWED
        color = _single_color(payment)
        if color is None or (route.color != GRAY and color not in (-2, route.color)):
            return Reason.WRONG_COLOR
        if total != n:
            return Reason.INVALID_PAYMENT
        return None
    if kind is RouteKind.FERRY:
        return _check_ferry(route, payment, total, locos)
    return _check_special(route, payment, total)


def _ferry_fits(n: int, loco_spaces: int, total: int, locos: int, color_cards: int, group: int) -> bool:
    extra = total - n
    if extra < 0 or extra % (group - 1):
        return False
    groups = extra // (group - 1)
    if groups > n:
        return False
    singles = n - groups
    return min(locos, singles) + min(color_cards, n - loco_spaces, singles) >= singles


def _check_ferry(route: Route, payment: Sequence[int], total: int, locos: int) -> Reason | None:
    n, loco_spaces = route.length, route.ferry_locomotives
    colors = COLORS if route.color == GRAY else (route.color,)
    group = route.group
    if any(_ferry_fits(n, loco_spaces, total, locos, payment[c], group) for c in colors):
        return None
    if total == n and locos < loco_spaces:
        single = _single_color(payment)
        if single == -2 or (single is not None and single in colors):
            return Reason.MISSING_LOCOMOTIVES
    return Reason.INVALID_PAYMENT


def _check_special(route: Route, payment: Sequence[int], total: int) -> Reason | None:
    n = route.length
    extra = total - n
    group = route.group
    if extra >= 0 and extra % (group - 1) == 0:
        groups = extra // (group - 1)
        if groups <= n and max(payment[c] for c in COLORS) >= n - groups:
            return None
    if total == n and payment[LOCOMOTIVE]:
        return Reason.LOCOMOTIVE_NOT_ALLOWED
    return Reason.INVALID_PAYMENT


def _fill_groups(rest: _Counts9, need: int, color: int) -> _Counts9 | None:
    """Take ``need`` cards from ``rest`` canonically; None if there are too few."""
    if need == 0:
        return [0] * 9
    if sum(rest) < need:
        return None
    taken = [0] * 9
    others = sorted((c for c in COLORS if c != color and rest[c]), key=lambda c: (rest[c], c))
    for card in (*others, color, LOCOMOTIVE):
        if card < 0 or not rest[card]:
            continue
        take = min(rest[card], need)
        taken[card] += take
        need -= take
        if need == 0:
            return taken
    return None


def _as_counts(values: _Counts9) -> Counts:
    return (values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7], values[8])


def ferry_options(route: Route, hand: Sequence[int]) -> list[Counts]:
    """Every payment structure for a ferry (R6.9), one canonical payment each.

    A structure is: how many groups (of 3 cards in the official rules), how many single color cards (and, on a gray
    ferry, of which color), the rest single locomotives. Groups take cards of other
    colors first, fewest held first, then the payment color, then locomotives; on a
    gray ferry, structures without single color cards have no payment color and their
    groups take from every color, fewest held first.
    """
    n, loco_spaces = route.length, route.ferry_locomotives
    total_hand = sum(hand)
    group = route.group
    max_groups = (total_hand - n) // (group - 1)
    if max_groups > n:
        max_groups = n
    if max_groups <= 0:
        return _ferry_singles(n, loco_spaces, hand, route.color)
    order = sorted(COLORS, key=hand.__getitem__)
    out: list[Counts] = []
    if route.color != GRAY:
        _ferry_structures(n, loco_spaces, hand, route.color, 0, max_groups, group, order, out)
        return out
    for color in COLORS:
        if hand[color]:
            _ferry_structures(n, loco_spaces, hand, color, 1, max_groups, group, order, out)
    _ferry_structures(n, loco_spaces, hand, -1, 0, max_groups, group, order, out)
    unique = list(dict.fromkeys(out))  # two colors' structures can meet in one multiset
    return unique


def _ferry_singles(n: int, loco_spaces: int, hand: Sequence[int], route_color: int) -> list[Counts]:
    """:func:`ferry_options` when the hand is too small for a group: single cards only, in the
    same order as :func:`_ferry_structures` lists them (the common case, kept short)."""
    hand_locos = hand[LOCOMOTIVE]
    out: list[Counts] = []
    for color in (route_color,) if route_color != GRAY else COLORS:
        have = hand[color]
        if not have and route_color == GRAY:
            continue
        top = n - loco_spaces if have > n - loco_spaces else have
        if top > n:
            top = n
        for color_cards in range(top, 0 if route_color == GRAY else -1, -1):
            loco_cards = n - color_cards
            if loco_cards > hand_locos:
                break
            payment = [0, 0, 0, 0, 0, 0, 0, 0, 0]
            payment[color] = color_cards
            payment[LOCOMOTIVE] = loco_cards
            out.append(_as_counts(payment))
    if route_color == GRAY and hand_locos >= n:
        out.append((0, 0, 0, 0, 0, 0, 0, 0, n))
    return out


def _ferry_structures(
    n: int,
    loco_spaces: int,
    hand: Sequence[int],
    color: int,
    min_color_cards: int,
    max_groups: int,
    group: int,
    order: Sequence[int],
    out: list[Counts],
) -> None:
    """Append the payments with at least ``min_color_cards`` single cards of ``color``
    (-1: no payment color, single locomotives only)."""
    hand_locos = hand[LOCOMOTIVE]
    have = hand[color] if color >= 0 else 0
    others = [c for c in order if c != color and hand[c]]
    color_limit = n - loco_spaces if have > n - loco_spaces else have
    for groups in range(max_groups + 1):
        prefix = [0] * 9
        missing = group * groups
        for other in others:
            if missing == 0:
                break
            take = hand[other] if hand[other] < missing else missing
            prefix[other] = take
            missing -= take
        singles = n - groups
        saturated_done = False
        for color_cards in range(color_limit if color_limit < singles else singles, min_color_cards - 1, -1):
            loco_cards = singles - color_cards
            if loco_cards > hand_locos:
                break
            spare_color = have - color_cards
            if spare_color <= missing:
                # The groups use up the color: every such split is the same multiset.
                if saturated_done:
                    continue
                saturated_done = True
                extra_color = spare_color
            else:
                extra_color = missing
            extra_locos = missing - extra_color
            if extra_locos > hand_locos - loco_cards:
                continue
            if color >= 0:
                prefix[color] = color_cards + extra_color
            prefix[LOCOMOTIVE] = loco_cards + extra_locos
            out.append(
                (prefix[0], prefix[1], prefix[2], prefix[3], prefix[4], prefix[5], prefix[6], prefix[7], prefix[8])
            )


def special_options(route: Route, hand: Sequence[int]) -> list[Counts]:
    """Every payment structure for Murmansk–Lieksa (R6.12), one canonical payment each."""
    n = route.length
    group = route.group
    total_hand = sum(hand)
    seen: set[Counts] = set()
    out: list[Counts] = []
    for color in COLORS:
        for groups in range(n + 1):
            color_cards = n - groups
            if color_cards > hand[color]:
                continue
            if color_cards + group * groups > total_hand:
                break
            rest = list(hand)
            rest[color] -= color_cards
            filler = _fill_groups(rest, group * groups, color)
            if filler is None:
                continue
            filler[color] += color_cards
            payment = _as_counts(filler)
            if payment not in seen:
                seen.add(payment)
                out.append(payment)
    return out


def tunnel_options(route: Route, hand: Sequence[int]) -> list[Counts]:
    """Every base payment for a tunnel (R6.10): each color/locomotive mix once."""
    n = route.length
    hand_locos = hand[LOCOMOTIVE]
    colors = COLORS if route.color == GRAY else (route.color,)
    out: list[Counts] = []
    if hand_locos >= n:
        only_locos = [0] * 9
        only_locos[LOCOMOTIVE] = n
        out.append(_as_counts(only_locos))
    for color in colors:
        for color_cards in range(min(hand[color], n), 0, -1):
            loco_cards = n - color_cards
            if loco_cards > hand_locos:
                break
            payment = [0] * 9
            payment[color] = color_cards
            payment[LOCOMOTIVE] = loco_cards
            out.append(_as_counts(payment))
    return out


def regular_options(route: Route, hand: Sequence[int]) -> list[Counts]:
    """Every payment for a regular route (R6.7, R6.8): one per color held in enough number."""
    n = route.length
    colors = COLORS if route.color == GRAY else (route.color,)
    out: list[Counts] = []
    for color in colors:
        if hand[color] >= n:
            payment = [0] * 9
            payment[color] = n
            out.append(_as_counts(payment))
    return out


def payment_options(route: Route, hand: Sequence[int]) -> list[Counts]:
    """The distinct payments ``hand`` allows for ``route`` (ignoring trains and ownership)."""
    kind = route.kind
    if kind is RouteKind.REGULAR:
        return regular_options(route, hand)
    if kind is RouteKind.FERRY:
        return ferry_options(route, hand)
    if kind is RouteKind.TUNNEL:
        return tunnel_options(route, hand)
    return special_options(route, hand)


def can_pay(route: Route, hand: Sequence[int]) -> bool:
    """Whether ``hand`` holds at least one valid payment for ``route``."""
    n = route.length
    kind = route.kind
    colors = COLORS if route.color == GRAY else (route.color,)
    best = max(hand[c] for c in colors)
    if kind is RouteKind.REGULAR:
        return best >= n
    locos = hand[LOCOMOTIVE]
    if kind is RouteKind.TUNNEL:
        return best + locos >= n
    if kind is RouteKind.FERRY:
        return bool(ferry_options(route, hand))
    return bool(special_options(route, hand))


def tunnel_extra_options(needed: int, locomotive_only: bool, color: int, hand: Sequence[int]) -> list[Counts]:
    """The extra payments for a tunnel that revealed ``needed`` matching cards (R6.11 step 7)."""
    hand_locos = hand[LOCOMOTIVE]
    out: list[Counts] = []
    color_max = 0 if locomotive_only else min(hand[color], needed)
    for color_cards in range(color_max, -1, -1):
        loco_cards = needed - color_cards
        if loco_cards > hand_locos:
            break
        payment = [0] * 9
        if color_cards:
            payment[color] = color_cards
        payment[LOCOMOTIVE] = loco_cards
        out.append(_as_counts(payment))
    return out


def check_tunnel_extra(needed: int, locomotive_only: bool, color: int, cards: Sequence[int]) -> bool:
    """Whether ``cards`` is a valid extra payment (only the count and the kinds matter)."""
    if sum(cards) != needed:
        return False
    allowed = (LOCOMOTIVE,) if locomotive_only else (color, LOCOMOTIVE)
    return all(cards[c] == 0 for c in range(9) if c not in allowed)
