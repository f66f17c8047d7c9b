"""Several ``ttr-nordic serve`` processes over one PostgreSQL database: the seats of one game
on different processes see each other's moves live (``LISTEN/NOTIFY``), the database orders
moves that two processes accept at once, and a process killed with SIGKILL mid-game loses
nothing: its clients reconnect to another process and play on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from test_crash import _free_port, _http
from websockets.sync.client import ClientConnection, connect

TIMEOUT = 15.0


@contextmanager
def _process(
    data_home: Path, database_url: str, log: Path | None = None, *extra: str
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    port = _free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    output = subprocess.DEVNULL if log is None else log.open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "ttr_nordic.cli", "serve", "--port", str(port), "--database-url", database_url, *extra],
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _http(port, "/api/server")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield port, process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        if log is not None:
            output.close()  # type: ignore[union-attr]


def _state(ws: ClientConnection, actions: int) -> dict[str, Any]:
    """The first state message showing at least ``actions`` actions (errors fail the test)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        assert message["type"] != "error", message
        if message["type"] == "state" and message["actions"] >= actions:
            return message


def _play(sockets: list[ClientConnection], states: list[dict[str, Any]], moves: int) -> list[dict[str, Any]]:
    """Play ``moves`` actions, each by the seat that must act (its socket on its process); after
    each, every socket must be told the new state (seen live, whatever process it is on)."""
    for _ in range(moves):
        count = states[0]["actions"]
        assert all(s["actions"] == count for s in states)
        actor = next(i for i, s in enumerate(states) if s["legal"])
        sockets[actor].send(
            json.dumps({"type": "act", "action": states[actor]["legal"][0]["action"], "expected": count})
        )
        states = [_state(ws, count + 1) for ws in sockets]
        assert all(s["actions"] == count + 1 for s in states), "a move was not seen live on every process"
    return states


def test_seats_on_different_processes_play_and_survive_kill_9(tmp_path: Path, postgres_database: str) -> None:
    with ExitStack() as stack:
        (port_a, _), (port_b, process_b), (port_c, _) = (
            stack.enter_context(_process(tmp_path, postgres_database)) for _ in range(3)
        )
        created = _http(port_a, "/api/games", {"mode": "online", "seats": [{}, {}], "first_player": 0})
        game_id = created["game"]["id"]
        tokens = [invite["token"] for invite in created["invites"]]

        def ws(port: int, seat: int) -> ClientConnection:
            return stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}?token={tokens[seat]}"))

        sockets = [ws(port_a, 0), ws(port_b, 1)]
        states = _play(sockets, [_state(s, 0) for s in sockets], 12)
        played = states[0]["actions"]

        os.kill(process_b.pid, signal.SIGKILL)
        process_b.wait(10)
        sockets[1] = ws(port_c, 1)  # seat 1's client reconnects to another process
        states[1] = _state(sockets[1], played)
        assert states[1]["actions"] == played, "an acknowledged move was lost with the killed process"
        states = _play(sockets, states, 12)

        for port in (port_a, port_c):
            assert _http(port, f"/api/games/{game_id}")["actions"] == played + 12


def test_the_database_orders_one_move_sent_to_two_processes(tmp_path: Path, postgres_database: str) -> None:
    """Seat 0 is open on two processes and both send its move at once: exactly one is stored,
    the other is refused as stale, and both show the same game."""
    with ExitStack() as stack:
        (port_a, _), (port_b, _) = (stack.enter_context(_process(tmp_path, postgres_database)) for _ in range(2))
        created = _http(port_a, "/api/games", {"mode": "online", "seats": [{}, {}], "first_player": 0})
        game_id, token = created["game"]["id"], created["invites"][0]["token"]
        sockets = [
            stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}?token={token}"))
            for port in (port_a, port_b)
        ]
        first = [_state(s, 0) for s in sockets]
        legal = first[0]["legal"]
        for s, choice in zip(sockets, (legal[0], legal[-1]), strict=True):
            s.send(json.dumps({"type": "act", "action": choice["action"], "expected": 0}))
        errors: list[list[str]] = [[], []]
        finals: list[dict[str, Any]] = [{}, {}]
        for i, s in enumerate(sockets):
            while True:  # everything each socket is told, until it has been quiet for 10 s
                try:
                    message = json.loads(s.recv(timeout=10))
                except TimeoutError:
                    break
                if message["type"] == "error":
                    errors[i].append(message["code"])
                elif message["type"] == "state":
                    finals[i] = message
        assert sorted(errors) == [[], ["STALE"]], errors
        assert finals[0]["actions"] == finals[1]["actions"] == 1
        # The same game on both (the log is sent incrementally, so it is left out).
        assert [{k: v for k, v in f["view"].items() if k != "log"} for f in finals] == [
            {k: v for k, v in finals[0]["view"].items() if k != "log"}
        ] * 2
        assert _http(port_b, f"/api/games/{game_id}")["actions"] == 1


