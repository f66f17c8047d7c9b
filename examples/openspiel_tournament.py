"""OpenSpiel's ISMCTS and uniform random bots against the project's agents, in OpenSpiel.

    .venv/bin/python examples/openspiel_tournament.py --bot ismcts --agent route_focus --games 10

Seats alternate between games. The project's agent chooses from its engine view; the OpenSpiel
bot sees only OpenSpiel's interface (legal ids, information-state strings) and ISMCTS samples
worlds with ``ttr_nordic.rl.openspiel.resample`` (the engine's determinization of its view).
Prints the bot's wins, losses and mean margin.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.bots import uniform_random

from ttr_nordic.ai.registry import make_agent
from ttr_nordic.rl.actions import action_space
from ttr_nordic.rl.openspiel import TTRNordicState, play_chance, resample


def make_bot(name: str, game: Any, seat: int, seed: int, simulations: int) -> Any:
    rng = np.random.RandomState(seed)
    if name == "random":
        return uniform_random.UniformRandomBot(seat, rng)
    if name == "ismcts":
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=simulations, random_state=rng)
        seeds = iter(range(seed * 1_000_003, 2**62))
        bot.set_resampler(lambda state, player: resample(state, player, next(seeds)))
        return bot
    raise ValueError(f"unknown bot {name!r}: use ismcts or random")


def play(game: Any, bot: Any, agent_name: str, bot_seat: int, deal: int, seed: int) -> float:
    """One game; returns the bot's margin (its score minus the other's). ``deal`` seeds the
    chance nodes (the deal and every draw)."""
    space = action_space()
    agent = make_agent(agent_name, seed=seed)
    chance = random.Random(deal)
    state: TTRNordicState = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            play_chance(state, chance)
            continue
        player = state.current_player()
        if player == bot_seat:
            action = bot.step(state)
        else:
            engine = state.engine
            assert engine is not None
            chosen = agent.choose(engine.view(player), engine.legal_action_list())
            action = space.encode(chosen, engine)
        state.apply_action(action)
    engine = state.engine
    assert engine is not None
    totals = [p.total for p in engine.result().players]
    return float(totals[bot_seat] - totals[1 - bot_seat])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bot", default="ismcts", choices=["ismcts", "random"])
    parser.add_argument("--agent", default="route_focus")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--simulations", type=int, default=100, help="ISMCTS simulations per decision")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    import ttr_nordic.rl.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("ttr_nordic")
    margins = []
    started = time.perf_counter()
    for g in range(args.games):
        bot = make_bot(args.bot, game, g % 2, args.seed + g, args.simulations)
        margin = play(game, bot, args.agent, bot_seat=g % 2, deal=args.seed * 7919 + g, seed=args.seed + g)
        margins.append(margin)
        print(f"game {g}: {args.bot} in seat {g % 2}, margin {margin:+.0f}", flush=True)
    wins = sum(m > 0 for m in margins)
    print(
        f"{args.bot} vs {args.agent}: {wins} won, {sum(m < 0 for m in margins)} lost, "
        f"{sum(m == 0 for m in margins)} tied of {len(margins)}; mean margin {np.mean(margins):+.1f}; "
        f"{time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
