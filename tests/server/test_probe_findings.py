"""The probe's findings against a real ``ttr-nordic serve`` (loopback only): each was a way one
client could hurt the server or other players; each test failed before its fix. Every loop is
bounded in count and time."""

from __future__ import annotations

import fcntl
import http.client
import json
import os
import socket
import sqlite3
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_abuse import Server
from websockets.exceptions import ConnectionClosed

from ttr_nordic.server.limits import MAX_SOCKETS_PER_ADDRESS


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("probe"), "--games-per-minute", "600")
    try:
        started.wait_ready()
        yield started
    finally:
        started.stop()


def test_a_burst_as_large_as_the_rate_allows_is_answered_in_full(server: Server) -> None:
    """The rate limit lets 300 messages through at once: each gets its answer (the output queue
    once held 200, and the client was dropped with 4008 for reading too slowly)."""
    game_id, tokens = server.online_game()
    with server.ws(game_id, tokens[0]) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        for _ in range(300):
            ws.send('{"type": "ping"}')
        pongs = 0
        while pongs < 300:
            message = json.loads(ws.recv(timeout=10))
            assert message["type"] == "pong", message
            pongs += 1
        ws.send('{"type": "ping"}')  # still connected, and (after its burst) answered or refused
        assert json.loads(ws.recv(timeout=10))["type"] in ("pong", "error")


def test_a_client_dropped_for_not_reading_gets_its_close_frame(server: Server) -> None:
    """Past the burst, a client that keeps writing and never reads is closed with a frame
    saying why (4008 or 4029), never cut off without one."""
    game_id, tokens = server.online_game()
    with server.ws(game_id, tokens[0], max_queue=None) as ws:
        ws.recv(timeout=10)
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(3000):
                ws.send('{"type": "view"}')
            while True:
                ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code in (4008, 4029), closed.value


def _answer(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if message["type"] in ("error", "state"):
            return message


def _play(live: Server, game_id: str, token: str, moves: int) -> int:
    """Make up to ``moves`` moves for whoever must act (a hotseat token holds every seat);
    returns how many were acknowledged (answered with a state holding them)."""
    acknowledged = 0
    with live.ws(game_id, token) as ws:
        state = _answer(ws)
        for _ in range(moves):
            if not state["legal"]:
                break
            ws.send(json.dumps({"type": "act", "action": state["legal"][0]["action"], "expected": state["actions"]}))
            answer = _answer(ws)
            if answer["type"] == "error":
                break
            acknowledged += 1
            state = answer
    return acknowledged


def _shared_memory_in_use(database: Path) -> bool:
    """Whether some process holds SQLite's "in use" lock on the shared-memory file (a read lock
    on byte 128, ``UNIX_SHM_DMS``): without it, the next process to open the database truncates
    and rebuilds the file under the others' mappings of it."""
    fd = os.open(f"{database}-shm", os.O_RDWR)
    try:
        probe = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 128, 1, 0)
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, probe)
        return bool(struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK)
    finally:
        os.close(fd)


def test_another_process_truncating_the_wal_does_not_kill_the_server(tmp_path: Path) -> None:
    """A backup job's ``PRAGMA wal_checkpoint(TRUNCATE)`` on the live file: the server goes on
    and every move it acknowledged is stored (it used to die of SIGBUS: its own checks of the
    shared-memory file released SQLite's locks on it)."""
    path = tmp_path / "live.sqlite"
    live = Server(tmp_path, database_url=f"sqlite:///{path}")
    try:
        live.wait_ready()
        data = live.post("/api/games", {"mode": "hotseat", "seats": [{}, {}], "first_player": 0})
        game_id, token = data["game"]["id"], data["invites"][0]["token"]
        acknowledged = _play(live, game_id, token, 10)
        for _ in range(3):
            other = sqlite3.connect(path)
            other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            other.close()
            acknowledged += _play(live, game_id, token, 10)
            assert _shared_memory_in_use(path), "the server let go of its lock on the shared memory"
        assert live.process.poll() is None, live.log()
        assert acknowledged == 40
        stored = sqlite3.connect(path).execute("SELECT count(*) FROM actions WHERE game_id = ?", (game_id,)).fetchone()
        assert stored[0] == acknowledged
        assert live.get(f"/api/games/{game_id}")["actions"] == acknowledged
    finally:
        live.stop()


def test_moves_after_the_wal_is_cut_under_the_server_are_refused_not_acknowledged(tmp_path: Path) -> None:
    """The write-ahead log truncated by another program (not a checkpoint): what the server
    appends after that is behind a log with no header, lost at the next start. Each later move
    is refused as a storage error (it used to be acknowledged), and the server goes on."""
    path = tmp_path / "cut.sqlite"
    live = Server(tmp_path, database_url=f"sqlite:///{path}")
    try:
        live.wait_ready()
        data = live.post("/api/games", {"mode": "hotseat", "seats": [{}, {}], "first_player": 0})
        game_id, token = data["game"]["id"], data["invites"][0]["token"]
        assert _play(live, game_id, token, 5) == 5
        os.truncate(f"{path}-wal", 0)
        with live.ws(game_id, token) as ws:
            state = _answer(ws)
            ws.send(json.dumps({"type": "act", "action": state["legal"][0]["action"]}))
            answer = _answer(ws)
        assert answer["type"] == "error" and answer["code"] == "STORAGE_ERROR", answer
        # Refused either by the server's own check of the log's header or by SQLite itself
        # ("disk I/O error"), whichever notices first: never acknowledged.
        assert "write-ahead log" in answer["message"] or "OperationalError" in answer["message"], answer
        assert live.process.poll() is None
        assert live.get("/api/board")["cities"]
        assert "write-ahead log" in live.log() or "disk I/O error" in live.log()
    finally:
        live.stop()


