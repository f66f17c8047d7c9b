"""Ways for a policy to get the legal ids from an environment's int8 action mask (6,394 cells),
nanoseconds per mask (median of ``--runs``), on masks of a random PettingZoo game.

- ``bool_view_nonzero``: ``mask.view(np.bool_).nonzero()[0].tolist()`` (what ``rl_speed.py``'s
  runners do);
- ``int8_nonzero``: ``mask.nonzero()[0].tolist()`` (``nonzero`` on the int8 array itself);
- ``flatnonzero_bool``: ``np.flatnonzero(mask.view(np.bool_)).tolist()``;
- ``compress``: ``ids.compress(mask.view(np.bool_)).tolist()`` with ``ids = np.arange(size)``;
- ``index_bool``: ``ids[mask.view(np.bool_)].tolist()``;
- ``info_ids``: ``list(info["legal_ids"])``, the ids the environments list beside the mask (a copy,
  so that it costs what a policy that keeps its own list would pay).

Prints ``NAME_ns N`` per way, fastest first.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ttr_nordic.rl import aec_env


def masks_and_ids(count: int, seed: int) -> list[tuple[np.ndarray, list[int]]]:
    """``count`` masks (copies) and legal id lists of a random 2-player game's decisions."""
    env = aec_env(players=2)
    env.reset(seed=seed)
    rng = random.Random(seed)
    found: list[tuple[np.ndarray, list[int]]] = []
    while len(found) < count:
        obs, _reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.reset()
            continue
        found.append((obs["action_mask"].copy(), list(info["legal_ids"])))
        env.step(rng.choice(info["legal_ids"]))
    return found


def ways(size: int) -> dict[str, Callable[[np.ndarray, list[int]], Any]]:
    ids = np.arange(size)
    return {
        "bool_view_nonzero": lambda mask, _ids: mask.view(np.bool_).nonzero()[0].tolist(),
        "int8_nonzero": lambda mask, _ids: mask.nonzero()[0].tolist(),
        "flatnonzero_bool": lambda mask, _ids: np.flatnonzero(mask.view(np.bool_)).tolist(),
        "compress": lambda mask, _ids: ids.compress(mask.view(np.bool_)).tolist(),
        "index_bool": lambda mask, _ids: ids[mask.view(np.bool_)].tolist(),
        "info_ids": lambda _mask, legal: list(legal),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=20000, help="masks scanned per run and way")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    if args.calls < 1 or args.runs < 1:
        parser.error("--calls and --runs must be positive")
    # Eight masks in turn: in the caches, as a step's fresh mask is.
    samples = masks_and_ids(8, seed=3)
    candidates = ways(samples[0][0].size)
    for name, way in candidates.items():  # every way gives the same ids
        assert all(sorted(way(mask, legal)) == sorted(legal) for mask, legal in samples), name
    times: dict[str, list[float]] = {name: [] for name in candidates}
    rounds = max(1, args.calls // len(samples))
    for run in range(args.runs):  # the ways alternate, the order reversed every other run
        for name in candidates if run % 2 == 0 else reversed(list(candidates)):
            way = candidates[name]
            started = time.process_time()
            for _ in range(rounds):
                for mask, legal in samples:
                    way(mask, legal)
            times[name].append((time.process_time() - started) / (rounds * len(samples)) * 1e9)
    for name in sorted(times, key=lambda n: statistics.median(times[n])):
        print(f"{name}_ns {statistics.median(times[name]):.0f}")


if __name__ == "__main__":
    main()
