"""Hovering or focusing a route shows what a player needs: its length, colour, kind and points,
who owns it, and the payments the rules allow this player now (from the server's legal actions)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import RequestLog, shot
from .driver import draw_until, keep_all
from .test_pages import start_ai_game


def test_route_tooltip_shows_points_and_payments(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    keep_all(page)
    draw_until(page, ".route.claimable")
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


def test_tapping_a_route_on_a_phone_shows_its_tooltip(
    browser: Any, browser_context_args: dict[str, Any], requests_seen: RequestLog
) -> None:
    # With a finger there is no hover: a tap focuses the route, which shows the tip until the next
    # tap elsewhere.
    args = {**browser_context_args, "viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
    context = browser.new_context(**args)
    requests_seen.attach(context)
    try:
        page = context.new_page()
        start_ai_game(page)
        keep_all(page)
        route = page.locator('.route[aria-label*=": 9 gray"]')
        route.tap()
        tip = page.locator("#route-tip")
        expect(tip).to_be_visible()
        expect(tip).to_contain_text("Murmansk")
        expect(tip).to_contain_text("27 points")
        page.wait_for_timeout(300)
        expect(tip).to_be_visible()  # still there once the finger is up
        page.locator("#status").tap()
        expect(tip).to_be_hidden()
    finally:
        context.close()
    assert requests_seen.errors == []
