"""Accounts, server side: sign-up and sign-in, sessions kept as hashes, identical refusals,
throttling, CSRF and cross-site refusal, password change, sign out everywhere, deleting an
account, bounded input, and passwords kept out of the log."""

from __future__ import annotations

import logging

import pytest
from account_helpers import PASSWORD, sign_in, sign_up, use
from server_helpers import create_game
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.testclient import TestClient

from ttr_nordic.server import create_app
from ttr_nordic.server.account_db import SessionRow, UserRow
from ttr_nordic.server.account_routes import COOKIE, CSRF_HEADER
from ttr_nordic.server.accounts import Throttle, sha256


def engine_of(client: TestClient):  # type: ignore[no-untyped-def]
    return client.app.state.service.engine  # type: ignore[attr-defined]


def test_sign_up_keeps_only_hashes_and_sets_a_safe_cookie(client: TestClient) -> None:
    response = client.post("/api/account/sign-up", json={"name": "Astrid", "password": PASSWORD})
    assert response.status_code == 201, response.text
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=")
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    token = response.cookies[COOKIE]
    me = client.get("/api/account").json()
    assert me["user"]["name"] == "Astrid" and me["user"]["passkeys"] == 0
    assert me["csrf"] == response.json()["csrf"] and me["csrf"] != token
    with Session(engine_of(client)) as session:
        user = session.scalars(select(UserRow)).one()
        assert user.password_hash is not None and user.password_hash.startswith("$argon2id$")
        assert PASSWORD not in user.password_hash
        assert session.scalars(select(SessionRow.token_hash)).all() == [sha256(token)]
    # The same name in another case is taken; names and passwords are bounded.
    taken = client.post("/api/account/sign-up", json={"name": "astrid", "password": PASSWORD})
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "NAME_TAKEN"
    for name, password, code in [
        ("ab", PASSWORD, "BAD_NAME"),
        ("9lives", PASSWORD, "BAD_NAME"),
        ("Ann<script>", PASSWORD, "BAD_NAME"),
        ("x" * 21, PASSWORD, "BAD_NAME"),
        ("Bjorn", "short", "BAD_PASSWORD"),
        ("Bjorn", "p" * 1025, "VALIDATION_ERROR"),
        ("y" * 41, PASSWORD, "VALIDATION_ERROR"),
    ]:
        refused = client.post("/api/account/sign-up", json={"name": name, "password": password})
        assert refused.status_code == 422, (name, refused.text)
        assert refused.json()["error"]["code"] == code
    chunked = client.post("/api/account/sign-in", content=iter([b'{"name": "Astrid", "password": "x"}']))
    assert chunked.status_code == 411 and chunked.json()["error"]["code"] == "LENGTH_REQUIRED"
    big = client.post("/api/account/sign-in", content=b'{"name": "Astrid", "password": "' + b"x" * 40_000 + b'"}')
    assert big.status_code == 413 and big.json()["error"]["code"] == "TOO_LARGE"
    assert "default-src 'self'" in big.headers["content-security-policy"]  # the app's headers too


def test_the_cookie_is_secure_over_https(database_url: str) -> None:
    with TestClient(create_app(database_url), base_url="https://testserver") as client:
        response = client.post("/api/account/sign-up", json={"name": "Secure1", "password": PASSWORD})
        assert "Secure" in response.headers["set-cookie"]
        assert client.get("/api/account").json()["user"]["name"] == "Secure1"


def test_wrong_password_and_unknown_user_get_the_same_answer(client: TestClient) -> None:
    sign_up(client, "Leif")
    client.cookies.clear()
    wrong = client.post("/api/account/sign-in", json={"name": "Leif", "password": "not the password"})
    unknown = client.post("/api/account/sign-in", json={"name": "Nobody", "password": "not the password"})
    assert wrong.status_code == unknown.status_code == 401
    assert (
        wrong.json()
        == unknown.json()
        == {"error": {"code": "BAD_CREDENTIALS", "message": "wrong user name or password"}}
    )
    assert COOKIE not in wrong.cookies and COOKIE not in unknown.cookies
    session = sign_in(client, "LEIF")  # names compare without case
    assert session["user"]["name"] == "Leif"