def test_an_invalid_utf8_frame_is_closed_with_1007_and_logged_in_one_line(server: Server) -> None:
    game_id, tokens = server.online_game()
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    try:
        raw.sendall(
            (
                f"GET /ws/games/{game_id}?token={tokens[0]} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        received = b""
        while b'"type":"state"' not in received:  # accepted, and shown the game
            chunk = raw.recv(65536)
            assert chunk, received
            received += chunk
        payload = b"\xff\xfe{"
        raw.sendall(bytes([0x81, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)  # a masked text frame
        while b"\x88\x02" not in received:  # up to the close frame (the state comes first)
            chunk = raw.recv(65536)
            if not chunk:
                break
            received += chunk
    finally:
        raw.close()
    assert b"\x88\x02\x03\xef" in received  # a close frame with code 1007 (invalid data)
    deadline = time.monotonic() + 10
    while "Invalid UTF-8" not in server.log() and time.monotonic() < deadline:
        time.sleep(0.1)
    log = server.log()
    line = next(line for line in log.splitlines() if "Invalid UTF-8" in line)
    assert "UnicodeDecodeError" in line
    assert "Traceback" not in log


def _until_pong(ws: Any) -> list[dict[str, Any]]:
    messages = []
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if message["type"] == "pong":
            return messages
        messages.append(message)


def test_two_tabs_clicking_the_same_draw_without_expected_draw_once(server: Server) -> None:
    """Two sockets of one hotseat game both send a blind draw ("B") at once, without
    ``expected``: one is played, the other is STALE (both used to be played: two cards)."""
    data = server.post("/api/games", {"mode": "hotseat", "seats": [{}, {}], "first_player": 0})
    game_id, token = data["game"]["id"], data["invites"][0]["token"]
    assert _play(server, game_id, token, 2) == 2  # both seats keep their tickets: seat 0 draws
    with server.ws(game_id, token) as first, server.ws(game_id, token) as second:
        count = _answer(first)["actions"]
        assert _answer(second)["actions"] == count
        for _ in range(6):
            first.send('{"type": "act", "action": "B"}')
            second.send('{"type": "act", "action": "B"}')
            first.send('{"type": "ping"}')
            second.send('{"type": "ping"}')
            answers = _until_pong(first) + _until_pong(second)
            errors = [m["code"] for m in answers if m["type"] == "error"]
            counts = {m["actions"] for m in answers if m["type"] == "state"}
            assert errors == ["STALE"], answers
            assert counts == {count + 1}
            count += 1
    assert server.get(f"/api/games/{game_id}")["actions"] == count


def _get_from(server: Server, source: str, path: str) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10, source_address=(source, 0))
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_http_requests_are_rate_limited_per_address(server: Server) -> None:
    game_id, _ = server.online_game()
    path = f"/api/games/{game_id}"
    answered = 0
    for _ in range(1000):
        status, headers, body = _get_from(server, "127.0.0.3", path)
        if status != 200:
            break
        answered += 1
    assert status == 429, "1000 requests at once were all answered"
    assert answered >= 50  # a burst is let through
    assert json.loads(body)["error"]["code"] == "RATE_LIMITED"
    assert b"\n" not in body.strip() and headers["retry-after"] == "1"
    assert headers["x-content-type-options"] == "nosniff"
    assert _get_from(server, "127.0.0.4", path)[0] == 200  # another address is not held back


def _handshake(server: Server, game_id: str, token: str) -> tuple[socket.socket, bytes]:
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    raw.sendall(
        (
            f"GET /ws/games/{game_id}?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    return raw, raw.recv(12)


def test_one_address_cannot_hold_more_than_its_share_of_sockets(server: Server) -> None:
    game_id, tokens = server.online_game()
    held = []
    try:
        for _ in range(MAX_SOCKETS_PER_ADDRESS):
            raw, status = _handshake(server, game_id, tokens[0])
            held.append(raw)
            assert status == b"HTTP/1.1 101", status
        raw, status = _handshake(server, game_id, tokens[0])
        raw.close()
        assert status == b"HTTP/1.1 403", status  # one more is refused
        held.pop().close()
        deadline = time.monotonic() + 10
        while True:  # once the server has seen it close, there is room again
            raw, status = _handshake(server, game_id, tokens[0])
            held.append(raw)
            if status == b"HTTP/1.1 101" or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert status == b"HTTP/1.1 101"
    finally:
        for raw in held:
            raw.close()
