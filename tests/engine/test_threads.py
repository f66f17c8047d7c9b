"""The engine's shared claim caches stay correct when games run on several threads at once."""

from __future__ import annotations

import random
import sys
import threading

import pytest

from ttr_nordic.engine import GameState
from ttr_nordic.engine import claims as claims_module


def _play(seeds: range, errors: list[BaseException], finals: dict[int, int]) -> None:
    try:
        for seed in seeds:
            game = GameState.new(players=2, seed=seed)
            choose = random.Random(seed).choice
            while not game.is_over:
                game.apply_unchecked(choose(game.legal_action_list()))
            finals[seed] = len(game.history)
    except BaseException as err:  # any error on a thread fails the test
        errors.append(err)


def test_games_on_threads_share_the_claim_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    # A tiny cache makes every thread drop old hands while the others read and insert, and a
    # tiny switch interval interleaves them mid-operation, as expert AIs thinking at once do.
    monkeypatch.setattr(claims_module, "_CANDIDATE_CACHE_SIZE", 8)
    monkeypatch.setattr(claims_module, "_LAZY_CLAIM_LIMIT", 50)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    errors: list[BaseException] = []
    finals: dict[int, int] = {}
    try:
        threads = [threading.Thread(target=_play, args=(range(k * 6, k * 6 + 6), errors, finals)) for k in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    # The same games alone, one after another, end after the same number of moves.
    alone: dict[int, int] = {}
    _play(range(24), errors, alone)
    assert errors == []
    assert finals == alone
