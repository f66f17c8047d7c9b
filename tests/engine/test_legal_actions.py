"""The legal-action listing: sound (each listed action is accepted, no payment twice) and
complete (every kind of legal action is offered), checked through whole random games."""

from __future__ import annotations

import random

import pytest
from builders import FULL_DECK, LOCO, assert_listing_sound, assert_rejected, build, rid, snapshot

from ttr_nordic.engine import (
    Action,
    Claim,
    DrawFaceUp,
    GameState,
    IllegalActionError,
    KeepTickets,
    PayTunnelExtra,
    Phase,
    RouteKind,
    load_board,
)
from ttr_nordic.engine.actions import DECLINE_TUNNEL, DRAW_BLIND, DRAW_TICKETS, PASS
from ttr_nordic.engine.board import GRAY, Route

board = load_board()


def _can_pay(route: Route, hand: list[int]) -> bool:
    """An independent statement of R6.7–R6.12: does some payment from ``hand`` fit ``route``?"""
    n = route.length
    colors = range(8) if route.color == GRAY else (route.color,)
    total = sum(hand)
    locos = hand[LOCO]
    if route.kind is RouteKind.REGULAR:
        return any(hand[c] >= n for c in colors)
    if route.kind is RouteKind.TUNNEL:
        return any(hand[c] + locos >= n for c in colors) or locos >= n
    if route.kind is RouteKind.FERRY:
        for c in colors:
            for groups in range(n + 1):
                for loco_singles in range(min(locos, n - groups) + 1):
                    color_singles = n - groups - loco_singles
                    if color_singles > min(hand[c], n - route.ferry_locomotives):
                        continue
                    if total - loco_singles - color_singles >= 3 * groups:
                        return True
        return False
    return any(hand[c] >= 9 - q and total - (9 - q) >= 4 * q for c in colors for q in range(10))


def _claimable(state: GameState, route: Route) -> bool:
    p = state.current
    owner = state.route_owner
    if owner[route.id] != -1 or state.trains[p] < route.length:
        return False
    if route.twin is not None and owner[route.twin] != -1:
        if owner[route.twin] == p or state.num_players == 2:
            return False
    return _can_pay(route, state.hands[p])


def _check_complete(state: GameState) -> None:
    listed = state.legal_action_list()
    if state.phase is Phase.CHOOSE_ACTION:
        faces = {a.slot for a in listed if isinstance(a, DrawFaceUp)}
        assert faces == {i for i, c in enumerate(state.display) if c != -1}
        assert (DRAW_BLIND in listed) == bool(state.deck or sum(state.discard))
        assert (DRAW_TICKETS in listed) == bool(state.ticket_deck)
        routes = {a.route for a in listed if isinstance(a, Claim)}
        assert routes == {r.id for r in board.routes if _claimable(state, r)}
        others = [a for a in listed if a is not PASS]
        assert (PASS in listed) == (not others)


def _probes(state: GameState) -> list[Action]:
    probes: list[Action] = [PASS, DRAW_TICKETS, DRAW_BLIND, DECLINE_TUNNEL, *(DrawFaceUp(i) for i in range(5))]
    offer = state.offers[state.current] if state.current >= 0 else []
    probes += [KeepTickets((t,)) for t in offer]
    probes += [KeepTickets(tuple(offer[:k])) for k in range(len(offer) + 1)]
    probes += [KeepTickets((t,)) for t in state.tickets[state.current][:2]]
    for kind in range(9):
        for n in range(4):
            cards = [0] * 9
            cards[kind] = n
            probes.append(PayTunnelExtra(tuple(cards)))  # type: ignore[arg-type]
    return probes


def _check_probes(state: GameState) -> None:
    """Outside claims the listing is exhaustive: legal exactly when listed; refused without trace."""
    listed = set(state.legal_action_list())
    before = snapshot(state)
    for action in _probes(state):
        reason = state.rejection(action)
        assert (reason is None) == (action in listed), (action, reason)
        if reason is not None:
            with pytest.raises(IllegalActionError) as info:
                state.apply(action)
            assert info.value.reason is reason
    assert snapshot(state) == before


