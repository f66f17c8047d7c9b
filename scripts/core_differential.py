"""The long differential run: the compiled core against the Python engine for millions of decisions.

Plays seeded games on both (see :func:`ttr_nordic.fast.differential.compare_game`: at every
decision the legal list in order and every field of the state, at the end the whole scoring),
cycling through uniform random and hoarding random play at 2 and 3 players, until ``--decisions``
decisions were compared. Prints a progress line every ``--every`` seconds and stops at the first
mismatch with exit status 1 (the message names the table, seed and decision to replay).

    nice -n 19 .venv/bin/python scripts/core_differential.py --decisions 10000000 [--first-seed 0]

The last line is ``decisions N games G mismatches M``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from ttr_nordic import fast


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=10_000_000, help="decisions to compare (default 10,000,000)")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first game (default 0)")
    parser.add_argument("--every", type=float, default=60.0, help="seconds between progress lines (default 60)")
    args = parser.parse_args(argv)
    if args.decisions < 1:
        parser.error("--decisions must be at least 1")
    if not fast.AVAILABLE:
        parser.error("the compiled core is not available (build it: python hatch_build.py)")
    from ttr_nordic.fast.differential import Mismatch, compare_game

    seen: Counter[str] = Counter()
    start = last = time.monotonic()
    seed = args.first_seed
    mismatches = 0
    while seen["decisions"] < args.decisions:
        # Four tables per seed: uniform and hoarding play, 2 and 3 players.
        for players, hoard in ((2, False), (3, False), (2, True), (3, True)):
            try:
                seen += compare_game(players, seed, hoard=hoard)
            except Mismatch as err:
                mismatches += 1
                print(f"MISMATCH {err}", flush=True)
                break
        if mismatches:
            break
        seed += 1
        now = time.monotonic()
        if now - last >= args.every:
            last = now
            rate = seen["decisions"] / (now - start)
            print(f"{now - start:8.0f} s  seeds {args.first_seed}..{seed - 1}  {dict(seen)}  ({rate:.0f} decisions/s)")
            sys.stdout.flush()
    print(f"decisions {seen['decisions']} games {seen['games']} mismatches {mismatches}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
