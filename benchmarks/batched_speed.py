"""Batched environment speed: env steps a second with observations and masks, one core.

Each run steps ``--envs`` games ``--steps`` times (``ttr_nordic.rl.batched.BatchedEnv``, random
opponents or ``--opponent route_focus``, the learner playing a uniformly random legal id drawn
by ``BatchedEnv.sample``); a step of one game is the learner's action, the opponents' replies until the learner decides
again, and the new observation and mask. Finished games restart inside the step. The last line
is ``steps_per_second <median of the runs>``.

    .venv/bin/python benchmarks/batched_speed.py [--envs 256] [--steps 200] [--runs 5] [--players 2]
        [--engine auto|core|python] [--opponent random|route_focus] [--cpu-time]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

_SRC = Path(__file__).resolve().parent.parent / "src"
if _SRC.is_dir() and str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

from ttr_nordic import fast  # noqa: E402
from ttr_nordic.rl.batched import BatchedEnv  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=256, help="games stepped together (default 256)")
    parser.add_argument("--steps", type=int, default=200, help="steps per run (default 200)")
    parser.add_argument("--runs", type=int, default=5, help="runs (default 5)")
    parser.add_argument("--players", type=int, choices=(2, 3), default=2, help="players per game (default 2)")
    parser.add_argument("--engine", choices=("auto", "core", "python"), default="auto", help="where the games run")
    parser.add_argument("--opponent", choices=("random", "route_focus"), default="random", help="the opponents")
    parser.add_argument("--cpu-time", action="store_true", help="rates per CPU-second of this process")
    args = parser.parse_args(argv)
    if args.envs < 1 or args.steps < 1 or args.runs < 1:
        parser.error("--envs, --steps and --runs must be at least 1")
    if args.engine == "core" and not fast.AVAILABLE:
        parser.error(
            "the compiled core is not available (build it: python hatch_build.py; unset TTR_NORDIC_PURE_PYTHON)"
        )
    compiled = {"auto": None, "core": True, "python": False}[args.engine]
    env = BatchedEnv(args.envs, players=args.players, seed=0, compiled=compiled, opponent=args.opponent)
    print(
        f"batched_speed: {args.runs} runs x {args.steps} steps of {args.envs} {args.players}-player games "
        f"against {args.opponent.replace('_', ' ')} "
        f"(Python {platform.python_version()}, {platform.machine()}; "
        f"{'the compiled core' if env.compiled else 'the Python engine'}; "
        f"{'CPU time' if args.cpu_time else 'wall clock'})"
    )
    clock = time.process_time if args.cpu_time else time.perf_counter
    env.reset()
    rates = []
    for run in range(args.runs):
        episodes = 0
        start = clock()
        for step in range(args.steps):
            _, _, dones, _ = env.step(env.sample(run * args.steps + step))
            episodes += int(dones.sum())
        seconds = clock() - start
        rates.append(args.envs * args.steps / seconds)
        print(f"run {run + 1}: {rates[-1]:10.0f} steps/s  ({episodes} games finished)")
    print(f"steps_per_second {statistics.median(rates):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
