"""Two tabs of one seat cannot act twice on one view; names refuse control characters."""

from __future__ import annotations

import pytest
from server_helpers import create_game, live_state, ws_path
from starlette.testclient import TestClient


def test_a_stale_click_from_a_second_tab_is_refused(client: TestClient) -> None:
    made = create_game(client, "online", [{}, {}], first_player=0)
    game_id, token = made["game"]["id"], made["invites"][0]["token"]
    with (
        client.websocket_connect(ws_path(game_id, token)) as first,
        client.websocket_connect(ws_path(game_id, token)) as second,
    ):
        state = first.receive_json()
        assert second.receive_json()["actions"] == state["actions"] == 0
        # Both tabs saw 0 actions and choose from the same initial ticket offer.
        keep = state["legal"][0]["action"]
        first.send_json({"type": "act", "action": keep, "expected": 0})
        assert first.receive_json()["actions"] == 1
        assert second.receive_json()["actions"] == 1  # the broadcast of the first tab's move
        second.send_json({"type": "act", "action": "B", "expected": 0})
        error = second.receive_json()
        assert error["type"] == "error" and error["code"] == "STALE"
        assert second.receive_json()["actions"] == 1  # and the game as it is now
        second.send_json({"type": "act", "action": keep, "expected": "0"})
        assert second.receive_json()["code"] == "BAD_MESSAGE"
    assert len(live_state(client, game_id).history) == 1


@pytest.mark.parametrize("name", ["Ola\\u0000", "\\u0007bell", "Kari\\u200b", "\\ud800"])
def test_names_with_control_or_invisible_characters_are_refused(client: TestClient, name: str) -> None:
    # JSON escapes, as a client would send them (a lone surrogate cannot be sent as UTF-8).
    body = '{"mode": "online", "seats": [{"name": "' + name + '"}, {}]}'
    response = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    # The code the pages word (a lone surrogate is refused by the JSON string's own check first).
    assert error["details"][0]["type"] == ("string_unicode" if "ud800" in name else "NAME_INVISIBLE")


def test_a_refused_field_carries_the_code_and_numbers_the_pages_word(client: TestClient) -> None:
    blank = client.post("/api/games", json={"mode": "online", "seats": [{"name": "   "}, {}]}).json()["error"]
    assert blank["details"][0] | {"location": None} == {
        "location": None,
        "message": "a name cannot be blank",
        "type": "NAME_BLANK",
        "context": {},
    }
    assert blank["message"] == "body.seats.0.name: a name cannot be blank"
    long = client.post("/api/games", json={"mode": "online", "seats": [{"name": "x" * 41}, {}]}).json()["error"]
    assert long["details"][0]["type"] == "string_too_long" and long["details"][0]["context"] == {"max_length": 40}
