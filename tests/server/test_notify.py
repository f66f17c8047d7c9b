"""Reminders: settings bounded and validated; a reminder e-mail reaches a real SMTP server (aiosmtpd)
after a restart of the server, with a link to the game page; one address gets a bounded number of
mails (the throttle); a Web Push message reaches a push endpoint the test runs, and the test
decrypts it there with the keys it made for the subscription.

No timing assumptions: short intervals, and each check polls with a long deadline."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Iterator
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import http_ece
import pytest
from account_helpers import sign_up, use
from aiosmtpd.controller import Controller
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from server_helpers import create_game
from starlette.testclient import TestClient
from test_crash import _free_port

from ttr_nordic.server import create_app
from ttr_nordic.server.notify import MAX_MAILS_PER_ADDRESS_PER_HOUR, SettingsError, SmtpServer, parse_settings

PATIENCE_S = 90.0
HUMANS = [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}]
TURN = {"kind": "turn", "per_move_s": 86400}


class Inbox:
    """An aiosmtpd handler keeping every message it is given."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    handler = Inbox()
    port = _free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


def _wait_for(check: Any, what: str) -> Any:
    deadline = time.monotonic() + PATIENCE_S
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"waited {PATIENCE_S:.0f} s for {what}"
        time.sleep(0.2)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"email_on": True}, "e-mail reminders need an e-mail address"),
        ({"email": "not an address"}, "the e-mail address is not one"),
        ({"email": "a@b.c" + "c" * 300}, "the e-mail address is not one"),
        ({"interval_s": 60}, "interval_s must be a whole number of seconds from 3600"),
        ({"interval_s": 10**9}, "interval_s must be a whole number of seconds from 3600"),
        ({"interval_s": "daily"}, "interval_s must be"),
        ({"push_on": "yes"}, "push_on must be true or false"),
        ({"sms_on": True}, "unknown reminder settings: sms_on"),
        ([], "reminder settings must be an object"),
    ],
)
def test_bad_settings_are_refused_in_one_line(value: object, message: str) -> None:
    with pytest.raises(SettingsError) as caught:
        parse_settings(value)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_the_smtp_url_is_checked_and_its_password_never_shown() -> None:
    server = SmtpServer.of("smtp+starttls://bot:s3cret@mail.example:587", "games@example.org")
    assert "s3cret" not in repr(server) and server.port == 587 and server.password == "s3cret"
    with pytest.raises(SettingsError, match="the SMTP URL must look like"):
        SmtpServer.of("http://mail.example", "games@example.org")


def test_settings_routes_validate_and_store(tmp_path: Path) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.sqlite'}", ai_workers=1)) as client:
        assert client.get("/api/account/reminders").status_code == 401
        csrf = use(client, sign_up(client, "Ada"))
        assert client.get("/api/account/reminders").json()["reminders"]["email_on"] is False
        bad = client.put("/api/account/reminders", json={"email_on": True, "interval_s": 3600}, headers=csrf)
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "BAD_SETTINGS"
        assert client.get("/api/account/reminders").json()["reminders"]["email_on"] is False  # nothing changed
        no_csrf = client.put("/api/account/reminders", json={"email": "ada@example.org", "email_on": True})
        assert no_csrf.status_code == 403
        good = {"email": "ada@example.org", "email_on": True, "push_on": False, "interval_s": 7200}
        assert client.put("/api/account/reminders", json=good, headers=csrf).status_code == 200
        assert client.get("/api/account/reminders").json()["reminders"] == {**good, "language": "en"}
        refused = client.post("/api/account/push", json={"endpoint": "ftp://x", "keys": {}}, headers=csrf)
        assert refused.status_code == 422
        key = client.get("/api/push/key").json()["key"]
        assert len(base64.urlsafe_b64decode(key + "==")) == 65  # an uncompressed P-256 point
        assert client.get("/api/push/key").json()["key"] == key  # made once, kept
        worker = client.get("/sw.js")
        assert worker.status_code == 200 and "showNotification" in worker.text


def _account_game(client: TestClient, csrf: dict[str, str], session: dict[str, Any]) -> str:
    """A turn-based game whose seat 0 (to move first) Ada's account holds."""
    created = create_game(client, "online", HUMANS, time_control=TURN, first_player=0)
    game_id: str = created["game"]["id"]
    token = created["invites"][0]["token"]
    claimed = client.post("/api/account/claim", json={"games": [{"id": game_id, "token": token}]}, headers=csrf)
    assert claimed.status_code == 200, claimed.text
    return game_id


