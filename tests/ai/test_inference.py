"""Ticket inference: the claim history read from the log, sampled ticket sets (size, only
possible tickets, better than chance on Route Focus games) and ticket conservation when a
guess is put into a sample."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ttr_nordic.ai.baselines import RouteFocusAgent
from ttr_nordic.ai.inference import TicketInference, assign_tickets, claim_history
from ttr_nordic.engine import GameState


def played(seed: int, turns: int) -> tuple[GameState, list[tuple[int, int]]]:
    """A 2-player Route Focus game after ``turns`` turns, and the claims that stand, in order."""
    game = GameState.new(players=2, seed=seed)
    agents = [RouteFocusAgent(seed=seed), RouteFocusAgent(seed=seed + 1)]
    claims: list[tuple[int, int]] = []
    while not game.is_over and game.turn < turns:
        p = game.decision.player
        before = list(game.route_owner)
        game.apply(agents[p].choose(game.view(p), game.legal_action_list()), p)
        # a tunnel becomes the player's only when its extra cards are paid
        claims += [(owner, r) for r, owner in enumerate(game.route_owner) if owner != before[r]]
    return game, claims


def ticket_places(game: GameState) -> Counter[int]:
    places: Counter[int] = Counter(game.ticket_deck)
    for q in range(game.num_players):
        places.update(game.tickets[q])
        places.update(game.offers[q])
    return places


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_claim_history_matches_the_game(seed: int) -> None:
    game, claims = played(seed, 50)
    history = claim_history(game.view(0))
    assert [(p, r) for p, r, _ in history] == claims
    for index, (_, route, owners) in enumerate(history):
        assert owners[route] == -1  # free just before its claim
        assert sum(1 for o in owners if o != -1) == index


def test_samples_have_the_right_size_and_only_possible_tickets() -> None:
    game, _ = played(4, 40)
    view = game.view(0)
    inference = TicketInference()
    rng = random.Random(0)
    impossible = set(view.tickets) | set(view.returned_tickets)
    for _ in range(20):
        guess = inference.sample(view, 1, rng)
        assert len(guess) == view.ticket_counts[1] == len(set(guess))
        assert not impossible & set(guess)
    assert inference.sample(view, 1, random.Random(5)) == inference.sample(view, 1, random.Random(5))


def test_guesses_beat_chance_on_route_focus_games() -> None:
    """Mid-game, the guessed tickets are the real ones several times more often than random guesses."""
    hits = chance = total = 0
    rng = random.Random(1)
    for seed in range(6):
        game, _ = played(100 + seed, 40)
        view = game.view(0)
        real = set(game.tickets[1])
        pool = [t for t in range(len(game.board.tickets)) if t not in set(view.tickets) | set(view.returned_tickets)]
        inference = TicketInference()
        for _ in range(10):
            guess = inference.sample(view, 1, rng)
            hits += len(real & set(guess))
            chance += len(real & set(rng.sample(pool, len(guess))))
            total += len(guess)
    assert hits >= 3 * max(chance, 1), (hits, chance, total)


@pytest.mark.parametrize("players", [2, 3])
def test_assign_tickets_conserves_tickets(players: int) -> None:
    game = GameState.new(players=players, seed=9)
    agents = [RouteFocusAgent(seed=q) for q in range(players)]
    while game.turn < 30:
        p = game.decision.player
        game.apply(agents[p].choose(game.view(p), game.legal_action_list()), p)
    view = game.view(0)
    rng = random.Random(2)
    inference = TicketInference()
    for _ in range(10):
        sample = view.determinize(rng)
        before = ticket_places(sample)
        for q in range(1, players):
            guess = inference.sample(view, q, rng)
            assign_tickets(sample, q, guess)
            assert sorted(sample.tickets[q]) == sorted(guess)
        assert sample.tickets[0] == game.tickets[0]
        after = ticket_places(sample)
        assert all(n == 1 for n in after.values())
        # tickets may only trade places with tickets that were out of the game
        assert sum(after.values()) == sum(before.values())
