"""The chat at a game's table: players write (text or quick phrases), bounded in length and
rate; spectators of a public game read; an invite game's chat is its players'; text is
stored as written (the page escapes it); an account's messages go with it."""

from __future__ import annotations

from typing import Any

from account_helpers import sign_up, use
from server_helpers import create_game
from starlette.testclient import TestClient

from ttr_nordic.server.chat import BURST, MAX_CHARS


def lobby_game(client: TestClient) -> tuple[str, list[str]]:
    made = client.post("/api/lobby/tables", json={"players": 2, "name": "Astrid"}).json()
    joined = client.post(f"/api/lobby/tables/{made['table']['id']}/join", json={"name": "Leif"}).json()
    return joined["table"]["game_id"], [made["ticket"], joined["ticket"]]


def say(client: TestClient, game_id: str, token: str, **body: Any) -> Any:
    return client.post(f"/api/games/{game_id}/chat", json=body, headers={"X-Game-Token": token})


def test_players_write_and_everyone_reads_a_public_games_chat(client: TestClient) -> None:
    game_id, tokens = lobby_game(client)
    xss = '<img src=x onerror="document.title=1">'
    assert say(client, game_id, tokens[0], text="  Hello   there ").status_code == 201
    assert say(client, game_id, tokens[1], phrase="gg").json()["text"] == "Good game"
    assert say(client, game_id, tokens[1], text=xss).status_code == 201
    messages = client.get(f"/api/games/{game_id}/chat").json()["messages"]  # a spectator: no token
    assert [(m["seat"], m["author"], m["text"]) for m in messages] == [
        (0, "Astrid", "Hello there"),
        (1, "Leif", "Good game"),
        (1, "Leif", xss),
    ]
    after = client.get(f"/api/games/{game_id}/chat", params={"after": messages[1]["id"]}).json()["messages"]
    assert [m["text"] for m in after] == [xss]
    # A spectator does not write.
    spectator = client.post(f"/api/games/{game_id}/chat", json={"text": "play Oslo!"})
    assert spectator.status_code == 403 and spectator.json()["error"]["code"] == "PLAYERS_ONLY"


def test_bad_messages_and_floods_are_refused_and_change_nothing(client: TestClient) -> None:
    game_id, tokens = lobby_game(client)
    for body in (
        {"text": "x" * (MAX_CHARS + 1)},
        {"text": "   "},
        {"text": "bell\u0007"},
        {"text": "a\u202eb"},
        {"phrase": "insult"},
        {"text": "hi", "phrase": "gg"},
        {},
        {"text": "hi", "colour": "red"},
    ):
        answer = say(client, game_id, tokens[0], **body)
        assert answer.status_code == 422, (body, answer.text)
    assert say(client, game_id, "not-a-token", text="hi").status_code == 403
    for _ in range(BURST):
        assert say(client, game_id, tokens[0], text="spam").status_code == 201
    flood = say(client, game_id, tokens[0], text="spam")
    assert flood.status_code == 429 and flood.json()["error"]["code"] == "CHAT_TOO_FAST"
    assert say(client, game_id, tokens[1], text="my turn to speak").status_code == 201  # a seat of its own
    assert len(client.get(f"/api/games/{game_id}/chat").json()["messages"]) == BURST + 1


def test_an_invite_games_chat_is_its_players(client: TestClient) -> None:
    created = create_game(client, "online", [{"name": "A"}, {"name": "B"}])
    game_id, token = created["game"]["id"], created["invites"][0]["token"]
    assert say(client, game_id, token, phrase="hello").status_code == 201
    assert client.get(f"/api/games/{game_id}/chat").status_code == 403
    read = client.get(f"/api/games/{game_id}/chat", headers={"X-Game-Token": token})
    assert [m["text"] for m in read.json()["messages"]] == ["Hello"]
    assert client.get("/api/games/nope/chat").status_code == 404


def test_an_accounts_messages_are_deleted_with_it(client: TestClient) -> None:
    astrid = sign_up(client, "Astrid")
    headers = use(client, astrid)
    made = client.post("/api/lobby/tables", json={"players": 2}, headers=headers).json()
    client.cookies.clear()
    joined = client.post(f"/api/lobby/tables/{made['table']['id']}/join", json={"name": "Leif"}).json()
    game_id = joined["table"]["game_id"]
    assert say(client, game_id, made["ticket"], text="from Astrid").status_code == 201
    assert say(client, game_id, joined["ticket"], text="from Leif").status_code == 201
    headers = use(client, astrid)
    deleted = client.post("/api/account/delete", json={"password": "a long enough password"}, headers=headers)
    assert deleted.status_code == 200, deleted.text
    client.cookies.clear()
    assert [m["text"] for m in client.get(f"/api/games/{game_id}/chat").json()["messages"]] == ["from Leif"]


def test_the_rate_holds_across_processes_on_one_database(tmp_path: Any) -> None:
    from ttr_nordic.server import create_app

    url = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    with TestClient(create_app(url)) as one, TestClient(create_app(url)) as two:
        game_id, tokens = lobby_game(one)
        for index in range(BURST):
            assert say((one, two)[index % 2], game_id, tokens[0], text=f"line {index}").status_code == 201
        # Another process has a limiter of its own (empty): the database's count still refuses.
        from ttr_nordic.server import table_routes

        table_routes._rate.sent.clear()
        for app in (one, two):
            flood = say(app, game_id, tokens[0], text="one more")
            assert flood.status_code == 429 and flood.json()["error"]["code"] == "CHAT_TOO_FAST"
