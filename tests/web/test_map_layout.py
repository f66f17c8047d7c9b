"""What a turn needs is on screen without scrolling: on a 390 × 844 phone (map, status, the cards
to draw and the hand, with 44 px targets) and on a 1366 × 768 laptop. The map reads at the default
zoom: the free routes' colour-blind patterns, and the claimed routes as trains with windows."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from playwright.sync_api import expect
from websockets.sync.client import connect

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
    # Claimed cars are the owner's colour, never a pattern (their windows: test_claimed_routes_are_trains_with_windows).
    for fill in page.evaluate(
        "() => [...document.querySelectorAll('.route.claimed .car, .route.claimed .car-windows')]"
        ".map((c) => getComputedStyle(c).fill)"
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


def finished_three_player_game(base_url: str, page: Any) -> tuple[str, str]:
    """A three-player pass-and-play game played to its end over the socket (random legal moves,
    seeded): every owner's colour is on the board. Returns its id and a seat's token."""
    seats = [{"name": "Ola"}, {"name": "Kari"}, {"name": "Nils"}]
    data = page.request.post("/api/games", data={"mode": "hotseat", "seats": seats}).json()
    game_id, token = data["game"]["id"], data["invites"][0]["token"]
    rng = random.Random(5)
    with connect(base_url.replace("http://", "ws://") + f"/ws/games/{game_id}?token={token}") as ws:
        while True:
            message = json.loads(ws.recv(timeout=10))
            if message["type"] == "game_over":
                return game_id, token
            if message["type"] == "state" and message["legal"]:
                # Claims first: a board full of trains, in fewer moves.
                claims = [a["action"] for a in message["legal"] if a["action"].startswith("C ")]
                action = rng.choice(claims) if claims else rng.choice(message["legal"])["action"]
                ws.send(json.dumps({"type": "act", "action": action}))


TRAINS_JS = """() => {
  const scale = (n) => { const m = n.getScreenCTM(); return Math.hypot(m.a, m.b); };
  const free = [...document.querySelectorAll('.route:not(.claimed) .car-windows')]
    .filter((w) => w.getBoundingClientRect().width > 0).length;
  const routes = [...document.querySelectorAll('.route.claimed')].map((g) => {
    const cars = [...g.querySelectorAll('.car')];
    const panes = [...g.querySelectorAll('.car-windows')];
    return {owner: Number(g.dataset.owner), cars: cars.length, panes: panes.length,
      carFills: [...new Set(cars.map((c) => getComputedStyle(c).fill))],
      paneFills: [...new Set(panes.map((w) => getComputedStyle(w).fill))],
      windows: panes.map((w) => (w.getAttribute('d').match(/M/g) || []).length),
      coupling: g.querySelectorAll('.car-coupling').length,
      // the smallest side of a window pane on the screen, in CSS pixels
      pane: Math.min(...panes.map((w) => {
        const [, along, across] = w.getAttribute('d').match(/h([\\d.]+)v([\\d.]+)/).map(Number);
        return Math.min(across, along) * scale(w);
      }))};
  });
  return {free, routes, patterned: [...document.querySelectorAll('.route.claimed .car')]
    .some((c) => getComputedStyle(c).fill.includes('url'))};
}"""


def rgb(css: str) -> tuple[int, ...]:
    """(r, g, b) of a computed ``rgb(…)`` colour."""
    return tuple(int(part) for part in css[css.index("(") + 1 : css.index(")")].split(",")[:3])


def contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """WCAG contrast ratio of two sRGB colours."""

    def luminance(c: tuple[int, ...]) -> float:
        lin = [(v / 255) / 12.92 if v <= 10 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize(("width", "height", "smallest"), [(1366, 768, 1.9), (390, 844, 1.2)])
def test_claimed_routes_are_trains_with_windows(
    page: Any, base_url: str, requests_seen: RequestLog, width: int, height: int, smallest: float
) -> None:
    # A claimed route is a little train in its owner's colour: windows on every car in the owner's
    # ink, couplings between the cars; never the colour-blind patterns of the free routes' colours.
    page.set_viewport_size({"width": width, "height": height})
    game_id, token = finished_three_player_game(base_url, page)
    page.goto(f"/play/{game_id}?seat={token}")
    page.locator("#final-dialog").wait_for()
    page.click("#close-scores")
    expect(page.locator("#cb-toggle")).to_be_checked()
    trains = page.evaluate(TRAINS_JS)
    routes = trains["routes"]
    assert {r["owner"] for r in routes} == {0, 1, 2}, routes
    assert not trains["patterned"]
    assert trains["free"] == 0  # free routes show no windows
    colours: dict[int, set[str]] = {0: set(), 1: set(), 2: set()}
    for route in routes:
        assert route["panes"] == route["cars"] and route["coupling"] == 1, route
        assert all(count >= 1 for count in route["windows"]), route
        assert len(route["carFills"]) == 1 and len(route["paneFills"]) == 1, route
        body, ink = route["carFills"][0], route["paneFills"][0]
        assert "url" not in body and "url" not in ink, route
        # The windows read on the car: as far from its colour as the owner's number is.
        assert contrast(rgb(body), rgb(ink)) >= 4.5, route
        # Readable at the default zoom: a pane at least this many CSS pixels (a phone's screen
        # has three device pixels to each).
        assert route["pane"] >= smallest, route
        colours[route["owner"]].add(body)
    # Each owner one colour, and the three owners' colours apart.
    assert all(len(c) == 1 for c in colours.values()), colours
    assert len(set().union(*colours.values())) == 3, colours
    # Long cars have more windows than short ones (a car, not a pattern).
    counts = [n for r in routes for n in r["windows"]]
    assert max(counts) > min(counts), counts
    shot(page, f"trains-{width}x{height}")
    # The replay draws the same trains, and takes them away again when it goes back to the start.
    page.goto(f"/replay/{game_id}?token={token}")
    page.click("#replay-end")
    expect(page.locator(".route.claimed").first).to_be_visible()
    drawn = [{k: v for k, v in r.items() if k != "pane"} for r in routes]  # the replay's map has its own size
    assert [{k: v for k, v in r.items() if k != "pane"} for r in page.evaluate(TRAINS_JS)["routes"]] == drawn
    page.click("#replay-start")
    expect(page.locator(".route.claimed")).to_have_count(0)
    assert page.evaluate(TRAINS_JS)["free"] == 0
    assert requests_seen.errors == []
