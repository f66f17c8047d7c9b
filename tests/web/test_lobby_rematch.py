"""Rematch in real Chromium: a lobby game between two browsers played to its end, "Rematch?"
in the final dialog offered by one (the other sees the offer) and accepted by the other; both
pages open the same new game, each on its old seat."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import shot
from .test_accounts import play_seats_to_the_end


def test_both_players_accept_a_rematch_and_land_in_the_new_game(
    browser: Any, browser_context_args: dict[str, Any], base_url: str
) -> None:
    contexts = [browser.new_context(**browser_context_args) for _ in range(2)]
    try:
        pages = [c.new_page() for c in contexts]
        made = pages[0].request.post("/api/lobby/tables", data={"players": 2, "name": "Astrid"}).json()
        joined = pages[1].request.post(f"/api/lobby/tables/{made['table']['id']}/join", data={"name": "Leif"}).json()
        game_id = joined["table"]["game_id"]
        tickets = [made["ticket"], joined["ticket"]]
        play_seats_to_the_end(base_url, game_id, tickets)
        for page, ticket in zip(pages, tickets, strict=True):
            page.goto(f"/play/{game_id}?seat={ticket}")
            page.locator("#final-dialog #rematch").wait_for()
        pages[0].click("#final-dialog #rematch")
        expect(pages[1].locator("#rematch-status")).to_contain_text("accepted by Astrid", timeout=10000)
        shot(pages[1], "rematch-offer-1440x960")
        pages[1].click("#final-dialog #rematch")
        for page in pages:
            page.wait_for_url(lambda url: game_id not in url and "/play/" in url, timeout=15000)
        new_urls = [p.url for p in pages]
        assert new_urls[0].split("?")[0] == new_urls[1].split("?")[0]
        assert [u.split("seat=")[1] for u in new_urls] == tickets
        expect(pages[0].locator("#players")).to_contain_text("Leif")
    finally:
        for context in contexts:
            context.close()
