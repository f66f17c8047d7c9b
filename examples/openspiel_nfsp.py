"""OpenSpiel's NFSP (Neural Fictitious Self-Play, PyTorch) on ``ttr_nordic``, on a small budget.

    pip install -e '.[train-sb3]'      # pulls torch: keep it out of the test environment
    python examples/openspiel_nfsp.py --episodes 300 --eval-games 40

Why NFSP and not CFR: tabular CFR needs the whole tree (far too large), external-sampling MCCFR
walks every action of the updating player through a whole game (exponential), and outcome-
sampling MCCFR divides by the product of ~350 sampling probabilities of one game's nodes, which
underflows to 0 in float64 (its regrets become NaN after the first iteration). NFSP learns from
sampled episodes through OpenSpiel's ``rl_environment`` (chance nodes sampled with their
probabilities, the 617-value information-state tensor as input).

Both seats train by self-play; before and after training the average policy of seat 0's agent
plays ``--eval-games`` games against OpenSpiel's uniform random bot (seats alternating). Prints
the win rates, the training time and the number of decisions trained on.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import numpy as np
import pyspiel
import torch
from open_spiel.python import rl_environment
from open_spiel.python.pytorch import nfsp

from ttr_nordic.rl.openspiel import TTRNordicState, play_chance


def win_rate(game: Any, agent: nfsp.NFSP, games: int, seed: int) -> float:
    """Share of ``games`` that the agent's average policy wins against uniform random play."""
    rng = random.Random(seed)
    wins = 0
    for g in range(games):
        seat = g % 2
        state: TTRNordicState = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                play_chance(state, rng)
                continue
            player = state.current_player()
            legal = state.legal_actions()
            if player == seat:
                info = np.asarray(state.information_state_tensor(player), dtype=np.float32)
                mask = np.zeros(game.num_distinct_actions(), dtype=bool)
                mask[legal] = True
                with agent.temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
                    _values, action, _probs = agent._act(info, mask)
                state.apply_action(int(action))
            else:
                state.apply_action(rng.choice(legal))
        wins += state.returns()[seat] > 0
    return wins / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--eval-games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    np.random.seed(args.seed)
    game = pyspiel.load_game("ttr_nordic", {"players": 2, "reward": "win"})
    env = rl_environment.Environment(game, seed=args.seed)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    agents = [
        nfsp.NFSP(
            player,
            size,
            actions,
            hidden_layers_sizes=[128],
            reservoir_buffer_capacity=50_000,
            anticipatory_param=0.1,
            batch_size=128,
            min_buffer_size_to_learn=1_000,
            learn_every=64,
            replay_buffer_capacity=50_000,
            epsilon_decay_duration=20_000,
            seed=args.seed + player,
        )
        for player in range(2)
    ]
    before = win_rate(game, agents[0], args.eval_games, seed=10_000)
    print(f"before training: average policy won {before:.3f} of {args.eval_games} games against random", flush=True)
    started = time.perf_counter()
    decisions = 0
    for _episode in range(args.episodes):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            output = agents[player].step(time_step)
            time_step = env.step([output.action])
            decisions += 1
        for agent in agents:
            agent.step(time_step)
    minutes = (time.perf_counter() - started) / 60
    print(f"trained {args.episodes} self-play episodes ({decisions} decisions) in {minutes:.1f} min", flush=True)
    after = win_rate(game, agents[0], args.eval_games, seed=10_000)
    print(f"after training: average policy won {after:.3f} of {args.eval_games} games against random", flush=True)


if __name__ == "__main__":
    main()