def test_guessing_is_throttled_per_account_and_per_address(client: TestClient) -> None:
    client.app.state.accounts.throttle = Throttle(per_account=3, per_address=6)  # type: ignore[attr-defined]
    sign_up(client, "Solveig")
    client.cookies.clear()
    for _ in range(3):
        assert (
            client.post("/api/account/sign-in", json={"name": "Solveig", "password": "guess-guess"}).status_code == 401
        )
    blocked = client.post("/api/account/sign-in", json={"name": "Solveig", "password": PASSWORD})
    assert blocked.status_code == 429
    assert blocked.json()["error"] == {
        "code": "TOO_MANY_ATTEMPTS",
        "message": "too many failed sign-ins: wait 15 minutes and try again",
    }
    # An unknown name is throttled the same way (nothing tells the two apart) ...
    for _ in range(3):
        assert client.post("/api/account/sign-in", json={"name": "Ghost", "password": "guess-guess"}).status_code == 401
    # ... and now the address has failed 6 times: every name from it waits.
    assert client.post("/api/account/sign-in", json={"name": "Other", "password": "guess-guess"}).status_code == 429


def test_changes_need_the_csrf_header_and_the_same_site(client: TestClient) -> None:
    session = sign_up(client, "Ingrid")
    for headers in ({}, {CSRF_HEADER: "0" * 64}):
        refused = client.post("/api/account/sign-out", headers=headers)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "CSRF"
    assert client.get("/api/account").json()["user"]["name"] == "Ingrid"  # still signed in
    cross = {"Origin": "https://evil.example", CSRF_HEADER: session["csrf"]}
    assert client.post("/api/account/sign-out", headers=cross).json()["error"]["code"] == "CROSS_SITE"
    fetch_site = {"Sec-Fetch-Site": "cross-site"}
    refused = client.post("/api/account/sign-in", json={"name": "Ingrid", "password": PASSWORD}, headers=fetch_site)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "CROSS_SITE"
    # A rated game is created by a signed-in player, with the header.
    seats = [{"name": "A"}, {"name": "B"}]
    refused = client.post("/api/games", json={"mode": "online", "seats": seats, "rated": True})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "CSRF"
    same = {"Origin": "http://testserver", CSRF_HEADER: session["csrf"]}
    assert client.post("/api/account/sign-out", headers=same).status_code == 200
    assert client.get("/api/account").json() == {"user": None}
    refused = client.post("/api/games", json={"mode": "online", "seats": seats, "rated": True})
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "SIGN_IN_REQUIRED"


def test_changing_the_password_signs_out_the_other_sessions(client: TestClient) -> None:
    first = sign_up(client, "Gunnar")
    second = sign_in(client, "Gunnar")
    headers = use(client, first)
    wrong = client.post(
        "/api/account/password", json={"current": "nope-nope", "new": "a new password"}, headers=headers
    )
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "WRONG_PASSWORD"
    changed = client.post("/api/account/password", json={"current": PASSWORD, "new": "a new password"}, headers=headers)
    assert changed.json() == {"changed": True, "signed_out": 1}
    assert client.get("/api/account").json()["user"]["name"] == "Gunnar"  # this one stays
    use(client, second)
    assert client.get("/api/account").json() == {"user": None}
    client.cookies.clear()
    assert client.post("/api/account/sign-in", json={"name": "Gunnar", "password": PASSWORD}).status_code == 401
    third = sign_in(client, "Gunnar", "a new password")
    # Sign out everywhere ends every session, this one too.
    headers = use(client, third)
    assert client.post("/api/account/sign-out-everywhere", headers=headers).json() == {"signed_out": 2}
    for session in (first, third):
        use(client, session)
        assert client.get("/api/account").json() == {"user": None}