def test_a_process_that_lost_its_notifications_catches_up(tmp_path: Path, postgres_database: str) -> None:
    """The database drops every process's listening connection and a move is stored at once,
    while nobody listens: each process reconnects, catches up the games it holds, and pushes
    the move to its sockets."""
    import psycopg
    from sqlalchemy.engine import make_url

    with ExitStack() as stack:
        (port_a, _), (port_b, _) = (stack.enter_context(_process(tmp_path, postgres_database)) for _ in range(2))
        created = _http(port_a, "/api/games", {"mode": "online", "seats": [{}, {}], "first_player": 0})
        game_id = created["game"]["id"]
        tokens = [invite["token"] for invite in created["invites"]]
        sockets = [
            stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}?token={tokens[seat]}"))
            for seat, port in ((0, port_a), (1, port_b))
        ]
        states = _play(sockets, [_state(s, 0) for s in sockets], 2)
        dsn = make_url(postgres_database).set(drivername="postgresql").render_as_string(hide_password=False)
        with psycopg.connect(dsn, autocommit=True) as admin:
            dropped = admin.execute(
                "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND query = 'LISTEN ttr_moves') AS t"
            ).fetchone()
        assert dropped is not None and dropped[0] == 2  # one listener per process
        actor = next(i for i, s in enumerate(states) if s["legal"])
        sockets[actor].send(json.dumps({"type": "act", "action": states[actor]["legal"][0]["action"], "expected": 2}))
        states = [_state(ws, 3) for ws in sockets]
        assert [s["actions"] for s in states] == [3, 3]
        _play(sockets, states, 4)  # and moves cross processes live again


def test_one_process_thinks_for_a_computer_seat(tmp_path: Path, postgres_database: str) -> None:
    """A game against the computer open on two processes: each computer move is searched by one
    of them (the one holding the game's advisory lock), never by both."""
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    with ExitStack() as stack:
        (port_a, _), (port_b, _) = (stack.enter_context(_process(tmp_path, postgres_database, log)) for log in logs)
        seats = [{"kind": "human", "name": "Ola"}, {"kind": "ai", "level": "medium"}]
        created = _http(port_a, "/api/games", {"mode": "ai", "seats": seats, "first_player": 0})
        game_id, token = created["game"]["id"], created["invites"][0]["token"]
        sockets = [
            stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}?token={token}"))
            for port in (port_a, port_b)
        ]
        state = _state(sockets[0], 0)
        _state(sockets[1], 0)
        mine = 0
        while state["actions"] - mine < 12 and mine < 80:
            if not state["legal"]:
                state = _state(sockets[0], state["actions"] + 1)
                continue
            # The person plays on process A; process B holds the game too (it hears every move).
            sockets[0].send(
                json.dumps({"type": "act", "action": state["legal"][0]["action"], "expected": state["actions"]})
            )
            mine += 1
            state = _state(sockets[0], state["actions"] + 1)
        assert state["actions"] - mine >= 12  # the computer's moves in between
        assert _state(sockets[1], state["actions"])["actions"] >= state["actions"]
    for log in logs:
        text = log.read_text(errors="replace")
        assert "thought twice" not in text, text[-2000:]
        assert "Traceback" not in text, text[-2000:]


def _drop_listeners(database_url: str) -> int:
    """Terminate every server process's LISTEN connection (each reconnects about a second later)."""
    import psycopg
    from sqlalchemy.engine import make_url

    dsn = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND query = 'LISTEN ttr_moves') AS t"
        ).fetchone()
    return 0 if row is None else int(row[0])


