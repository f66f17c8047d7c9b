"""How long the start page's "Your games" request takes for a browser that holds many games.

Creates ``--active`` online games and ``--finished`` pass-and-play games played to the end
(random legal moves) in a fresh SQLite database, then times ``POST /api/games/mine`` with all
their tokens (the most one request may carry is 200): once with every active game in memory,
once after a restart (the active games are replayed from the database, finished ones are
summed up from their rows). Prints the median and the slowest of ``--repeat`` requests.

    .venv/bin/python benchmarks/my_games.py --active 180 --finished 20
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from ttr_nordic.server import create_app


def finish(client: TestClient, game_id: str, seed: int) -> None:
    service: Any = client.app.state.service  # type: ignore[attr-defined]
    portal: Any = client.portal
    rng = random.Random(seed)
    game = portal.call(service.get, game_id)
    while not game.state.is_over:
        state = game.state
        portal.call(service.act, game, state.decision.player, rng.choice(state.legal_action_list()))


def timed(client: TestClient, body: dict[str, Any], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        response = client.post("/api/games/mine", json=body)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.text
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--active", type=int, default=180)
    parser.add_argument("--finished", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    if args.active + args.finished > 200:
        parser.error("a request carries at most 200 games")
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'games.sqlite'}"
        games: list[dict[str, str]] = []
        with TestClient(create_app(url, games_per_minute=1e6)) as client:  # one client creates them all
            for _ in range(args.active):
                data = client.post("/api/games", json={"mode": "online", "seats": [{}, {}]}).json()
                games.append({"id": data["game"]["id"], "token": data["invites"][0]["token"]})
            started = time.perf_counter()
            for i in range(args.finished):
                data = client.post("/api/games", json={"mode": "hotseat", "seats": [{}, {}]}).json()
                finish(client, data["game"]["id"], i)
                games.append({"id": data["game"]["id"], "token": data["invites"][0]["token"]})
            setup = time.perf_counter() - started
            body = {"games": games}
            answer = client.post("/api/games/mine", json=body).json()
            assert len(answer["games"]) == len(games) and not answer["unknown"]
            warm = timed(client, body, args.repeat)
        with TestClient(create_app(url)) as client:
            cold_first = timed(client, body, 1)[0]
            cold = timed(client, body, args.repeat)
    print(f"{args.active} active + {args.finished} finished games ({setup:.1f} s to play the finished ones)")
    print(
        f"in memory:       median {statistics.median(warm):.1f} ms, slowest {max(warm):.1f} ms ({args.repeat} requests)"
    )
    print(
        f"after a restart: first {cold_first:.1f} ms (replays the active games), then median "
        f"{statistics.median(cold):.1f} ms, slowest {max(cold):.1f} ms"
    )


if __name__ == "__main__":
    main()