def test_deleting_an_account_keeps_its_games_as_records(client: TestClient) -> None:
    session = sign_up(client, "Halvard")
    created = create_game(client, "online", [{"name": "Halvard"}, {"name": "Guest"}])
    game_id, token = created["game"]["id"], created["invites"][0]["token"]
    headers = use(client, session)
    assert client.post(
        "/api/account/claim", json={"games": [{"id": game_id, "token": token}]}, headers=headers
    ).json() == {"claimed": [game_id]}
    refused = client.post("/api/account/delete", json={"password": "not it at all"}, headers=headers)
    assert refused.status_code == 403
    deleted = client.post("/api/account/delete", json={"password": PASSWORD}, headers=headers)
    assert deleted.json() == {"deleted": True}
    assert client.get("/api/account").json() == {"user": None}
    assert client.get("/api/players/Halvard").status_code == 404
    names = [s["name"] for s in client.get(f"/api/games/{game_id}").json()["seats"]]
    assert names == ["deleted player", "Guest"]
    client.app.state.service.live.clear()  # type: ignore[attr-defined]
    names = [s["name"] for s in client.get(f"/api/games/{game_id}").json()["seats"]]
    assert names == ["deleted player", "Guest"]  # stored so
    with Session(engine_of(client)) as db:
        assert db.scalars(select(SessionRow)).all() == []
        assert db.scalars(select(UserRow)).all() == []
    client.cookies.clear()
    assert client.post("/api/account/sign-in", json={"name": "Halvard", "password": PASSWORD}).status_code == 401
    # The name is free again.
    sign_up(client, "Halvard")


def test_passwords_and_tokens_never_reach_the_log(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    session = sign_up(client, "Quiet1", "secret words here")
    client.post("/api/account/sign-in", json={"name": "Quiet1", "password": "wrong words here"})
    headers = use(client, session)
    client.post(
        "/api/account/password", json={"current": "secret words here", "new": "newer words here"}, headers=headers
    )
    text = caplog.text
    for secret in ("secret words here", "wrong words here", "newer words here", session["token"], session["csrf"]):
        assert secret not in text


def test_new_accounts_per_address_are_limited(client: TestClient) -> None:
    client.app.state.accounts.throttle = Throttle(sign_ups=2)  # type: ignore[attr-defined]
    sign_up(client, "First1")
    sign_up(client, "Second2")
    refused = client.post("/api/account/sign-up", json={"name": "Third3", "password": PASSWORD})
    assert refused.status_code == 429
    assert refused.json()["error"] == {
        "code": "TOO_MANY_ACCOUNTS",
        "message": "too many new accounts from this address: wait 15 minutes",
    }


def test_expired_sessions_and_old_failures_are_forgotten(client: TestClient) -> None:
    from datetime import timedelta

    from ttr_nordic.server.account_db import ThrottleRow
    from ttr_nordic.server.db import utcnow

    old = sign_up(client, "Expired1")
    fresh = sign_in(client, "Expired1")
    client.post("/api/account/sign-in", json={"name": "Expired1", "password": "not the password"})
    accounts = client.app.state.accounts  # type: ignore[attr-defined]
    with Session(engine_of(client)) as session, session.begin():
        row = session.get(SessionRow, sha256(old["token"]))
        assert row is not None
        row.expires_at = utcnow() - timedelta(seconds=1)
        for throttle in session.scalars(select(ThrottleRow)):
            throttle.window_start = utcnow() - timedelta(hours=1)
    use(client, old)
    assert client.get("/api/account").json() == {"user": None}  # expired: refused (and deleted) on use
    with Session(engine_of(client)) as session, session.begin():
        session.get(SessionRow, sha256(fresh["token"])).expires_at = utcnow() - timedelta(seconds=1)  # type: ignore[union-attr]
        accounts.forget_expired(session)
    with Session(engine_of(client)) as session:
        assert session.scalars(select(SessionRow)).all() == []
        assert session.scalars(select(ThrottleRow)).all() == []
