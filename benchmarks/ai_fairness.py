"""AI fairness: one visitor's expert games cannot stall another visitor's easy game.

Starts ``ttr-nordic serve`` on a free loopback port (temporary SQLite). One visitor (address
127.0.0.1) creates ``--experts`` games of one person against ``--expert-level`` AIs (two of them
with ``--players 3``), the computer to move first, and plays its own seat at once whenever it may,
so the experts think all the time. Another visitor (address 127.0.0.2) creates ``--easy`` games
against the ``easy`` AI and plays them with a short pause (``--think``, like a person). An easy
game's AI move is timed from the state in which the computer must act to the next state (the
computer's action), as its client sees them.

    .venv/bin/python benchmarks/ai_fairness.py [--experts 8] [--easy 4] [--duration 40] [--runs 3]

Each run prints the easy AI moves' latency and each expert game's action count; the last lines
are the medians over the runs: ``easy_ai_move_ms_p99 <ms>`` and ``expert_games_min_actions <n>``
(the expert game that moved least: above 0 means every expert game made progress). Only
127.0.0.1 and 127.0.0.2 are contacted; every loop is bounded by ``--duration``. Exits 1 on
client errors or when an expert game made no AI move.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import free_port, percentile, start_server

RECV_TIMEOUT = 60.0
HEAVY, LIGHT = "127.0.0.1", "127.0.0.2"  # the two visitors' addresses


def post(port: int, source: str, path: str, body: dict[str, Any]) -> Any:
    """POST from the address ``source`` (so the server sees two different visitors)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        connection.request("POST", path, json.dumps(body), {"content-type": "application/json"})
        response = connection.getresponse()
        data = json.loads(response.read())
        if response.status >= 400:
            raise RuntimeError(f"{path}: {response.status} {data}")
        return data
    finally:
        connection.close()


def get(port: int, path: str) -> Any:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path)
        return json.loads(connection.getresponse().read())
    finally:
        connection.close()


async def play_seat(
    url: str, source: str, deadline: float, think: float, rng: random.Random, ai_moves: list[float] | None
) -> None:
    """Play the person's seat (random legal moves) until the game ends or time is up; with
    ``ai_moves``, record how long each computer action took to arrive."""
    async with connect(url, max_size=None, open_timeout=RECV_TIMEOUT, local_addr=(source, 0)) as ws:
        ai_since: float | None = None
        while time.monotonic() < deadline:
            try:
                text = await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                return
            arrived = time.perf_counter()
            message = json.loads(text)
            kind = message.get("type")
            if kind == "game_over":
                return
            if kind == "error":
                raise RuntimeError(f"{url.split('?')[0]}: {message.get('code')} {message.get('message')}")
            if kind != "state":
                continue
            if ai_moves is not None and ai_since is not None:
                ai_moves.append(arrived - ai_since)
            legal = message["legal"]
            ai_since = arrived if not legal and message["view"].get("current") not in (None, message["seat"]) else None
            if legal:
                if think > 0:
                    await asyncio.sleep(rng.uniform(0, 2 * think))
                await ws.send(json.dumps({"type": "act", "action": rng.choice(legal)["action"]}))


async def play_all(
    port: int, experts: list[tuple[str, str]], easy: list[tuple[str, str]], args: argparse.Namespace, seed: int
) -> list[float]:
    rng = random.Random(seed)
    deadline = time.monotonic() + args.duration
    ws_base = f"ws://127.0.0.1:{port}/ws/games"
    ai_moves: list[float] = []
    tasks = [
        play_seat(f"{ws_base}/{g}?token={t}", HEAVY, deadline, 0.0, random.Random(rng.getrandbits(64)), None)
        for g, t in experts
    ] + [
        play_seat(f"{ws_base}/{g}?token={t}", LIGHT, deadline, args.think, random.Random(rng.getrandbits(64)), ai_moves)
        for g, t in easy
    ]
    await asyncio.gather(*tasks)
    return ai_moves


def one_run(args: argparse.Namespace, seed: int) -> tuple[float, int, int]:
    workdir = Path(tempfile.mkdtemp(prefix="ttr-ai-fairness-"))
    port = free_port()
    extra = [] if args.ai_workers is None else ["--ai-workers", str(args.ai_workers)]
    process = start_server(port, f"sqlite:///{workdir / 'games.sqlite'}", workdir / "server.log", extra)
    try:
        ai = {"kind": "ai", "level": args.expert_level}
        experts = []
        for _ in range(args.experts):
            seats = [{"kind": "human"}] + [ai] * (args.players - 1)
            data = post(port, HEAVY, "/api/games", {"mode": "ai", "seats": seats, "first_player": 1})
            experts.append((data["game"]["id"], data["invites"][0]["token"]))
        time.sleep(args.warmup)  # the experts are thinking before the easy games start
        easy = []
        for _ in range(args.easy):
            seats = [{"kind": "human"}, {"kind": "ai", "level": "easy"}]
            data = post(port, LIGHT, "/api/games", {"mode": "ai", "seats": seats, "first_player": 1})
            easy.append((data["game"]["id"], data["invites"][0]["token"]))
        ai_moves = asyncio.run(play_all(port, experts, easy, args, seed))
        expert_actions = [int(get(port, f"/api/games/{g}")["actions"]) for g, _ in experts]
        ms = [1000 * x for x in ai_moves]
        p99 = percentile(ms, 0.99)
        print(
            f"run {seed}: easy AI moves {len(ms)}: p50 {percentile(ms, 0.5):.1f} ms p90 {percentile(ms, 0.9):.1f} ms "
            f"p99 {p99:.1f} ms max {max(ms, default=float('nan')):.1f} ms; "
            f"expert game actions {sorted(expert_actions)}",
            flush=True,
        )
        return p99, min(expert_actions), len(ms)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--experts", type=int, default=8, help="one visitor's games against experts (default 8)")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3), help="players in an expert game (2)")
    parser.add_argument("--expert-level", default="expert", help="level of the thinking AIs (default expert)")
    parser.add_argument("--easy", type=int, default=4, help="another visitor's games against easy (default 4)")
    parser.add_argument("--think", type=float, default=0.2, help="mean pause before an easy game's move, s (0.2)")
    parser.add_argument("--duration", type=float, default=40.0, help="seconds of play per run (default 40)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds the experts think first (default 3)")
    parser.add_argument("--runs", type=int, default=3, help="runs; medians are printed (default 3)")
    parser.add_argument("--ai-workers", type=int, help="the server's --ai-workers (default: its own)")
    args = parser.parse_args()
    results = [one_run(args, seed) for seed in range(1, args.runs + 1)]
    p99 = statistics.median(r[0] for r in results)
    least = statistics.median(r[1] for r in results)
    print(
        f"{args.experts} {args.players}-player games against {args.expert_level}, "
        f"{args.easy} easy games, {args.runs} runs"
    )
    print(f"easy_ai_move_ms_p99 {p99:.1f}")
    print(f"expert_games_min_actions {least:g}")
    return 0 if min(r[1] for r in results) > 1 and all(r[2] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
