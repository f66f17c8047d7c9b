"""Rollouts per searched decision of the expert, with its rollouts in the compiled core or in Python.

Positions come from Route Focus games (seeds 0, 1, ...; after ``--turns`` turns). At each one the
expert (``turn_search``'s settings with its rollout cap raised to ``--cap``, so that the time
budget decides: ``--turn-time`` seconds a turn; ``--horizon 0`` plays the rollouts to the end
instead of judging them with the value model after 24 actions) chooses once with ``core_rollouts`` on and once
off; a decision counts when it searched. The last lines are ``rollouts_per_decision python N``,
``rollouts_per_decision core N`` and ``ratio R`` (medians over the decisions).

    .venv/bin/python benchmarks/expert_rollouts.py [--positions 12] [--players 2] [--turn-time 0.8]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

_SRC = Path(__file__).resolve().parent.parent / "src"
if _SRC.is_dir() and str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

from ttr_nordic import fast  # noqa: E402
from ttr_nordic.ai.baselines import RouteFocusAgent  # noqa: E402
from ttr_nordic.ai.expert import RolloutSearchAgent  # noqa: E402
from ttr_nordic.ai.registry import TURN_SEARCH_SETTINGS  # noqa: E402
from ttr_nordic.engine import GameState  # noqa: E402


def position(seed: int, players: int, turns: int) -> GameState:
    state = GameState.new(players=players, seed=seed)
    agents = [RouteFocusAgent(seed=10 * seed + q) for q in range(players)]
    while not state.is_over and state.turn < turns:
        player = state.current
        state.apply_unchecked(agents[player].choose(state.view(player), state.legal_action_list()))
    return state


def rollouts(state: GameState, core: bool, turn_time: float, cap: int, horizon: int) -> int | None:
    """The rollouts of one decision at ``state`` (None if the expert did not search)."""
    settings = {**TURN_SEARCH_SETTINGS, "turn_time": turn_time, "turn_rollouts": cap, "horizon": horizon}
    agent = RolloutSearchAgent(seed=1, core_rollouts=core, **settings)  # type: ignore[arg-type]
    player = state.current
    agent.choose(state.view(player), state.legal_action_list())
    return agent.last_rollouts if agent.searches else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=12, help="positions (default 12)")
    parser.add_argument("--players", type=int, choices=(2, 3), default=2)
    parser.add_argument("--turns", type=int, default=30, help="turns played before each position (default 30)")
    parser.add_argument("--turn-time", type=float, default=0.8, help="seconds a turn (default 0.8)")
    parser.add_argument("--cap", type=int, default=100_000, help="rollout cap per turn (default 100,000)")
    parser.add_argument(
        "--horizon",
        type=int,
        default=TURN_SEARCH_SETTINGS["horizon"],
        help="actions per rollout before the value model judges (0: played to the end; default turn_search's)",
    )
    args = parser.parse_args(argv)
    if args.positions < 1 or args.turn_time <= 0:
        parser.error("--positions must be at least 1 and --turn-time positive")
    if not fast.AVAILABLE:
        parser.error("the compiled core is not available (build it: python hatch_build.py)")
    print(
        f"expert_rollouts: {args.positions} positions, {args.players} players, {args.turn_time} s a turn, "
        f"horizon {args.horizon}"
    )
    counts: dict[bool, list[int]] = {False: [], True: []}
    for seed in range(args.positions):
        state = position(seed, args.players, args.turns)
        if state.is_over:
            continue
        found = {core: rollouts(state, core, args.turn_time, args.cap, args.horizon) for core in (False, True)}
        if found[False] is None or found[True] is None:
            continue
        for core, count in found.items():
            counts[core].append(count)  # type: ignore[arg-type]
        print(f"position {seed}: python {found[False]} rollouts, core {found[True]}")
    if not counts[False]:
        print("no position was searched")
        return 1
    python, core = statistics.median(counts[False]), statistics.median(counts[True])
    print(f"rollouts_per_decision python {python:.0f}")
    print(f"rollouts_per_decision core {core:.0f}")
    print(f"ratio {core / python:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
