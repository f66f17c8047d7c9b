"""Playing a rule variant in the browser: the start page's "Rules" choice starts a small-board game
against the computer; the game page draws the custom board from its cities' positions (no Nordic
land), names the rules, takes a move and shows the same game after a reload. An uploaded variant
file (with its board file) starts a game too; a bad one is refused with the parser's line.
Screenshots at 1440 × 900, 1366 × 768 and 390 × 844 go to test-artifacts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from ttr_nordic.engine.variant import load_variant

from .conftest import RequestLog, shot
from .driver import actions, keep_all, wait_state

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"
SMALL = load_variant(EXAMPLES / "small-board.toml")

# The cities as drawn: name and centre, in board order.
CITIES_JS = """() => [...document.querySelectorAll("svg.board circle.city")].map((c) =>
  [c.querySelector("title").textContent, Number(c.getAttribute("cx")), Number(c.getAttribute("cy"))])"""


def choose_rules(page: Any, form: str, value: str) -> None:
    page.locator(f'#{form}-variant option[value="{value}"]').wait_for(state="attached")
    page.select_option(f"#{form}-variant", value)


def check_custom_board(page: Any) -> None:
    """The small board is drawn: its 8 cities placed by their x/y (one scale, one shift), no land."""
    page.locator("svg.board.custom").wait_for()
    assert page.locator("svg.board .land path").count() == 0
    drawn = page.evaluate(CITIES_JS)
    assert [name for name, _, _ in drawn] == [c.name for c in SMALL.board.cities]
    raw = [(c.x, c.y) for c in SMALL.board.cities]
    scale = (drawn[1][1] - drawn[0][1]) / (raw[1][0] - raw[0][0])
    assert scale > 0
    for (_, x, y), (rx, ry) in zip(drawn, raw, strict=True):
        assert abs((x - drawn[0][1]) - (rx - raw[0][0]) * scale) < 0.2
        assert abs((y - drawn[0][2]) - (ry - raw[0][1]) * scale) < 0.2
    assert page.locator("svg.board g.route").count() == len(SMALL.board.routes)


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (1366, 768), (390, 844)])
def test_a_small_board_game_from_the_start_page(page: Any, requests_seen: RequestLog, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.goto("/")
    choose_rules(page, "ai", "small-board")
    expect(page.locator("#ai-variant-about")).to_contain_text("8 cities")
    shot(page, f"variant-start-{width}x{height}")
    page.click("#start-ai")
    page.wait_for_url("**/play/**")
    wait_state(page)
    check_custom_board(page)
    expect(page.locator("#variant-note")).to_contain_text("Small board")
    page.locator("#keep-dialog").wait_for()
    shot(page, f"variant-tickets-{width}x{height}")
    keep_all(page)  # the first move: the tickets kept
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
    before = actions(page)
    assert before >= 2
    kept = page.locator("#tickets").inner_text()
    assert any(city.name in kept for city in SMALL.board.cities)  # the ticket kept, between two small-board cities
    shot(page, f"variant-game-{width}x{height}")
    page.reload()
    page.wait_for_function("n => Number(document.body.dataset.actions) === n", arg=before)
    check_custom_board(page)
    expect(page.locator("#variant-note")).to_contain_text("Small board")
    assert page.locator("#tickets").inner_text() == kept
    assert requests_seen.foreign() == [] and requests_seen.errors == []
    assert not any("land.json" in url for url in requests_seen.urls)


def test_an_uploaded_variant_file_and_a_bad_one(page: Any, requests_seen: RequestLog) -> None:
    page.goto("/")
    choose_rules(page, "ai", "upload")
    files = page.locator("#ai-variant-file")
    expect(files).to_be_visible()
    bad = {"name": "broken.toml", "mimeType": "text/plain", "buffer": b'[trains]\nper_player = "many"\n'}
    files.set_input_files([bad])
    page.click("#start-ai")
    expect(page.get_by_test_id("toast-error")).to_contain_text(
        "broken.toml, line 2, trains.per_player: must be a whole number, got 'many'"
    )
    assert "/play/" not in page.url
    files.set_input_files([str(EXAMPLES / "small-board.toml"), str(EXAMPLES / "small-board.json")])
    expect(page.locator("#ai-variant-about")).to_contain_text("small-board.toml")
    shot(page, "variant-upload")
    page.click("#start-ai")
    page.wait_for_url("**/play/**")
    wait_state(page)
    check_custom_board(page)
    expect(page.locator("#variant-note")).to_contain_text("Small board")
    assert requests_seen.foreign() == []
