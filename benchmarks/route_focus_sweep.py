"""Route Focus's knobs, one at a time: each variant in one seat against Route Focus in the others.

The variant's seat is rotated over the seats (game ``i`` puts it in seat ``i % players``) and
every variant plays the same deals (seeds ``--seed`` .. ``--seed + games - 1``), so that the
variants differ only by what they do. Prints, best first, each variant's games, win share
(a tie shared by k seats gives each 1/k) with its standard error, and its mean margin over the
best other seat with its standard error. 2,500 three-player games a variant took about 20 s of
a core each (docs/ai-strength.md, 2026-11-27 (12))::

    .venv/bin/python benchmarks/route_focus_sweep.py --players 3 --games 2500 --workers 2
    .venv/bin/python benchmarks/route_focus_sweep.py --only control long_cost --seed 100000 --games 5000
"""

from __future__ import annotations

import argparse
import math
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ttr_nordic.ai import play_game
from ttr_nordic.ai.baselines import RouteFocusAgent

#: Each variant's class attributes over Route Focus's (``control`` is Route Focus itself).
VARIANTS: dict[str, dict[str, Any]] = {
    "control": {},
    "long_cost": {"weights_name": "long_cost"},
    "decay0.5": {"want_decay": 0.5},
    "decay2": {"want_decay": 2.0},
    "decay4": {"want_decay": 4.0},
    "hand0": {"hand_beta": 0.0},
    "hand0.3": {"hand_beta": 0.3},
    "surplus14": {"surplus_hand": 14},
    "surplus20": {"surplus_hand": 20},
    "safe0.35": {"safe_share": 0.35},
    "safe0.55": {"safe_share": 0.55},
    "alpha1.5": {"alpha": 1.5},
    "alpha2.5": {"alpha": 2.5},
    "margin3": {"margin": 3},
    "margin7": {"margin": 7},
    "size2": {"size_penalty": 2.0},
    "size4": {"size_penalty": 4.0},
    "long+decay2": {"weights_name": "long_cost", "want_decay": 2.0},
}


def variant_class(name: str) -> type[RouteFocusAgent]:
    """Route Focus with the variant's attributes."""
    attributes = VARIANTS[name]
    if not attributes:
        return RouteFocusAgent
    return type(f"RouteFocus_{name}", (RouteFocusAgent,), dict(attributes))


def play_one(task: tuple[str, int, int]) -> tuple[str, float, int]:
    """One game of variant ``name`` on deal ``seed``: its win share and its margin."""
    name, seed, players = task
    seat = seed % players
    agents = [RouteFocusAgent(seed=seed * 7 + q) for q in range(players)]
    agents[seat] = variant_class(name)(seed=seed * 7 + seat)
    result = play_game(agents, seed=seed).result()
    totals = [p.total for p in result.players]
    share = 1.0 / len(result.winners) if seat in result.winners else 0.0
    return name, share, totals[seat] - max(t for q, t in enumerate(totals) if q != seat)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, choices=(2, 3), default=3)
    parser.add_argument("--games", type=int, default=2500, help="games per variant")
    parser.add_argument("--seed", type=int, default=0, help="the first deal's seed")
    parser.add_argument("--workers", type=int, default=1, help="processes")
    parser.add_argument("--only", nargs="+", choices=list(VARIANTS), default=list(VARIANTS), help="variants to play")
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1:
        parser.error("--games and --workers must be positive")
    tasks = [(name, seed, args.players) for seed in range(args.seed, args.seed + args.games) for name in args.only]
    found: dict[str, list[tuple[float, int]]] = {name: [] for name in args.only}
    with ProcessPoolExecutor(args.workers) as pool:
        for name, share, margin in pool.map(play_one, tasks, chunksize=8):
            found[name].append((share, margin))
    rows = []
    for name, games in found.items():
        n = len(games)
        share = sum(s for s, _ in games) / n
        margin = sum(m for _, m in games) / n
        spread = math.sqrt(sum((m - margin) ** 2 for _, m in games) / max(1, n - 1))
        rows.append((share, name, n, math.sqrt(share * (1 - share) / n), margin, spread / math.sqrt(n)))
    print(f"{'variant':<12} {'games':>6} {'win share':>14} {'margin':>14}")
    for share, name, n, share_error, margin, margin_error in sorted(rows, reverse=True):
        print(f"{name:<12} {n:>6} {share:>7.3f} ± {share_error:.3f} {margin:>+7.1f} ± {margin_error:.1f}")


if __name__ == "__main__":
    main()
