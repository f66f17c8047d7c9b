"""The probe's findings against a real ``ttr-nordic serve`` (loopback only): each was a way one
client could hurt the server or other players; each test failed before its fix. Every loop is
bounded in count and time."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from test_abuse import Server
from websockets.exceptions import ConnectionClosed


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
