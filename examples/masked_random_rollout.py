"""Play Nordic Countries in PettingZoo with uniformly random legal actions (from the action mask).

.venv/bin/python examples/masked_random_rollout.py --players 3 --games 5 --seed 1
"""

from __future__ import annotations

import argparse

import numpy as np

from ttr_nordic.rl import aec_env


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    env = aec_env(players=args.players, render_mode="ansi")
    rng = np.random.default_rng(args.seed)
    for game in range(args.games):
        env.reset(seed=args.seed + game)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        steps = 0
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _info = env.last()
            totals[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        print(f"game {game}: {steps} steps, final margins {totals}")
    print(env.render())


if __name__ == "__main__":
    main()
