"""The lobby, server side: tables made, listed, joined and started (their tickets open the
game's seats), filled with the computer, left, quick match, rated tables between accounts,
and bad input refused with nothing changed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from account_helpers import sign_up, use
from server_helpers import receive_until, ws_path
from sqlalchemy.orm import Session
from starlette.testclient import TestClient

from ttr_nordic.server import create_app, lobby
from ttr_nordic.server.db import utcnow
from ttr_nordic.server.lobby import MAX_OPEN_PER_CLIENT, MAX_SEATS_PER_CLIENT
from ttr_nordic.server.lobby_db import TableRow

TURN = {"kind": "turn", "per_move_s": 86400}
REALTIME = {"kind": "realtime", "per_move_s": 60, "reserve_s": 300}


def make(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/lobby/tables", json={"players": 2, **body})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def join(client: TestClient, table_id: str, **body: Any) -> dict[str, Any]:
    response = client.post(f"/api/lobby/tables/{table_id}/join", json=body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def test_a_table_is_listed_joined_and_started_with_its_tickets_as_seat_tokens(client: TestClient) -> None:
    made = make(client, name="Astrid", time_control=REALTIME)
    table = made["table"]
    assert made["seat"] == 0 and table["status"] == "open" and table["time_control"] == REALTIME
    listed = client.get("/api/lobby/tables").json()["tables"]
    assert [(t["id"], [s["name"] for s in t["seats"]]) for t in listed] == [(table["id"], ["Astrid"])]
    joined = join(client, table["id"], name="Leif")
    assert joined["seat"] == 1 and joined["table"]["status"] == "started"
    game_id = joined["table"]["game_id"]
    assert game_id and client.get("/api/lobby/tables").json()["tables"] == []
    tickets = [made["ticket"], joined["ticket"]]
    mine = client.post("/api/games/mine", json={"games": [{"id": game_id, "token": t} for t in tickets]}).json()
    assert [s["name"] for s in mine["games"][0]["seats"]] == ["Astrid", "Leif"]
    with client.websocket_connect(ws_path(game_id, tickets[1])) as ws:
        state = receive_until(ws, lambda m: m.get("type") == "state")
        assert state["view"]["player"] == 1
        # The table's time control is the game's clock.
        assert state["clock"]["per_move_s"] == 60 and state["clock"]["reserve_s"] == 300
    # A started table takes nobody else.
    late = client.post(f"/api/lobby/tables/{table['id']}/join", json={"name": "Sigrid"})
    assert late.status_code == 409 and late.json()["error"]["code"] == "TABLE_CLOSED"


def test_the_creator_fills_empty_seats_with_the_computer(client: TestClient) -> None:
    made = make(client, players=3, name="Astrid")
    table_id = made["table"]["id"]
    joined = join(client, table_id, name="Leif")
    assert joined["table"]["status"] == "open"
    wrong = client.post(
        f"/api/lobby/tables/{table_id}/computer", json={"level": "easy"}, headers={"X-Table-Ticket": joined["ticket"]}
    )
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "NOT_CREATOR"
    bad = client.post(
        f"/api/lobby/tables/{table_id}/computer", json={"level": "godlike"}, headers={"X-Table-Ticket": made["ticket"]}
    )
    assert bad.status_code == 422
    assert client.get(f"/api/lobby/tables/{table_id}").json()["status"] == "open"
    filled = client.post(
        f"/api/lobby/tables/{table_id}/computer", json={"level": "easy"}, headers={"X-Table-Ticket": made["ticket"]}
    )
    assert filled.status_code == 200, filled.text
    game = client.get(f"/api/games/{filled.json()['game_id']}").json()
    assert [(s["kind"], s["level"]) for s in game["seats"]] == [("human", None), ("human", None), ("ai", "easy")]


def test_leaving_frees_a_seat_and_the_creator_cancels(client: TestClient) -> None:
    made = make(client, players=3, name="Astrid")
    table_id = made["table"]["id"]
    joined = join(client, table_id, name="Leif")
    left = client.post(f"/api/lobby/tables/{table_id}/leave", headers={"X-Table-Ticket": joined["ticket"]})
    assert left.status_code == 200 and [s["name"] for s in left.json()["seats"]] == ["Astrid"]
    no_ticket = client.post(f"/api/lobby/tables/{table_id}/leave")
    assert no_ticket.status_code == 403
    cancelled = client.post(f"/api/lobby/tables/{table_id}/leave", headers={"X-Table-Ticket": made["ticket"]})
    assert cancelled.json()["status"] == "cancelled"
    assert client.get("/api/lobby/tables").json()["tables"] == []


def test_one_client_has_a_few_open_tables_and_bad_formats_are_refused(client: TestClient) -> None:
    for _ in range(MAX_OPEN_PER_CLIENT):
        make(client)
    refused = client.post("/api/lobby/tables", json={"players": 2})
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "TOO_MANY_TABLES"
    for body in (
        {"players": 4},
        {"players": 2, "time_control": {"kind": "realtime", "per_move_s": 1, "reserve_s": 0}},
        {"players": 2, "time_control": {"kind": "blitz", "per_move_s": 60}},
        {"players": 2, "time_control": {"kind": "turn", "per_move_s": 86400, "reserve_s": 5}},
        {"players": 2, "time_control": {"kind": "turn", "per_move_s": 7200}},  # the clocks take 24 h or 3 days
        {"players": 2, "name": "a\u0000b"},
        {"players": 2, "name": "x" * 41},
        {"players": 2, "colour": "red"},
    ):
        answer = client.post("/api/lobby/tables", json=body)
        assert answer.status_code == 422, (body, answer.text)
    assert len(client.get("/api/lobby/tables").json()["tables"]) == MAX_OPEN_PER_CLIENT
    # Another address has its own share.
    with TestClient(client.app, client=("203.0.113.9", 5000)) as other:
        assert other.post("/api/lobby/tables", json={"players": 2}).status_code == 201


def test_quick_match_joins_the_same_format_or_opens_a_table(client: TestClient) -> None:
    other_format = make(client, time_control=TURN)["table"]["id"]
    first = client.post("/api/lobby/quick", json={"players": 2, "time_control": REALTIME, "name": "Astrid"})
    assert first.status_code == 200, first.text
    assert first.json()["matched"] is False and first.json()["table"]["id"] != other_format
    waiting = first.json()["table"]["id"]
    # The same browser is not matched with itself.
    again = client.post("/api/lobby/quick", json={"players": 2, "time_control": REALTIME, "exclude": [waiting]})
    assert again.json()["matched"] is False
    client.post(
        f"/api/lobby/tables/{again.json()['table']['id']}/leave", headers={"X-Table-Ticket": again.json()["ticket"]}
    )
    second = client.post("/api/lobby/quick", json={"players": 2, "time_control": REALTIME, "name": "Leif"})
    assert second.json()["matched"] is True and second.json()["table"]["id"] == waiting
    assert second.json()["table"]["status"] == "started"


def test_a_rated_table_is_between_accounts_and_shows_their_ratings(client: TestClient) -> None:
    refused = client.post("/api/lobby/tables", json={"players": 2, "rated": True})
    assert refused.status_code == 401
    astrid = sign_up(client, "Astrid")
    made = client.post("/api/lobby/tables", json={"players": 2, "rated": True}, headers=use(client, astrid))
    assert made.status_code == 201, made.text
    table = made.json()["table"]
    assert table["seats"] == [{"seat": 0, "name": "Astrid", "account": True, "rating": 1000}]
    client.cookies.clear()
    guest = client.post(f"/api/lobby/tables/{table['id']}/join", json={"name": "Guest"})
    assert guest.status_code == 401
    again = client.post(f"/api/lobby/tables/{table['id']}/join", json={}, headers=use(client, astrid))
    assert again.status_code == 409 and again.json()["error"]["code"] == "ALREADY_SEATED"
    leif = sign_up(client, "Leif")
    joined = client.post(f"/api/lobby/tables/{table['id']}/join", json={}, headers=use(client, leif))
    assert joined.status_code == 200, joined.text
    game_id = joined.json()["table"]["game_id"]
    assert client.get(f"/api/games/{game_id}/rating").json()["state"] == "pending"
    assert [g["id"] for g in client.get("/api/account/games").json()["games"]] == [game_id]


def test_a_table_made_on_one_app_is_joined_on_another_over_one_database(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    with TestClient(create_app(url)) as one, TestClient(create_app(url), client=("198.51.100.7", 1)) as two:
        table_id = make(one, name="Astrid")["table"]["id"]
        assert [t["id"] for t in two.get("/api/lobby/tables").json()["tables"]] == [table_id]
        assert join(two, table_id, name="Leif")["table"]["status"] == "started"


def test_one_address_cannot_sit_at_every_table(client: TestClient) -> None:
    """Seats at open tables are capped per address, so one address cannot block the lobby."""
    others = [TestClient(client.app, client=(f"198.51.100.{i}", 1)) for i in range(1, 4)]
    tables = [make(other, players=3)["table"]["id"] for other in others for _ in range(MAX_OPEN_PER_CLIENT)]
    for table_id in tables[:MAX_SEATS_PER_CLIENT]:
        join(client, table_id)
    refused = client.post(f"/api/lobby/tables/{tables[MAX_SEATS_PER_CLIENT]}/join", json={})
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "TOO_MANY_SEATS"
    assert len(client.get(f"/api/lobby/tables/{tables[MAX_SEATS_PER_CLIENT]}").json()["seats"]) == 1
    assert client.post("/api/lobby/tables", json={"players": 2}).status_code == 429  # its own table counts too


def _stall(client: TestClient, table_id: str, seconds: float) -> None:
    """Move a table's last change ``seconds`` into the past (as if it had waited that long)."""
    engine = client.app.state.service.engine  # type: ignore[attr-defined]
    with Session(engine) as session, session.begin():
        table = session.get(TableRow, table_id)
        assert table is not None
        table.updated_at = utcnow() - timedelta(seconds=seconds)


