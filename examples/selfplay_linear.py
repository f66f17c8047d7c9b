"""A linear softmax policy improved by self-play (REINFORCE), numpy only, on a CPU.

    .venv/bin/python examples/selfplay_linear.py --minutes 3

Both seats of the PettingZoo environment play the current policy; after each game every decision
is pushed toward the actions of the seat that won and away from the loser's (reward "win": +1 or -1).
Before and after training the policy plays masked-random opponents and the win rate is
printed; with a few minutes of training it should rise above the 0.5 of random play.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numpy.typing import NDArray

from ttr_nordic.rl import aec_env
from ttr_nordic.rl.observation import SIZE


class LinearPolicy:
    """logits = observation @ weights + bias, restricted to the legal ids."""

    def __init__(self, actions: int, rng: np.random.Generator) -> None:
        self.weights = np.zeros((SIZE, actions), dtype=np.float32)
        self.bias = np.zeros(actions, dtype=np.float32)
        self.rng = rng

    def probabilities(self, obs: NDArray[np.float32], legal: NDArray[np.intp]) -> NDArray[np.float64]:
        logits = (obs @ self.weights[:, legal] + self.bias[legal]).astype(np.float64)
        logits -= logits.max()
        p = np.exp(logits)
        return p / p.sum()  # type: ignore[no-any-return]

    def act(self, obs: NDArray[np.float32], legal: NDArray[np.intp]) -> tuple[int, NDArray[np.float64]]:
        p = self.probabilities(obs, legal)
        return int(self.rng.choice(len(legal), p=p)), p

    def update(
        self,
        steps: list[tuple[NDArray[np.float32], NDArray[np.intp], int, NDArray[np.float64]]],
        advantage: float,
        lr: float,
    ) -> None:
        for obs, legal, choice, p in steps:
            grad = -p
            grad[choice] += 1.0  # d log softmax / d logits
            grad *= advantage * lr
            self.weights[:, legal] += np.outer(obs, grad).astype(np.float32)
            self.bias[legal] += grad.astype(np.float32)


def play(env, policy: LinearPolicy, learner_seats: set[str], rng: np.random.Generator, seed: int):  # type: ignore[no-untyped-def]
    """One game; the seats not in ``learner_seats`` play masked-random. Returns trajectories and rewards."""
    env.reset(seed=seed)
    trajectories: dict[str, list] = {a: [] for a in env.possible_agents}  # type: ignore[type-arg]
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        rewards[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        if agent in learner_seats:
            choice, p = policy.act(obs["observation"], legal)
            trajectories[agent].append((obs["observation"], legal, choice, p))
        else:
            choice = int(rng.integers(len(legal)))
        env.step(int(legal[choice]))
    return trajectories, rewards


def win_rate(env, policy: LinearPolicy, games: int, rng: np.random.Generator, seed: int) -> float:  # type: ignore[no-untyped-def]
    wins = 0
    for g in range(games):
        seat = env.possible_agents[g % 2]
        _, rewards = play(env, policy, {seat}, rng, seed + g)
        wins += rewards[seat] > 0
    return wins / games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--eval-games", type=int, default=40)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    env = aec_env(players=2, reward="win")
    policy = LinearPolicy(env.action_space("player_0").n, rng)
    before = win_rate(env, policy, args.eval_games, rng, seed=10_000)
    print(f"before training: won {before:.2f} of {args.eval_games} games against masked-random", flush=True)
    deadline = time.perf_counter() + args.minutes * 60
    games = 0
    while time.perf_counter() < deadline:
        trajectories, rewards = play(env, policy, set(env.possible_agents), rng, seed=games)
        for agent, steps in trajectories.items():
            # Win/loss rewards of a symmetric self-play game average to zero: no baseline needed.
            policy.update(steps, rewards[agent], args.lr / max(1, len(steps)) * 10)
        games += 1
    after = win_rate(env, policy, args.eval_games, rng, seed=10_000)
    print(f"after {games} self-play games: won {after:.2f} of {args.eval_games} games against masked-random")


if __name__ == "__main__":
    main()
