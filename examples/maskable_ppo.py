"""sb3-contrib's MaskablePPO against Route Focus, with a learning curve.

    pip install -e '.[train-sb3]'      # pulls torch: keep it out of the test environment
    python examples/maskable_ppo.py --timesteps 200000 --checkpoints 8 --eval-games 40 \\
        --png docs/rl-maskable-ppo.png

The learner takes one seat of a two-player game (``gymnasium.make("TTRNordic-v0",
opponents=["route_focus"], flat=True)``: the observation vector as a ``Box``, the mask from
``env.action_masks()``); the reward is the final margin divided by 100. The training runs in
``--checkpoints`` equal chunks; before the first and after each one the policy (deterministic,
masked) plays ``--eval-games`` games against Route Focus on fixed deals, seats alternating.
Prints one table row per checkpoint (timesteps, minutes, the training episodes' mean margin since
the last checkpoint, the evaluation's win rate and mean margin) and draws the curve with
matplotlib when ``--png`` is given.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.monitor import Monitor

import ttr_nordic.rl  # noqa: F401  (registers TTRNordic-v0)

SCALE = 100.0


def make_env(seed: int, seat: int | None) -> gymnasium.Env[Any, Any]:
    env = gymnasium.make("TTRNordic-v0", opponents=["route_focus"], seat=seat, flat=True, reward="margin")
    env = gymnasium.wrappers.TransformReward(env, lambda r: r / SCALE)
    env.reset(seed=seed)
    return env


def evaluate(model: MaskablePPO, games: int) -> tuple[float, float]:
    """Win rate and mean margin of the deterministic masked policy on ``games`` fixed deals."""
    margins = []
    for game in range(games):
        env = make_env(0, seat=game % 2)
        obs, _info = env.reset(seed=10_000 + game // 2)
        done, reward = False, 0.0
        while not done:
            masks = env.unwrapped.action_masks()  # type: ignore[attr-defined]
            action, _state = model.predict(obs, action_masks=masks, deterministic=True)
            obs, reward_now, done, _truncated, _info = env.step(int(action))
            reward = float(reward_now)
        margins.append(reward * SCALE)
    return sum(m > 0 for m in margins) / games, statistics.fmean(margins)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=200_000)
    parser.add_argument("--checkpoints", type=int, default=8)
    parser.add_argument("--eval-games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--png", default=None, help="write the learning curve here")
    parser.add_argument("--plot-table", default=None, help="only draw --png from a table this script printed")
    args = parser.parse_args()
    if args.plot_table:
        plot(read_table(args.plot_table), args.eval_games, args.png or "maskable_ppo.png")
        return
    torch.set_num_threads(1)
    env = Monitor(make_env(args.seed, seat=None))
    model = MaskablePPO("MlpPolicy", env, n_steps=2048, batch_size=256, learning_rate=3e-4, seed=args.seed, verbose=0)
    rows: list[Row] = []
    started = time.perf_counter()
    win, margin = evaluate(model, args.eval_games)
    rows.append((0, 0.0, float("nan"), win, margin))
    print("timesteps  minutes  train_margin  eval_win_rate  eval_margin", flush=True)
    print(f"{0:9d}  {0.0:7.1f}  {'-':>12}  {win:13.3f}  {margin:11.1f}", flush=True)
    chunk = args.timesteps // args.checkpoints
    seen = 0
    for k in range(1, args.checkpoints + 1):
        model.learn(total_timesteps=chunk, reset_num_timesteps=False)
        episodes = env.get_episode_rewards()[seen:]
        seen += len(episodes)
        train = statistics.fmean(episodes) * SCALE if episodes else float("nan")
        win, margin = evaluate(model, args.eval_games)
        minutes = (time.perf_counter() - started) / 60
        rows.append((k * chunk, minutes, train, win, margin))
        print(f"{k * chunk:9d}  {minutes:7.1f}  {train:12.1f}  {win:13.3f}  {margin:11.1f}", flush=True)
    if args.png:
        plot(rows, args.eval_games, args.png)


Row = tuple[int, float, float, float, float]


def plot(rows: list[Row], eval_games: int, png: str) -> None:
    """Draw the learning curve of ``rows`` (timesteps, minutes, train margin, win rate, margin)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    steps = [r[0] for r in rows]
    left.plot(steps, [r[3] for r in rows], marker="o")
    left.set(xlabel="timesteps", ylabel="win rate", title=f"MaskablePPO vs Route Focus ({eval_games} games each)")
    left.set_ylim(0, 1)
    right.plot(steps, [r[4] for r in rows], marker="o", label="evaluation")
    right.plot(steps[1:], [r[2] for r in rows[1:]], marker=".", label="training episodes")
    right.set(xlabel="timesteps", ylabel="mean margin (points)", title="final margin")
    right.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def read_table(path: str) -> list[Row]:
    """The rows of a table this script printed (to draw a run's curve again, or a stopped run's)."""
    rows: list[Row] = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        cells = line.split()
        if len(cells) == 5 and cells[0].isdigit():
            train = float("nan") if cells[2] == "-" else float(cells[2])
            rows.append((int(cells[0]), float(cells[1]), train, float(cells[3]), float(cells[4])))
    return rows


if __name__ == "__main__":
    main()
