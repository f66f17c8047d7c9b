"""Time controls: validated, stored with the game, sent in its state; a seat whose time runs out
has its turn played by the computer, and after 3 time-outs in a row the seat is the computer's.

No timing assumptions: short times per move, and each check polls with a long deadline."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from server_helpers import create_game, ws_path
from starlette.testclient import TestClient

from ttr_nordic.server import create_app
from ttr_nordic.server.clocks import HAND_OVER_AFTER, TimeControl, TimeControlError, parse_time_control

PATIENCE_S = 120.0  # the longest a check waits (a loaded machine); it ends as soon as it holds


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("fast", "time_control must be an object"),
        ({"kind": "blitz", "per_move_s": 60}, "kind must be 'realtime' or 'turn'"),
        ({"kind": "realtime", "per_move_s": 0}, "1 to 3600 seconds per move, not 0"),
        ({"kind": "realtime", "per_move_s": 60, "reserve_s": 99999}, "reserve of 0 to 7200 seconds"),
        ({"kind": "realtime", "per_move_s": True}, "per_move_s must be a whole number"),
        ({"kind": "realtime", "per_move_s": 1.5}, "per_move_s must be a whole number"),
        ({"kind": "turn", "per_move_s": 3600}, "86400 (24 hours) or 259200 (3 days)"),
        ({"kind": "turn", "per_move_s": 86400, "reserve_s": 10}, "no reserve"),
        ({"kind": "turn", "per_move_s": 86400, "bonus": 1}, "unknown fields: bonus"),
    ],
)
def test_bad_time_controls_are_refused_in_one_line(value: object, message: str) -> None:
    with pytest.raises(TimeControlError, match=re.escape(message)) as caught:
        parse_time_control(value)
    assert "\n" not in str(caught.value)


def test_good_time_controls() -> None:
    assert parse_time_control(None) is None
    assert parse_time_control({"kind": "turn", "per_move_s": 259200}) == TimeControl("turn", 259200, 0)
    control = parse_time_control({"kind": "realtime", "per_move_s": 60, "reserve_s": 300})
    assert control == TimeControl("realtime", 60, 300)
    assert control.rule().startswith("1 minute per move plus a reserve of 5 minutes.")
    assert "3 days per move" in TimeControl("turn", 259200).rule()


@pytest.fixture
def sqlite_client(tmp_path: Any) -> Any:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.sqlite'}", ai_workers=1)) as client:
        yield client


def test_the_api_refuses_a_bad_time_control_and_stores_nothing(sqlite_client: TestClient) -> None:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}]
    response = sqlite_client.post(
        "/api/games", json={"mode": "online", "seats": seats, "time_control": {"kind": "turn", "per_move_s": 5}}
    )
    assert response.status_code == 422
    assert "86400 (24 hours) or 259200 (3 days)" in response.json()["error"]["message"]
    assert sqlite_client.app.state.service.live == {}  # type: ignore[attr-defined]


def test_the_clock_is_in_the_summary_and_the_state_and_survives_a_restart(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'games.sqlite'}"
    control = {"kind": "turn", "per_move_s": 86400}
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}]
    with TestClient(create_app(url, ai_workers=1)) as client:
        created = create_game(client, "online", seats, time_control=control, first_player=0)
        game_id = created["game"]["id"]
        clock = created["game"]["clock"]
        assert clock["kind"] == "turn" and clock["seat"] == 0 and clock["deadline"].endswith("Z")
        assert clock["rule"].startswith("24 hours per move.")
        token = created["invites"][0]["token"]
        with client.websocket_connect(ws_path(game_id, token)) as ws:
            state = ws.receive_json()
            assert state["type"] == "state" and state["clock"]["deadline"] == clock["deadline"]
            ws.send_json({"type": "act", "action": state["legal"][0]["action"], "expected": 0})
            for _ in range(50):
                moved = ws.receive_json()
                if moved.get("type") == "state" and moved["actions"] == 1:
                    break
    with TestClient(create_app(url, ai_workers=1)) as client:
        again = client.get(f"/api/games/{game_id}").json()
        assert again["clock"]["per_move_s"] == 86400
        assert again["clock"]["seat"] == moved["clock"]["seat"]
        assert again["clock"]["deadline"] == moved["clock"]["deadline"]


def _wait_for(check: Any, what: str) -> Any:
    deadline = time.monotonic() + PATIENCE_S
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"waited {PATIENCE_S:.0f} s for {what}"
        time.sleep(0.2)


def test_time_outs_are_played_by_the_computer_then_the_seat_is_handed_over(sqlite_client: TestClient) -> None:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"}]
    control = {"kind": "realtime", "per_move_s": 1, "reserve_s": 0}
    created = create_game(sqlite_client, "ai", seats, time_control=control, first_player=0)
    game_id = created["game"]["id"]
    service = sqlite_client.app.state.service  # type: ignore[attr-defined]

    def summary() -> dict[str, Any]:
        data: dict[str, Any] = sqlite_client.get(f"/api/games/{game_id}").json()
        return data

    first = _wait_for(lambda: (s := summary())["clock"]["timeouts"][0] >= 1 and s, "a first time-out")
    assert first["seats"][0]["kind"] == "human"  # one time-out: the computer played the turn only
    assert first["actions"] >= 1
    handed = _wait_for(lambda: (s := summary())["seats"][0]["kind"] == "ai" and s, "the seat handed over")
    assert handed["clock"]["timeouts"][0] == HAND_OVER_AFTER
    assert handed["seats"][0]["level"] == "medium"
    assert service.clocks.fired >= HAND_OVER_AFTER
    # The computer now plays the seat: no deadline while it does.
    assert handed["clock"]["deadline"] is None or handed["clock"]["seat"] != 0


def test_a_move_in_time_resets_the_count(sqlite_client: TestClient) -> None:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"}]
    control = {"kind": "realtime", "per_move_s": 1, "reserve_s": 0}
    created = create_game(sqlite_client, "ai", seats, time_control=control, first_player=0)
    game_id = created["game"]["id"]
    token = created["invites"][0]["token"]
    with sqlite_client.websocket_connect(ws_path(game_id, token)) as ws:
        # Wait for a time-out, then move in time when it is Ada's turn again.
        while True:
            message = ws.receive_json()
            if message.get("type") != "state":
                continue
            clock = message["clock"]
            if clock["timeouts"][0] >= 1 and message["legal"] and clock["seat"] == 0:
                ws.send_json({"type": "act", "action": message["legal"][0]["action"], "expected": message["actions"]})
                break
        while True:
            message = ws.receive_json()
            if message.get("type") == "state" and message["clock"]["timeouts"][0] == 0:
                break
            if message.get("type") == "error":
                # The clock ran out first (a loaded machine): the move came too late; nothing to check.
                assert message["error"]["code"] in ("STALE_ACTION", "NOT_YOUR_TURN"), message
                return
    assert sqlite_client.get(f"/api/games/{game_id}").json()["seats"][0]["kind"] == "human"


def test_a_rated_game_waiting_for_its_players_does_not_time_out(sqlite_client: TestClient) -> None:
    from account_helpers import sign_up, use

    csrf = use(sqlite_client, sign_up(sqlite_client, "Ada"))
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}]
    control = {"kind": "realtime", "per_move_s": 1, "reserve_s": 0}
    body = {"mode": "online", "seats": seats, "rated": True, "first_player": 0, "time_control": control}
    response = sqlite_client.post("/api/games", json=body, headers=csrf)
    assert response.status_code == 201, response.text
    game_id = response.json()["game"]["id"]
    started = response.json()["game"]["clock"]["turn_started_at"]

    def looked_at() -> dict[str, Any] | None:
        data: dict[str, Any] = sqlite_client.get(f"/api/games/{game_id}").json()
        return data if data["clock"]["turn_started_at"] != started else None

    # The clock ran out twice (its turn restarted each time) and nobody played: Bo never signed in.
    looked_at()
    started = _wait_for(looked_at, "the clock looked at")["clock"]["turn_started_at"]
    summary = _wait_for(looked_at, "the clock looked at again")
    assert summary["actions"] == 0 and summary["clock"]["timeouts"] == [0, 0]
