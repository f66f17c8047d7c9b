"""Reminders in the account's language: the settings keep a language (checked against the
page's six), the mail to a real SMTP server (aiosmtpd) and the Web Push message are written in
it, and migration 0007 adds the column to a database of 0005 whose accounts then read English."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import http_ece
import pytest
from account_helpers import sign_up, use
from aiosmtpd.controller import Controller
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import inspect, text
from starlette.testclient import TestClient
from test_crash import _free_port
from test_notify import Inbox, PushEndpoint, _account_game, _b64, _wait_for

from ttr_nordic.server import create_app
from ttr_nordic.server.db import _alembic_config, make_engine, migrate
from ttr_nordic.server.notify import SettingsError, parse_settings, read_settings
from ttr_nordic.web.i18n import translate


def test_an_unknown_language_is_refused_in_one_line_and_nothing_is_saved(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"^language must be one of en, nb, sv, da, fi, de$"):
        parse_settings({"language": "fr"})
    with pytest.raises(SettingsError, match=r"^language must be one of"):
        parse_settings({"language": ["de"]})
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.sqlite'}", ai_workers=1)) as client:
        csrf = use(client, sign_up(client, "Ada"))
        good = {"email": "ada@example.org", "email_on": True, "push_on": False, "interval_s": 7200, "language": "fi"}
        assert client.put("/api/account/reminders", json=good, headers=csrf).json()["reminders"] == good
        bad = client.put("/api/account/reminders", json={**good, "language": "xx", "interval_s": 3600}, headers=csrf)
        error = bad.json()["error"]
        assert bad.status_code == 422 and error["code"] == "BAD_SETTINGS"
        assert error["message"] == "language must be one of en, nb, sv, da, fi, de"
        assert client.get("/api/account/reminders").json()["reminders"] == good  # nothing changed


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    """A real SMTP server (aiosmtpd) on a free port, keeping what it is sent."""
    handler = Inbox()
    port = _free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


def _body(mail: EmailMessage) -> str:
    part = mail.get_body(("plain",))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")


def test_a_reminder_mail_in_german_reaches_the_smtp_server(tmp_path: Path, inbox: tuple[Inbox, int]) -> None:
    handler, port = inbox
    app = create_app(f"sqlite:///{tmp_path / 'games.sqlite'}", ai_workers=1, clock_poll_s=0.2, remind_after_s=0.3,
                     smtp_url=f"smtp://127.0.0.1:{port}", public_url="http://games.example")  # fmt: skip
    with TestClient(app) as client:
        csrf = use(client, session := sign_up(client, "Ada"))
        settings = {"email": "ada@example.org", "email_on": True, "interval_s": 3600, "language": "de"}
        assert client.put("/api/account/reminders", json=settings, headers=csrf).status_code == 200
        game_id = _account_game(client, csrf, session)
        _wait_for(lambda: handler.messages, "the reminder mail")
    raw = handler.messages[0].as_bytes()
    mail = message_from_bytes(raw, policy=policy.default)
    assert isinstance(mail, EmailMessage)
    assert mail["Subject"] == "Zug um Zug: Skandinavien: Du bist am Zug"
    body = _body(mail)
    assert body.startswith("Du bist am Zug (Ada) im Spiel zwischen Ada, Bo.\n"), body
    assert "Spiele deinen Zug vor " in body and f"http://games.example/play/{game_id}\n" in body
    assert translate("de", "email.footer") in body and "your turn" not in body


def test_a_push_reminder_in_swedish(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), PushEndpoint)
    PushEndpoint.received = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    receiver = ec.generate_private_key(ec.SECP256R1())
    public = receiver.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    secret = b"fedcba9876543210"
    endpoint = f"http://127.0.0.1:{server.server_address[1]}/push/swedish"
    try:
        url = f"sqlite:///{tmp_path / 'games.sqlite'}"
        with TestClient(create_app(url, ai_workers=1, clock_poll_s=0.2, remind_after_s=0.2)) as client:
            csrf = use(client, session := sign_up(client, "Ada"))
            subscription = {"endpoint": endpoint, "keys": {"p256dh": _b64(public), "auth": _b64(secret)}}
            assert client.post("/api/account/push", json=subscription, headers=csrf).status_code == 201
            settings = {"push_on": True, "interval_s": 3600, "language": "sv"}
            assert client.put("/api/account/reminders", json=settings, headers=csrf).status_code == 200
            game_id = _account_game(client, csrf, session)
            _wait_for(lambda: PushEndpoint.received, "the push message")
        _, body = PushEndpoint.received[0]
        message: dict[str, Any] = json.loads(
            http_ece.decrypt(body, private_key=receiver, auth_secret=secret, version="aes128gcm")
        )
        assert message == {
            "title": "Din tur",
            "body": "Det är din tur i spelet mellan Ada, Bo.",
            "url": f"/play/{game_id}",
        }
    finally:
        server.shutdown()


def test_migration_0007_adds_the_language_and_older_settings_read_english(database_url: str) -> None:
    from alembic import command

    engine = make_engine(database_url)
    config = _alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0005")
    with engine.begin() as connection:
        connection.execute(
            text("INSERT INTO users (id, name, name_key, created_at) VALUES ('u1', 'Ada', 'ada', CURRENT_TIMESTAMP)")
        )
        connection.execute(
            text(
                "INSERT INTO reminder_settings (user_id, email, email_on, push_on, interval_s, updated_at) "
                "VALUES ('u1', 'ada@example.org', TRUE, FALSE, 7200, CURRENT_TIMESTAMP)"
            )
        )
    migrate(engine)
    columns = {c["name"]: c for c in inspect(engine).get_columns("reminder_settings")}
    assert columns["language"]["nullable"] is True
    settings = read_settings(engine, "u1")
    assert (settings.email, settings.interval_s, settings.language) == ("ada@example.org", 7200, "en")
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0005")
    assert "language" not in {c["name"] for c in inspect(engine).get_columns("reminder_settings")}
    engine.dispose()
