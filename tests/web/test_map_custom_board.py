"""A custom board's map in the browser: the real map module of the page, given the board as the
server serializes it (``serialize.board_json``), places the cities by their own x/y and draws no
Nordic land. Screenshots at 1440 × 900, 1366 × 768 and 390 × 844 go to test-artifacts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ttr_nordic.engine.variant import load_variant
from ttr_nordic.server.serialize import board_json

from .conftest import RequestLog, shot

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"

# The map in a page of the real server, as the game page wraps it, built from the data given.
BUILD = """async (board) => {
  await (await import("/static/js/i18n.js")).loadLanguage("en"); // (the page may still be loading it)
  const { buildMap } = await import("/static/js/map.js");
  const map = buildMap({ board, land: null }, {});
  const wrap = document.createElement("div");
  wrap.className = "map-wrap";
  wrap.append(map.root);
  document.body.replaceChildren(wrap);
  map.setOwners(board.routes.map((r, i) => (i % 5 === 0 ? i % 3 : null)));
  return {
    cities: [...map.root.querySelectorAll("circle.city")].map((c) => [Number(c.getAttribute("cx")),
      Number(c.getAttribute("cy"))]),
    routes: map.root.querySelectorAll("g.route").length,
    landPaths: map.root.querySelectorAll(".land path").length,
    viewBox: map.root.getAttribute("viewBox"),
    label: map.root.getAttribute("aria-label"),
  };
}"""


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (1366, 768), (390, 844)])
def test_a_custom_board_is_drawn_from_its_city_positions(
    page: Any, requests_seen: RequestLog, width: int, height: int
) -> None:
    variant = load_variant(EXAMPLES / "small-board.toml")
    data = board_json(variant.board, variant.name)
    assert data["custom"] is True
    page.set_viewport_size({"width": width, "height": height})
    page.goto("/")
    drawn = page.evaluate(BUILD, data)
    assert drawn["routes"] == len(variant.board.routes) == 16
    assert drawn["landPaths"] == 0  # no Natural Earth outline around a custom board
    assert "small-board" in drawn["label"]
    cities = drawn["cities"]
    assert len(cities) == 8
    # The drawn positions are the board's x/y scaled by one factor and shifted.
    raw = [(c.x, c.y) for c in variant.board.cities]
    scale = (cities[1][0] - cities[0][0]) / (raw[1][0] - raw[0][0])
    for (x, y), (rx, ry) in zip(cities, raw, strict=True):
        assert abs((x - cities[0][0]) - (rx - raw[0][0]) * scale) < 0.2
        assert abs((y - cities[0][1]) - (ry - raw[0][1]) * scale) < 0.2
    _, _, box_w, box_h = (float(v) for v in drawn["viewBox"].split())
    assert all(0 < x < box_w and 0 < y < box_h for x, y in cities)
    board_box = page.locator("svg.board").bounding_box()
    assert board_box is not None and board_box["width"] <= width + 1
    shot(page, f"custom-board-{width}x{height}")
    assert requests_seen.foreign() == [] and not any("land.json" in url for url in requests_seen.urls)


def test_the_official_board_is_not_custom() -> None:
    from ttr_nordic.engine import load_board

    data = board_json(load_board())
    assert data["custom"] is False and len(data["cities"]) == 39
