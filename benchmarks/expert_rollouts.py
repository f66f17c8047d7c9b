"""Rollouts per searched decision of the expert, with its rollouts in the compiled core or in Python.

Positions come from Route Focus games (seeds 0, 1, ...; after ``--turns`` turns). At each one the
expert (``turn_search``'s settings with its rollout cap raised to ``--cap``, so that the time
budget decides: ``--turn-time`` seconds a turn; ``--horizon 0`` plays the rollouts to the end
instead of judging them with the value model after 24 actions) chooses once with ``core_rollouts`` on and once
off; a decision counts when it searched. The last lines are ``rollouts_per_decision python N``,
``rollouts_per_decision core N`` and ``ratio R`` (medians over the decisions).

With ``--presets`` it compares the expert's settings instead: ``python`` (the registered settings
with the core off), ``scale1`` (the core on, its rollout caps as in Python) and ``scaled`` (the
core on, every cap times ``--scale``, a search's with rollouts played to the end times
``--full-scale``; by default the registered ``core_rollout_scale`` and ``core_full_rollout_scale``). The
searches run without their clocks, so the counts do not depend on the machine's load; each line
gives the rollouts and the CPU seconds of the decision, and the last lines their medians per
setting, with how many decisions chose another move than Route Focus's. ``--turns 0`` measures
the first ticket choice.

    .venv/bin/python benchmarks/expert_rollouts.py [--positions 12] [--players 2] [--turn-time 0.8]
    .venv/bin/python benchmarks/expert_rollouts.py --presets [--turns 0]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
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


PRESETS = ("python", "scale1", "scaled")


def preset_decision(state: GameState, preset: str, scale: float, full_scale: float) -> tuple[int, float, bool] | None:
    """Rollouts and CPU seconds of one decision at ``state`` with a preset of :data:`PRESETS`, its
    clocks off, ``scale`` and ``full_scale`` the ``scaled`` preset's, and whether the search chose
    another move than Route Focus's (None if the expert did not search)."""
    settings: dict[str, object] = {**TURN_SEARCH_SETTINGS, "time_limit": None, "turn_time": None}
    if preset == "python":
        settings["core_rollouts"] = False
    else:
        settings["core_rollout_scale"] = 1.0 if preset == "scale1" else scale
        settings["core_full_rollout_scale"] = 1.0 if preset == "scale1" else full_scale
    agent = RolloutSearchAgent(seed=1, **settings)  # type: ignore[arg-type]
    player = state.current
    view, legal = state.view(player), state.legal_action_list()
    twin = RolloutSearchAgent(seed=1, **settings)  # type: ignore[arg-type]
    route_focus_move = twin._bases.get(view.num_players, twin._bases[2]).choose(view, legal)
    start = time.process_time()
    chosen = agent.choose(view, legal)
    seconds = time.process_time() - start
    return (agent.last_rollouts, seconds, chosen != route_focus_move) if agent.searches else None


def compare_presets(args: argparse.Namespace) -> int:
    print(
        f"expert_rollouts --presets: {args.positions} positions, {args.players} players, after {args.turns} turns, "
        f"scaled: core_rollout_scale {args.scale}, core_full_rollout_scale {args.full_scale}, clocks off"
    )
    found: dict[str, list[tuple[int, float, bool]]] = {preset: [] for preset in PRESETS}
    for seed in range(args.positions):
        state = position(seed, args.players, args.turns)
        if state.is_over:
            continue
        row = {preset: preset_decision(state, preset, args.scale, args.full_scale) for preset in PRESETS}
        if any(result is None for result in row.values()):
            continue
        for preset, result in row.items():
            found[preset].append(result)  # type: ignore[arg-type]
        cells = ", ".join(
            f"{p} {r[0]} rollouts {r[1]:.3f} s{' (not the Route Focus move)' if r[2] else ''}"
            for p, r in row.items()
            if r is not None
        )
        print(f"position {seed} ({state.phase.name}): {cells}", flush=True)
    if not found["python"]:
        print("no position was searched")
        return 1
    for preset in PRESETS:
        counts = statistics.median(r[0] for r in found[preset])
        seconds = statistics.median(r[1] for r in found[preset])
        departed = sum(r[2] for r in found[preset])
        print(
            f"rollouts_per_decision {preset} {counts:.0f} cpu_seconds {seconds:.3f} "
            f"not_route_focus {departed}/{len(found[preset])}"
        )
    ratio = statistics.median(r[0] for r in found["scaled"]) / statistics.median(r[0] for r in found["scale1"])
    print(f"ratio scaled/scale1 {ratio:.1f}")
    return 0


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
    parser.add_argument(
        "--presets", action="store_true", help="compare the expert's settings (Python, scale 1, registered), clocks off"
    )
    parser.add_argument(
        "--scale",
        type=float,
        default=TURN_SEARCH_SETTINGS["core_rollout_scale"],
        help="the scaled preset's core_rollout_scale (default the registered one)",
    )
    parser.add_argument(
        "--full-scale",
        type=float,
        default=TURN_SEARCH_SETTINGS["core_full_rollout_scale"],
        help="the same for searches whose rollouts are played to the end (default the registered one)",
    )
    args = parser.parse_args(argv)
    if args.scale <= 0 or args.full_scale <= 0:
        parser.error("--scale and --full-scale must be positive")
    if args.positions < 1 or args.turn_time <= 0 or args.turns < 0:
        parser.error("--positions must be at least 1, --turn-time positive and --turns at least 0")
    if not fast.AVAILABLE:
        parser.error("the compiled core is not available (build it: python hatch_build.py)")
    if args.presets:
        return compare_presets(args)
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
    python_median, core_median = statistics.median(counts[False]), statistics.median(counts[True])
    print(f"rollouts_per_decision python {python_median:.0f}")
    print(f"rollouts_per_decision core {core_median:.0f}")
    print(f"ratio {core_median / python_median:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
