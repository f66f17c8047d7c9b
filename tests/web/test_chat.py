"""A lobby game in real Chromium with three contexts: two players and a spectator. The
spectator's page and every WebSocket message it receives carry no hand and no ticket; the
chat shows an XSS attempt as text (no script runs), a quick phrase in each reader's language, and a
muted player stays muted on reload."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import expect

from .conftest import shot

XSS = '<img src=x onerror="window.__xss=1">'


def _seat(context: Any, name: str, create: bool) -> Any:
    page = context.new_page()
    page.goto("/lobby")
    page.fill("#lobby-name", name)
    if create:
        page.click("#lobby-create")
        expect(page.locator("#lobby-mine")).to_contain_text("Waiting for players")
    else:
        page.locator("#lobby-tables tr", has_text="Astrid").locator(".lobby-join").click()
    return page


def test_a_spectator_sees_no_secret_and_the_chat_is_text(browser: Any, browser_context_args: dict[str, Any]) -> None:
    # The spectator reads German: a quick phrase reaches each reader in their own language.
    contexts = [browser.new_context(**{**browser_context_args, **extra}) for extra in ({}, {}, {"locale": "de-DE"})]
    try:
        astrid = _seat(contexts[0], "Astrid", create=True)
        leif = _seat(contexts[1], "Leif", create=False)
        astrid.wait_for_url("**/play/**", timeout=15000)
        leif.wait_for_url("**/play/**")
        game_id = leif.url.split("/play/")[1].split("?")[0]

        watcher = contexts[2].new_page()
        frames: list[str] = []
        watcher.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
        watcher.goto("/lobby")
        watcher.locator(f"#lobby-playing a[href='/watch/{game_id}']").click()
        watcher.wait_for_url(f"**/watch/{game_id}")
        expect(watcher.locator("#players")).to_contain_text("Leif")
        expect(watcher.locator("#hand")).to_have_count(0)
        expect(watcher.locator("#tickets")).to_have_count(0)
        expect(watcher.locator("#chat-input")).to_have_count(0)  # spectators read only

        astrid.fill("#chat-input", XSS)
        # The ticket dialog may open over either page at any moment (the game has begun): these
        # clicks go to the chat's own buttons, as a player's would once that dialog is done.
        astrid.locator("#chat-form button[type=submit]").dispatch_event("click")
        leif.locator(".chat-phrase[data-phrase=gg]").dispatch_event("click")
        for page, good_game in ((astrid, "Good game"), (leif, "Good game"), (watcher, "Gutes Spiel")):
            expect(page.locator("#chat-list")).to_contain_text(XSS)
            expect(page.locator("#chat-list")).to_contain_text(good_game)
            assert page.locator("#chat-list img").count() == 0
            assert page.evaluate("() => window.__xss") is None
        for width, height in ((1440, 900), (1366, 768), (390, 844)):
            watcher.set_viewport_size({"width": width, "height": height})
            shot(watcher, f"watch-{width}x{height}")
            leif.set_viewport_size({"width": width, "height": height})
            leif.locator("#chat").scroll_into_view_if_needed()
            shot(leif, f"chat-{width}x{height}")

        # Leif mutes Astrid: her lines go, his stay, and the choice outlives a reload.
        leif.locator(".chat-message[data-seat='0'] .chat-mute").first.dispatch_event("click")
        expect(leif.locator("#chat-list")).not_to_contain_text(XSS)
        leif.reload()
        expect(leif.locator("#chat-list")).to_contain_text("Good game")
        expect(leif.locator("#chat-list")).not_to_contain_text(XSS)

        assert frames, "the spectator's socket sent nothing"
        for frame in frames:
            view = json.loads(frame).get("view", {})
            for private in ("hand", "tickets", "offered_tickets", "all_tickets", "result"):
                assert private not in view, private
    finally:
        for context in contexts:
            context.close()
