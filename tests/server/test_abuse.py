"""Attacks on a real ``ttr-nordic serve`` (loopback only): each is refused, and another game's
ping stays fast meanwhile. Every loop here is bounded in count and time."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

SRC = Path(__file__).resolve().parents[2] / "src"

#: Another client's ping answered within this long: the server kept serving it. The latency
#: targets (200 ms) are benchmarks/abuse.py's to print; tests must hold on a loaded machine.
STILL_ANSWERS_MS = 10_000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    def __init__(self, folder: Path, *extra: str, database_url: str | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / f"server-{self.port}.log"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
        url = database_url or f"sqlite:///{folder / f'games-{self.port}.sqlite'}"
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "ttr_nordic.cli",
                    "serve",
                    "--port",
                    str(self.port),
                    "--database-url",
                    url,
                    *extra,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
            )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                self.get("/api/server")
                return
            except OSError:
                if self.process.poll() is not None:
                    raise AssertionError("the server exited:\n" + self.log()) from None
                time.sleep(0.1)
        raise AssertionError("the server did not start")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base + path, timeout=10) as response:
            return json.loads(response.read())

    def post(self, path: str, body: Any) -> Any:
        request = urllib.request.Request(
            self.base + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def online_game(self) -> tuple[str, list[str]]:
        data = self.post("/api/games", {"mode": "online", "seats": [{}, {}], "first_player": 0})
        return data["game"]["id"], [invite["token"] for invite in data["invites"]]

    def ws(self, game_id: str, token: str, **options: Any) -> ClientConnection:
        return connect(f"ws://127.0.0.1:{self.port}/ws/games/{game_id}?token={token}", **options)

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(tmp_path_factory.mktemp("abuse"), "--header-timeout", "1.5", "--games-per-minute", "600")
    try:
        started.wait_ready()
        yield started
    finally:
        started.stop()


def ping_ms(ws: ClientConnection) -> float:
    start = time.perf_counter()
    ws.send(json.dumps({"type": "ping"}))
    while True:
        if json.loads(ws.recv(timeout=10)).get("type") == "pong":
            return 1000 * (time.perf_counter() - start)


@pytest.fixture
def watcher(server: Server) -> Iterator[ClientConnection]:
    """A socket of another game, to measure the server's responsiveness."""
    game_id, tokens = server.online_game()
    with server.ws(game_id, tokens[0]) as ws:
        ws.recv(timeout=10)
        yield ws


def test_a_huge_message_is_refused_before_it_is_read(server: Server, watcher: ClientConnection) -> None:
    game_id, tokens = server.online_game()
    worst = 0.0
    for _ in range(3):
        with server.ws(game_id, tokens[0], max_size=None) as ws:
            ws.recv(timeout=10)
            started = time.monotonic()
            try:  # the server stops reading at 4 KiB and closes: the rest may not even be sent
                ws.send(json.dumps({"type": "act", "action": "B" * 15_000_000}))
                while True:
                    ws.recv(timeout=10)
            except (ConnectionClosed, OSError) as closed:
                if isinstance(closed, ConnectionClosed) and closed.rcvd is not None:
                    assert closed.rcvd.code == 1009  # message too big
            assert time.monotonic() - started < 60  # refused, not read: no timing target (a loaded machine is slow)
        worst = max(worst, ping_ms(watcher))
    assert worst < STILL_ANSWERS_MS
    with server.ws(game_id, tokens[0]) as ws:  # the game is untouched
        assert json.loads(ws.recv(timeout=10))["actions"] == 0


