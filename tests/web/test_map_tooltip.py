"""Hovering or focusing a route shows what a player needs: its length, colour, kind and points,
who owns it, and the payments the rules allow this player now (from the server's legal actions)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import RequestLog, shot
from .driver import actions, keep_all, wait_change
from .test_pages import start_ai_game


def test_route_tooltip_shows_points_and_payments(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    keep_all(page)
    for _ in range(15):
        page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
        if page.locator(".route.claimable").count():
            break
        for _ in range(2):
            before = actions(page)
            page.keyboard.press("d")
            wait_change(page, before)
            if page.evaluate("() => document.body.dataset.myTurn") != "1":
                break
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
    route = page.locator(".route.claimable").first
    code = route.get_attribute("data-code")
    route.focus()
    tip = page.locator("#route-tip")
    expect(tip).to_be_visible()
    name = page.evaluate(f"() => document.querySelector('.route[data-code=\"{code}\"] title').textContent")
    expect(tip).to_contain_text(name.split(":")[0])
    expect(tip).to_contain_text("point")
    expect(tip).to_contain_text("You can claim it now")
    payments = page.evaluate("() => [...document.querySelectorAll('#route-list .route-btn')].length")
    assert payments >= 1
    assert tip.locator(".tip-pays .card").count() >= 1
    shot(page, "route-tooltip")
    page.locator("#deck").focus()
    expect(tip).to_be_hidden()
    assert requests_seen.errors == []
