"""Accessibility of the lobby (a waiting table, an open one, a game being played) and of a
watched game with its chat: axe-core finds no serious or critical violation."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .test_page_axe import serious_violations


def test_the_lobby_and_a_watched_game(browser: Any, browser_context_args: dict[str, Any]) -> None:
    context = browser.new_context(**browser_context_args, bypass_csp=True)  # axe is injected
    try:
        page = context.new_page()
        made = page.request.post("/api/lobby/tables", data={"players": 2, "name": "Astrid"}).json()
        joined = page.request.post(f"/api/lobby/tables/{made['table']['id']}/join", data={"name": "Leif"}).json()
        game_id = joined["table"]["game_id"]
        page.request.post(
            f"/api/games/{game_id}/chat", data={"phrase": "hello"}, headers={"X-Game-Token": made["ticket"]}
        )
        other = page.request.post("/api/lobby/tables", data={"players": 3, "name": "Sigrid"}).json()
        page.goto("/lobby")
        page.click("#lobby-create")
        expect(page.locator("#lobby-mine")).to_contain_text("Waiting for players")
        expect(page.locator("#lobby-tables")).to_contain_text("Sigrid")
        expect(page.locator("#lobby-playing")).to_contain_text("Astrid vs Leif")
        found = serious_violations(page, "lobby")
        page.locator("#lobby-mine .lobby-leave").click()
        expect(page.locator("#lobby-mine")).to_be_hidden()
        page.request.post(
            f"/api/lobby/tables/{other['table']['id']}/leave", headers={"X-Table-Ticket": other["ticket"]}
        )
        page.goto(f"/watch/{game_id}")
        expect(page.locator("#chat-list")).to_contain_text("Hello")
        found += serious_violations(page, "watched game")
        assert found == []
    finally:
        context.close()
