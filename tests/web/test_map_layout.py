"""What a turn needs is on screen without scrolling: on a 390 × 844 phone (map, status, the cards
to draw and the hand, with 44 px targets) and on a 1366 × 768 laptop."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import RequestLog, shot
from .driver import keep_all
from .test_pages import start_ai_game


def box_of(page: Any, selector: str) -> Any:
    """The element's box; asked again if a re-render replaced the element meanwhile."""
    for _ in range(40):
        box = page.locator(selector).bounding_box()
        if box is not None:
            return box
        page.wait_for_timeout(50)
    return None


@pytest.mark.parametrize(("width", "height"), [(390, 844), (360, 740), (1366, 768), (3840, 2160)])
def test_a_turn_fits_the_screen(page: Any, requests_seen: RequestLog, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    start_ai_game(page)
    keep_all(page)
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
    page.evaluate("() => window.scrollTo(0, 0)")
    for selector in ("svg.board", "#status", "#deck", "#draw-tickets", 'button.faceup[data-slot="5"]', "#hand"):
        box = box_of(page, selector)
        assert box is not None, selector
        assert box["y"] >= 0 and box["y"] + box["height"] <= height + 1, (selector, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (selector, box)
    if width < 900:
        for selector in ("#deck", "#draw-tickets", 'button.faceup[data-slot="1"]'):
            box = box_of(page, selector)
            assert box is not None and box["height"] >= 44 and box["width"] >= 44, (selector, box)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    if width >= 3000:
        # A 4K screen at a pixel ratio of 1: the panels grow with the map (text at least 24 px).
        assert page.evaluate("() => parseFloat(getComputedStyle(document.documentElement).fontSize)") >= 24
        side = box_of(page, ".side")
        assert side is not None and side["width"] >= 0.15 * width, side
    shot(page, f"turn-{width}x{height}")
    assert requests_seen.errors == []


# For each car colour with a pattern: the pattern's id, shared with the cards in the hand.
PATTERNED = ("purple", "red", "blue", "green", "orange", "yellow")
CAR_STYLE_JS = """() => {
  const scale = (n) => { const m = n.getScreenCTM(); return Math.hypot(m.a, m.b); };
  const out = {};
  for (const car of document.querySelectorAll('.route:not(.claimed) .car')) {
    const colour = [...car.classList].find((c) => c.startsWith('car-')).slice(4);
    if (!(colour in out)) out[colour] = {fill: getComputedStyle(car).fill, scale: scale(car),
      thick: Math.min(car.getBoundingClientRect().width, car.getBoundingClientRect().height)};
  }
  const tiles = {};
  for (const p of document.querySelectorAll('pattern[id^="cb-"]')) {
    const mark = p.querySelector('path, circle');
    tiles[p.id.slice(3)] = {w: Number(p.getAttribute('width')), h: Number(p.getAttribute('height')),
      mark: mark.tagName === 'circle' ? 2 * Number(mark.getAttribute('r')) : Number(mark.getAttribute('stroke-width'))};
  }
  return {cars: out, tiles};
}"""


def test_colour_blind_patterns_read_at_the_default_zoom(page: Any, requests_seen: RequestLog) -> None:
    # Letters cannot be read on 5 px thick cars; the cars wear the cards' patterns instead: each
    # colour its own, with marks and periods large enough on a 1366 × 768 screen at the default zoom.
    page.set_viewport_size({"width": 1366, "height": 768})
    start_ai_game(page)
    keep_all(page)
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
    expect(page.locator("#cb-toggle")).to_be_checked()
    style = page.evaluate(CAR_STYLE_JS)
    cars, tiles = style["cars"], style["tiles"]
    for colour in PATTERNED:
        assert f'url("#cb-{colour}")' in cars[colour]["fill"], (colour, cars[colour])
        scale = cars[colour]["scale"]
        tile = tiles[colour]
        # a period of at least 2.5 px, marks of at least 0.85 px, on the screen
        assert min(tile["w"], tile["h"]) * scale >= 2.5, (colour, tile, scale)
        assert tile["mark"] * scale >= 0.85, (colour, tile, scale)
    # Six different patterns; black, white and gray stay plain (told apart by lightness).
    assert len({(t["w"], t["h"], t["mark"]) for t in tiles.values()}) >= 4
    assert len({cars[c]["fill"] for c in PATTERNED}) == 6
    for colour in ("black", "white", "gray"):
        assert "url" not in cars[colour]["fill"], colour
    # Claimed cars are the owner's colour, never a pattern.
    for fill in page.evaluate(
        "() => [...document.querySelectorAll('.route.claimed .car')].map((c) => getComputedStyle(c).fill)"
    ):
        assert "url" not in fill
    # Zoomed in twice, the letters are readable too (at least 8 px).
    page.click(".zoom-btn >> nth=0")
    page.click(".zoom-btn >> nth=0")
    page.wait_for_timeout(300)
    size = page.evaluate(
        """() => { const t = document.querySelector('.car-letter.cb'); const m = t.getScreenCTM();
             return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b); }"""
    )
    assert size >= 8, size
    # The aid off: plain colours.
    page.locator("#cb-toggle").uncheck()
    style = page.evaluate(CAR_STYLE_JS)
    for colour in PATTERNED:
        assert "url" not in style["cars"][colour]["fill"], colour
    assert requests_seen.errors == []