def test_a_hand_over_racing_a_move_on_another_process(tmp_path: Path, postgres_database: str) -> None:
    """Seat 1's player steps away from process B; the creator hands the seat to the computer on
    process A; the player comes back to B, which has not heard of the hand-over yet (its
    notifications are cut for a second, and it still holds the game) and moves: the move is
    refused (the database checks who plays a seat where the move is stored), the computer plays
    seat 1, and both processes end with the same game and the same seats."""
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    with ExitStack() as stack:
        (port_a, _), (port_b, _) = (stack.enter_context(_process(tmp_path, postgres_database, log)) for log in logs)
        created = _http(port_a, "/api/games", {"mode": "online", "seats": [{}, {}], "first_player": 0})
        game_id = created["game"]["id"]
        tokens = [invite["token"] for invite in created["invites"]]

        def ws(port: int, seat: int) -> ClientConnection:
            return stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}?token={tokens[seat]}"))

        sockets = [ws(port_a, 0), ws(port_b, 1)]
        ws(port_b, 0)  # the creator's other tab, on B: B keeps the game in memory
        states = [_state(s, 0) for s in sockets]
        while not states[1]["legal"] or states[0]["legal"]:  # until seat 1 must act
            states = _play(sockets, states, 1)
        count = states[1]["actions"]
        sockets[1].close()  # the player steps away
        time.sleep(0.5)
        assert _drop_listeners(postgres_database) == 2
        sockets[0].send(json.dumps({"type": "hand_over", "seat": 1, "level": "easy"}))
        deadline = time.monotonic() + TIMEOUT
        while True:  # process A stored the hand-over and shows it
            message = json.loads(sockets[0].recv(timeout=max(0.1, deadline - time.monotonic())))
            assert message["type"] != "error", message
            if message["type"] == "state" and message["seats"][1]["kind"] == "ai":
                break
        player = ws(port_b, 1)  # back, on B
        player.recv(timeout=TIMEOUT)
        player.send(json.dumps({"type": "act", "action": states[1]["legal"][0]["action"], "expected": count}))
        codes: list[str] = []
        moved = False
        deadline = time.monotonic() + TIMEOUT
        # Seat 1's player is told the seat is the computer's and sees the computer's move, in
        # either order: B catching up before it refuses the move may bring the computer's already.
        while not (codes and moved) and time.monotonic() < deadline:
            try:
                message = json.loads(player.recv(timeout=max(0.1, deadline - time.monotonic())))
            except TimeoutError:
                break
            if message["type"] == "error":
                codes.append(message["code"])
            elif message["type"] == "state" and message["actions"] > count:
                moved = True
        assert codes == ["SEAT_HANDED_OVER"] and moved, (codes, moved)
        # The computer's move (not the person's) came next, and both processes agree (once both
        # have heard of it: polled, since a loaded machine may take a while).
        deadline = time.monotonic() + TIMEOUT
        while True:
            summaries = [_http(port, f"/api/games/{game_id}") for port in (port_a, port_b)]
            if summaries[0]["actions"] == summaries[1]["actions"] > count or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert summaries[0]["actions"] == summaries[1]["actions"] > count
        kinds = [[s["kind"] for s in summary["seats"]] for summary in summaries]
        assert kinds == [["human", "ai"], ["human", "ai"]]
    for log in logs:
        text = log.read_text(errors="replace")
        assert "thought twice" not in text and "Traceback" not in text, text[-2000:]


def test_the_game_creation_limit_holds_across_processes(tmp_path: Path, postgres_database: str) -> None:
    """One address creating games on two processes gets one burst (10), not one per process."""
    import urllib.error

    with ExitStack() as stack:
        ports = [
            stack.enter_context(_process(tmp_path, postgres_database, None, "--games-per-minute", "1"))[0]
            for _ in range(2)
        ]
        answers = []
        for i in range(16):
            try:
                _http(ports[i % 2], "/api/games", {"mode": "online", "seats": [{}, {}]})
                answers.append(201)
            except urllib.error.HTTPError as refused:
                assert json.loads(refused.read())["error"]["code"] == "TOO_MANY_GAMES"
                answers.append(refused.code)
        assert answers.count(201) == 10, answers  # 16 alternated, each process alone would allow 8
        assert answers[:10] == [201] * 10 and set(answers[10:]) == {429}


