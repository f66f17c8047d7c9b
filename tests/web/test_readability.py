"""The map reads at a glance, measured in real Chromium at the default zoom: city names at least
12 px tall on a 1366 × 768 laptop and 11 px on a 390 × 844 phone, no two names overlapping, the view
cropped to the played land, and colour letters either readable (9 px or more) or hidden where the
cars' patterns carry the colour alone. Also: one level-one heading on the game page, and a route's
tooltip gone once the view zooms."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import RequestLog, shot
from .driver import draw_two, keep_all, wait_my_turn
from .test_pages import start_ai_game

# Each city name's rendered size: the font size times the SVG's screen scale, and its screen box.
LABELS_JS = """() => [...document.querySelectorAll('text.city-label')].map((t) => {
  const m = t.getScreenCTM();
  const b = t.getBoundingClientRect();
  return {name: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b),
          box: {x: b.left, y: b.top, w: b.width, h: b.height}};
})"""

# The rendered size of every colour letter that is shown (display is not none).
LETTERS_JS = """() => [...document.querySelectorAll('.car-letter')]
  .filter((t) => getComputedStyle(t).display !== 'none')
  .map((t) => { const m = t.getScreenCTM();
                return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b); })"""


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) > 0.5
        and min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) > 0.5
    )


def names_covered_by_map_buttons(page: Any) -> list[str]:
    """City names that a button over the map (hint, zoom) covers."""
    covered: list[str] = page.evaluate(
        """() => {
          const tools = [...document.querySelectorAll('.map-wrap button')].map((b) => b.getBoundingClientRect());
          const hit = (r) => tools.some((b) => b.left < r.right && r.left < b.right
            && b.top < r.bottom && r.top < b.bottom);
          return [...document.querySelectorAll('text.city-label')].filter((t) => hit(t.getBoundingClientRect()))
            .map((t) => t.textContent); }"""
    )
    return covered


@pytest.mark.parametrize(("width", "height", "smallest"), [(1366, 768, 12.0), (390, 844, 11.0), (1440, 900, 12.0)])
def test_city_names_read_at_the_default_zoom(
    page: Any, requests_seen: RequestLog, width: int, height: int, smallest: float
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    start_ai_game(page)
    keep_all(page)
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
    # The names are laid out once the board has its size on the screen.
    page.wait_for_function(
        f"""() => {{ const t = document.querySelector('text.city-label'); const m = t.getScreenCTM();
              return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b) >= {smallest}; }}""",
        timeout=10000,
    )
    labels = page.evaluate(LABELS_JS)
    assert len(labels) == 39
    small = [(label["name"], round(label["px"], 1)) for label in labels if label["px"] < smallest]
    assert small == [], small
    clashes = [
        (a["name"], b["name"]) for i, a in enumerate(labels) for b in labels[i + 1 :] if overlaps(a["box"], b["box"])
    ]
    assert clashes == [], clashes
    # Every name lies inside the board on the screen (the view is cropped to the played land).
    board = page.locator("svg.board").bounding_box()
    assert board is not None
    for label in labels:
        box = label["box"]
        assert box["x"] >= board["x"] - 1 and box["x"] + box["w"] <= board["x"] + board["width"] + 1, label
        assert box["y"] >= board["y"] - 1 and box["y"] + box["h"] <= board["y"] + board["height"] + 1, label
    # The cities fill the view (the default viewBox): their bounds span at least 80 % of it each way.
    spread = page.evaluate(
        """() => { const cs = [...document.querySelectorAll('circle.city')];
             const xs = cs.map((c) => Number(c.getAttribute('cx'))), ys = cs.map((c) => Number(c.getAttribute('cy')));
             const [, , w, h] = document.querySelector('svg.board').getAttribute('viewBox').split(' ').map(Number);
             return {w: (Math.max(...xs) - Math.min(...xs)) / w, h: (Math.max(...ys) - Math.min(...ys)) / h}; }"""
    )
    assert spread["w"] >= 0.8 and spread["h"] >= 0.8, spread
    # Colour letters: each one shown is at least 9 px tall; zoomed in far enough, they are shown.
    assert all(px >= 9 for px in page.evaluate(LETTERS_JS))
    assert names_covered_by_map_buttons(page) == []
    shot(page, f"readable-{width}x{height}")
    for _ in range(5):
        page.locator("#zoom-in").click()
    shown = page.evaluate(LETTERS_JS)
    assert shown and min(shown) >= 9, shown[:5]
    assert requests_seen.errors == []


def test_one_heading_and_the_tooltip_leaves_with_a_zoom(page: Any, requests_seen: RequestLog) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    start_ai_game(page)
    keep_all(page)
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
    assert page.locator("h1").count() == 1
    route = page.locator(".route:not(.claimed)").first
    route.focus()
    tip = page.locator("#route-tip")
    assert tip.is_visible()
    board = page.locator("svg.board").bounding_box()
    assert board is not None
    page.mouse.move(board["x"] + board["width"] / 2, board["y"] + board["height"] / 2)
    page.mouse.wheel(0, -200)
    page.wait_for_function("() => document.querySelector('#route-tip').hidden")
    assert requests_seen.errors == []


# Every visible control of the page outside the map (whose routes and cities grow with its zoom),
# with its own box and, for an input inside a label, the label's box.
TARGETS_JS = """() => [...document.querySelectorAll('button, input, select, a, [role=button], summary')]
  .filter((n) => !n.closest('svg') && n.getClientRects().length && getComputedStyle(n).visibility !== 'hidden')
  .filter((n) => { const b = n.getBoundingClientRect(); return b.width > 1 && b.height > 1; })
  .map((n) => { const b = n.getBoundingClientRect(); const l = n.closest('label');
    const lb = l ? l.getBoundingClientRect() : b;
    return {what: n.id || n.className || n.textContent.slice(0, 30), w: Math.max(b.width, lb.width),
            h: Math.max(b.height, lb.height)}; })"""


def test_every_control_on_the_phone_is_a_44_px_target(page: Any, requests_seen: RequestLog) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    start_ai_game(page)
    keep_all(page)
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
    small = [t for t in page.evaluate(TARGETS_JS) if t["w"] < 44 - 0.5 or t["h"] < 44 - 0.5]
    assert small == [], small
    assert names_covered_by_map_buttons(page) == []
    assert requests_seen.errors == []


# The look of a route's band: colour, width, dashes and motion.
HALO_STYLE_JS = """(sel) => [...document.querySelectorAll(sel)].map((h) => { const s = getComputedStyle(h);
  return [s.stroke, s.strokeWidth, s.strokeDasharray, s.animationName].join(' | '); })"""


def test_the_last_claim_looks_like_nothing_you_can_claim(page: Any, requests_seen: RequestLog) -> None:
    page.set_viewport_size({"width": 1366, "height": 768})
    start_ai_game(page, level="hard")
    keep_all(page)
    wait_my_turn(page)
    for _ in range(40):
        draw_two(page)
        if page.locator(".route.last-move").count() and page.locator(".route.claimable").count():
            break
    else:
        raise AssertionError("no turn with both a new claim of the computer and a claimable route in 40 turns")
    last = set(page.evaluate(HALO_STYLE_JS, ".route.last-move .halo"))
    claimable = set(page.evaluate(HALO_STYLE_JS, ".route.claimable:not(.last-move) .halo"))
    assert last and claimable and not last & claimable, (last, claimable)
    assert all("last-move-march" in style for style in last), last
    shot(page, "last-move-1366x768")
    assert requests_seen.errors == []


TAB_TO_JS = """(sel) => Boolean(document.activeElement && document.activeElement.closest(sel))"""


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_the_cards_are_a_few_tab_stops_away(page: Any, requests_seen: RequestLog, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    start_ai_game(page)
    keep_all(page)
    wait_my_turn(page)
    # The map is still drawn first: left of the panel on a laptop, above it on a phone.
    board = page.locator("svg.board").bounding_box()
    market = page.locator("#market").bounding_box()
    assert board is not None and market is not None
    assert (board["x"] < market["x"]) if width > 900 else (board["y"] < market["y"])
    # From the top of the page: Tab stops until the cards to draw, then until the hand or past it.
    # (the first stop is the skip link, which is not used here: the count is of the plain Tab walk)
    page.locator("#skip-link").focus()
    assert page.evaluate("() => document.activeElement.id") == "skip-link"
    # (on a phone the ticket list opens from its button in the bar at the bottom: the button counts)
    stops = {"#market": 0, "#hand, #tickets, #tickets-toggle": 0}
    presses = 1
    for selector in stops:
        while presses < 60 and not page.evaluate(TAB_TO_JS, selector):
            page.keyboard.press("Tab")
            presses += 1
        stops[selector] = presses
    assert stops["#market"] <= 15, stops
    assert stops["#hand, #tickets, #tickets-toggle"] <= 25, stops
    assert requests_seen.errors == []


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (1366, 768)])
def test_hand_and_tickets_stay_in_view_with_the_hint_and_guide_open(
    page: Any, requests_seen: RequestLog, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.goto("/")
    page.fill("#ai-name", "Tester")
    page.click("#start-guided")
    page.wait_for_url("**/play/**")
    keep_all(page)
    wait_my_turn(page)
    page.locator("#hint-button").click()
    page.locator("#hint").get_by_text("The expert would:").wait_for(timeout=20000)
    assert page.locator("#guide").is_visible()
    for scroll in (0, 400):
        page.evaluate("(y) => window.scrollTo(0, y)", scroll)
        for selector in ("#market", "#hand", "#tickets"):
            box = page.locator(selector).bounding_box()
            assert box is not None, selector
            assert box["y"] >= 0 and box["y"] + box["height"] <= height + 1, (scroll, selector, box)
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, f"dock-hint-guide-{width}x{height}")
    assert requests_seen.errors == []
