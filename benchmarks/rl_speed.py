"""Environment steps per second of each RL wrapper against the bare engine (median of 5 runs).

Every runner plays uniformly random legal actions for ``--steps`` decisions (new games as they
end, seeded; the engine and PettingZoo runners deal the same games), one core; the choice is
Python's ``random.choice`` over the legal actions (the engine's list, or the mask's ids), so
that the policy costs about the same in every runner:

- ``engine``: ``state.legal_action_list()`` + ``state.apply`` (the bare engine);
- ``pettingzoo``: ``env.last()`` (observation vector + action mask) + ``env.step(id)``;
- ``gymnasium``: ``env.step(id)`` for one seat against a ``random`` agent; opponent decisions
  count as steps too (they are engine actions the wrapper runs);
- ``openspiel``: ``state.legal_actions()`` + ``state.apply_action(id)`` + the current player's
  observation tensor; the chance nodes between decisions (deal, draws) are sampled and applied
  as part of the step.

Each runner first plays a short warm-up game set (untimed); then the runs alternate between the
runners (the order reversed every other round) and run ``i`` of every runner plays seed ``i``.
Before each timed run what survived so far (the board, the claim caches, the wrappers' id tables)
goes to the garbage collector's permanent generation with ``gc.freeze()``, as in
``benchmarks/engine_speed.py`` and as a long simulation should after warming up; otherwise a full
collection of those objects lands in whichever runner happens to be going (``--no-freeze``
measures that way). Prints the median of the runs per runner and ``env_steps_per_second N`` (PettingZoo) last; the
target is at least half of the engine's actions per second (``ratio_pettingzoo``).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Callable

import gymnasium
import numpy as np
import pyspiel

from ttr_nordic.engine import GameState
from ttr_nordic.rl import aec_env
from ttr_nordic.rl.openspiel import play_chance  # importing it registers ttr_nordic


def engine_steps(steps: int, seed: int) -> float:
    rng = random.Random(seed)
    # The deals of the PettingZoo runner: its env.reset(seed=seed) draws each game's engine seed
    # and first player from random.Random(seed) this way.
    deals = random.Random(seed)

    def deal() -> GameState:
        game_seed = deals.getrandbits(63)
        return GameState.new(players=2, seed=game_seed, first_player=game_seed % 2)

    state, done = deal(), 0
    started = time.perf_counter()
    while done < steps:
        if state.is_over:
            state = deal()
        state.apply(rng.choice(state.legal_action_list()))
        done += 1
    return steps / (time.perf_counter() - started)


def legal_from_mask(mask: np.ndarray) -> list[int]:
    """The legal ids of an int8 mask. Through a bool view: ``nonzero`` on int8 costs about 10x more."""
    return mask.view(np.bool_).nonzero()[0].tolist()  # type: ignore[no-any-return]


def pettingzoo_steps(steps: int, seed: int) -> float:
    env = aec_env(players=2)
    rng = random.Random(seed)
    env.reset(seed=seed)
    done = 0
    started = time.perf_counter()
    while done < steps:
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.reset()
            continue
        env.step(rng.choice(legal_from_mask(obs["action_mask"])))
        done += 1
    return steps / (time.perf_counter() - started)


def gymnasium_steps(steps: int, seed: int) -> float:
    env = gymnasium.make("TTRNordic-v0", opponents=["random"])
    rng = random.Random(seed)
    obs, _info = env.reset(seed=seed)
    state = env.unwrapped.state
    done, before = 0, len(state.log)
    started = time.perf_counter()
    while done < steps:
        obs, _reward, terminated, _truncated, _info = env.step(rng.choice(legal_from_mask(obs["action_mask"])))
        state = env.unwrapped.state
        done += len(state.log) - before
        if terminated:
            obs, _info = env.reset()
            state = env.unwrapped.state
        before = len(state.log)
    return done / (time.perf_counter() - started)


def openspiel_steps(steps: int, seed: int) -> float:
    game = pyspiel.load_game("ttr_nordic")
    rng = random.Random(seed)
    state = game.new_initial_state()
    done = 0
    started = time.perf_counter()
    while done < steps:
        if state.is_terminal():
            state = game.new_initial_state()
        # Chance nodes (the deal, every draw) are sampled with their probabilities; not counted.
        play_chance(state, rng)
        if state.is_terminal():
            continue
        state.observation_tensor(state.current_player())
        state.apply_action(rng.choice(state.legal_actions()))
        done += 1
    return steps / (time.perf_counter() - started)


WARM_UP_SEED = 1000
RUNNERS: dict[str, Callable[[int, int], float]] = {
    "engine": engine_steps,
    "pettingzoo": pettingzoo_steps,
    "gymnasium": gymnasium_steps,
    "openspiel": openspiel_steps,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--steps", type=int, default=40000, help="decisions per run (long enough for the engine's caches to warm up)"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", nargs="+", choices=list(RUNNERS), default=list(RUNNERS), help="runners to time")
    parser.add_argument(
        "--no-freeze", action="store_true", help="leave the garbage collector alone (no gc.freeze() before each run)"
    )
    args = parser.parse_args(argv)
    if args.steps < 1 or args.runs < 1:
        parser.error("--steps and --runs must be positive")
    if "engine" not in args.only or "pettingzoo" not in args.only:
        parser.error("--only needs engine and pettingzoo (the ratio and the last line use them)")
    # Warm-up: imports, the engine's per-hand claim caches and the wrappers' id tables are
    # filled before anything is timed, so the first runner timed does not pay for the others.
    for name in args.only:
        RUNNERS[name](max(1, args.steps // 5), WARM_UP_SEED)
    # Runs alternate between the runners (the order reversed every other round), so a change in
    # the machine's load reaches all of them alike; run i of every runner plays the same seed.
    rates: dict[str, list[float]] = {name: [] for name in args.only}
    for run in range(args.runs):
        for name in args.only if run % 2 == 0 else reversed(args.only):
            if not args.no_freeze:
                gc.collect()
                gc.freeze()
            rates[name].append(RUNNERS[name](args.steps, run))
    medians = {name: statistics.median(found) for name, found in rates.items()}
    for name in args.only:
        print(f"{name}_steps_per_second {medians[name]:.0f} (runs: {', '.join(f'{r:.0f}' for r in rates[name])})")
    for name in [n for n in args.only if n != "engine"]:
        print(f"ratio_{name} {medians[name] / medians['engine']:.2f}")
    print(f"env_steps_per_second {medians['pettingzoo']:.0f}")


if __name__ == "__main__":
    main()