def test_a_table_whose_start_was_lost_opens_again_without_the_seat_that_filled_it(client: TestClient) -> None:
    """The process that took the last seat was stopped before the game was made: the table stays
    "starting", and the joiner never got a ticket. After a minute the creator's poll opens it
    again without that seat; the next join starts it and the creator's ticket still opens it."""
    engine = client.app.state.service.engine  # type: ignore[attr-defined]
    made = make(client, name="Astrid")
    table_id = made["table"]["id"]
    lost = lobby.join_table(engine, table_id, "Leif", "198.51.100.9", None)  # its answer never came
    assert lost.full and client.get(f"/api/lobby/tables/{table_id}").json()["status"] == "starting"
    _stall(client, table_id, lobby.STARTING_STALE_S - 5)
    assert client.get(f"/api/lobby/tables/{table_id}").json()["status"] == "starting"  # still in time
    _stall(client, table_id, lobby.STARTING_STALE_S + 1)
    table = client.get(f"/api/lobby/tables/{table_id}").json()
    assert table["status"] == "open" and [s["name"] for s in table["seats"]] == ["Astrid"]
    assert [t["id"] for t in client.get("/api/lobby/tables").json()["tables"]] == [table_id]
    joined = join(client, table_id, name="Sigrid")
    game_id = joined["table"]["game_id"]
    assert joined["seat"] == 1 and joined["table"]["status"] == "started"
    with client.websocket_connect(ws_path(game_id, made["ticket"])) as ws:
        state = receive_until(ws, lambda m: m.get("type") == "state")
        assert state["view"]["player"] == 0
    mine = client.post("/api/games/mine", json={"games": [{"id": game_id, "token": made["ticket"]}]}).json()
    assert [s["name"] for s in mine["games"][0]["seats"]] == ["Astrid", "Sigrid"]
    refused = client.post("/api/games/mine", json={"games": [{"id": game_id, "token": lost.ticket}]}).json()
    assert refused["games"] == []  # the lost ticket opens nothing