def _answer(ws: ClientConnection, wanted: Any) -> dict[str, Any]:
    """The first message for which ``wanted(message)`` is true (within the timeout)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if wanted(message):
            return message


def test_a_player_connected_to_another_process_is_present(tmp_path: Path, postgres_database: str) -> None:
    """The creator on process A cannot hand seat 1 to the computer while its player is connected
    to process B (seen through the database, not only A's own sockets); once that player has
    left, or B was killed with kill -9 under them, the hand-over goes through."""
    with ExitStack() as stack:
        (port_a, _), (port_b, process_b) = (
            stack.enter_context(_process(tmp_path, postgres_database)) for _ in range(2)
        )
        created = _http(port_a, "/api/games", {"mode": "online", "seats": [{}, {}, {}], "first_player": 0})
        game_id = created["game"]["id"]
        tokens = [invite["token"] for invite in created["invites"]]
        creator = stack.enter_context(connect(f"ws://127.0.0.1:{port_a}/ws/games/{game_id}?token={tokens[0]}"))
        _state(creator, 0)

        def hand_over(seat: int) -> dict[str, Any]:
            creator.send(json.dumps({"type": "hand_over", "seat": seat, "level": "easy"}))
            return _answer(
                creator, lambda m: m["type"] == "error" or (m["type"] == "state" and m["seats"][seat]["kind"] == "ai")
            )

        player = stack.enter_context(connect(f"ws://127.0.0.1:{port_b}/ws/games/{game_id}?token={tokens[1]}"))
        _state(player, 0)
        time.sleep(0.5)  # (its presence is taken in the background)
        refused = hand_over(1)
        assert refused["type"] == "error" and refused["code"] == "SEAT_PRESENT", refused
        player.close()
        time.sleep(0.5)
        assert hand_over(1)["type"] == "state"  # gone: handed over

        third = stack.enter_context(connect(f"ws://127.0.0.1:{port_b}/ws/games/{game_id}?token={tokens[2]}"))
        _state(third, 0)
        time.sleep(0.5)
        assert hand_over(2)["code"] == "SEAT_PRESENT"
        os.kill(process_b.pid, signal.SIGKILL)  # the player's process dies under them
        process_b.wait(10)
        third.close_socket()
        deadline = time.monotonic() + TIMEOUT
        while (answer := hand_over(2))["type"] == "error" and time.monotonic() < deadline:
            assert answer["code"] == "SEAT_PRESENT", answer
            time.sleep(0.5)  # until PostgreSQL noticed the dead connection
        assert answer["type"] == "state"


def test_ai_locks_sit_on_one_session_per_process(postgres_database: str) -> None:
    """The AI lock of a game is had by one process at a time; a process's locks sit on one
    session of its own (none of its pooled connections stays checked out while its computer
    thinks), and they go with that session."""
    from ttr_nordic.server.cluster import AILocks
    from ttr_nordic.server.db import make_engine

    engine_a, engine_b = make_engine(postgres_database), make_engine(postgres_database)
    a, b = AILocks(engine_a), AILocks(engine_b)
    try:
        games = [f"game-{i}" for i in range(30)]
        assert all(a.take(g) for g in games)  # thirty computers thinking at once in process A
        assert engine_a.pool.checkedout() == 1  # on one session, not thirty pooled connections
        assert not any(b.take(g) for g in games)
        assert not a.take(games[0])  # a process never takes one game twice
        a.release(games[0])
        assert b.take(games[0]) and not a.take(games[0])
        a.close()  # process A is gone: its locks with it
        # (its backend lets go when it has ended, a moment after the client closed the session)
        deadline = time.monotonic() + 10
        while not b.take(games[1]):
            assert time.monotonic() < deadline, "process A's locks outlived its session"
            time.sleep(0.05)
        assert all(b.take(g) for g in games[2:])
    finally:
        a.close()
        b.close()
        engine_a.dispose()
        engine_b.dispose()
