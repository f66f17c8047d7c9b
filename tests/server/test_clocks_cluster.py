"""Clocks over several ``ttr-nordic serve`` processes on PostgreSQL: a clock that runs out while
the process that made the game is killed with SIGKILL fires on another one; with two processes
alive, each time-out is played exactly once.

No timing assumptions: the kill is checked to come before the deadline (read in the database),
and each check polls with a long deadline."""

from __future__ import annotations

import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy.engine import make_url
from test_crash import _http
from test_scale_out import _process

PATIENCE_S = 120.0
HUMANS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}]


def _wait_for(check: Any, what: str) -> Any:
    deadline = time.monotonic() + PATIENCE_S
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"waited {PATIENCE_S:.0f} s for {what}"
        time.sleep(0.3)


def _dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def test_a_clock_fires_on_another_process_after_kill_9(tmp_path: Path, postgres_database: str) -> None:
    control = {"kind": "realtime", "per_move_s": 8, "reserve_s": 0}
    with ExitStack() as stack:
        port_a, process_a = stack.enter_context(_process(tmp_path, postgres_database))
        port_b, _ = stack.enter_context(_process(tmp_path, postgres_database))
        created = _http(
            port_a, "/api/games", {"mode": "online", "seats": HUMANS, "first_player": 0, "time_control": control}
        )
        game_id = created["game"]["id"]
        process_a.kill()  # SIGKILL: the process that made the game (and holds it) is gone
        process_a.wait(10)
        with psycopg.connect(_dsn(postgres_database)) as conn:
            row = conn.execute("SELECT deadline, idx FROM game_clocks WHERE game_id = %s", (game_id,)).fetchone()
        assert row is not None
        deadline, idx = row
        if deadline <= datetime.now(UTC):
            # A machine so loaded that the kill came after the deadline: process A may have fired it.
            return
        assert idx == 0
        # B never held this game: only the deadline in the database tells it the clock ran out.
        summary = _wait_for(
            lambda: (s := _http(port_b, f"/api/games/{game_id}"))["clock"]["timeouts"][0] >= 1 and s,
            "the time-out on process B",
        )
        assert summary["actions"] >= 1 and summary["seats"][0]["kind"] == "human"
        assert summary["clock"]["seat"] != 0 or summary["clock"]["timeouts"][0] > 1


def test_two_live_processes_play_each_time_out_once(tmp_path: Path, postgres_database: str) -> None:
    control = {"kind": "realtime", "per_move_s": 1, "reserve_s": 0}
    with ExitStack() as stack:
        port_a, _ = stack.enter_context(_process(tmp_path, postgres_database))
        port_b, _ = stack.enter_context(_process(tmp_path, postgres_database))
        games = [
            _http(port, "/api/games", {"mode": "online", "seats": HUMANS, "first_player": 0, "time_control": control})[
                "game"
            ]["id"]
            for port in (port_a, port_b, port_a, port_b)
        ]

        def handed_over() -> bool:
            return all(_http(port_a, f"/api/games/{g}")["seats"][0]["kind"] == "ai" for g in games)

        _wait_for(handed_over, "every first seat handed to the computer")
        with psycopg.connect(_dsn(postgres_database)) as conn:
            for game_id in games:
                (timeouts,) = conn.execute(
                    "SELECT timeouts FROM game_clocks WHERE game_id = %s", (game_id,)
                ).fetchone() or (None,)
                # Seat 0 timed out exactly 3 times in a row (a time-out fired twice would have
                # counted 4 or played a turn twice, refused by the stored action's index).
                assert timeouts is not None and int(timeouts.strip("[]").split(",")[0]) == 3