def test_a_stale_table_filled_with_the_computer_opens_again_with_its_people(client: TestClient) -> None:
    engine = client.app.state.service.engine  # type: ignore[attr-defined]
    made = make(client, players=3, name="Astrid")
    table_id = made["table"]["id"]
    join(client, table_id, name="Leif")
    lobby.fill_with_computer(engine, table_id, made["ticket"])  # then the process is stopped
    _stall(client, table_id, lobby.STARTING_STALE_S + 1)
    listed = client.get("/api/lobby/tables").json()["tables"]  # the list finds it too
    assert [(t["id"], [s["name"] for s in t["seats"]]) for t in listed] == [(table_id, ["Astrid", "Leif"])]


def test_a_late_start_after_the_table_opened_again_is_refused(client: TestClient) -> None:
    """A starter that wakes up after its table opened again does not link its game to it."""
    engine = client.app.state.service.engine  # type: ignore[attr-defined]
    made = make(client, name="Astrid")
    table_id = made["table"]["id"]
    lobby.join_table(engine, table_id, "Leif", "198.51.100.9", None)
    plan = lobby.starting(engine, table_id, "hard")
    _stall(client, table_id, lobby.STARTING_STALE_S + 1)
    assert lobby.recover_stale(engine) == [table_id]
    with pytest.raises(lobby.LobbyError) as refused:
        lobby.started(engine, plan, "no-such-game")
    assert refused.value.code == "TABLE_NOT_STARTING"
    assert client.get(f"/api/lobby/tables/{table_id}").json()["status"] == "open"
