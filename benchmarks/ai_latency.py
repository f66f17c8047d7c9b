"""AI latency: ordinary online games stay fast while expert AIs think.

Starts ``ttr-nordic serve`` on a free loopback port (temporary SQLite), creates ``--experts``
games of one person against the ``expert`` level with the computer to move first, and
``--games`` ordinary online games of two people. A client plays the human seat of each expert
game at once whenever it may (so the experts think all the time), and two clients per ordinary
game play random legal moves after a short pause (``--think``, like people). The round trip of
an ordinary game's move is the time from sending ``act`` to receiving the state that holds it.

    .venv/bin/python benchmarks/ai_latency.py [--experts 8] [--games 10] [--duration 60]

Prints the ordinary games' latency, how many moves the experts made, the AI failures the server
logged (``ai_seats_failed``), and last ``p99_ms_with_<N>_experts <p99>``. Only 127.0.0.1 is
contacted; every loop is bounded by ``--duration``. Exits 1 on errors or failed AI seats.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import shutil
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import Game, Run, Stats, free_port, http, percentile, seat_client, start_server

AI_FAILURE = re.compile(r"AI (seat failed|decision failed|worker died)|plays a random move")


async def play_all(
    ws_base: str, ordinary: list[Game], experts: list[Game], duration: float, think: float, seed: int
) -> tuple[Stats, Stats]:
    rng = random.Random(seed)
    deadline = time.monotonic() + duration
    measured, background = Stats(), Stats()
    ordinary_run = Run(10_000, deadline, think, 2 * len(ordinary), None)
    expert_run = Run(10_000, deadline, 0.0, len(experts), None)
    tasks = [
        seat_client(ws_base, game, seat, random.Random(rng.getrandbits(64)), measured, ordinary_run, "ordinary")
        for game in ordinary
        for seat in (0, 1)
    ] + [
        seat_client(ws_base, game, 0, random.Random(rng.getrandbits(64)), background, expert_run, "expert")
        for game in experts
    ]
    results = await asyncio.gather(*tasks, return_exceptions=True)
    for result in results:
        if isinstance(result, TimeoutError):
            continue  # an expert seat still thinking when time ran out
        if isinstance(result, BaseException):
            measured.errors.append(f"{type(result).__name__}: {result}")
    return measured, background


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--experts", type=int, default=8, help="games with an expert AI thinking (default 8)")
    parser.add_argument("--games", type=int, default=10, help="ordinary online games measured (default 10)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of play (default 60)")
    parser.add_argument("--think", type=float, default=0.1, help="mean pause before an ordinary move, s (0.1)")
    parser.add_argument("--level", default="expert", help="level of the AI seats (default expert)")
    parser.add_argument("--ai-workers", type=int, help="the server's --ai-workers (default: its own)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="ttr-ai-latency-"))
    log_path = workdir / "server.log"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    extra = [] if args.ai_workers is None else ["--ai-workers", str(args.ai_workers)]
    process = start_server(port, f"sqlite:///{workdir / 'games.sqlite'}", log_path, extra)
    try:
        experts = []
        for _ in range(args.experts):
            seats = [{"kind": "human"}, {"kind": "ai", "level": args.level}]
            data = http(base, "/api/games", {"mode": "ai", "seats": seats, "first_player": 1})
            experts.append(Game(data["game"]["id"], [data["invites"][0]["token"]]))
        ordinary = []
        for _ in range(args.games):
            data = http(base, "/api/games", {"mode": "online", "seats": [{}, {}], "first_player": 0})
            ordinary.append(Game(data["game"]["id"], [invite["token"] for invite in data["invites"]]))
        measured, _ = asyncio.run(
            play_all(base.replace("http", "ws", 1), ordinary, experts, args.duration, args.think, args.seed)
        )
        expert_moves = 0
        for game in experts:
            with urllib.request.urlopen(f"{base}/api/games/{game.id}", timeout=10) as response:
                expert_moves += int(re.search(rb'"actions":(\d+)', response.read()).group(1))  # type: ignore[union-attr]
        failures = len(AI_FAILURE.findall(log_path.read_text(errors="replace")))
        latencies_ms = [1000 * x for x in measured.latencies]
        p99 = percentile(latencies_ms, 0.99)
        print(
            f"{args.games} ordinary games (think {args.think:g} s), {args.experts} games against {args.level}, "
            f"{args.duration:g} s"
        )
        print(f"ordinary_actions {measured.actions}")
        print(
            f"latency_ms p50 {percentile(latencies_ms, 0.5):.1f} p90 {percentile(latencies_ms, 0.9):.1f} "
            f"p99 {p99:.1f} max {max(latencies_ms, default=float('nan')):.1f}"
        )
        print(f"expert_game_actions {expert_moves}")
        print(f"errors {len(measured.errors)}")
        for error in measured.errors[:10]:
            print("  " + error)
        print(f"ai_seats_failed {failures}")
        print(f"p99_ms_with_{args.experts}_experts {p99:.1f}")
        return 1 if measured.errors or failures else 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
