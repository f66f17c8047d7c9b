"""Games and accounts, server side: a guest's seats carried into an account and opened by the
account alone, records readable by a seat's account, rated games between accounts (applied
once, shown on profiles), unrated ones, and a seat handed to the computer counted as a loss."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from account_helpers import finish, settle, sign_up, use
from server_helpers import create_game, receive_until
from starlette.testclient import TestClient

from ttr_nordic.server import create_app
from ttr_nordic.server.ratings import FinishedGame, apply_rating

HUMANS = [{"name": "Astrid"}, {"name": "Leif"}]


def rated_game(client: TestClient, players: int = 2) -> tuple[str, list[dict[str, object]], list[str]]:
    """A rated game whose every seat is held by a new account; returns its id, the sessions, the tokens."""
    names = ["Rater1", "Rater2", "Rater3"][:players]
    sessions = [sign_up(client, name) for name in names]
    headers = use(client, sessions[0])
    response = client.post(
        "/api/games", json={"mode": "online", "seats": [{"name": n} for n in names], "rated": True}, headers=headers
    )
    assert response.status_code == 201, response.text
    game_id = response.json()["game"]["id"]
    tokens = [invite["token"] for invite in response.json()["invites"]]
    for seat in range(1, players):
        headers = use(client, sessions[seat])
        answer = client.post(
            "/api/account/claim", json={"games": [{"id": game_id, "token": tokens[seat]}]}, headers=headers
        )
        assert answer.json() == {"claimed": [game_id]}
    return game_id, sessions, tokens


def test_a_guests_game_moves_to_the_account_and_opens_without_its_token(client: TestClient) -> None:
    created = create_game(client, "online", HUMANS)
    game_id, token = created["game"]["id"], created["invites"][0]["token"]
    other = create_game(client, "online", HUMANS)["invites"][1]["token"]
    session = sign_up(client, "Astrid")
    headers = use(client, session)
    asked = {
        "games": [{"id": game_id, "token": token}, {"id": game_id, "token": other}, {"id": "nope", "token": token}]
    }
    assert client.post("/api/account/claim", json=asked, headers=headers).json() == {"claimed": [game_id]}
    mine = client.get("/api/account/games").json()["games"]
    assert [(g["id"], g["mine"]) for g in mine] == [(game_id, [0])]
    # The account opens its seat with no token (a second browser signed in to it).
    with client.websocket_connect(f"/ws/games/{game_id}?token=") as ws:
        state = receive_until(ws, lambda m: m["type"] == "state")
        assert state["seat"] == 0
    # Another account cannot take a seat held already; a guest without token opens nothing.
    headers = use(client, sign_up(client, "Leif"))
    assert client.post(
        "/api/account/claim", json={"games": [{"id": game_id, "token": token}]}, headers=headers
    ).json() == {"claimed": []}
    client.cookies.clear()
    with client.websocket_connect(f"/ws/games/{game_id}?token=") as ws:
        assert ws.receive_json()["code"] == "BAD_TOKEN"
    # Finished, the game's record is read by its account (cookie only), not by others.
    finish(client, game_id)
    assert client.get(f"/api/games/{game_id}/record").status_code == 403
    use(client, session)
    assert client.get(f"/api/games/{game_id}/record").status_code == 200
    assert client.get(f"/api/games/{game_id}/replay/3").status_code == 200
    profile = client.get("/api/players/astrid").json()
    assert profile["name"] == "Astrid" and profile["own"] is True
    assert [g["id"] for g in profile["recent"]] == [game_id]
    assert profile["recent"][0]["rated"] is False and profile["recent"][0]["replay"] is True
    assert profile["stats"]["2p"]["casual"]["played"] == 1 and profile["stats"]["2p"]["rated"]["played"] == 0


def test_a_rated_game_changes_both_ratings_once(client: TestClient) -> None:
    game_id, _, _ = rated_game(client)
    assert client.get(f"/api/games/{game_id}/rating").json() == {
        "rated": True,
        "state": "pending",
        "reason": None,
        "reason_code": None,
        "held": [{"seat": 0, "player": "Rater1"}, {"seat": 1, "player": "Rater2"}],
        "started": False,
        "changes": [],
    }
    finish(client, game_id)
    settle(client)
    rating = client.get(f"/api/games/{game_id}/rating").json()
    assert rating["state"] == "applied"
    winner = client.get(f"/api/games/{game_id}").json()
    changes = rating["changes"]
    assert [c["player"] for c in changes] == ["Rater1", "Rater2"]
    first = min(changes, key=lambda c: c["rank"])
    assert first["delta"] > 0 > max(changes, key=lambda c: c["rank"])["delta"]
    assert winner["status"] == "finished"
    ratings = client.get("/api/ratings?names=Rater1,rater2,Nobody,bad!name").json()["ratings"]
    assert [r["name"] for r in ratings] == ["Rater1", "Rater2"]
    assert all(r["games"] == 1 and r["provisional"] for r in ratings)
    assert {r["display"] for r in ratings} == {c["after"] for c in changes}
    # Applied once: ending it again (another process, a restart) changes nothing.
    engine = client.app.state.service.engine  # type: ignore[attr-defined]
    again = FinishedGame(game_id, "online", (True, True), (1, 2), ())
    assert apply_rating(engine, again) == ""
    assert all(r["games"] == 1 for r in client.get("/api/ratings?names=Rater1,Rater2").json()["ratings"])
    # The profile: one rated game, its point on the chart, and the public replay.
    client.cookies.clear()
    profile = client.get("/api/players/Rater1").json()
    assert profile["stats"]["2p"]["rated"]["played"] == 1 and profile["own"] is False
    assert [h["game_id"] for h in profile["history"]] == [game_id]
    assert profile["recent"][0]["rated"] is True and profile["recent"][0]["replay"] is True
    assert [s["account"] for s in profile["recent"][0]["seats"]] == ["Rater1", "Rater2"]
    assert profile["recent"][0]["delta"] == next(c["delta"] for c in changes if c["player"] == "Rater1")
    assert client.get(f"/api/games/{game_id}/record").status_code == 200  # a rated game's record is public


def test_concurrent_endings_apply_a_rating_once(client: TestClient) -> None:
    game_id, _, _ = rated_game(client, players=3)
    engine = client.app.state.service.engine  # type: ignore[attr-defined]
    ended = FinishedGame(game_id, "online", (True, True, True), (2, 1, 3), ())
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: apply_rating(engine, ended), range(4)))
    assert sorted(results) == ["", "", "", "applied"]
    ratings = client.get("/api/ratings?names=Rater1,Rater2,Rater3").json()["ratings"]
    assert [r["games"] for r in ratings] == [1, 1, 1]
    assert ratings[1]["mu"] > ratings[0]["mu"] > ratings[2]["mu"]  # ranks 2, 1, 3


def test_a_seat_handed_to_the_computer_loses_a_rated_game(client: TestClient) -> None:
    game_id, _, _ = rated_game(client)
    service = client.app.state.service  # type: ignore[attr-defined]
    game = client.portal.call(service.get, game_id)  # type: ignore[union-attr]
    client.portal.call(service.hand_over, game, 0, "easy")  # type: ignore[union-attr]
    finish(client, game_id)
    settle(client)
    rating = client.get(f"/api/games/{game_id}/rating").json()
    assert rating["state"] == "applied"
    left, stayed = rating["changes"]
    assert left["forfeit"] is True and left["rank"] == 2 and left["delta"] < 0
    assert stayed["forfeit"] is False and stayed["rank"] == 1 and stayed["delta"] > 0


def test_a_rated_game_without_every_account_is_not_rated(client: TestClient) -> None:
    session = sign_up(client, "Lonely1")
    headers = use(client, session)
    response = client.post("/api/games", json={"mode": "online", "seats": HUMANS, "rated": True}, headers=headers)
    game_id, tokens = response.json()["game"]["id"], [i["token"] for i in response.json()["invites"]]
    # A seat claimed after the first move does not count: the game started without it.
    service = client.app.state.service  # type: ignore[attr-defined]
    game = client.portal.call(service.get, game_id)  # type: ignore[union-attr]
    state = game.state
    client.portal.call(service.act, game, state.decision.player, state.legal_action_list()[0])  # type: ignore[union-attr]
    headers = use(client, sign_up(client, "Late1"))
    assert client.post(
        "/api/account/claim", json={"games": [{"id": game_id, "token": tokens[1]}]}, headers=headers
    ).json() == {"claimed": []}
    finish(client, game_id)
    settle(client)
    rating = client.get(f"/api/games/{game_id}/rating").json()
    assert rating["state"] == "unrated" and rating["changes"] == []
    assert rating["reason"] == "not every seat was held by an account when the game started"
    assert rating["reason_code"] == "SEAT_NOT_HELD"  # the pages word the code in their language
    assert client.get("/api/ratings?names=Lonely1").json()["ratings"][0]["games"] == 0
    # Only online games between people can be asked rated.
    use(client, session)
    refused = client.post(
        "/api/games",
        json={"mode": "ai", "seats": [{"name": "A"}, {"kind": "ai", "level": "easy"}], "rated": True},
        headers={"X-CSRF-Token": session["csrf"]},
    )
    assert refused.status_code == 422


def test_two_processes_share_sessions_and_a_game_ended_unrated_is_rated_at_the_next_start(database_url: str) -> None:
    """Two apps on one database are two server processes: a session made on one is known to
    the other; a rated game that ended on a process that stopped before rating it is rated
    when a process starts, once."""
    with TestClient(create_app(database_url)) as first, TestClient(create_app(database_url)) as second:
        session = sign_up(first, "Twice1")
        use(second, session)
        assert second.get("/api/account").json()["user"]["name"] == "Twice1"
        game_id, _, _ = rated_game(first)
        first.app.state.service._end_hooks.clear()  # type: ignore[attr-defined]  # "dies" before rating
        finish(first, game_id)
        assert first.get(f"/api/games/{game_id}/rating").json()["state"] == "pending"
    with TestClient(create_app(database_url)) as third, TestClient(create_app(database_url)) as fourth:
        for client in (third, fourth):
            rating = client.get(f"/api/games/{game_id}/rating").json()
            assert rating["state"] == "applied" and len(rating["changes"]) == 2
        ratings = third.get("/api/ratings?names=Rater1,Rater2").json()["ratings"]
        assert [r["games"] for r in ratings] == [1, 1]


def test_a_rated_game_waits_for_every_account_before_its_first_move(client: TestClient) -> None:
    host = sign_up(client, "Waiting1")
    headers = use(client, host)
    response = client.post("/api/games", json={"mode": "online", "seats": HUMANS, "rated": True}, headers=headers)
    game_id, tokens = response.json()["game"]["id"], [i["token"] for i in response.json()["invites"]]
    service = client.app.state.service  # type: ignore[attr-defined]
    first = client.portal.call(service.get, game_id).state.decision.player  # type: ignore[union-attr]
    with client.websocket_connect(f"/ws/games/{game_id}?token={tokens[first]}") as ws:
        state = receive_until(ws, lambda m: m["type"] == "state" and bool(m["legal"]))
        move = {"type": "act", "action": state["legal"][0]["action"]}
        ws.send_json(move)
        refused = receive_until(ws, lambda m: m["type"] == "error")
        assert refused["code"] == "WAITING_FOR_ACCOUNTS"
        assert (
            refused["message"] == "a rated game starts when every player has opened their link signed in to an account"
        )
        headers = use(client, sign_up(client, "Waiting2"))
        claim = {"games": [{"id": game_id, "token": tokens[1]}]}
        assert client.post("/api/account/claim", json=claim, headers=headers).json() == {"claimed": [game_id]}
        ws.send_json(move)
        moved = receive_until(ws, lambda m: m["type"] == "state" and m["actions"] == 1)
        assert moved["actions"] == 1
    # A casual game starts at once.
    casual = create_game(client, "online", HUMANS)
    casual_id = casual["game"]["id"]
    first = client.portal.call(service.get, casual_id).state.decision.player  # type: ignore[union-attr]
    with client.websocket_connect(f"/ws/games/{casual_id}?token={casual['invites'][first]['token']}") as ws:
        state = receive_until(ws, lambda m: m["type"] == "state" and bool(m["legal"]))
        ws.send_json({"type": "act", "action": state["legal"][0]["action"]})
        assert receive_until(ws, lambda m: m["type"] in ("state", "error"))["actions"] == 1


def test_a_pass_and_play_game_counts_as_played_not_won(client: TestClient) -> None:
    created = create_game(client, "hotseat", [{"name": "Me"}, {"name": "Also me"}])
    game_id, token = created["game"]["id"], created["invites"][0]["token"]
    headers = use(client, sign_up(client, "Hotseat1"))
    assert client.post(
        "/api/account/claim", json={"games": [{"id": game_id, "token": token}]}, headers=headers
    ).json() == {"claimed": [game_id]}
    finish(client, game_id)
    profile = client.get("/api/players/Hotseat1").json()
    assert profile["recent"][0]["mine"] == [0, 1] and profile["recent"][0]["won"] is None
    assert profile["stats"]["2p"]["casual"] == {"played": 1, "won": 0}
