"""Playing a rule variant in the browser: the start page's "Rules" choice starts a small-board game
against the computer; the game page draws the custom board from its cities' positions (no Nordic
land), names the rules, takes a move and shows the same game after a reload. An uploaded variant
file (with its board file) starts a game too; a bad one is refused with the parser's line.
Screenshots at 1440 × 900, 1366 × 768 and 390 × 844 go to test-artifacts."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from websockets.sync.client import connect

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


def test_a_shipped_variants_description_is_worded_in_the_pages_language(german_page: Any) -> None:
    page = german_page
    page.goto("/")
    choose_rules(page, "ai", "short-game")
    expect(page.locator("#ai-variant-about")).to_have_text(
        "25 Züge für jeden, 3 Zielkarten ausgeteilt (2 behalten), 10 Punkte Bonus für die längste Strecke."
    )
    choose_rules(page, "ai", "small-board")
    expect(page.locator("#ai-variant-about")).to_contain_text("8 Städte")
    shot(page, "variant-start-de")
    page.click("#start-ai")
    page.wait_for_url("**/play/**")
    expect(page.locator("#variant-note")).to_have_attribute("title", re.compile("^8 Städte"))


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


def play_hotseat_to_the_end(base_url: str, game_id: str, token: str) -> int:
    """Play a pass-and-play game to its end over the game's WebSocket (mostly claims); its actions."""
    rng = random.Random(4)
    url = base_url.replace("http://", "ws://") + f"/ws/games/{game_id}?token={token}"
    last = -1
    with connect(url) as ws:
        for _ in range(3000):
            message = json.loads(ws.recv(timeout=30))
            assert message["type"] != "error", message
            if message["type"] == "game_over":
                return last
            if message["type"] == "state":
                last = message["actions"]
                if message["legal"]:
                    legal = [a["action"] for a in message["legal"]]
                    claims = [a for a in legal if a.startswith("C ")]
                    move = rng.choice(claims) if claims and rng.random() < 0.8 else rng.choice(legal)
                    ws.send(json.dumps({"type": "act", "action": move, "expected": last}))
    raise AssertionError("the game did not end")


def test_the_replay_of_a_small_board_game(page: Any, base_url: str, requests_seen: RequestLog) -> None:
    seats = [{"kind": "human", "name": "Anna"}, {"kind": "human", "name": "Bjørn"}]
    created = page.request.post("/api/games", data={"mode": "hotseat", "seats": seats, "variant": "small-board"})
    assert created.status == 201, created.text()
    game_id, token = created.json()["game"]["id"], created.json()["invites"][0]["token"]
    total = play_hotseat_to_the_end(base_url, game_id, token)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"/replay/{game_id}?seat={token}")
    step = page.locator("#replay-step")
    expect(step).to_have_text(f"Step 0 / {total}")
    check_custom_board(page)
    expect(page.locator("#variant-note")).to_contain_text("Small board")
    page.click("#replay-end")
    expect(step).to_have_text(f"Step {total} / {total}")
    claimed = page.request.get(f"/api/games/{game_id}/replay/{total}", headers={"X-Game-Token": token}).json()
    owners = [o for o in claimed["view"]["route_owner"] if o is not None]
    expect(page.locator("svg.board .route.claimed")).to_have_count(len(owners))
    assert owners
    page.locator("#replay-final").get_by_test_id("winner").wait_for()
    shot(page, "variant-replay")
    assert requests_seen.foreign() == [] and requests_seen.errors == []


def test_a_variant_table_is_played_and_watched(browser: Any, browser_context_args: dict[str, Any]) -> None:
    """A table opened with the small board: another player joins, the creator's page opens the
    game on the small board, and a spectator watches it on the same board."""
    creator = browser.new_context(**browser_context_args)
    watcher = browser.new_context(**browser_context_args)
    try:
        page = creator.new_page()
        page.set_viewport_size({"width": 1366, "height": 768})
        page.goto("/lobby")
        choose_rules(page, "lobby", "small-board")
        shot(page, "variant-lobby-form")
        page.click("#lobby-create")
        waiting = page.locator("#lobby-mine")
        expect(waiting).to_contain_text("Small board")
        table_id = waiting.locator("[data-table]").get_attribute("data-table")
        joined = watcher.request.post(f"/api/lobby/tables/{table_id}/join", data={"name": "Leif"})
        assert joined.status == 200, joined.text()
        game_id = joined.json()["table"]["game_id"]
        page.wait_for_url(f"**/play/{game_id}**")
        wait_state(page)
        check_custom_board(page)
        expect(page.locator("#variant-note")).to_contain_text("Small board")
        spectator = watcher.new_page()
        spectator.set_viewport_size({"width": 1366, "height": 768})
        spectator.goto("/lobby")
        expect(spectator.locator("#lobby-playing")).to_contain_text("Small board")
        spectator.goto(f"/watch/{game_id}")
        spectator.locator("#players").wait_for()
        check_custom_board(spectator)
        expect(spectator.locator("#variant-note")).to_contain_text("Small board")
        shot(spectator, "variant-watch")
    finally:
        creator.close()
        watcher.close()
