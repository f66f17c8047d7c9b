"""The shortcuts of the baselines give exactly what the direct computations give: the plans
of every decision (costs from ``hand_costs``) and of ticket choices (:func:`plan_choices`, which
shares the planning of common tickets) those of ``plan_tickets``, ``hand_costs`` the costs of
the hand weights, the grouping of claims by route the claim-by-claim grouping."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from itertools import combinations

from ttr_nordic.ai import RouteFocusAgent, play_game
from ttr_nordic.ai.baselines import Context, _split_legal
from ttr_nordic.ai.planning import (
    BLOCKED,
    FREE,
    OWN,
    BoardTables,
    HandCosts,
    _most_held_color,
    board_tables,
    card_deficits,
    card_wants,
    costs_for,
    hand_costs,
    hand_weights,
    payment_cost,
    plan_choices,
    plan_tickets,
    route_status,
)
from ttr_nordic.engine import Action, Claim, GameState, Phase, PlayerView


class _CheckedPlanning(RouteFocusAgent):
    """Route Focus that also plans every decision with ``plan_tickets`` and compares."""

    decisions = 0

    def _context(self, view: PlayerView, legal: Sequence[Action]) -> Context:
        ctx = super()._context(view, legal)
        fresh = plan_tickets(
            ctx.tables,
            ctx.status,
            self._plan_weights(ctx.tables, view),
            self._order(ctx.tables, view.tickets),
            view.trains[view.player],
        )
        assert dataclasses.asdict(ctx.plan) == dataclasses.asdict(fresh)
        _CheckedPlanning.decisions += 1
        return ctx


def test_route_focus_plans_are_those_of_plan_tickets() -> None:
    for seed, players in [(s, 2) for s in range(6)] + [(s, 3) for s in range(3)]:
        seats = [_CheckedPlanning(seed=seed * players + q) for q in range(players)]
        assert play_game(seats, seed=seed).is_over
    assert _CheckedPlanning.decisions > 500


def test_plan_choices_equals_extending_the_held_plan() -> None:
    rng = random.Random(11)
    for seed in range(10):
        game = GameState.new(players=2, seed=seed)
        tables = board_tables(game.board)
        for rid in rng.sample(range(len(game.route_owner)), 10):
            game.route_owner[rid] = rng.randrange(2)
        status = route_status(game.view(0))
        tickets = rng.sample(range(len(game.board.tickets)), 8)
        held, offer = tickets[:3], tickets[3:]
        trains = rng.choice([None, 10, 25, 45])
        choices = [list(c) for size in range(len(offer), 0, -1) for c in combinations(offer, size)]
        rng.shuffle(choices)
        plans = plan_choices(tables, status, tables.train_cost, held, choices, trains)
        start = plan_tickets(tables, status, tables.train_cost, held, trains)
        for choice, plan in zip(choices, plans, strict=True):
            expected = plan_tickets(tables, status, tables.train_cost, choice, trains, start=start)
            assert dataclasses.asdict(plan) == dataclasses.asdict(expected)


def test_hand_costs_equal_costs_of_hand_weights() -> None:
    rng = random.Random(5)
    tables = board_tables(GameState.new(players=2, seed=1).board)
    for _ in range(300):
        hand = [rng.choice([0, 0, 1, 2, 3, 5, 9]) for _ in range(9)]
        status = [rng.choice([OWN, FREE, FREE, BLOCKED]) for _ in range(tables.num_routes)]
        weights = rng.choice([tables.train_cost, tables.long_cost])
        beta = rng.choice([0.0, 0.1, 0.25])
        expected = costs_for(status, hand_weights(tables, weights, hand, beta))
        assert hand_costs(tables, weights, hand, beta, status) == expected


def test_hand_costs_updated_from_hand_to_hand_equal_the_full_costs() -> None:
    """HandCosts, which works out again only the routes whose status or held cards changed,
    gives hand_costs' list at every step: cards drawn, paid, statuses changed (all, or a few
    routes with the cards paid for them), and the routes at cost 0 in it."""
    rng = random.Random(8)
    tables = board_tables(GameState.new(players=2, seed=1).board)
    for weights, beta in ((tables.train_cost, 0.1), (tables.long_cost, 0.25)):
        costs = HandCosts(tables, weights, beta)
        hand = [rng.randrange(3) for _ in range(9)]
        status = tuple(rng.choice([OWN, FREE, FREE, BLOCKED]) for _ in range(tables.num_routes))
        for step in range(400):
            move = rng.random()
            if move < 0.7:
                hand[rng.randrange(9)] += 1
            elif move < 0.85:
                hand = [max(0, n - rng.randrange(4)) for n in hand]
            elif move < 0.92:
                status = tuple(rng.choice([OWN, FREE, FREE, BLOCKED]) for _ in range(tables.num_routes))
            else:
                changed = list(status)
                for r in rng.sample(range(tables.num_routes), rng.randint(1, 3)):
                    changed[r] = rng.choice([OWN, FREE, BLOCKED])
                status = tuple(changed)
                hand = [max(0, n - rng.randrange(3)) for n in hand]
            listed = costs(tuple(hand), status)
            assert listed == hand_costs(tables, weights, hand, beta, status), step
            assert costs.zero_routes() == sum(1 << r for r, c in enumerate(listed) if c == 0.0), step


def test_payment_cost_equals_the_kind_by_kind_sum() -> None:
    rng = random.Random(6)
    for _ in range(3000):
        payment = [rng.choice([0, 0, 0, 1, 2, 3, 6]) for _ in range(9)]
        reserved = [rng.choice([0, 0, 1, 2, 4]) for _ in range(9)]
        weight = rng.choice([2.5, 2.3, 1.0])
        expected = 0.0
        for k, count in enumerate(payment):
            if count and k == 8:
                expected += count * (weight + (1.0 if reserved[k] else 0.0))
            elif count:
                expected += count + 1.5 * min(count, reserved[k])
        assert payment_cost(payment, reserved, weight) == expected


def test_most_held_color_is_the_lowest_of_the_most_held() -> None:
    rng = random.Random(4)
    for _ in range(2000):
        counts = [rng.randrange(4) for _ in range(9)]
        assert _most_held_color(counts) == max(range(8), key=lambda c: (counts[c], -c))


def test_claims_are_grouped_as_listed_in_any_order() -> None:
    """The run-wise grouping of the engine's listing equals grouping claim by claim, also for
    listings in another order (draws among the claims, a route's claims apart)."""
    rng = random.Random(2)
    for seed in range(40):
        game = GameState.new(players=2, seed=seed)
        game.hands[0] = [rng.randrange(6) for _ in range(9)]
        legal = game.legal_action_list()
        for listing in (legal, rng.sample(legal, len(legal)), tuple(legal)):
            claims, others = _split_legal(listing)
            expected: dict[int, list[Action]] = {}
            for action in listing:
                if isinstance(action, Claim):
                    expected.setdefault(action.route, []).append(action)
            assert claims == expected and list(claims) == list(expected)
            assert list(others) == [a for a in listing if not isinstance(a, Claim)]


def _wants_from_deficits(tables: BoardTables, routes: Sequence[int], hand: Sequence[int], decay: float) -> list[float]:
    """card_wants as the deficits of card_deficits define it, kind by kind."""
    deficits, _ = card_deficits(tables, routes, hand)
    wants = [0.0] * 9
    for i, (r, need) in enumerate(zip(routes, deficits, strict=True)):
        weight = 1.0 / (1.0 + decay * i)
        flexible = tables.ferry_or_tunnel(r)
        for k, missing in enumerate(need):
            if missing:
                value = weight * (1.15 if k == 8 else 1.0)
                wants[k] = max(wants[k], value) + 0.02 * missing
                if flexible and k != 8:
                    wants[8] = max(wants[8], 0.6 * weight)
    return wants


def test_card_wants_equal_the_deficits_kind_by_kind() -> None:
    rng = random.Random(12)
    tables = board_tables(GameState.new(players=2, seed=1).board)
    for _ in range(3000):
        routes = rng.sample(range(tables.num_routes), rng.randint(0, 8))
        hand = [rng.choice([0, 0, 1, 1, 2, 3, 5]) for _ in range(9)]
        decay = rng.choice([0.25, 1.0])
        assert card_wants(tables, routes, hand, decay) == _wants_from_deficits(tables, routes, hand, decay)


def _status_by_rule(view: PlayerView, respect_trains: bool, player: int) -> tuple[int, ...]:
    tables = board_tables(view.board)
    trains = view.trains[player] if respect_trains else 1_000
    out = []
    for r, holder in enumerate(view.route_owner):
        twin = tables.twin[r]
        twin_holder = view.route_owner[twin] if twin >= 0 else -1
        if holder == player:
            out.append(OWN)
        elif (
            holder != -1
            or tables.length[r] > trains
            or (twin_holder != -1 and (twin_holder == player or view.num_players == 2))
        ):
            out.append(BLOCKED)
        else:
            out.append(FREE)
    return tuple(out)


def test_route_status_follows_claims_as_the_rule_says() -> None:
    """route_status, worked out from the last status after a claim or two, is the rule's status
    at every decision of interleaved games (2 and 3 players, each seat, trains or not)."""
    rng = random.Random(13)
    games = [GameState.new(players=2, seed=21), GameState.new(players=3, seed=22), GameState.new(players=2, seed=23)]
    checked = 0
    while any(not g.is_over for g in games):
        for game in games:
            if game.is_over:
                continue
            view = game.view(game.current, log=False)
            for player in range(game.num_players):
                for respect in (True, False):
                    assert route_status(view, respect, player) == _status_by_rule(view, respect, player)
                    checked += 1
            legal = game.legal_action_list()
            claims = [a for a in legal if isinstance(a, Claim)]
            game.apply(rng.choice(claims) if claims and rng.random() < 0.5 else rng.choice(legal))
    assert checked > 2000


def test_has_claim_tells_the_routes_claim_gives_a_claim_for() -> None:
    """best_immediate_claim skips the choice of a claim for a route that cannot win, on the word of
    _has_claim: at the main actions of random games (all kinds of hands: tunnels paid with every
    card, or not), it tells for every regular route and tunnel whether claim() gives one (a ferry
    or Murmansk–Lieksa has one if any is listed, for both: their payments, very many for the big
    hands of random play, are not listed here)."""
    rng = random.Random(14)
    agent = RouteFocusAgent(seed=1)
    tables = board_tables(GameState.new(players=2, seed=0).board)
    routes = [r for r in range(tables.num_routes) if tables.kind[r] in (0, 2)]  # regular, tunnel
    checked = unpaid_tunnels = 0
    for seed in range(8):
        game = GameState.new(players=2 + seed % 2, seed=seed)
        for _ in range(150):
            if game.is_over:
                break
            if game.phase is Phase.CHOOSE_ACTION:
                view = game.view(game.current, log=False)
                ctx = agent._context(view, game.legal_sequence())
                targets = agent.targets(ctx)
                for route in routes:
                    has = agent._has_claim(ctx, route)
                    assert has == (agent.claim(ctx, route, targets) is not None), (seed, route)
                    unpaid_tunnels += bool(ctx.claims.get(route)) and not has
                    checked += 1
            game.apply(rng.choice(game.legal_action_list()))
    assert checked > 10_000 and unpaid_tunnels > 0
