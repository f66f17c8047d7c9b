"""Seeded games are pinned: the engine plays them exactly as it did when these hashes were taken.

Any speed work on the engine (caches, other data structures, a different module layout) must
leave every seeded game bit-for-bit the same: the same legal actions in the same order, the
same shuffles, the same log, views and scores. A change of the rules would change these hashes
on purpose; then the new hashes are written down with the reason in the commit.
"""

from __future__ import annotations

import hashlib
import random

from ttr_nordic.engine import GameState


def _random_games_digest(players: int, seeds: range) -> str:
    """Hash of every listing, every log entry, one view per game and the final result."""
    digest = hashlib.sha256()
    for seed in seeds:
        state = GameState.new(players=players, seed=seed)
        choose = random.Random(seed).choice
        while not state.is_over:
            legal = state.legal_action_list()
            digest.update(" ".join(a.notation() for a in legal).encode())
            state.apply_unchecked(choose(legal))
        for entry in state.log:
            digest.update(
                repr((entry.player, entry.action.notation(), entry.card, entry.revealed, entry.claimed)).encode()
            )
        view = state.view(seed % players)
        digest.update(repr([(line.text, line.notation) for line in view.log]).encode())
        result = state.result()
        digest.update(repr(result).encode())
        digest.update(state.record().to_json().encode())
    return digest.hexdigest()


def _checked_games_digest(seeds: range) -> str:
    """The same through the checked path: ``legal_actions()`` and ``apply`` with the player."""
    digest = hashlib.sha256()
    for seed in seeds:
        state = GameState.new(players=2, seed=seed, first_player=seed % 2)
        rng = random.Random(1000 + seed)
        while not state.is_over:
            actions = list(state.legal_actions())
            action = rng.choice(actions)
            assert action in state.legal_actions()
            state.apply(action, state.decision.player)
        digest.update(repr(state.result()).encode())
        digest.update(state.record().to_json().encode())
    return digest.hexdigest()


def test_random_two_player_games_are_unchanged() -> None:
    assert _random_games_digest(2, range(120)) == "9fa5d12016a60be8e37a0c113560f913abe65a80c34006d90b82a22e4110de2a"


def test_random_three_player_games_are_unchanged() -> None:
    assert _random_games_digest(3, range(80)) == "256dfe56998c6ee0d7bccddef405e824ea2d2722f088dbaff04f30256c03e65d"


def test_checked_games_are_unchanged() -> None:
    assert _checked_games_digest(range(30)) == "621a8cb388f6ae05234b2de5dca90096a6df542d25776c9567c72caaaee9a43a"