@pytest.mark.parametrize(("players", "seed"), [(2, 11), (3, 12), (2, 13)])
def test_listing_sound_and_complete_through_random_games(players: int, seed: int) -> None:
    rng = random.Random(seed)
    state = GameState.new(players=players, seed=seed)
    steps = 0
    while not state.is_over:
        if steps % 3 == 0:
            assert_listing_sound(state)
        _check_complete(state)
        _check_probes(state)
        assert list(state.card_total()) == FULL_DECK  # no card ever appears or vanishes
        listed = state.legal_action_list()
        # Prefer claims, so that the games reach tunnels, ferries and the end.
        claims = [a for a in listed if isinstance(a, Claim)]
        action = rng.choice(claims) if claims and rng.random() < 0.7 else rng.choice(listed)
        state.apply(action)
        steps += 1
    assert state.legal_action_list() == []
    assert sum(state.card_total()) == 110


def _perturb(rng: random.Random, payment: tuple[int, ...], hand: list[int]) -> tuple[int, ...]:
    """A near miss: one card added from the rest of the hand, one removed, or one swapped."""
    out = list(payment)
    spare = [k for k in range(9) if hand[k] > out[k]]
    held = [k for k in range(9) if out[k]]
    move = rng.choice(("add", "remove", "swap"))
    if move in ("remove", "swap") and held:
        out[rng.choice(held)] -= 1
    if move in ("add", "swap") and spare:
        out[rng.choice(spare)] += 1
    return tuple(out)


def test_random_claims_agree_with_the_listing() -> None:
    """Random and near-miss claims: accepted exactly when legal, refused without trace."""
    rng = random.Random(5)
    accepted = refused = 0
    for seed in (5, 6):
        state = GameState.new(players=3, seed=seed)
        while not state.is_over:
            listed = state.legal_action_list()
            if state.phase is Phase.CHOOSE_ACTION:
                hand = state.hands[state.current]
                valid = [a for a in listed if isinstance(a, Claim)]
                for _ in range(4):
                    if valid and rng.random() < 0.6:
                        base = rng.choice(valid)
                        route_id, payment = base.route, _perturb(rng, base.payment, hand)
                    else:
                        route_id = rng.randrange(len(board.routes))
                        payment = tuple(rng.randint(0, h) for h in hand)
                    action = Claim(route_id, payment)  # type: ignore[arg-type]
                    reason = state.rejection(action)
                    if reason is None:
                        trial = state.clone()
                        trial.apply(action)
                        assert trial.route_owner[route_id] == state.current or trial.phase is Phase.TUNNEL_EXTRA
                        accepted += 1
                    else:
                        assert_rejected(state, action, reason)
                        refused += 1
            state.apply(rng.choice(listed))
    assert accepted > 20 and refused > 100


def test_listing_offers_every_choice_on_one_hand() -> None:
    """One hand, the options the spec names: which color on gray, how many locomotives on a
    tunnel, how ferry loco spaces are covered, groups on Murmansk–Lieksa."""
    state = build(hands=["GGGGGGGGGYYYYLLWWWW", ""], display="PPPPP", deck="KK")
    listed = [a for a in assert_listing_sound(state) if isinstance(a, Claim)]

    def payments(code: str) -> set[str]:
        from ttr_nordic.engine.cards import cards_to_letters

        return {cards_to_letters(a.payment) for a in listed if a.route == rid(code)}

    assert payments("R18") == {"WWW", "YYY", "GGG"}  # gray 3: one per color held
    assert payments("R44") == {"GG", "GL", "LL"}  # green tunnel 2
    ferry = payments("R74")  # Stockholm–Tallinn: green 4, 2 loco spaces
    assert "GGLL" in ferry  # both loco spaces by locomotives
    assert any(p.count("L") == 1 and len(p) == 6 for p in ferry)  # one by a locomotive, one by a group
    assert any(len(p) == 8 for p in ferry)  # both by groups
    special = payments("R51")
    assert {len(p) for p in special} >= {9, 12, 15}
