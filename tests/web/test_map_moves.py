"""Seeing every move and knowing what you can do, in real Chromium: the routes you can claim are
marked on the map (the others step back), an opponent's claim since your last move is highlighted
and placed car by car, the newest moves stay in view at the top of the side panel, and the
animation speed is a setting that persists."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import RequestLog, shot
from .driver import draw_two, draw_until, keep_all, wait_my_turn, wait_state
from .test_pages import start_ai_game


def claim_codes(page: Any) -> set[str]:
    """The routes the page's legal actions let this player claim (what the server sent)."""
    codes = page.evaluate(
        """() => [...document.querySelectorAll('#route-list .route-btn')].map(b => b.dataset.route)"""
    )
    return set(codes)


def test_claimable_routes_are_marked_on_the_map(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page, level="hard")
    keep_all(page)
    # Draw until some route is claimable.
    draw_until(page, "#route-list .route-btn")
    marked = set(page.evaluate("() => [...document.querySelectorAll('.route.claimable')].map(g => g.dataset.route)"))
    assert marked and marked == claim_codes(page)
    halo = page.locator(".route.claimable .halo").first
    assert halo.evaluate("h => getComputedStyle(h).strokeOpacity") != "0"
    assert halo.evaluate("h => getComputedStyle(h).stroke") != "rgba(0, 0, 0, 0)"
    assert float(halo.evaluate("h => parseFloat(getComputedStyle(h).strokeWidth)")) >= 16
    # The free routes you cannot claim now step back; the claimable ones do not.
    other = page.locator(".board.choosing .route:not(.claimed):not(.claimable)").first
    assert float(other.evaluate("g => getComputedStyle(g).opacity")) < 0.6
    assert float(page.locator(".route.claimable").first.evaluate("g => getComputedStyle(g).opacity")) == 1
    shot(page, "map-claimable")
    assert requests_seen.errors == []


def test_an_opponents_claim_is_highlighted_and_summed_up(page: Any, requests_seen: RequestLog) -> None:
    page.set_viewport_size({"width": 1366, "height": 768})
    start_ai_game(page, level="hard")
    keep_all(page)
    wait_my_turn(page)
    owned_by_ai = "() => [...document.querySelectorAll('.route.claimed[data-owner=\"1\"]')].map(g => g.dataset.route)"
    highlighted_now = "() => [...document.querySelectorAll('.route.last-move')].map(g => g.dataset.route)"
    # Only the computer's claims are ever highlighted; play until one is.
    for _ in range(40):
        draw_two(page)
        highlighted = set(page.evaluate(highlighted_now))
        assert highlighted <= set(page.evaluate(owned_by_ai))
        if highlighted:
            break
    else:
        raise AssertionError("no claim of the computer was highlighted in 40 turns")
    recent = page.locator("#recent")
    expect(recent).to_contain_text("Since your last turn")
    expect(recent).to_contain_text("claimed")
    # The newest moves are in view without scrolling on a 1366 × 768 laptop.
    box = recent.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 768
    # The placing animation ran on the opponent's cars.
    assert page.locator('.route.placing[data-owner="1"]').count() >= 1
    shot(page, "map-last-move")
    assert requests_seen.errors == []


def test_the_animation_speed_is_a_setting_that_persists(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    keep_all(page)
    wait_state(page)
    select = page.locator("#anim-speed")
    expect(select).to_have_value("normal")
    select.select_option("off")
    assert page.evaluate("() => document.body.dataset.anim") == "off"
    page.reload()
    wait_state(page)
    expect(page.locator("#anim-speed")).to_have_value("off")
    assert page.evaluate("() => document.body.dataset.anim") == "off"
    page.locator("#anim-speed").select_option("fast")
    assert page.evaluate("() => getComputedStyle(document.body).getPropertyValue('--anim-car').trim()") == "0.08s"
    assert requests_seen.errors == []
