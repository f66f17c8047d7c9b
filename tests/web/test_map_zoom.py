"""A map to enjoy, in real Chromium: zoom with the buttons, the wheel and the keyboard, pan by
dragging, and city names and car letters that grow with the zoom; a drag is not a click."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import RequestLog, shot
from .driver import keep_all
from .test_pages import start_ai_game


def view_box(page: Any) -> list[float]:
    return [float(v) for v in page.locator("svg.board").get_attribute("viewBox").split()]


def label_px(page: Any, name: str) -> float:
    """The rendered height of a city's name, in CSS pixels."""
    box = page.locator("text.city-label", has_text=name).bounding_box()
    assert box is not None
    return float(box["height"])


def test_zoom_buttons_wheel_keys_and_drag(page: Any, requests_seen: RequestLog) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    start_ai_game(page)
    keep_all(page)
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
    whole = view_box(page)
    small = label_px(page, "Oslo")
    expect(page.locator("#zoom-out")).to_be_disabled()
    for button in ("#zoom-in", "#zoom-out", "#zoom-fit"):
        box = page.locator(button).bounding_box()
        assert box is not None and box["width"] >= 44 and box["height"] >= 44  # touch targets
    page.locator("#zoom-in").click()
    page.locator("#zoom-in").click()
    zoomed = view_box(page)
    assert zoomed[2] < whole[2] / 1.7
    assert label_px(page, "Oslo") > 1.7 * small  # names grow with the zoom
    shot(page, "map-zoomed-phone")
    # Drag to pan: the view moves, and the drag does not open a route.
    board = page.locator("svg.board").bounding_box()
    assert board is not None
    cx, cy = board["x"] + board["width"] / 2, board["y"] + board["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx + 80, cy + 60, steps=6)
    page.mouse.up()
    panned = view_box(page)
    assert panned[0] != zoomed[0] or panned[1] != zoomed[1]
    expect(page.locator("#claim-dialog")).to_have_count(0)
    # The whole map again, then the keyboard: + zooms, arrows pan while a route has focus, 0 resets.
    page.locator("#zoom-fit").click()
    assert view_box(page) == whole
    page.locator("body").press("+")
    after_key = view_box(page)
    assert after_key[2] < whole[2]
    page.locator(".route").first.focus()
    page.keyboard.press("ArrowRight")
    assert view_box(page)[0] > after_key[0] or view_box(page)[0] == whole[0] + whole[2] - after_key[2]
    page.locator("body").press("0")
    assert view_box(page) == whole
    assert requests_seen.errors == []


def test_wheel_zooms_around_the_pointer(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    keep_all(page)
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
    whole = view_box(page)
    city = page.locator("circle.city").nth(5)
    box = city.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    for _ in range(4):
        page.mouse.wheel(0, -120)
    zoomed = view_box(page)
    assert zoomed[2] < whole[2] / 1.5
    after = city.bounding_box()
    assert after is not None
    # The city under the pointer stays under it (within a few pixels).
    assert abs(after["x"] + after["width"] / 2 - x) < 6 and abs(after["y"] + after["height"] / 2 - y) < 6
    assert requests_seen.errors == []
