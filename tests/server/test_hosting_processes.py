"""Real ``ttr-nordic serve`` processes: three started at once on one empty PostgreSQL database all
come up ready (one migrates, under the advisory lock; the others wait and find the schema done),
and ``--log-format json`` writes one JSON object per line with no secret in it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

from ttr_nordic.server.db import current_revision, head_revision, make_engine

ROOT = Path(__file__).resolve().parents[2]
START_S = 120.0  # three servers and their AI workers starting on two busy cores


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """(status, body) of a GET, 4xx and 5xx included; a JSON body decoded, another one as text."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, body, kind = response.status, response.read(), response.headers.get("content-type", "")
    except urllib.error.HTTPError as error:
        status, body, kind = error.code, error.read(), error.headers.get("content-type", "")
    return status, json.loads(body) if kind.startswith("application/json") else body.decode()


@contextmanager
def serve(port: int, log: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """A ``ttr-nordic serve`` process on ``port`` (its output in ``log``), stopped afterwards."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TTR_NORDIC_")}
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "ttr_nordic.cli", "serve", "--port", str(port), "--ai-workers", "1", *args],
            env={**environ, **(env or {})},
            stdout=output,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
        )
        try:
            yield process
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(10)


def wait_ready(port: int, process: subprocess.Popen[bytes], log: Path) -> dict[str, Any]:
    """The first 200 answer of ``/readyz`` (fails if the process ends or takes too long)."""
    deadline = time.monotonic() + START_S
    while True:
        try:
            status, body = get(f"http://127.0.0.1:{port}/readyz")
            if status == 200:
                result: dict[str, Any] = body
                return result
        except OSError:
            pass
        if process.poll() is not None:
            raise AssertionError(f"the server on port {port} ended ({process.returncode}): {log.read_text()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"the server on port {port} was not ready in {START_S:g} s: {log.read_text()}")
        time.sleep(0.2)


def test_three_servers_started_at_once_on_an_empty_postgresql_database(postgres_database: str, tmp_path: Path) -> None:
    ports = [free_port() for _ in range(3)]
    logs = [tmp_path / f"serve-{port}.log" for port in ports]
    with ExitStack() as stack:
        processes = [
            stack.enter_context(serve(port, log, env={"TTR_NORDIC_DATABASE_URL": postgres_database}))
            for port, log in zip(ports, logs, strict=True)
        ]
        for port, process, log in zip(ports, processes, logs, strict=True):
            body = wait_ready(port, process, log)
            assert body["checks"]["database"] == {"ok": True, "migration": head_revision()}
            assert body["checks"]["ai"]["ok"] is True
    for log in logs:
        assert "Traceback" not in log.read_text()
    engine = make_engine(postgres_database)
    try:
        assert current_revision(engine) == head_revision()
    finally:
        engine.dispose()


def test_json_logs_carry_ids_and_no_secret(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    secret = "SeCrEt-7f3a"
    database = f"sqlite:///{tmp_path / 'games.sqlite'}"
    env = {"TTR_NORDIC_LOG_FORMAT": "json", "TTR_NORDIC_OWNER_KEY": secret}
    with serve(port, log, "--database-url", database, env=env) as process:
        wait_ready(port, process, log)
        base = f"http://127.0.0.1:{port}"
        request = urllib.request.Request(
            f"{base}/api/games", data=b'{"mode": "hotseat", "seats": [{}, {}]}', method="POST"
        )
        request.add_header("content-type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as response:
            created = json.loads(response.read())
        game_id, token = created["game"]["id"], created["invites"][0]["token"]
        # The game's own token and other secrets, in the places a client puts them.
        get(f"{base}/api/games/{game_id}/record?token={token}")
        get(f"{base}/api/games/{game_id}/record?token={secret}&password={secret}")
        get(f"{base}/api/games?status=finished", headers={"X-Owner-Key": secret, "X-Request-ID": "probe-1"})
        get(f"{base}/play/{game_id}?seat={token}")
        with connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}?token={token}") as ws:
            ws.recv(timeout=10)
        get(f"{base}/healthz")  # the socket's close is logged before this answers
    text = log.read_text()
    entries = [json.loads(line) for line in text.splitlines()]  # every line is one JSON object
    assert all({"time", "level", "logger", "message"} <= entry.keys() for entry in entries)
    assert secret not in text and token not in text
    access = [e for e in entries if e["logger"] == "uvicorn.access"]
    record_requests = [e for e in access if f"/api/games/{game_id}/record" in e["message"]]
    assert len(record_requests) == 2
    assert all(e["game_id"] == game_id and len(e["request_id"]) == 16 for e in record_requests)
    assert any(e.get("request_id") == "probe-1" for e in access)
    assert not any("GET /readyz" in e["message"] for e in access)  # answered probes are left out
    assert any(e["logger"] == "ttr_nordic.server" and "serving on" in e["message"] for e in entries)
