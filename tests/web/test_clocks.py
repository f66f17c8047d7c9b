"""Clocks and reminders in the browser (real Chromium, a real ``ttr-nordic serve``, a real SMTP
server): Ada signs up, sets e-mail reminders in her settings, creates a turn-based game with the
start page's form and opens her seat; the server is stopped, her tab closed, a new server started
on the same database sends the reminder, and the mail's link opens her seat with its clock.
The service worker registers at the site's root."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from playwright.sync_api import expect
from websockets.sync.client import connect

from .conftest import ROOT, free_port, shot
from .driver import wait_state
from .test_accounts import SIZES, sign_up_in_page, unique

PATIENCE_S = 90.0


class Inbox:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"


@contextmanager
def _serve(database: Path, port: int, smtp_port: int, log: Path, remind_after: int = 1) -> Iterator[str]:
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "ttr_nordic.cli", "serve", "--port", str(port), "--database-url",
               f"sqlite:///{database}", "--smtp-url", f"smtp://127.0.0.1:{smtp_port}", "--remind-after",
               str(remind_after), "--public-url", url, "--mail-from", "games@example.org"]  # fmt: skip
    with log.open("ab") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, cwd=ROOT)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/api/server", timeout=2):
                        break
                except OSError:
                    assert process.poll() is None and time.monotonic() < deadline, log.read_text()
                    time.sleep(0.1)
            yield url
        finally:
            process.terminate()
            process.wait(20)


def _play_until_not_to_move(port: int, link: str) -> None:
    """Bo plays (first legal actions) until it is not his turn."""
    game_id, token = link.split("/play/")[1].split("?seat=")
    with connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}?token={token}") as ws:
        while True:
            message = json.loads(ws.recv(timeout=30))
            assert message["type"] != "error", message
            if message["type"] != "state":
                continue
            if not message["legal"]:
                return
            action = message["legal"][0]["action"]
            ws.send(json.dumps({"type": "act", "action": action, "expected": message["actions"]}))


def test_reminder_mail_after_a_restart_opens_the_seat_with_its_clock(browser: Any, tmp_path: Path) -> None:
    inbox = Inbox()
    smtp_port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=smtp_port)
    controller.start()
    port = free_port()
    database, log = tmp_path / "games.sqlite", tmp_path / "server.log"
    name = unique("Ada")
    context = browser.new_context(base_url=f"http://127.0.0.1:{port}", viewport={"width": 1440, "height": 900})
    try:
        # A first reminder 30 s into a turn: Ada's tab opens well before it, however busy the machine
        # (with 1 s a slow page load let the reminder go out before she was at the table).
        with _serve(database, port, smtp_port, log, remind_after=30):
            page = context.new_page()
            # Notifications blocked, as a player may have them (whether a headless Chromium grants
            # them differs between builds).
            page.add_init_script("Notification.requestPermission = async () => 'denied';")
            page.goto("/")
            sign_up_in_page(page, name)
            page.click("#account-button")
            page.click("#menu-settings")
            # Push first: blocked, and the form says so in words.
            page.check("#reminder-push-on")
            page.click("#save-reminders")
            expect(page.locator("#reminder-status")).to_contain_text("push reminders")
            page.uncheck("#reminder-push-on")
            page.fill("#reminder-email", "ada@example.org")
            page.check("#reminder-email-on")
            page.select_option("#reminder-interval", "3600")
            page.click("#save-reminders")
            expect(page.locator("#reminder-status")).to_have_text("Reminders saved.")
            for width, height in SIZES:
                page.set_viewport_size({"width": width, "height": height})
                page.locator("#reminder-form").scroll_into_view_if_needed()
                shot(page, f"clocks-settings-{width}x{height}")
            page.set_viewport_size({"width": 1440, "height": 900})
            page.keyboard.press("Escape")
            page.goto("/")
            page.fill("#on-name-1", name)
            page.select_option("#on-clock", "turn-1d")
            page.click("#start-online")
            link = page.locator('#invites input.invite-link[data-seat="0"]')
            expect(link).to_be_visible()
            ada_link = link.input_value()
            bo_link = page.locator('#invites input.invite-link[data-seat="1"]').input_value()
            _play_until_not_to_move(port, bo_link)  # (the first player is drawn at random)
            page.goto(ada_link)  # Ada's seat, recorded on her account (signed in)
            wait_state(page)
            expect(page.locator("#clocks")).to_contain_text("24 hours per move")
            game_id = page.url.split("/play/")[1].split("?")[0]
            # While her tab is open she is at the table: no reminder.
        assert inbox.messages == []
        page.close()  # (after the server stopped: no reminder could be sent in between)
        with _serve(database, port, smtp_port, log):
            deadline = time.monotonic() + PATIENCE_S
            while not inbox.messages:
                assert time.monotonic() < deadline, f"no reminder mail in {PATIENCE_S:.0f} s: {log.read_text()}"
                time.sleep(0.2)
            mail = inbox.messages[0]
            assert mail["To"] == "ada@example.org"
            body = mail.get_payload(decode=True).decode().replace("\r\n", "\n")  # type: ignore[union-attr]
            link_back = f"http://127.0.0.1:{port}/play/{game_id}"
            assert f"{link_back}\n" in body
            page = context.new_page()
            page.goto(link_back)
            wait_state(page)
            assert page.evaluate("document.body.dataset.seat") == "0"
            clocks = page.locator("#clocks")
            expect(clocks).to_contain_text("Turn-based game: 24 hours per move")
            expect(clocks.locator("li.moving .clock-time")).to_have_text(re.compile(r"^2[34] h \d\d min$"))
            for width, height in SIZES:
                page.set_viewport_size({"width": width, "height": height})
                page.locator("#clocks").scroll_into_view_if_needed()
                shot(page, f"clocks-game-{width}x{height}")
            # The service worker registers at the root, its scope covering the game pages.
            scope = page.evaluate(
                "async () => (await navigator.serviceWorker.register('/sw.js', { scope: '/' })).scope"
            )
            assert scope == f"http://127.0.0.1:{port}/"
    finally:
        context.close()
        controller.stop()
