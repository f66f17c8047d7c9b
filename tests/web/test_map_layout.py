"""What a turn needs is on screen without scrolling: on a 390 × 844 phone (map, status, the cards
to draw and the hand, with 44 px targets) and on a 1366 × 768 laptop."""

from __future__ import annotations

from typing import Any

import pytest

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


@pytest.mark.parametrize(("width", "height"), [(390, 844), (360, 740), (1366, 768)])
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
    shot(page, f"turn-{width}x{height}")
    assert requests_seen.errors == []
