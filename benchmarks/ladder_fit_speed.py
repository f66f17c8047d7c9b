"""How long the ladder's rating fit takes (``ladder show``'s slow part): synthetic stored games,
one fit and a bootstrap, median of several runs.

    .venv/bin/python benchmarks/ladder_fit_speed.py [--games 2000] [--participants 6] [--players 2] [--runs 3]

Prints ``fit_s`` (one Plackett–Luce fit) and ``show_s`` (``Ladder.table`` with 200 bootstrap resamples,
what ``ladder show`` runs) as medians.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import tempfile
import time
from pathlib import Path

from ttr_nordic.sim.ladder import Ladder, LadderGame, fit_elo


def synthetic_games(games: int, participants: int, players: int, seed: int = 1) -> list[LadderGame]:
    """Games between participants of known strength (``p<i>`` is stronger with larger ``i``)."""
    rng = random.Random(seed)
    names = [f"p{i}" for i in range(participants)]
    tables = list(itertools.combinations(names, players))
    out = []
    for index in range(games):
        labels = tuple(rng.sample(tables[index % len(tables)], players))
        scores = tuple(int(rng.gauss(80 + 10 * int(name[1:]), 30)) for name in labels)
        best = max(scores)
        out.append(
            LadderGame(
                "|".join(sorted(labels)), index, labels, scores, tuple(s for s in range(players) if scores[s] == best)
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--participants", type=int, default=6)
    parser.add_argument("--players", type=int, choices=(2, 3), default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bootstrap", type=int, default=200)
    args = parser.parse_args()
    played = synthetic_games(args.games, args.participants, args.players)
    names = sorted({label for game in played for label in game.labels})
    fits, shows = [], []
    with tempfile.TemporaryDirectory() as folder:
        ladder = Ladder(Path(folder) / "ladder.sqlite", seed=1)
        ladder.games = lambda players, labels=None: played  # type: ignore[method-assign,assignment]
        ladder.max_decision_s = lambda label, players: 0.0  # type: ignore[method-assign]
        for _ in range(args.runs):
            start = time.perf_counter()
            fit_elo(played, names, names[0])
            fits.append(time.perf_counter() - start)
            start = time.perf_counter()
            ladder.table(args.players, anchor=names[0], bootstrap=args.bootstrap, store=False)
            shows.append(time.perf_counter() - start)
        ladder.close()
    print(f"games {args.games}, participants {args.participants}, players {args.players}, runs {args.runs}")
    print(f"fit_s {statistics.median(fits):.3f}")
    print(f"show_s {statistics.median(shows):.2f}")


if __name__ == "__main__":
    main()
