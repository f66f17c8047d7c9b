"""Generate the value-model data set (seeded, resumable; see docs/value-model.md).

    python scripts/value_data.py --players 2 --games 14000 --seed 1 --out data/value/p2 --workers 2
    python scripts/value_data.py ... --backend ray     # Ray tasks instead of a process pool

    python scripts/value_data.py --players 2 --games 3000 --seed 11 --out data/value/site-p2 --mix site

Rerunning the same command after an interruption plays only the missing shards.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from ttr_nordic.ai.value.data import AGENT_MIXES, DataConfig, generate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, choices=(2, 3), required=True)
    parser.add_argument("--games", type=int, required=True, help="games in all (rounded up to whole shards)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--shard-games", type=int, default=50)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--backend", choices=("process", "ray"), default="process")
    parser.add_argument("--mix", choices=sorted(AGENT_MIXES), default="baselines", help="the agents drawn per seat")
    args = parser.parse_args(argv)
    config = DataConfig(players=args.players, seed=args.seed, shard_games=args.shard_games, mix=args.mix)
    shards = math.ceil(args.games / args.shard_games)
    start = time.perf_counter()
    total = 0
    for shard, rows in generate(config, args.out, shards, args.workers, args.backend):
        total += rows
        print(f"shard {shard}: {rows} rows ({total} this run, {time.perf_counter() - start:.0f} s)", flush=True)
    print(f"done: {total} new rows in {time.perf_counter() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
