"""How long one search rollout takes: a game finished by light Route Focus players.

The expert agent (``rollout_search``) spends its decision time on these rollouts, so
their cost sets how many samples a capped search gets. Positions are taken from
Route Focus games after setup and in mid-game; each repeat plays two rollouts from
every position, and the median over repeats is printed::

    .venv/bin/python benchmarks/rollout_speed.py --positions 30 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from ttr_nordic.ai.baselines import RouteFocusAgent
from ttr_nordic.ai.expert import LightRouteFocus, play_out
from ttr_nordic.engine import GameState


def positions(count: int, actions: int) -> list[GameState]:
    """Positions after ``actions`` actions of Route Focus games (seeds 0, 1, ...)."""
    out = []
    for seed in range(count):
        state = GameState.new(players=2, seed=seed)
        agents = [RouteFocusAgent(seed=10 * seed + q) for q in range(2)]
        while not state.is_over and state.turn < actions:
            player = state.current
            state.apply_unchecked(agents[player].choose(state.view(player), state.legal_action_list()))
        out.append(state)
    return out


def milliseconds_per_rollout(states: list[GameState], rollouts: int) -> float:
    start = time.perf_counter()
    for index, state in enumerate(states):
        for r in range(rollouts):
            play_out(state.clone(), 1000 * index + r, policy=LightRouteFocus)
    return (time.perf_counter() - start) / (rollouts * len(states)) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    for label, actions in (("from setup", 2), ("from mid-game (turn 40)", 40)):
        states = positions(args.positions, actions)
        runs = [milliseconds_per_rollout(states, 2) for _ in range(args.repeats)]
        print(
            f"{label}: median {statistics.median(runs):.1f} ms per rollout "
            f"(runs: {', '.join(f'{r:.1f}' for r in runs)})"
        )


if __name__ == "__main__":
    main()