def test_a_reminder_mail_after_a_restart_links_to_the_game(tmp_path: Path, inbox: tuple[Inbox, int]) -> None:
    handler, port = inbox
    url = f"sqlite:///{tmp_path / 'games.sqlite'}"
    smtp = f"smtp://127.0.0.1:{port}"
    # The first server never looks at its clocks (an hour between looks): the reminder is due
    # while it runs, and only the second server, started later on the same database, sends it.
    with TestClient(create_app(url, ai_workers=1, clock_poll_s=3600, remind_after_s=0.5, smtp_url=smtp)) as client:
        session = sign_up(client, "Ada")
        csrf = use(client, session)
        settings = {"email": "ada@example.org", "email_on": True, "interval_s": 3600}
        assert client.put("/api/account/reminders", json=settings, headers=csrf).status_code == 200
        game_id = _account_game(client, csrf, session)
    assert handler.messages == []
    app = create_app(url, ai_workers=1, clock_poll_s=0.2, remind_after_s=0.5, smtp_url=smtp,
                     mail_from="games@example.org", public_url="http://games.example")  # fmt: skip
    with TestClient(app) as client:
        _wait_for(lambda: handler.messages, "the reminder mail")
        mail = handler.messages[0]
        assert mail["To"] == "ada@example.org" and mail["From"] == "games@example.org"
        body = mail.get_payload(decode=True).decode().replace("\r\n", "\n")  # type: ignore[union-attr]
        assert f"http://games.example/play/{game_id}\n" in body and "It is your turn (Ada)" in body
        # At most one mail per game per interval (an hour here): later looks send nothing.
        time.sleep(1.0)
        assert len(handler.messages) == 1
        assert client.app.state.notifier.sent["email"] == 1  # type: ignore[attr-defined]


def test_one_address_gets_a_bounded_number_of_mails(tmp_path: Path, inbox: tuple[Inbox, int]) -> None:
    handler, port = inbox
    url = f"sqlite:///{tmp_path / 'games.sqlite'}"
    games = MAX_MAILS_PER_ADDRESS_PER_HOUR + 3
    app = create_app(url, ai_workers=1, clock_poll_s=3600, remind_after_s=0.2, smtp_url=f"smtp://127.0.0.1:{port}")
    with TestClient(app) as client:
        # Two accounts point their reminders at the same inbox, each with games waiting for them.
        for name in ("Ada", "Eve"):
            csrf = use(client, session := sign_up(client, name))
            settings = {"email": "victim@example.org", "email_on": True, "interval_s": 3600}
            assert client.put("/api/account/reminders", json=settings, headers=csrf).status_code == 200
            for _ in range(games // 2 + 1):
                _account_game(client, csrf, session)
        clocks = client.app.state.service.clocks  # type: ignore[attr-defined]
        for _ in range(3):  # every reminder is due: look three times
            time.sleep(0.3)
            client.portal.call(clocks.sweep_once)  # type: ignore[union-attr]
            client.portal.call(_settle, clocks)  # type: ignore[union-attr]
    assert len(handler.messages) == MAX_MAILS_PER_ADDRESS_PER_HOUR


async def _settle(clocks: Any) -> None:
    import asyncio

    while clocks._firing:
        await asyncio.gather(*list(clocks._firing), return_exceptions=True)


class PushEndpoint(BaseHTTPRequestHandler):
    """A push service standing in for the browser's: keeps each request's headers and body."""

    received: ClassVar[list[tuple[dict[str, str], bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        PushEndpoint.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(201)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def test_a_push_reminder_is_encrypted_for_the_subscription(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), PushEndpoint)
    PushEndpoint.received = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # The subscription's keys, as a browser makes them: a P-256 key pair and a 16-byte secret.
    receiver = ec.generate_private_key(ec.SECP256R1())
    public = receiver.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    secret = b"0123456789abcdef"
    endpoint = f"http://127.0.0.1:{server.server_address[1]}/push/some-subscription"
    try:
        url = f"sqlite:///{tmp_path / 'games.sqlite'}"
        with TestClient(create_app(url, ai_workers=1, clock_poll_s=0.2, remind_after_s=0.2)) as client:
            csrf = use(client, session := sign_up(client, "Ada"))
            subscription = {"endpoint": endpoint, "keys": {"p256dh": _b64(public), "auth": _b64(secret)}}
            assert client.post("/api/account/push", json=subscription, headers=csrf).status_code == 201
            settings = {"push_on": True, "interval_s": 3600}
            assert client.put("/api/account/reminders", json=settings, headers=csrf).status_code == 200
            game_id = _account_game(client, csrf, session)
            _wait_for(lambda: PushEndpoint.received, "the push message")
            server_key = client.get("/api/push/key").json()["key"]
        headers, body = PushEndpoint.received[0]
        assert headers["content-encoding"] == "aes128gcm"
        assert f"k={server_key}" in headers["authorization"]  # VAPID: signed with the server's key
        message = json.loads(http_ece.decrypt(body, private_key=receiver, auth_secret=secret, version="aes128gcm"))
        assert message["url"] == f"/play/{game_id}" and message["title"] == "Your turn"
    finally:
        server.shutdown()
