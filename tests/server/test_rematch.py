"""Rematch after a game between people: offered by one seat, shown to the others, made when
every seat accepts (once), its seats opened by the same tokens; refused before the end, to
non-players and for games with the computer."""

from __future__ import annotations

from account_helpers import finish
from server_helpers import create_game
from starlette.testclient import TestClient


def lobby_game(client: TestClient) -> tuple[str, list[str]]:
    made = client.post(
        "/api/lobby/tables",
        json={"players": 2, "name": "Astrid", "time_control": {"kind": "turn", "per_move_s": 86400}},
    ).json()
    joined = client.post(f"/api/lobby/tables/{made['table']['id']}/join", json={"name": "Leif"}).json()
    return joined["table"]["game_id"], [made["ticket"], joined["ticket"]]


def accept(client: TestClient, game_id: str, token: str) -> dict[str, object]:
    answer = client.post(f"/api/games/{game_id}/rematch", headers={"X-Game-Token": token})
    assert answer.status_code == 200, answer.text
    data: dict[str, object] = answer.json()
    return data


def test_a_rematch_is_made_when_both_accept_and_opens_with_the_same_tokens(client: TestClient) -> None:
    game_id, tokens = lobby_game(client)
    early = client.post(f"/api/games/{game_id}/rematch", headers={"X-Game-Token": tokens[0]})
    assert early.status_code == 409 and early.json()["error"]["code"] == "GAME_NOT_FINISHED"
    finish(client, game_id)
    assert client.post(f"/api/games/{game_id}/rematch").status_code == 403
    assert accept(client, game_id, tokens[0]) == {"accepted": [0], "new_game_id": None}
    assert accept(client, game_id, tokens[0]) == {"accepted": [0], "new_game_id": None}  # once is enough
    shown = client.get(f"/api/games/{game_id}/rematch", headers={"X-Game-Token": tokens[1]}).json()
    assert shown == {"accepted": [0], "new_game_id": None}
    done = accept(client, game_id, tokens[1])
    new_id = done["new_game_id"]
    assert done["accepted"] == [0, 1] and isinstance(new_id, str) and new_id != game_id
    assert accept(client, game_id, tokens[1])["new_game_id"] == new_id  # no second new game
    mine = client.post("/api/games/mine", json={"games": [{"id": new_id, "token": t} for t in tokens]}).json()
    assert mine["unknown"] == [] and [s["name"] for s in mine["games"][0]["seats"]] == ["Astrid", "Leif"]
    assert mine["games"][0]["actions"] == 0
    # The lobby game's rematch stays public, with its time control.
    assert client.get(f"/api/games/{new_id}/watch").status_code == 200
    assert client.get(f"/api/lobby/tables/{new_id}").json()["time_control"] == {"kind": "turn", "per_move_s": 86400}


def test_no_rematch_with_the_computer(client: TestClient) -> None:
    created = create_game(client, "ai", [{"name": "Astrid"}, {"kind": "ai", "level": "easy"}])
    game_id, token = created["game"]["id"], created["invites"][0]["token"]
    finish(client, game_id)
    refused = client.post(f"/api/games/{game_id}/rematch", headers={"X-Game-Token": token})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "NOT_BETWEEN_PEOPLE"
