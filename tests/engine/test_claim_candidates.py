"""The claim candidates of a hand (grouped by what decides them, then put back in route order)
are those of a route-by-route reading of the rules: the same routes, in the same order, with
the same claims."""

from __future__ import annotations

import random
from itertools import product

from ttr_nordic.engine import Claim, GameState
from ttr_nordic.engine.board import GRAY, Board, RouteKind
from ttr_nordic.engine.cards import COLORS, LOCOMOTIVE, NUM_KINDS, Counts
from ttr_nordic.engine.claims import CLAIM_SETS, claim_candidates, expensive_claims, route_tables
from ttr_nordic.engine.payments import ferry_options, special_options, tunnel_options


def _reference(board: Board, hand: Counts) -> list[tuple[int, tuple[Claim, ...]]]:
    """Route by route: whether ``hand`` might pay for it, and then its claims."""
    locos = hand[LOCOMOTIVE]
    best = max(hand[:LOCOMOTIVE])
    total = sum(hand)
    out: list[tuple[int, tuple[Claim, ...]]] = []
    for route in board.routes:
        n = route.length
        if route.kind is RouteKind.REGULAR:
            colors = [c for c in COLORS if route.color in (GRAY, c) and hand[c] >= n]
            if colors:
                payments = [tuple(n if k == c else 0 for k in range(NUM_KINDS)) for c in colors]
                out.append((route.id, tuple(Claim(route.id, p) for p in payments)))  # type: ignore[arg-type]
        elif route.kind is RouteKind.TUNNEL:
            top = best if route.color == GRAY else hand[route.color]
            if top + locos >= n:
                out.append((route.id, tuple(Claim(route.id, p) for p in tunnel_options(route, hand))))
        elif route.kind is RouteKind.FERRY:
            if total >= n and (locos or total >= n + 2):
                out.append((route.id, tuple(Claim(route.id, p) for p in ferry_options(route, hand))))
        elif total >= n:
            out.append((route.id, tuple(Claim(route.id, p) for p in special_options(route, hand))))
    return out


def _listed(board: Board, hand: Counts) -> list[tuple[int, tuple[Claim, ...]]]:
    routes, simple, cache = route_tables(board)
    found, lazy = claim_candidates(board, routes, simple, {}, hand)
    out = []
    for rid, length, twin, cid in found:
        assert (length, twin) == (routes[rid].length, routes[rid].twin)
        claims = CLAIM_SETS[cid] if cid >= 0 else expensive_claims(board, cache, rid, hand)
        if cid < 0:
            assert lazy[-1 - cid] is None  # a fresh slot
        out.append((rid, claims))
    # No two routes share a lazy slot.
    slots = [cid for _, _, _, cid in found if cid < 0]
    assert len(set(slots)) == len(slots)
    return out


def test_candidates_are_those_of_the_rules() -> None:
    board = GameState.new(players=2, seed=0).board
    rng = random.Random(5)
    hands: list[Counts] = [
        (0,) * NUM_KINDS,
        (0,) * LOCOMOTIVE + (14,),
        (12,) + (0,) * LOCOMOTIVE,
        (6,) * NUM_KINDS,
    ]
    # Every hand of up to 3 cards of 3 colors and up to 3 locomotives, then random ones.
    for a, b, c, locos in product(range(4), repeat=4):
        hands.append((a, 0, b, 0, 0, c, 0, 0, locos))
    for _ in range(600):
        counts = [0] * NUM_KINDS
        for _ in range(rng.randint(1, 24)):
            counts[rng.randrange(NUM_KINDS)] += 1
        hands.append(tuple(counts))  # type: ignore[arg-type]
    for hand in hands:
        assert _listed(board, hand) == _reference(board, hand), hand
