"""``ttr-nordic serve`` in a real process, killed with SIGKILL mid-game: nothing
acknowledged is lost (on the default SQLite database, which lives in the user's data
directory, and on PostgreSQL)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from websockets.sync.client import connect


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _http(port: int, path: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data, headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@contextmanager
def _server(data_home: Path, port: int, database_url: str | None = None) -> Iterator[subprocess.Popen[bytes]]:
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    extra = [] if database_url is None else ["--database-url", database_url]
    process = subprocess.Popen(
        [sys.executable, "-m", "ttr_nordic.cli", "serve", "--port", str(port), *extra],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                _http(port, "/api/server")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)


def test_kill_9_loses_nothing_acknowledged(tmp_path: Path) -> None:
    _kill_and_resume(tmp_path, None)
    assert (tmp_path / "ttr-nordic" / "games.sqlite").exists()


def test_kill_9_loses_nothing_acknowledged_on_postgresql(tmp_path: Path, postgres_database: str) -> None:
    _kill_and_resume(tmp_path, postgres_database)
    assert not (tmp_path / "ttr-nordic" / "games.sqlite").exists()


def _kill_and_resume(tmp_path: Path, database_url: str | None) -> None:
    port = _free_port()
    with _server(tmp_path, port, database_url) as process:
        data = _http(port, "/api/games", {"mode": "online", "seats": [{}, {}], "first_player": 0})
        game_id = data["game"]["id"]
        tokens = [invite["token"] for invite in data["invites"]]
        url = f"ws://127.0.0.1:{port}/ws/games/{game_id}?token="
        with connect(url + tokens[0]) as ws0:
            first = json.loads(ws0.recv(timeout=10))
            ws0.send(json.dumps({"type": "act", "action": first["legal"][0]["action"]}))
            acked = json.loads(ws0.recv(timeout=10))
            assert acked["actions"] == 1
            os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
    with _server(tmp_path, port, database_url), connect(url + tokens[1]) as ws1:
        resumed = json.loads(ws1.recv(timeout=10))
        assert resumed["actions"] == 1
        assert resumed["legal"]  # seat 1 chooses its tickets next
        assert resumed["view"]["ticket_counts"][0] == acked["view"]["ticket_counts"][0] > 0
        assert _http(port, f"/api/games/{game_id}")["actions"] == 1
