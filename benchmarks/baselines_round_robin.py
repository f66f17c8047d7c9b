"""Round robin of the four baseline agents in 2-player games (single process).

Each pair of baselines plays ``--games`` games, alternating seats (and who
moves first); game ``i`` of every pair uses table seed ``--seed + i``. Prints
the head-to-head win rates (ties count one half), each agent's overall win
rate, its mean score and the mean winning score.

    .venv/bin/python benchmarks/baselines_round_robin.py --games 50

For orientation (not targets), the paper's research engine reported 2-player
win rates of Destination Hungry 71%, One Step Thinking 64%, Route Focus 40%,
Long Route 25% and a mean winning score of about 85 (other maps and rules).
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections import defaultdict

from ttr_nordic.ai import play_game
from ttr_nordic.ai.registry import make_agent

BASELINES = ("destination_hungry", "one_step", "route_focus", "long_route")
SHORT = {"destination_hungry": "DEH", "one_step": "OST", "route_focus": "RF", "long_route": "LRA", "random": "RND"}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="games per pair (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="first table seed (default 0)")
    parser.add_argument("--agents", default=",".join(BASELINES), help="comma-separated agent names")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.agents.split(",") if n.strip()]

    wins: dict[tuple[str, str], float] = defaultdict(float)
    played: dict[tuple[str, str], int] = defaultdict(int)
    scores: dict[str, list[int]] = defaultdict(list)
    winning_scores: list[int] = []
    fallbacks: dict[str, int] = defaultdict(int)
    start = time.perf_counter()
    for first, second in itertools.combinations(names, 2):
        for i in range(args.games):
            seed = args.seed + i
            seats = (first, second) if i % 2 == 0 else (second, first)
            agents = [make_agent(name, seed=seed * 10 + k) for k, name in enumerate(seats)]
            game = play_game(agents, seed=seed, first_player=0)
            result = game.result()
            winning_scores.append(max(result.totals))
            for seat, name in enumerate(seats):
                other = seats[1 - seat]
                played[name, other] += 1
                scores[name].append(result.totals[seat])
                if seat in result.winners:
                    wins[name, other] += 1.0 / len(result.winners)
                fallbacks[name] += getattr(agents[seat], "fallbacks", 0)
    elapsed = time.perf_counter() - start

    labels = {n: f"{n} ({SHORT[n]})" if n in SHORT else n for n in names}
    width = max(len(label) for label in labels.values()) + 2
    print(f"2-player round robin, {args.games} games per pair, seeds {args.seed}..{args.seed + args.games - 1}")
    print("win rate of row vs column (ties count one half):")
    header = "".join(f"{SHORT.get(n, n[:8]):>9}" for n in names)
    print(" " * width + header + f"{'overall':>10}{'mean score':>12}")
    for row in names:
        cells = []
        total_wins = total_games = 0.0
        for col in names:
            n = played[row, col]
            if row == col or not n:
                cells.append(f"{'-':>9}")
                continue
            cells.append(f"{100 * wins[row, col] / n:>8.0f}%")
            total_wins += wins[row, col]
            total_games += n
        overall = 100 * total_wins / total_games if total_games else 0.0
        mean = sum(scores[row]) / len(scores[row]) if scores[row] else 0.0
        print(f"{labels[row]:<{width}}" + "".join(cells) + f"{overall:>9.0f}%{mean:>12.1f}")
    print(f"mean winning score: {sum(winning_scores) / len(winning_scores):.1f}")
    if any(fallbacks.values()):
        print(f"fallbacks (internal errors caught): {dict(fallbacks)}")
    print(f"{len(winning_scores)} games in {elapsed:.1f} s ({1000 * elapsed / len(winning_scores):.0f} ms per game)")


if __name__ == "__main__":
    main()
