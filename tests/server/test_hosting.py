"""``/healthz``, ``/readyz`` and ``/metrics`` of the app, on SQLite and PostgreSQL, and the request
ids in the log."""

from __future__ import annotations

from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text
from starlette.testclient import TestClient

from ttr_nordic.server.db import head_revision, make_engine
from ttr_nordic.server.logs import scrub


def _samples(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def test_healthz_and_readyz_answer_json(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    response = client.get("/readyz")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "ready"
    assert body["checks"]["database"] == {"ok": True, "migration": head_revision()}
    assert body["checks"]["ai"]["ok"] is True


def test_readyz_is_503_while_the_schema_is_behind(database_url: str) -> None:
    from ttr_nordic.server import create_app

    with TestClient(create_app(database_url)) as client:
        engine = make_engine(database_url)
        try:
            with engine.begin() as connection:
                connection.execute(text("UPDATE alembic_version SET version_num = '0001'"))
            response = client.get("/readyz")
            assert response.status_code == 503
            check = response.json()["checks"]["database"]
            assert check["ok"] is False
            head = head_revision()
            assert check["reason"] == f"the schema is at migration 0001, not {head}: run ttr-nordic db upgrade"
            assert client.get("/healthz").status_code == 200  # alive all the same
        finally:
            with engine.begin() as connection:
                connection.execute(text("UPDATE alembic_version SET version_num = :head"), {"head": head_revision()})
            engine.dispose()


def _create_hotseat(client: TestClient) -> tuple[str, str]:
    response = client.post("/api/games", json={"mode": "hotseat", "seats": [{}, {}]})
    assert response.status_code == 201, response.text
    body: Any = response.json()
    return body["game"]["id"], body["invites"][0]["token"]


def test_metrics_count_games_sockets_and_moves(client: TestClient) -> None:
    before = _samples(client)
    assert ("ttr_live_games", (("state", "playing"),)) in before
    assert before[("ttr_open_sockets", ())] == 0
    assert before[("ttr_ai_decisions_pending", ())] == 0
    assert any(name == "process_cpu_seconds_total" for name, _ in before)
    assert ("ttr_ai_queue_wait_seconds_count", ()) in before
    game_id, token = _create_hotseat(client)
    with client.websocket_connect(f"/ws/games/{game_id}?token={token}") as ws:
        state = ws.receive_json()
        while state["type"] != "state":
            state = ws.receive_json()
        during = _samples(client)
        assert during[("ttr_open_sockets", ())] == 1
        assert during[("ttr_live_games", (("state", "playing"),))] == 1
        ws.send_json({"type": "act", "action": state["legal"][0]["action"], "expected": state["actions"]})
        answer = ws.receive_json()
        while answer["type"] != "state":
            assert answer["type"] != "error", answer
            answer = ws.receive_json()
    after = _samples(client)
    assert after[("ttr_moves_total", (("by", "human"),))] == 1
    assert after[("ttr_open_sockets", ())] == 0


def test_responses_carry_a_request_id(client: TestClient) -> None:
    given = client.get("/healthz", headers={"X-Request-ID": "abc-123"})
    assert given.headers["x-request-id"] == "abc-123"
    made = client.get("/healthz", headers={"X-Request-ID": "not valid!"})
    assert made.headers["x-request-id"] != "not valid!" and len(made.headers["x-request-id"]) == 16


@pytest.mark.parametrize(
    "secret",
    [
        "/play/g?seat=SECRET1",
        "/record?token=SECRET1&x=1",
        "POST /login password=SECRET1",
        "postgresql+psycopg://ttr:SECRET1@db/ttr",
    ],
)
def test_scrub_hides_secrets(secret: str) -> None:
    assert "SECRET1" not in scrub(secret)
