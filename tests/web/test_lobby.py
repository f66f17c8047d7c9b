"""The lobby in real Chromium, with several browser contexts: a table opened in one is joined
from another (both land in the game, each on its own seat), quick match pairs two browsers or
offers the computer, names are shown as text (an XSS attempt stays text)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import shot

XSS_NAME = '<img src=x onerror="window.__xss=1">'


def _lobby(context: Any) -> Any:
    page = context.new_page()
    page.goto("/lobby")
    expect(page.locator("#lobby-form")).to_be_visible()
    return page


def test_a_table_opened_in_one_browser_is_joined_from_another(
    browser: Any, browser_context_args: dict[str, Any]
) -> None:
    one, two = browser.new_context(**browser_context_args), browser.new_context(**browser_context_args)
    try:
        first = _lobby(one)
        first.fill("#lobby-name", XSS_NAME)
        first.select_option("#lobby-pace", "turn")
        first.click("#lobby-create")
        expect(first.locator("#lobby-mine")).to_contain_text("Waiting for players")
        second = _lobby(two)
        second.fill("#lobby-name", "Leif")
        row = second.locator("#lobby-tables tr", has_text="Turn-based")
        expect(row).to_contain_text(XSS_NAME)  # the name is text, not markup
        assert second.evaluate("() => window.__xss") is None and second.locator("#lobby-tables img").count() == 0
        for width, height in ((1440, 900), (1366, 768), (390, 844)):
            second.set_viewport_size({"width": width, "height": height})
            shot(second, f"lobby-{width}x{height}", full_page=True)
        second.set_viewport_size({"width": 1440, "height": 900})
        shot(first, "lobby-waiting")
        row.locator(".lobby-join").click()
        second.wait_for_url("**/play/**")
        first.wait_for_url("**/play/**", timeout=15000)
        assert first.url.split("?")[0] == second.url.split("?")[0] and first.url != second.url
        expect(second.locator("#players")).to_contain_text("Leif")
        expect(first.locator("#players")).to_contain_text("Leif")
    finally:
        one.close()
        two.close()


def test_quick_match_pairs_two_browsers_or_offers_the_computer(
    browser: Any, browser_context_args: dict[str, Any]
) -> None:
    one, two = browser.new_context(**browser_context_args), browser.new_context(**browser_context_args)
    try:
        first = _lobby(one)
        first.select_option("#lobby-players", "3")
        first.click("#lobby-quick")
        expect(first.locator("#lobby-mine")).to_contain_text("1 of 3 seated")
        second = _lobby(two)
        second.select_option("#lobby-players", "3")
        second.click("#lobby-quick")  # the same format: seated at the first one's table
        expect(first.locator("#lobby-mine")).to_contain_text("2 of 3 seated")
        expect(second.locator("#lobby-mine")).to_contain_text("2 of 3 seated")
        # Nobody else comes: the first one (the table's creator) takes the computer at once.
        first.select_option("#lobby-wait", "0")
        first.select_option("#lobby-mine .lobby-level", "easy")
        first.click("#lobby-mine .lobby-computer")
        first.wait_for_url("**/play/**")
        second.wait_for_url("**/play/**", timeout=15000)
        expect(first.locator("#players")).to_contain_text("easy")
    finally:
        one.close()
        two.close()


def test_the_start_page_leads_to_the_lobby(page: Any) -> None:
    page.goto("/")
    page.click("#lobby-entry")
    page.wait_for_url("**/lobby")
    expect(page.locator("h1")).to_have_text("Lobby")


def test_the_creator_keeps_the_seat_through_a_starting_table_and_a_refused_poll(
    browser: Any, browser_context_args: dict[str, Any]
) -> None:
    # A busy server answers the creator's poll with the table still "starting" (the last seat is
    # taken, the game not yet created) or refuses it (429): the page keeps the seat and, once the
    # game exists, opens it. (Dropping the seat on either left the creator in the lobby for good.)
    one, two = browser.new_context(**browser_context_args), browser.new_context(**browser_context_args)
    try:
        first = _lobby(one)
        first.fill("#lobby-name", "Astrid")
        first.click("#lobby-create")
        expect(first.locator("#lobby-mine")).to_contain_text("Waiting for players")
        table_id = first.locator("#lobby-mine .lobby-waiting").get_attribute("data-table")
        answers = ["starting", "refused"]
        seen: list[str] = []

        def busy(route: Any) -> None:
            if not answers:
                route.continue_()
                return
            answer = answers.pop(0)
            seen.append(answer)
            if answer == "refused":
                body = '{"error": {"code": "RATE_LIMITED", "message": "too many requests"}}'
                route.fulfill(status=429, content_type="application/json", body=body)
                return
            table = route.fetch().json()
            route.fulfill(json={**table, "status": "starting"})

        second = _lobby(two)
        second.fill("#lobby-name", "Leif")
        first.route(f"**/api/lobby/tables/{table_id}", busy)
        expect(first.locator("#lobby-mine")).to_contain_text("Starting the game")
        for width, height in ((1440, 900), (1366, 768), (390, 844)):
            first.set_viewport_size({"width": width, "height": height})
            shot(first, f"lobby-starting-{width}x{height}")
        second.locator("#lobby-tables tr", has_text="Astrid").locator(".lobby-join").click()
        second.wait_for_url("**/play/**")
        first.wait_for_url("**/play/**", timeout=15000)
        assert seen == ["starting", "refused"]
        assert first.url.split("?")[0] == second.url.split("?")[0]
        expect(first.locator("#players")).to_contain_text("Leif")
    finally:
        one.close()
        two.close()
