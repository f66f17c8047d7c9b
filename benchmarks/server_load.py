"""Server load: many simultaneous online games over WebSockets, then a crash.

Starts ``ttr-nordic serve`` on a free loopback port with a SQLite database in a temporary
directory (or uses ``--url`` of a running server), creates ``--games`` online games of
2 seats, and connects one WebSocket client per seat. Each seat plays random legal moves
(from the ``legal`` list the server sends) until its game has ``--actions`` actions, has
ended, or ``--duration`` seconds have passed. The round-trip latency of an action is the
time from sending ``act`` to receiving the state that holds it.

Then the crash: every seat plays on, and after ``--kill-after`` seconds of that traffic the
server is killed with SIGKILL, restarted on the same database, and every seat reconnects.
Every action a client was shown (the server stores an action before it broadcasts it) must
still be there, with the same log. Only 127.0.0.1 is contacted; every loop is bounded.

With ``--processes N`` (N ≥ 2, a PostgreSQL ``--database-url``), N server processes share the
database and the two seats of each game connect to different processes (every move crosses
processes through the database and ``LISTEN/NOTIFY``). The crash kills the first process
with SIGKILL and restarts nothing: its clients reconnect to the surviving processes.

    .venv/bin/python benchmarks/server_load.py [--games 100] [--actions 40] [--duration 60]
    .venv/bin/python benchmarks/server_load.py --url http://127.0.0.1:8000   # no kill/restart
    scripts/with-postgres.sh sh -c '.venv/bin/python benchmarks/server_load.py --processes 2 \
        --database-url "$TTR_TEST_POSTGRES_URL"'

Prints ``latency_ms p50 … p99 …``, ``errors``, ``games``, ``actions_per_second`` and, last,
``lost_actions <n>``. Exits 1 when there were errors or lost actions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

_SRC = Path(__file__).resolve().parent.parent / "src"
START_TIMEOUT = 60.0
RECV_TIMEOUT = 30.0
# Benchmarks create many games from one address: lift the per-client creation limit.
SERVE = [sys.executable, "-m", "ttr_nordic.cli", "serve", "--games-per-minute", "1000000"]


@dataclass
class Game:
    id: str
    tokens: list[str]
    acked: int = 0  # actions any client of this game was shown
    # The state messages seat 0 was shown, in order (decoded only to verify: a state carries
    # the log from its "log_start" on, so the log seat 0 was shown is put together from them).
    seen: list[str] = field(default_factory=list)
    over: bool = False
    bases: list[str] = field(default_factory=list)  # the WebSocket base of each seat's process (default: one)

    def url(self, ws_base: str, seat: int) -> str:
        base = self.bases[seat] if self.bases else ws_base
        return f"{base}/ws/games/{self.id}?token={self.tokens[seat]}"

    def seen_log(self) -> list[dict[str, Any]]:
        """The log of the latest state seat 0 was shown, as its client would put it together."""
        log: list[dict[str, Any]] = []
        for text in self.seen:
            message = json.loads(text)
            log = log[: message.get("log_start", 0)] + message["view"]["log"]
        return log


@dataclass
class Run:
    limit: int  # stop at this many actions in a game
    deadline: float  # time.monotonic() to stop at
    think: float  # mean think time of a player before each move, s
    seats: int  # seats that must connect before anyone acts
    server_pid: int | None  # to read its CPU time when play starts
    connected: int = 0
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    started: float = 0.0  # time.perf_counter() when all seats were connected
    cpu_at_start: tuple[float | None, float] = (None, 0.0)  # CPU s of the server, of this process

    async def arrive(self) -> None:
        """Wait until every seat is connected (or a fifth of the time limit has passed), so
        that connecting is not measured as action latency."""
        self.connected += 1
        if self.connected >= self.seats:
            self.started = time.perf_counter()
            self.cpu_at_start = (cpu_seconds(self.server_pid), time.process_time())
            self.ready.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.ready.wait(), max(1.0, (self.deadline - time.monotonic()) / 5))


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    actions: int = 0
    elapsed: float = 0.0  # from the moment every seat was connected
    server_cpu: float | None = None  # CPU s the server used meanwhile (None if unknown)
    client_cpu: float = 0.0  # CPU s this process used meanwhile


# ---------------------------------------------------------------- server process


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def http(base: str, path: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def start_server(port: int, database_url: str, log_path: Path, extra: Sequence[str] = ()) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_SRC), env.get("PYTHONPATH", "")) if p)
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            [*SERVE, "--host", "127.0.0.1", "--port", str(port), "--database-url", database_url, *extra],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            http(base, "/api/server")
            return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"the server did not start; see {log_path}") from None
            time.sleep(0.1)


# ---------------------------------------------------------------- clients


_ACTIONS = re.compile(r'"actions":(\d+),')
_NO_LEGAL = '"legal":[]}'


async def seat_client(
    ws_base: str, game: Game, seat: int, rng: random.Random, stats: Stats, run: Run, phase: str
) -> None:
    """Play ``seat`` of ``game`` until the game has ``run.limit`` actions, ends, or time is up.

    The client does as little as it can, to leave the CPU to the server: a state message
    with no legal actions (the other seat decides) is not decoded, only its action count
    is read. The latency clock stops when the message arrives, before decoding."""
    url = game.url(ws_base, seat)
    async with connect(url, max_size=None, compression=None, open_timeout=RECV_TIMEOUT) as ws:
        waiting_since: float | None = None  # when our pending action was sent
        sent_at = -1  # the action count when we sent it
        first = True
        while True:
            text = await asyncio.wait_for(ws.recv(), RECV_TIMEOUT)
            arrived = time.perf_counter()
            if first:
                first = False
                await run.arrive()
            assert isinstance(text, str)
            found = _ACTIONS.search(text, 0, 4096) if text.startswith('{"type":"state"') else None
            if found is not None and text.endswith(_NO_LEGAL):
                message: dict[str, Any] = {"type": "state", "actions": int(found.group(1)), "legal": []}
            else:
                message = json.loads(text)
            kind = message.get("type")
            if kind == "game_over":
                game.over = True
                return
            if kind == "error":
                stats.errors.append(f"{phase} game {game.id} seat {seat}: {message.get('code')} {message}")
                if waiting_since is None:
                    continue
                waiting_since = None  # refused: decide again on the next state
                await ws.send(json.dumps({"type": "view"}))
                continue
            if kind != "state":
                continue
            count = message["actions"]
            game.acked = max(game.acked, count)
            if seat == 0:
                game.seen.append(text)
            if waiting_since is not None and count > sent_at:
                stats.latencies.append(arrived - waiting_since)
                stats.actions += 1
                waiting_since = None
            if count >= run.limit or time.monotonic() > run.deadline:
                return
            legal = message["legal"]
            if legal and waiting_since is None:
                action = rng.choice(legal)["action"]
                if run.think > 0:
                    await asyncio.sleep(rng.uniform(0, 2 * run.think))
                sent_at = count
                waiting_since = time.perf_counter()
                await ws.send(json.dumps({"type": "act", "action": action}))


async def _recv(ws: ClientConnection) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), RECV_TIMEOUT))
    return data


async def play(
    ws_base: str,
    games: list[Game],
    limit: int,
    duration: float,
    think: float,
    seed: int,
    phase: str,
    server_pid: int | None = None,
) -> Stats:
    stats = Stats()
    playing = [game for game in games if not game.over]
    run = Run(limit, time.monotonic() + duration, think, 2 * len(playing), server_pid)
    rng = random.Random(seed)
    tasks = [
        seat_client(ws_base, game, seat, random.Random(rng.getrandbits(64)), stats, run, phase)
        for game in playing
        for seat in (0, 1)
    ]
    results = await asyncio.gather(*tasks, return_exceptions=True)
    stats.elapsed = time.perf_counter() - (run.started or time.perf_counter())
    server_cpu, own_cpu = run.cpu_at_start
    after = cpu_seconds(server_pid)
    stats.server_cpu = None if server_cpu is None or after is None else after - server_cpu
    stats.client_cpu = time.process_time() - own_cpu
    for result in results:
        if isinstance(result, BaseException):
            stats.errors.append(f"{phase}: {type(result).__name__}: {result}")
    return stats


async def play_until_killed(
    ws_base: str,
    games: list[Game],
    kill_after: float,
    think: float,
    process: subprocess.Popen[bytes],
    seed: int,
) -> int:
    """Keep playing (no action limit, so the kill lands in the middle of the traffic); SIGKILL
    the server after ``kill_after`` s. Returns the actions acknowledged meanwhile."""
    before = sum(g.acked for g in games)
    limit = 10**9  # bounded by the kill (and the deadline), not by a count
    tasks = asyncio.ensure_future(play(ws_base, games, limit, kill_after + RECV_TIMEOUT, think, seed, "crash"))
    for _ in range(int(RECV_TIMEOUT / 0.05)):  # start the clock once actions flow again
        if sum(g.acked for g in games) > before or tasks.done():
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(kill_after)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(10)
    # The clients of the killed process see their connections drop (not errors); with several
    # processes, the others' clients would wait for partners that are gone: stop them.
    with contextlib.suppress(TimeoutError, asyncio.CancelledError):
        await asyncio.wait_for(tasks, 2.0)
    return sum(g.acked for g in games) - before


def same_log(seen: list[dict[str, Any]], view: dict[str, Any]) -> bool:
    """Whether the stored ``view`` starts with the log a seat was shown. Once the game is over
    (an action stored just before the kill may have ended it), the view reveals what was hidden
    during play (other players' kept tickets and blind draws): such an entry matches the hidden
    one by its player."""
    stored = view["log"]
    if len(stored) < len(seen):
        return False
    over = view["phase"] == "GAME_OVER"
    for shown, kept in zip(seen, stored, strict=False):
        if shown == kept:
            continue
        if not (over and shown["notation"] is None and shown["player"] == kept["player"]):
            return False
    return True


async def verify(ws_base: str, games: list[Game]) -> tuple[int, list[str]]:
    """Reconnect every seat; count acknowledged actions that are not there (or differ)."""
    lost = 0
    problems: list[str] = []

    async def one(game: Game, seat: int) -> None:
        nonlocal lost
        url = game.url(ws_base, seat)
        async with connect(url, max_size=None, compression=None, open_timeout=RECV_TIMEOUT) as ws:
            message = await _recv(ws)
        if message.get("type") != "state":
            problems.append(f"game {game.id} seat {seat}: {message}")
            lost += game.acked
            return
        missing = max(0, game.acked - message["actions"])
        log = game.seen_log()
        if seat == 0 and not missing and not same_log(log, message["view"]):
            problems.append(f"game {game.id}: the stored log differs from the one seat 0 was shown")
            missing = game.acked
        lost += missing

    results = await asyncio.gather(*(one(g, s) for g in games for s in (0, 1)), return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            problems.append(f"verify: {type(result).__name__}: {result}")
    return lost, problems


# ---------------------------------------------------------------- main


def cpu_seconds(pid: int | None) -> float | None:
    """CPU time (user + system) the process has used so far, from /proc (Linux), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100, help="simultaneous online games (default 100)")
    parser.add_argument("--actions", type=int, default=40, help="actions per game in the timed phase (default 40)")
    parser.add_argument("--duration", type=float, default=60.0, help="time limit of the timed phase, s (default 60)")
    parser.add_argument(
        "--think", type=float, default=0.0, help="mean think time before each move, s (default 0: as fast as possible)"
    )
    parser.add_argument("--kill-after", type=float, default=1.0, help="crash phase: SIGKILL after this many s")
    parser.add_argument("--url", help="a running server (http://127.0.0.1:PORT); then no kill and restart")
    parser.add_argument("--database-url", help="database of the server this script starts (default: temp SQLite)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random players")
    parser.add_argument(
        "--processes", type=int, default=1, help="server processes over one PostgreSQL database (default 1)"
    )
    args = parser.parse_args()
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    if args.processes > 1 and (args.url or not (args.database_url or "").startswith("postgresql")):
        parser.error("--processes 2 or more needs a PostgreSQL --database-url (and no --url)")

    workdir = Path(tempfile.mkdtemp(prefix="ttr-load-"))
    log_path = workdir / "server.log"
    process: subprocess.Popen[bytes] | None = None
    others: list[subprocess.Popen[bytes]] = []  # the processes after the first (--processes)
    other_bases: list[str] = []
    if args.url:
        base = args.url.rstrip("/")
        host = urllib.parse.urlsplit(base).hostname
        if host not in ("127.0.0.1", "localhost"):
            parser.error("--url must be a loopback address (127.0.0.1)")
    else:
        port = free_port()
        database_url = args.database_url or f"sqlite:///{workdir / 'games.sqlite'}"
        base = f"http://127.0.0.1:{port}"
        process = start_server(port, database_url, log_path)
    ws_base = "ws" + base[len("http") :]
    try:
        for _ in range(args.processes - 1):
            other_port = free_port()
            others.append(start_server(other_port, database_url, log_path))
            other_bases.append(f"ws://127.0.0.1:{other_port}")
        all_bases = [ws_base, *other_bases]
        games = []
        for index in range(args.games):
            data = http(base, "/api/games", {"mode": "online", "seats": [{}, {}], "first_player": 0})
            game = Game(data["game"]["id"], [invite["token"] for invite in data["invites"]])
            if other_bases:  # the two seats on two different processes
                game.bases = [all_bases[(index + s) % len(all_bases)] for s in (0, 1)]
            games.append(game)
        if other_bases:
            print(f"processes {len(all_bases)} over one PostgreSQL database; each game's seats on two of them")

        pid = None if process is None else process.pid
        stats = asyncio.run(play(ws_base, games, args.actions, args.duration, args.think, args.seed, "timed", pid))
        elapsed = max(stats.elapsed, 1e-9)
        own_cpu = stats.client_cpu
        latencies_ms = [1000 * x for x in stats.latencies]
        print(
            f"games {len(games)} (2 seats each, one WebSocket per seat, think time {args.think:g} s), "
            f"{stats.actions} actions in {elapsed:.1f} s"
        )
        print(f"actions_per_second {stats.actions / elapsed:.1f}")
        print(
            f"latency_ms p50 {percentile(latencies_ms, 0.5):.1f} p90 {percentile(latencies_ms, 0.9):.1f} "
            f"p99 {percentile(latencies_ms, 0.99):.1f} max {max(latencies_ms, default=float('nan')):.1f}"
        )
        per_action = 1000 / max(1, stats.actions)
        if stats.server_cpu is not None:
            server_cpu = stats.server_cpu
            print(
                f"server_cpu {server_cpu:.1f} s ({100 * server_cpu / elapsed:.0f}% of a core, "
                f"{server_cpu * per_action:.2f} ms per action)"
            )
        print(f"client_cpu {own_cpu:.1f} s ({own_cpu * per_action:.2f} ms per action), cores {os.cpu_count()}")
        print(f"errors {len(stats.errors)}")
        for error in stats.errors[:10]:
            print("  " + error)

        if process is not None:
            assert not args.url
            played = asyncio.run(play_until_killed(ws_base, games, args.kill_after, args.think, process, args.seed + 1))
            if other_bases:
                print(
                    f"killed the first server process (SIGKILL) while playing: {played} more actions acknowledged "
                    "before the kill; its clients reconnect to the others"
                )
                for index, game in enumerate(games):
                    game.bases = [other_bases[(index + s) % len(other_bases)] for s in (0, 1)]
                process = None
            else:
                print(f"killed the server (SIGKILL) while playing: {played} more actions acknowledged before the kill")
                process = start_server(port, database_url, log_path)
        lost, problems = asyncio.run(verify(ws_base, games))
        for problem in problems[:10]:
            print("  " + problem)
        print(f"acknowledged_actions {sum(g.acked for g in games)} in {len(games)} games")
        print(f"lost_actions {lost}")
        return 1 if stats.errors or lost or problems else 0
    finally:
        for running in [process, *others]:
            if running is not None and running.poll() is None:
                running.kill()
                running.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