def test_a_client_that_asks_and_never_reads_is_dropped(server: Server, watcher: ClientConnection) -> None:
    game_id, tokens = server.online_game()
    before = server.rss_mb()
    raw = socket.create_connection(("127.0.0.1", server.port))
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    raw.sendall(
        (
            f"GET /ws/games/{game_id}?token={tokens[0]} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    view = json.dumps({"type": "view"}).encode()
    frame = bytes([0x81, 0x80 | len(view)]) + b"\0\0\0\0" + view  # masked text frame, zero mask
    worst = 0.0
    sent = 0
    deadline = time.monotonic() + 20
    raw.settimeout(0.5)
    try:
        while sent < 20_000 and time.monotonic() < deadline:
            try:
                raw.sendall(frame * 50)
            except (BrokenPipeError, ConnectionResetError, TimeoutError):
                break  # the server closed it
            sent += 50
            if sent % 1000 == 0:
                worst = max(worst, ping_ms(watcher))
    finally:
        raw.close()
    worst = max(worst, ping_ms(watcher))
    assert worst < STILL_ANSWERS_MS
    assert server.rss_mb() - before < 100


def test_a_flood_is_refused_and_then_dropped(server: Server, watcher: ClientConnection) -> None:
    game_id, tokens = server.online_game()
    codes: list[str] = []
    with server.ws(game_id, tokens[1]) as ws:
        ws.recv(timeout=10)
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(5000):
                ws.send('{"type": "view"}')
            while True:
                message = json.loads(ws.recv(timeout=10))
                if message["type"] == "error":
                    codes.append(message["code"])
        # Closed by the server: 4029 (flooding) or 4008 (not reading its answers); a client that
        # is still writing when the server closes may see the connection end before the frame.
        assert closed.value.rcvd is None or closed.value.rcvd.code in (4029, 4008)
    assert ping_ms(watcher) < STILL_ANSWERS_MS


def test_slow_headers_are_cut_off(server: Server, watcher: ClientConnection) -> None:
    sockets = []
    for _ in range(50):
        s = socket.create_connection(("127.0.0.1", server.port))
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        sockets.append(s)
    time.sleep(3)  # the server gives 1.5 s
    closed = 0
    for s in sockets:
        s.settimeout(2)
        try:
            closed += s.recv(100) == b""
        except OSError:
            closed += 1
        s.close()
    assert closed == 50
    assert ping_ms(watcher) < STILL_ANSWERS_MS


def test_malformed_socket_input_gets_an_answer_never_a_silent_drop(server: Server) -> None:
    game_id, tokens = server.online_game()
    with server.ws(game_id, tokens[0]) as ws:
        ws.recv(timeout=10)
        # A lone surrogate in the action (valid JSON, not valid UTF-8 once echoed).
        ws.send('{"type": "act", "action": "C R01 \\ud800"}')
        error = json.loads(ws.recv(timeout=10))
        assert error["code"] == "BAD_ACTION" and len(error["action"]) <= 41
        ws.send("[" * 2000 + "]" * 2000)  # nested too deep for the parser (and under 4 KiB)
        assert json.loads(ws.recv(timeout=10))["code"] == "BAD_MESSAGE"
        ws.send(json.dumps({"type": "act", "action": "zz" * 30}))
        error = json.loads(ws.recv(timeout=10))
        assert error["code"] == "BAD_ACTION" and len(error["action"]) <= 41
        assert ping_ms(ws) < STILL_ANSWERS_MS
    # A superscript digit as the seat: refused at connect with an answer and a close frame.
    with connect(f"ws://127.0.0.1:{server.port}/ws/games/{game_id}?token={tokens[0]}&seat=%C2%B9") as ws:
        assert json.loads(ws.recv(timeout=10))["code"] == "NOT_YOUR_SEAT"
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    long_url = f"{server.base}/ws/games/{game_id}?token={tokens[0]}&pad={'x' * 10_000}"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(long_url, timeout=10)
    assert refused.value.code == 400


def test_headers_origin_and_no_tokens_in_the_log(server: Server) -> None:
    game_id, tokens = server.online_game()
    with urllib.request.urlopen(f"{server.base}/play/{game_id}?seat={tokens[0]}", timeout=10) as response:
        headers = response.headers
        page = response.read().decode()
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers.get("server") is None
    assert "<script>" not in page and "onclick=" not in page  # no inline script for the CSP to allow
    with pytest.raises(InvalidStatus), server.ws(game_id, tokens[0], origin="https://evil.example"):
        pass
    with server.ws(game_id, tokens[0], origin=server.base) as ws:  # the server's own pages may
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
    time.sleep(0.3)
    log = server.log()
    assert game_id in log  # the requests were logged...
    assert tokens[0] not in log and tokens[1] not in log  # ...without their secrets
    # ...as access log lines (the redaction once broke uvicorn's access formatter: a "Logging
    # error" traceback on stderr for every request instead of the line).
    assert f'"GET /play/{game_id}?seat=… HTTP/1.1" 200' in log
    assert "Logging error" not in log


def test_a_read_only_database_is_refused_at_start(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "ro.sqlite"
    first = Server(tmp_path, database_url=f"sqlite:///{path}")
    try:
        first.wait_ready()
    finally:
        first.stop()
    sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    ro = Server(tmp_path, database_url=f"sqlite:///file:{path}?mode=ro&uri=true")
    try:
        assert ro.process.wait(60) != 0
    finally:
        ro.stop()
    assert "cannot store moves" in ro.log()


def test_a_database_deleted_while_running_acknowledges_nothing(tmp_path: Path) -> None:
    path = tmp_path / "gone.sqlite"
    live = Server(tmp_path, database_url=f"sqlite:///{path}")
    try:
        live.wait_ready()
        game_id, tokens = live.online_game()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        with live.ws(game_id, tokens[0]) as ws:
            state = json.loads(ws.recv(timeout=10))
            ws.send(json.dumps({"type": "act", "action": state["legal"][0]["action"]}))
            while True:
                message = json.loads(ws.recv(timeout=10))
                if message["type"] in ("error", "state"):
                    break
        assert message["type"] == "error" and message["code"] == "STORAGE_ERROR", message
        with pytest.raises(urllib.error.HTTPError) as refused:
            live.post("/api/games", {"mode": "online", "seats": [{}, {}]})
        assert refused.value.code == 503
        assert json.loads(refused.value.read())["error"]["code"] == "STORAGE_UNAVAILABLE"
    finally:
        live.stop()


def _chattr_works(folder: Path) -> bool:
    probe = folder / "chattr-probe"
    probe.touch()
    try:
        done = subprocess.run(["chattr", "+i", str(probe)], capture_output=True, check=False)
        return done.returncode == 0
    except FileNotFoundError:
        return False
    finally:
        subprocess.run(["chattr", "-i", str(probe)], capture_output=True, check=False)
        probe.unlink()


def _answer(ws: ClientConnection) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if message["type"] in ("error", "state"):
            return message


def test_an_immutable_shared_memory_file_is_refused_not_a_crash(tmp_path: Path) -> None:
    # SQLite maps the WAL index (the "-shm" file) into memory; writing to the mapping of a file
    # made immutable (chattr +i) raises SIGBUS, which used to kill the server without a word.
    if not _chattr_works(tmp_path):
        if os.environ.get("CI"):
            pytest.fail("chattr +i does not work here (e2fsprogs and an ext4 /tmp are expected)")
        pytest.skip("chattr +i does not work on this filesystem")
    path = tmp_path / "shm.sqlite"
    shm = Path(f"{path}-shm")
    live = Server(tmp_path, database_url=f"sqlite:///{path}")
    try:
        live.wait_ready()
        game_id, tokens = live.online_game()
        with live.ws(game_id, tokens[0]) as ws:
            state = _answer(ws)
            assert shm.exists()
            subprocess.run(["chattr", "+i", str(shm)], check=True)
            try:
                ws.send(json.dumps({"type": "act", "action": state["legal"][0]["action"]}))
                message = _answer(ws)
                assert message["type"] == "error" and message["code"] == "STORAGE_ERROR", message
                assert "immutable" in message["message"]
                assert live.process.poll() is None  # still serving
                assert live.get("/api/board")["cities"]
                with pytest.raises(urllib.error.HTTPError) as refused:
                    live.post("/api/games", {"mode": "online", "seats": [{}, {}]})
                assert refused.value.code == 503
            finally:
                subprocess.run(["chattr", "-i", str(shm)], check=True)
        assert "immutable" in live.log()
        # Writable again: the same move is stored (it was never acknowledged before).
        with live.ws(game_id, tokens[0]) as ws:
            state = _answer(ws)
            assert state["actions"] == 0
            ws.send(json.dumps({"type": "act", "action": state["legal"][0]["action"]}))
            assert _answer(ws)["actions"] == 1
    finally:
        live.stop()


def test_an_immutable_shared_memory_file_is_refused_at_start(tmp_path: Path) -> None:
    if not _chattr_works(tmp_path):
        if os.environ.get("CI"):
            pytest.fail("chattr +i does not work here (e2fsprogs and an ext4 /tmp are expected)")
        pytest.skip("chattr +i does not work on this filesystem")
    path = tmp_path / "left.sqlite"
    first = Server(tmp_path, database_url=f"sqlite:///{path}")
    try:
        first.wait_ready()
        first.online_game()
    finally:
        first.stop()  # killed: the shared-memory file stays behind
    shm = Path(f"{path}-shm")
    assert shm.exists()
    subprocess.run(["chattr", "+i", str(shm)], check=True)
    try:
        again = Server(tmp_path, database_url=f"sqlite:///{path}")
        try:
            assert again.process.wait(60) != 0
        finally:
            again.stop()
        assert "immutable" in again.log() and "Bus error" not in again.log()
    finally:
        subprocess.run(["chattr", "-i", str(shm)], check=True)
